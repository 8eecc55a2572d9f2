// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The /run tier: this boot's tables, one per source ("funcs", "kallsyms") and
 * one per pattern set ("funcs-<hash>"), keyed by the boot and the modules
 * loaded. Get reads one; put remembers one to write at the flush; a damaged
 * or foreign file is removed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ksym_db.h"

/*
 * /proc/modules' text ("" where there is none), for the cache key and the
 * layout: one read of it took 47 ms at a real boot (a 2026-12-01 profile).
 */
const char *ksym_db_modules(struct ksym_db *db)
{
	size_t len;

	if (!db->modules && ksym__read_file("/proc/modules", &db->modules, &len))
		db->modules = strdup("");
	return db->modules;
}

/* The file dir/name as found before a load: a bad one is removed after it. */
void ksym_db_cache_stat(const char *dir, const char *name, struct stat *st)
{
	char path[600];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (lstat(path, st))
		memset(st, 0, sizeof(*st));
}

/*
 * A damaged, foreign or unsafe cache file is removed: a run keeps only what
 * it read, so no later run might replace it, and each would warn again. Not
 * one a writer has put in its place since (a rename: another inode).
 */
void ksym_db_cache_remove(const char *dir, const char *name, const struct stat *was)
{
	char path[600];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (was->st_ino && !lstat(path, &st) && st.st_dev == was->st_dev &&
	    st.st_ino == was->st_ino)
		unlink(path);
}

/* Cache lookup, timed as reading; a bad file is reported and removed. */
struct ksym_table *ksym_db_cache_get(struct ksym_db *db, const char *name, const char *source,
				     struct ksym_cache_key *key)
{
	uint64_t t0 = ksym_now_ns();
	struct ksym_table *t = NULL;
	struct stat was;

	if (db->opts.no_cache)
		return NULL;
	if (db->key_err == 1)
		db->key_err = ksym_cache__live_key_from(&db->key, "", ksym_db_modules(db));
	if (db->key_err)
		return NULL;
	*key = db->key;
	snprintf(key->source, sizeof(key->source), "%s", source);
	/* the key still serves the build cache's writing */
	if (db->opts.no_run_cache)
		return NULL;
	ksym_db_cache_stat(db->opts.cache_dir, name, &was);
	t = ksym_cache__load(db->opts.cache_dir, name, key);
	db->phase_ns[KSYM_PH_READ] += ksym_now_ns() - t0;
	if (t)
		return t;
	if (errno == EBADMSG || errno == EPERM) {
		ksym_db_warn(db, "ignoring cache %s/%s: %s; removed", db->opts.cache_dir, name,
			     errno == EPERM ? "not a private root-owned file" : "corrupt or truncated");
		ksym_db_cache_remove(db->opts.cache_dir, name, &was);
	} else if (errno == ESTALE && db->opts.verbose) {
		ksym_db_note(db, "cache %s/%s is not for %s (another boot or source, or modules changed)",
			     db->opts.cache_dir, name, source);
	}
	return NULL;
}

/* Remembered, not written: storing is no part of the caller's critical path. */
void ksym_db_cache_put(struct ksym_db *db, const char *name, const struct ksym_cache_key *key,
		       const struct ksym_table *t, bool checked, bool partial)
{
	if (db->opts.no_cache || !key->boot_id[0] ||
	    db->pending_cnt == (int)(sizeof(db->pending) / sizeof(db->pending[0])))
		return;
	db->pending[db->pending_cnt].name = name;
	db->pending[db->pending_cnt].t = t;
	db->pending[db->pending_cnt].key = *key;
	db->pending[db->pending_cnt].checked = checked;
	db->pending[db->pending_cnt].partial = partial;
	db->pending[db->pending_cnt].subset = false;
	db->pending_cnt++;
}

/* The key of what the patterns matched in a table of key's */
static void match_key(const struct ksym_db *db, const struct ksym_cache_key *key,
		      struct ksym_cache_key *mk)
{
	*mk = *key;
	snprintf(mk->source, sizeof(mk->source), "%.40s match %s", key->source, db->match_hash);
}

