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

#include "ksym_source.h"

int ksym_tracefs_find(const char *given, char *dir, size_t dir_sz, const char **denied)
{
	static const char *const dirs[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	char path[128];
	size_t i;

	if (given) {
		snprintf(dir, dir_sz, "%s", given);
		return 0;
	}
	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s/available_filter_functions", dirs[i]);
		if (access(path, F_OK) == 0) {
			snprintf(dir, dir_sz, "%s", dirs[i]);
			return 0;
		}
		/* tracefs is mode 0700: an unprivileged user cannot even look */
		if (errno == EACCES) {
			*denied = dirs[i];
			return -EACCES;
		}
	}
	return -ENOENT;
}

/* The kallsyms the load keeps: every symbol where the caller wants them, else text. */
static int kallsyms_of(struct ksym_reading *rd, struct ksym_table **out)
{
	return rd->kallsyms(rd, !(rd->opts->need & KSYM_DB_KALLSYMS), out);
}

/*
 * The names-only list joined with kallsyms text symbols. *listed: the list
 * itself was read (a refusal after it is no refusal of tracefs).
 */
static int join_funcs(struct ksym_reading *rd, const char *funcs_path, struct ksym_table **out,
		      bool *listed)
{
	struct ksym_table *syms;
	uint64_t t0;
	int err, left;

	err = ksym_rd_file(rd, KSYM_FMT_FUNCS, funcs_path, false, true, out);
	*listed = !err;
	if (!err)
		err = kallsyms_of(rd, &syms);
	if (err)
		goto fail;
	t0 = ksym_now_ns();
	left = ksym_table__resolve(*out, syms);
	rd->phase_ns[KSYM_PH_INDEX] += ksym_now_ns() - t0;
	if (left < 0) {
		err = ksym_rd_fail(rd, left, "cannot index symbols: %s", strerror(-left));
		goto fail;
	}
	if (left && rd->opts->verbose)
		ksym_rd_warn(rd, "%d traceable functions not in kallsyms, left out", left);
	return 0;
fail:
	ksym_table__free(*out);
	*out = NULL;
	return err;
}

/* tracefs' list of sites, live: with addresses (Linux >= 6.5), else names joined. */
static int tracefs_load(struct ksym_reading *rd, const struct ksym_plan_step *s,
			struct ksym_loaded *out)
{
	bool addrs = s->origins & 1u << KSYM_ORIG_ADDRS, listed = false;
	char path[160];
	int err;

	snprintf(path, sizeof(path), "%s/%s", rd->tracefs,
		 addrs ? "available_filter_functions_addrs" : "available_filter_functions");
	err = addrs ? ksym_rd_file(rd, KSYM_FMT_FUNCS_ADDRS, path, false, true, &out->funcs)
		    : join_funcs(rd, path, &out->funcs, &listed);
	/* refused (a security policy): the unknown step's turn, where it was allowed */
	if (err && (err == -EACCES || err == -EPERM) && !listed &&
	    rd->opts->allow_unknown_traceability)
		return -EAGAIN;
	if (err)
		return err;
	out->origin = addrs ? KSYM_ORIG_ADDRS : KSYM_ORIG_JOIN;
	out->extent = KSYM_EXT_WHOLE;
	out->keep = true;
	return 0;
}

/* A list of sites given as a file: available_filter_functions_addrs, or names joined. */
static int file_load(struct ksym_reading *rd, const struct ksym_plan_step *s,
		     struct ksym_loaded *out)
{
	bool addrs = s->step == KSYM_STEP_FILE_ADDRS, listed;
	int err;

	err = addrs ? ksym_rd_file(rd, KSYM_FMT_FUNCS_ADDRS, rd->opts->funcs_addrs_path, false, true,
				   &out->funcs)
		    : join_funcs(rd, rd->opts->funcs_path, &out->funcs, &listed);
	if (err)
		return err;
	out->origin = addrs ? KSYM_ORIG_ADDRS : KSYM_ORIG_JOIN;
	out->extent = KSYM_EXT_WHOLE;
	return 0;
}

/* No readable list, where the caller allows it: why is the refusal before (rd->err). */
static int unknown_load(struct ksym_reading *rd, const struct ksym_plan_step *s,
			struct ksym_loaded *out)
{
	char reason[320];
	struct ksym_table *syms;
	int err;

	(void)s;
	snprintf(reason, sizeof(reason), "%s", rd->err);
	err = kallsyms_of(rd, &syms);
	if (err)
		return err;
	ksym_rd_warn(rd, "%s; using %s text symbols, traceability unknown", reason,
		     ksym_opts_kallsyms_path(rd->opts));
	rd->err[0] = '\0';
	out->kallsyms = true;
	out->origin = KSYM_ORIG_UNKNOWN;
	out->extent = KSYM_EXT_WHOLE;
	return 0;
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
