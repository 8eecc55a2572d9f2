// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The traceable functions of the running kernel (or of files given), loaded
 * as a plan says (plan/plan.c): each step a source or a cache tier, tried in
 * order until one serves, each "not mine" passing to the next. Where the
 * functions came from is one value (origin, tier); a function's site is then
 * found by the check that value calls for (site/site.c). The tiers are
 * run_cache.c and build_cache.c; the sources (sources/) read with what this
 * file hands them (ksym_source.h) and return what they read, which this file
 * keeps in the tiers; what a load leaves for later runs is written at
 * ksym_db__flush()
 * (flush.c).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/capability.h>

#include "ksym_db.h"

static int kallsyms_for_source(struct ksym_reading *rd, bool text_only, struct ksym_table **out);

/* What the sources read with points into db: made again wherever db moves. */
void ksym_db_bind_reading(struct ksym_db *db)
{
	const struct ksym_syms_reader *reader = db->rd.reader;

	db->rd = (struct ksym_reading){
		.opts = &db->opts,
		.phase_ns = db->phase_ns,
		.err = db->err,
		.err_sz = sizeof(db->err),
		.tracefs = db->tracefs,
		.filter = &db->filter,
		.filter_err = db->filter_err,
		.filtered = db->prefix_cnt || db->name_cnt,
		.kallsyms = kallsyms_for_source,
		.load = db,
		.reader = reader ? reader : &ksym_read_file,
	};
}

struct ksym_db *ksym_db__new(const struct ksym_db_opts *opts)
{
	struct ksym_db *db = calloc(1, sizeof(*db));

	if (!db)
		return NULL;
	memcpy(&db->opts, opts, opts->sz < sizeof(db->opts) ? opts->sz : sizeof(db->opts));
	db->opts.sz = sizeof(db->opts);
	db->key_err = 1;
	if (!db->opts.cache_dir)
		db->opts.cache_dir = KSYM_CACHE_DIR;
	if (!db->opts.build_cache_dir)
		db->opts.build_cache_dir = KSYM_BUILD_CACHE_DIR;
	/* past a few dozen patterns (name lists), the index answers faster than a file */
	if (db->opts.pattern_cnt && !db->opts.cache_only)
		ksym_db_match_hash(db);
	db->filter_err = ksym_db_make_filter(db);
	/* the patterns as a partial read keeps them, for the sources and the build tier */
	db->filter = (struct ksym_parse_opts){
		.prefixes = db->prefix_cnt ? (const char *const *)db->prefixes : NULL,
		.prefix_cnt = db->prefix_cnt,
		.names = db->name_cnt ? db->names : NULL,
		.name_cnt = db->name_cnt,
	};
	ksym_db_bind_reading(db);
	return db;
}

void ksym_db_release(struct ksym_db *db)
{
	size_t i;

	ksym_db__flush(db);
	if (db->funcs != db->kallsyms)
		ksym_table__free(db->funcs);
	ksym_table__free(db->kallsyms);
	ksym_table__free(db->blacklist);
	ksym_kcore__close(db->kcore);
	for (i = 0; i < db->own_prefixes; i++)
		free(db->prefixes[i]);
	free(db->prefixes);
	free(db->names);
	ksym_layout__free(&db->layout);
	free(db->modules);
	ksym_db_btf_free(db->btf);
	free(db->btf_put);
	free(db->btf_build_put);
}

void ksym_db__free(struct ksym_db *db)
{
	if (!db)
		return;
	ksym_db_release(db);
	free(db);
}

struct ksym_table *ksym_db__funcs(const struct ksym_db *db) { return db->funcs; }

struct ksym_table *ksym_db__kallsyms(const struct ksym_db *db) { return db->kallsyms; }

const char *ksym_db__errmsg(const struct ksym_db *db) { return db->err; }

bool ksym_db__traceability_known(const struct ksym_db *db)
{
	return db->tier != KSYM_TIER_NONE && db->origin != KSYM_ORIG_UNKNOWN;
}

bool ksym_db__blacklist_known(const struct ksym_db *db) { return db->blacklist; }

bool ksym_db__from_build_cache(const struct ksym_db *db) { return db->tier == KSYM_TIER_BUILD; }

bool ksym_db__from_cache(const struct ksym_db *db, unsigned int which)
{
	return (db->cached & which) == which;
}

