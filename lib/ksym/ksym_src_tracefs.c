// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tracefs' lists of ftrace's sites, and the same lists given as files:
 * available_filter_functions_addrs (Linux >= 6.5) names each site with its
 * address; available_filter_functions names only, joined with kallsyms. The
 * kernel looks up each record's name to print a list. Without them, kallsyms'
 * text symbols serve where the caller allows traceability unknown.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ksym_db.h"

/*
 * tracefs: its own mount, or under debugfs on older setups. -EACCES (the
 * directory in tracefs_denied) or -ENOENT; ksym_db_refuse() words them.
 */
int ksym_db_find_tracefs(struct ksym_db *db)
{
	static const char *const dirs[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	char path[128];
	size_t i;

	if (db->opts.tracefs_path) {
		snprintf(db->tracefs, sizeof(db->tracefs), "%s", db->opts.tracefs_path);
		return 0;
	}
	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s/available_filter_functions", dirs[i]);
		if (access(path, F_OK) == 0) {
			snprintf(db->tracefs, sizeof(db->tracefs), "%s", dirs[i]);
			return 0;
		}
		/* tracefs is mode 0700: an unprivileged user cannot even look */
		if (errno == EACCES) {
			db->tracefs_denied = dirs[i];
			return -EACCES;
		}
	}
	return -ENOENT;
}

/* The names-only list joined with kallsyms text symbols. */
static int join_funcs(struct ksym_db *db, const char *funcs_path)
{
	uint64_t t0;
	int err, left;

	err = ksym_db_load_file(db, KSYM_FMT_FUNCS, funcs_path, false, true, &db->funcs);
	if (!err)
		err = ksym_db_load_kallsyms(db, !(db->opts.need & KSYM_DB_KALLSYMS));
	if (err)
		return err;
	t0 = ksym_now_ns();
	left = ksym_table__resolve(db->funcs, db->kallsyms);
	db->phase_ns[KSYM_PH_INDEX] += ksym_now_ns() - t0;
	if (left < 0)
		return ksym_db_fail(db, left, "cannot index symbols: %s", strerror(-left));
	if (left && db->opts.verbose)
		ksym_db_warn(db, "%d traceable functions not in kallsyms, left out", left);
	return 0;
}

/* No readable function list: kallsyms text symbols, traceability unknown. */
static int fallback_funcs(struct ksym_db *db, const char *why)
{
	char reason[sizeof(db->err)];
	int err;

	snprintf(reason, sizeof(reason), "%s", why);
	err = ksym_db_load_kallsyms(db, !(db->opts.need & KSYM_DB_KALLSYMS));
	if (err)
		return err;
	ksym_db_warn(db, "%s; using %s text symbols, traceability unknown", reason,
		     ksym_db_kallsyms_source(db));
	db->err[0] = '\0';
	db->funcs = db->kallsyms;
	ksym_db_set_from(db, KSYM_ORIG_UNKNOWN, KSYM_TIER_LIVE, KSYM_EXT_WHOLE);
	return 0;
}

/* tracefs' list of sites, live: with addresses (Linux >= 6.5), else names joined. */
static int tracefs_load(struct ksym_db *db, const struct ksym_plan_step *s)
{
	bool addrs = s->origins & 1u << KSYM_ORIG_ADDRS;
	char path[160];
	int err;

	snprintf(path, sizeof(path), "%s/%s", db->tracefs,
		 addrs ? "available_filter_functions_addrs" : "available_filter_functions");
	err = addrs ? ksym_db_load_file(db, KSYM_FMT_FUNCS_ADDRS, path, false, true, &db->funcs)
		    : join_funcs(db, path);
	/* refused (a security policy): the unknown step's turn, where it was allowed */
	if (err && (err == -EACCES || err == -EPERM) && !db->funcs &&
	    db->opts.allow_unknown_traceability)
		return -EAGAIN;
	if (err)
		return err;
	ksym_db_set_from(db, addrs ? KSYM_ORIG_ADDRS : KSYM_ORIG_JOIN, KSYM_TIER_LIVE,
			 KSYM_EXT_WHOLE);
	ksym_db_funcs_put(db, db->origin, db->funcs, false, false);
	return 0;
}

/* A list of sites given as a file: available_filter_functions_addrs, or names joined. */
static int file_load(struct ksym_db *db, const struct ksym_plan_step *s)
{
	bool addrs = s->step == KSYM_STEP_FILE_ADDRS;
	int err;

	err = addrs ? ksym_db_load_file(db, KSYM_FMT_FUNCS_ADDRS, db->opts.funcs_addrs_path, false, true,
					&db->funcs)
		    : join_funcs(db, db->opts.funcs_path);
	if (err)
		return err;
	ksym_db_set_from(db, addrs ? KSYM_ORIG_ADDRS : KSYM_ORIG_JOIN, KSYM_TIER_LIVE,
			 KSYM_EXT_WHOLE);
	return 0;
}

/* No readable list, where the caller allows it: why is the refusal above. */
static int unknown_load(struct ksym_db *db, const struct ksym_plan_step *s)
{
	(void)s;
	return fallback_funcs(db, db->err);
}

const struct ksym_source ksym_src_tracefs = {
	.name = "tracefs' list of sites",
	.produces = KSYM_SITES_LISTED,
	.load = tracefs_load,
};

const struct ksym_source ksym_src_file = {
	.name = "a list of sites given",
	.produces = KSYM_SITES_LISTED,
	.load = file_load,
};

const struct ksym_source ksym_src_unknown = {
	.name = "kallsyms, traceability unknown",
	.produces = KSYM_SITES_LISTED,
	.load = unknown_load,
};
