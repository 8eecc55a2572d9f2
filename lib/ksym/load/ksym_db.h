/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * struct ksym_db, shared by the files of the load. Each depends only on
 * those after it: the walk of matches (match.c), the coordinator
 * (db.c), the flush (flush.c), the build tier (build_cache.c),
 * the /run tier (run_cache.c), the patterns' filter (patterns.c),
 * and the state they all write (state.c). Nothing outside them sees it.
 * The sources and the readers of the kernel's symbols are below it
 * (ksym_source.h): they never see it.
 */
#ifndef KSYM_DB_H
#define KSYM_DB_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "ksym_internal.h"
#include "ksym_btfcache.h"
#include "ksym_build.h"
#include "ksym_cachefile.h"
#include "ksym_plan.h"
#include "ksym_site.h"
#include "ksym_source.h"

struct stat;

struct ksym_db {
	struct ksym_db_opts opts;
	char err[320];			/* why the load failed, for ksym_db__errmsg() */
	uint64_t phase_ns[KSYM_PH_CNT];

	/* what was loaded */
	struct ksym_table *funcs;
	struct ksym_table *kallsyms;	/* (funcs may be this table itself) */
	struct ksym_table *blacklist;
	/*
	 * Where FUNCS came from, as one value: the source (its cache label),
	 * the tier that served it, how much of the source it holds, and how
	 * kallsyms was read live.
	 */
	enum ksym_origin origin;
	enum ksym_tier {
		KSYM_TIER_NONE,		/* not loaded */
		KSYM_TIER_LIVE,		/* read now: the kernel's files or memory, or files given */
		KSYM_TIER_RUN,		/* /run's cache of this boot: sites, checked when stored */
		KSYM_TIER_BUILD,	/* the build cache, rebased: each site checked when used */
	} tier;
	enum ksym_extent extent;
	unsigned int cached;		/* KSYM_DB_* served from /run's cache */
	struct ksym_site_check check;	/* how a site is found (site/site.c) */

	/* what the machine offers, looked at once */
	struct ksym_kcore *kcore;
	int kcore_err;			/* why kcore could not be opened (0: not tried) */
	char tracefs[64];		/* where tracefs was found ("": not) */
	const char *tracefs_denied;	/* or the directory this user may not look in */
	char *modules;			/* /proc/modules, read once for the key and the layout */
	/* what the sources read with (rd.reader: of kallsyms, ksym_read_file unless live) */
	struct ksym_reading rd;
	struct ksym_parse_opts filter;	/* the patterns' prefixes and names, for rd */

	/* what the patterns can match (patterns.c) */
	char **prefixes;		/* name prefixes of the globs, for a partial read */
	size_t prefix_cnt, own_prefixes;
	const char **names;		/* the patterns without wildcards */
	size_t name_cnt;
	int filter_err;			/* why they could not be made (at ksym_db__new()) */
	/*
	 * What the patterns matched, kept apart (KSYM_MATCH_CACHE_KEEP): the
	 * patterns' hash ("": none), /run's file name for it.
	 */
	char match_hash[17];
	char run_match[24];

	/* the /run tier (run_cache.c): this boot's key, read once */
	struct ksym_cache_key key;
	int key_err;			/* 1: not read yet */
	struct ksym_cache_key funcs_key; /* the key, once a step looked in /run */
	/* tables to write at the flush (flush.c) */
	struct {
		const char *name;
		const struct ksym_table *t;
		struct ksym_cache_key key;
		bool checked;	/* candidates: store those kcore confirms */
		bool partial;	/* read as far as the patterns go: only their share kept */
		bool subset;	/* store only what the patterns match */
	} pending[3];
	int pending_cnt;

	/* the build tier (build_cache.c) */
	char build_file[100];		/* the build cache file used */
	dev_t build_dev;		/* the file used: removed only if still it */
	ino_t build_ino;
	struct ksym_layout layout;	/* this boot's, for the messages */
	uint64_t anchors[KSYM_ANCHOR_CNT];
	bool live_merged;		/* modules it lacks read: candidates, not sites, until checked */
	bool match_stored;		/* the build's pattern set written (flush runs twice) */
	unsigned int rebase_bad;	/* sites not where the build cache said */

	/* the BTF objects tracing_multi's ids come from (btf_ids.c), read at first use */
	struct ksym_db_btf *btf;
	/* the BTF answers to write at the flush (btf_ids.c; NULL: none) */
	struct ksym_btf_rec *btf_put;
	size_t btf_put_cnt;
	char btf_put_name[40];
	struct ksym_cache_key btf_put_key;
	/* vmlinux's of them, for the build cache (sites still this boot's) */
	struct ksym_btf_rec *btf_build_put;
	size_t btf_build_put_cnt;
	bool btf_build_ret;
};

/*
 * A cache tier in front of the sources: what serves one step of a plan
 * (ksym_plan.h) from a table a run kept. load() fills db->funcs and says
 * where they came from (ksym_db_set_from()), or returns -EAGAIN, "not mine":
 * the next step is tried. Any other error ends the load, db->err saying why.
 */