const char *ksym_db__funcs_source(const struct ksym_db *db)
{
	if (db->tier == KSYM_TIER_NONE)
		return "none";
	if (db->origin == KSYM_ORIG_KCORE && db->tier == KSYM_TIER_BUILD)
		return "kallsyms+kcore (build cache)";
	if (db->origin == KSYM_ORIG_KCORE && db->tier == KSYM_TIER_LIVE)
		return db->rd.reader == &ksym_read_iter ? "iter+kcore" :
		       db->rd.reader == &ksym_read_kmem ? "kmem+kcore" : "kallsyms+kcore";
	return ksym_origin__label(db->origin);
}

uint64_t ksym_db__phase_ns(const struct ksym_db *db, enum ksym_phase ph)
{
	return ph < KSYM_PH_CNT ? db->phase_ns[ph] : 0;
}

int ksym_db__ftrace_loc(struct ksym_db *db, const struct ksym *sym, uint64_t *loc)
{
	if (!db->funcs || !ksym_db__traceability_known(db))
		return -ENODATA;
	return ksym_db_site_loc(db, &db->check, sym, loc);
}

bool ksym_db__blacklisted(const struct ksym_db *db, uint64_t addr)
{
	struct ksym b;

	return db->blacklist && !ksym_table__addr(db->blacklist, addr, &b) &&
	       addr < b.addr + b.size;
}

int ksym_db_find_tracefs(struct ksym_db *db)
{
	return ksym_tracefs_find(db->opts.tracefs_path, db->tracefs, sizeof(db->tracefs),
				 &db->tracefs_denied);
}

/* What the plan goes by: the options, and a look at tracefs (no table read). */
static void plan_in(struct ksym_db *db, struct ksym_plan_in *in)
{
	const struct ksym_db_opts *o = &db->opts;
	char path[160];

	memset(in, 0, sizeof(*in));
	in->funcs_from = o->funcs_from;
	in->cache_only = o->cache_only;
	in->addrs_file = o->funcs_addrs_path;
	in->names_file = o->funcs_path;
	in->live_syms = ksym_opts_live_kallsyms(o);
	in->kallsyms_file = o->kallsyms_path && !o->system_map_path && !o->vmlinux_path;
	in->kcore_file = o->kcore_path;
	in->need_kallsyms = o->need & KSYM_DB_KALLSYMS;
	in->whole = ksym_db_whole_patterns(db);
	in->allow_unknown = o->allow_unknown_traceability;
	in->no_cache = o->no_cache;
	in->no_build_cache = o->no_build_cache;
	in->no_text_check = !KSYM_SITE_TEXT_CHECK;
	in->tracefs = !ksym_db_find_tracefs(db);
	in->tracefs_denied = db->tracefs_denied;
	if (in->tracefs) {
		snprintf(path, sizeof(path), "%s/available_filter_functions_addrs", db->tracefs);
		in->tracefs_addrs = !access(path, F_OK);
	}
}

/* The error a plan's refusal stands for (db->err: the unknown step's reason). */
int ksym_db_refuse(struct ksym_db *db, enum ksym_refusal r)
{
	switch (r) {
	case KSYM_REFUSE_FTRACE_FILES:
		return ksym_db_fail(db, EINVAL, "ftrace's records are read from the running kernel only");
	case KSYM_REFUSE_KCORE_PAIR:
		return ksym_db_fail(db, EINVAL, "traceability from kcore needs the live /proc/kallsyms%s",
				    db->opts.kcore_path ? ", or a kallsyms file with the core file" : "");
	case KSYM_REFUSE_NO_LIST:
		return ksym_db_fail(db, EINVAL, "no function list given for %s (--funcs-addrs, --funcs)",
				    ksym_opts_kallsyms_path(&db->opts));
	case KSYM_REFUSE_TRACEFS:
		/* tracefs is mode 0700: an unprivileged user cannot even look */
		if (db->tracefs_denied)
			return ksym_db_fail(db, EACCES, "cannot access %s: Permission denied (run as root)",
					    db->tracefs_denied);
		return ksym_db_fail(db, ENOENT,
				    "tracefs is not mounted: mount -t tracefs nodev /sys/kernel/tracing");
	case KSYM_REFUSE_NO_TEXT_CHECK:
		return ksym_db_fail(db, EOPNOTSUPP, "this build reads no function entry of its "
				    "architecture in the kernel text (x86-64 and arm64 only), which "
				    "kcore's check and ftrace's records need; tracefs' lists serve");
	case KSYM_REFUSE_NO_CACHE:
		return ksym_db_fail(db, ENOENT, "no symbol cache for this boot in %s", db->opts.cache_dir);
	default:
		return ksym_db_fail(db, EINVAL, "no source of traceable functions");
	}
}