/* Only what the patterns match of t (a whole table: a "funcs" put stores it too). */
void ksym_db_match_put(struct ksym_db *db, const struct ksym_cache_key *key,
		       const struct ksym_table *t, bool checked)
{
	struct ksym_cache_key mk;

	if (!db->match_hash[0])
		return;
	match_key(db, key, &mk);
	ksym_db_cache_put(db, db->run_match, &mk, t, checked, false);
	if (db->pending_cnt && db->pending[db->pending_cnt - 1].name == db->run_match)
		db->pending[db->pending_cnt - 1].subset = true;
}

/*
 * /run's table from source: what these patterns matched, where a run with
 * them kept it, else the whole one (and what they match in it is kept).
 */
static struct ksym_table *funcs_cache_get(struct ksym_db *db, const char *source,
					  struct ksym_cache_key *key, enum ksym_extent *e)
{
	struct ksym_cache_key mk;
	struct ksym_table *t;
	char src[64];

	if (db->match_hash[0]) {
		snprintf(src, sizeof(src), "%.40s match %s", source, db->match_hash);
		t = ksym_db_cache_get(db, db->run_match, src, &mk);
		if (t) {
			char path[600];

			*e = KSYM_EXT_MATCHED;
			*key = mk;
			/* used: the newest sets are kept, by use */
			snprintf(path, sizeof(path), "%s/%s", db->opts.cache_dir, db->run_match);
			utimensat(AT_FDCWD, path, NULL, 0);
			if (db->opts.verbose)
				ksym_db_warn(db, "symbols from %s/%s: what these patterns matched before",
					     db->opts.cache_dir, db->run_match);
			return t;
		}
	}
	*e = KSYM_EXT_WHOLE;
	t = ksym_db_cache_get(db, "funcs", source, key);
	if (t)
		ksym_db_match_put(db, key, t, false);
	return t;
}

/*
 * Pending entry i's table t into /run: what the patterns match of it where
 * that was asked or t is their share; a whole FUNCS table, and then that too.
 */
int ksym_db_store_run(struct ksym_db *db, int i, const struct ksym_table *t, const char **name)
{
	bool share = db->pending[i].partial, whole = !db->pending[i].subset && !share;
	struct ksym_cache_key mk;
	struct ksym_table *sub;
	int err = 0;

	*name = db->pending[i].name;
	if (whole)
		err = ksym_cache__store(db->opts.cache_dir, db->pending[i].name,
					&db->pending[i].key, t);
	if (err || !db->match_hash[0] || (whole && strcmp(db->pending[i].name, "funcs")))
		return err;
	*name = db->run_match;
	sub = ksym_db_pattern_subset(db, t, share);
	if (!sub)
		return -errno;	/* (0: not worth a file) */
	if (db->pending[i].subset)
		mk = db->pending[i].key;
	else
		match_key(db, &db->pending[i].key, &mk);
	err = ksym_cache__store(db->opts.cache_dir, db->run_match, &mk, sub);
	ksym_table__free(sub);
	if (!err)
		ksym_prune_newest(db->opts.cache_dir, "funcs-", KSYM_MATCH_CACHE_KEEP);
	return err;
}

/* The put of what a step read into /run's "funcs", under its origin's label. */
void ksym_db_funcs_put(struct ksym_db *db, enum ksym_origin o, const struct ksym_table *t,
		       bool checked, bool partial)
{
	struct ksym_cache_key k = db->funcs_key;

	if (!k.boot_id[0])
		return;	/* no cache lookup before it: no cache for it */
	snprintf(k.source, sizeof(k.source), "%s", ksym_origin__label(o));
	ksym_db_cache_put(db, "funcs", &k, t, checked, partial);
}

/* /run's table from the first of the origins a run left one of. */
static int run_load(struct ksym_db *db, const struct ksym_plan_step *s)
{
	unsigned int origins = s->origins;
	enum ksym_extent e;
	int o;

	for (o = 0; o < KSYM_ORIG_CNT; o++) {
		if (!(origins & 1u << o))
			continue;
		db->funcs = funcs_cache_get(db, ksym_origin__label(o), &db->funcs_key, &e);
		if (db->funcs) {
			db->cached |= KSYM_DB_FUNCS;
			ksym_db_set_from(db, o, KSYM_TIER_RUN, e);
			return 0;
		}
	}
	return -EAGAIN;
}

const struct ksym_cache_tier ksym_tier_run = {
	.name = "/run's cache",
	.produces = KSYM_SITES_LISTED,
	.load = run_load,
};