struct ksym_cache_tier {
	const char *name;
	enum ksym_site_kind produces;	/* how a function's site is found in what it loads */
	int (*load)(struct ksym_db *db, const struct ksym_plan_step *s);
};

extern const struct ksym_cache_tier ksym_tier_run, ksym_tier_build;

/* btf_ids.c: the BTF objects a db read */
struct ksym_db_btf;
void ksym_db_btf_free(struct ksym_db_btf *b);

/* state.c: the load's words and state */
/* db->err set, and -err returned: the load's error */
int ksym_db_fail(struct ksym_db *db, int err, const char *fmt, ...);
/* one line to opts.warn or opts.note, else to stderr */
void ksym_db_warn(const struct ksym_db *db, const char *fmt, ...);
void ksym_db_note(const struct ksym_db *db, const char *fmt, ...);
/* FUNCS loaded, from o through tier t, e of it */
void ksym_db_set_from(struct ksym_db *db, enum ksym_origin o, enum ksym_tier t,
		      enum ksym_extent e);

/* db.c */
/* db->rd pointed at db (at ksym_db__new(), and again where a db is copied) */
void ksym_db_bind_reading(struct ksym_db *db);
/* what the db holds freed, the caches it built written first (the db stays) */
void ksym_db_release(struct ksym_db *db);
/* the error a plan's refusal stands for */
int ksym_db_refuse(struct ksym_db *db, enum ksym_refusal r);

/* db.c: the kernel's symbols as the load keeps them */
/* db->kallsyms: every symbol, or text only when it is just for a join */
int ksym_db_load_kallsyms(struct ksym_db *db, bool text_only);

/* patterns.c */
void ksym_db_match_hash(struct ksym_db *db);
/* what t's entries the patterns match, as a table (NULL and errno 0: most of t) */
struct ksym_table *ksym_db_pattern_subset(const struct ksym_db *db, const struct ksym_table *t,
					  bool share);
/* db->prefixes and db->names made (at ksym_db__new()): the error, or 0 */
int ksym_db_make_filter(struct ksym_db *db);
/* a glob over vmlinux without a prefix, or no pattern: the whole table */
bool ksym_db_whole_patterns(const struct ksym_db *db);

/* run_cache.c: get, put, invalidate */
/* /proc/modules' text, read once ("" where there is none) */
const char *ksym_db_modules(struct ksym_db *db);
void ksym_db_cache_stat(const char *dir, const char *name, struct stat *st);
/* a bad file removed, unless a writer has replaced it since it was looked at */
void ksym_db_cache_remove(const char *dir, const char *name, const struct stat *was);
struct ksym_table *ksym_db_cache_get(struct ksym_db *db, const char *name, const char *source,
				     struct ksym_cache_key *key);
/* remembered, written at the flush */
void ksym_db_cache_put(struct ksym_db *db, const char *name, const struct ksym_cache_key *key,
		       const struct ksym_table *t, bool checked, bool partial);
void ksym_db_match_put(struct ksym_db *db, const struct ksym_cache_key *key,
		       const struct ksym_table *t, bool checked);
/* what a step read, as /run's "funcs" under o's label (only where a step looked in /run) */
void ksym_db_funcs_put(struct ksym_db *db, enum ksym_origin o, const struct ksym_table *t,
		       bool checked, bool partial);
/* pending entry i written (at the flush) */
int ksym_db_store_run(struct ksym_db *db, int i, const struct ksym_table *t, const char **name);

/* build_cache.c: get (ksym_tier_build), put, invalidate */
/* ftrace's callers and the text bounds in t */
void ksym_db_find_anchors(const struct ksym_table *t, uint64_t a[KSYM_ANCHOR_CNT]);
/* the anchors read live, for a table that has none (tracefs' list) */
int ksym_db_live_anchors(struct ksym_db *db, uint64_t a[KSYM_ANCHOR_CNT]);
/* what the patterns match of t, for the next boots that ask the same */
void ksym_db_build_match_store(struct ksym_db *db, const struct ksym_table *t,
			       const struct ksym_layout *l, const uint64_t anchors[KSYM_ANCHOR_CNT],
			       bool share);
/* what a cold run confirmed, for the next boots of this build */
void ksym_db_build_store(struct ksym_db *db, const struct ksym_table *checked,
			 const uint64_t anchors[KSYM_ANCHOR_CNT], uint64_t modules_hash, bool share);
/* the file used found wrong (at the function why): removed, with its pattern sets */
void ksym_db_build_invalidate(struct ksym_db *db, const char *why);
/* sym's site found by c; a build cache found wrong is invalidated (-ESTALE) */
int ksym_db_site_loc(struct ksym_db *db, struct ksym_site_check *c, const struct ksym *sym,
		     uint64_t *loc);

/* db.c: where tracefs is: 0, -EACCES (db->tracefs_denied) or -ENOENT */
int ksym_db_find_tracefs(struct ksym_db *db);

#endif