/*
 * /proc/kcore (or the core file), opened by the first step that needs it.
 * -EAGAIN: unreadable, and the plan has other sources.
 */
static int open_kcore(struct ksym_db *db, const struct ksym_load_plan *plan)
{
	const char *path = db->opts.kcore_path ? db->opts.kcore_path : "/proc/kcore";
	bool denied, no_cap;
	uint64_t t0;
	int err;

	if (db->kcore)
		return 0;
	if (db->kcore_err)
		return -EAGAIN;
	t0 = ksym_now_ns();
	db->kcore = ksym_kcore__open(db->opts.kcore_path);
	db->phase_ns[KSYM_PH_READ] += ksym_now_ns() - t0;
	if (db->kcore) {
		db->check.kcore = db->kcore;
		db->rd.kcore = db->kcore;
		return 0;
	}
	err = db->kcore_err = errno;
	denied = err == EACCES || err == EPERM;
	no_cap = denied && !ksym__capable(CAP_SYS_RAWIO);
	if (plan->kcore_required && err == ENOEXEC && KSYM_SITE_TEXT_CHECK)
		return ksym_db_fail(db, err, "cannot read %s: not an ELF core of an %s kernel", path,
				    ksym_site_native->name);
	if (plan->kcore_required)
		return ksym_db_fail(db, err, "cannot read %s: %s%s", path, strerror(err),
				    !denied ? "" : geteuid() ? " (run as root)" :
				    no_cap ? " (CAP_SYS_RAWIO is missing)" : ksym_root_refused());
	/* completion answers quietly; elsewhere a capability left out is worth a word */
	if (!db->opts.cache_only && (db->opts.verbose || (no_cap && !geteuid())))
		ksym_db_warn(db, "cannot read /proc/kcore: %s%s; using tracefs' function lists",
			     strerror(err), !denied || geteuid() ? "" :
			     no_cap ? " (CAP_SYS_RAWIO is missing)" : ksym_root_refused());
	return -EAGAIN;
}

/* What serves each step of a plan: a tier, or a source. */
static const struct {
	const struct ksym_cache_tier *tier;
	const struct ksym_source *src;
} steps[KSYM_STEP_CNT] = {
	[KSYM_STEP_RUN_CACHE] = { .tier = &ksym_tier_run },
	[KSYM_STEP_BUILD_CACHE] = { .tier = &ksym_tier_build },
	[KSYM_STEP_FTRACE] = { .src = &ksym_src_ftrace },
	[KSYM_STEP_CANDIDATES] = { .src = &ksym_src_kcore },
	[KSYM_STEP_ALL_CANDIDATES] = { .src = &ksym_src_kcore },
	[KSYM_STEP_TRACEFS] = { .src = &ksym_src_tracefs },
	[KSYM_STEP_FILE_ADDRS] = { .src = &ksym_src_file },
	[KSYM_STEP_FILE_JOIN] = { .src = &ksym_src_file },
	[KSYM_STEP_UNKNOWN] = { .src = &ksym_src_unknown },
};

/*
 * The kernel's symbols as a source asks for them: the load's own table,
 * served from /run's cache where it can be.
 */
static int kallsyms_for_source(struct ksym_reading *rd, bool text_only, struct ksym_table **out)
{
	struct ksym_db *db = rd->load;
	int err = ksym_db_load_kallsyms(db, text_only);

	*out = err ? NULL : db->kallsyms;
	return err;
}

/* A source's step: what it read becomes the load's, and /run's where it may keep it. */
static int source_step(struct ksym_db *db, const struct ksym_source *src,
		       const struct ksym_plan_step *s)
{
	struct ksym_loaded got = {};
	int err;

	err = src->load(&db->rd, s, &got);
	if (err)
		return err;
	db->funcs = got.kallsyms ? db->kallsyms : got.funcs;
	if (got.syms) {
		ksym_db_find_anchors(got.syms, db->anchors);
		ksym_table__free(got.syms);
	}
	ksym_db_set_from(db, got.origin, KSYM_TIER_LIVE, got.extent);
	if (got.keep)
		ksym_db_funcs_put(db, got.origin, db->funcs, got.checked, got.partial);
	return 0;
}

/* The plan's steps in order, each loading the table or passing it on (-EAGAIN). */
static int load_funcs(struct ksym_db *db)
{
	struct ksym_load_plan plan;
	struct ksym_plan_in in;
	size_t i;
	int err = 0;

	plan_in(db, &in);
	ksym_plan__make(&in, &plan);
	if (db->opts.verbose) {
		char line[200];

		ksym_plan__str(&plan, line, sizeof(line));
		ksym_db_note(db, "sources, in the order tried: %s", line);
	}
	if (plan.refusal)
		err = ksym_db_refuse(db, plan.refusal);
	for (i = 0; i < plan.cnt; i++) {
		const struct ksym_plan_step *s = &plan.steps[i];

		if (ksym_step__needs_kcore(s->step)) {
			err = open_kcore(db, &plan);
			if (err == -EAGAIN)
				continue;
			if (err)
				return err;
		}
		if (steps[s->step].tier)
			err = steps[s->step].tier->load(db, s);
		else
			err = source_step(db, steps[s->step].src, s);
		if (!err)
			db->check.kind = steps[s->step].tier ? steps[s->step].tier->produces
							     : steps[s->step].src->produces;
		if (err != -EAGAIN)
			return err;
	}
	return plan.end ? ksym_db_refuse(db, plan.end) : err;
}

static int load_blacklist(struct ksym_db *db)
{
	const char *path = db->opts.blacklist_path ? db->opts.blacklist_path
						   : "/sys/kernel/debug/kprobes/blacklist";
	int err;

	/* the blacklist is only looked up by address */
	err = ksym_rd_file(&db->rd, KSYM_FMT_BLACKLIST, path, false, false, &db->blacklist);
	if (err && !db->opts.blacklist_path) {
		/* optional unless asked for by name: debugfs may not be mounted */
		if (db->opts.verbose)
			ksym_db_warn(db, "%s", db->err);
		db->err[0] = '\0';
		return 0;
	}
	return err;
}

/* Every symbol, or text only when it is just for the join: from /run where it
 * keeps them, else read (sources/syms.c) and kept there. */
int ksym_db_load_kallsyms(struct ksym_db *db, bool text_only)
{
	const struct ksym_db_opts *o = &db->opts;
	const char *path = ksym_opts_kallsyms_path(o);
	struct ksym_cache_key key = {};
	int err;

	if (db->kallsyms)
		return 0;
	if (path == o->system_map_path)
		return ksym_rd_file(&db->rd, KSYM_FMT_SYSTEM_MAP, path, text_only, true,
				    &db->kallsyms);
	if (path == o->vmlinux_path)
		return ksym_rd_elf(&db->rd, path, text_only, &db->kallsyms);
	if (path == o->kallsyms_path)
		return ksym_rd_file(&db->rd, KSYM_FMT_KALLSYMS, path, text_only, true,
				    &db->kallsyms);
	if (!text_only) {
		db->kallsyms = ksym_db_cache_get(db, "kallsyms", "/proc/kallsyms", &key);
		if (db->kallsyms) {
			db->cached |= KSYM_DB_KALLSYMS;
			return 0;
		}
	}
	err = ksym_rd_file(&db->rd, KSYM_FMT_KALLSYMS, "/proc/kallsyms", text_only, true,
			   &db->kallsyms);
	if (err)
		return err;
	if (!text_only)
		ksym_db_cache_put(db, "kallsyms", &key, db->kallsyms, false, false);
	return 0;
}

int ksym_db__load(struct ksym_db *db)
{
	unsigned int need = db->opts.need;
	int err = 0;

	if (need & KSYM_DB_FUNCS && !db->funcs)
		err = load_funcs(db);
	if (!err && need & KSYM_DB_KALLSYMS)
		err = ksym_db_load_kallsyms(db, false);
	if (!err && need & KSYM_DB_BLACKLIST && !db->blacklist)
		err = load_blacklist(db);
	return err;
}

int ksym_db__load_more(struct ksym_db *db, unsigned int need)
{
	db->opts.need |= need;
	return ksym_db__load(db);
}
