// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * What a load leaves for later runs, written after the caller's work: each
 * pending table of candidates checked in the text first, then written to
 * /run and to the build cache.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ksym_db.h"

/* A site of the checked table and where its function starts (KSYM_F_ENTRY_*). */
struct site_entry {
	uint64_t loc;
	unsigned int flag;
};

static int site_entry_cmp(const void *x, const void *y)
{
	const struct site_entry *a = x, *b = y;

	return a->loc < b->loc ? -1 : a->loc > b->loc;
}

/*
 * Each entry of t told where its function starts, which the text format of
 * the table cannot say: a later run hands the kernel the function's own
 * address, which it maps to the site and which bpftool names.
 */
static void mark_entries(struct ksym_table *t, struct site_entry *v, size_t n)
{
	struct site_entry key, *hit;
	size_t i;

	qsort(v, n, sizeof(*v), site_entry_cmp);
	for (i = 0; i < t->cnt; i++) {
		key.loc = ksym_ent_addr(t, &t->ents[i]);
		hit = bsearch(&key, v, n, sizeof(*v), site_entry_cmp);
		if (hit)
			t->ents[i].flags |= hit->flag;
	}
}

/*
 * The candidates kcore confirms, at their ftrace locations, as a table like
 * tracefs' _addrs list: a later run needs neither kallsyms nor kcore.
 */
static int checked_table(struct ksym_db *db, const struct ksym_table *cand,
			 struct ksym_table **out)
{
	size_t i, n = ksym_table__cnt(cand), cap = n * 48 + 1, len = 0, need, sn = 0;
	struct site_entry *se = malloc((n ? n : 1) * sizeof(*se));
	struct ksym_site_check c = db->check;
	char *buf = malloc(cap);
	struct ksym s;
	uint64_t loc;
	int err = 0;

	if (!buf || !se) {
		free(buf);
		free(se);
		return -ENOMEM;
	}
	/* call targets are looked up in cand: every symbol, where a pattern's share was read */
	c.syms = cand;
	for (i = 0; i < n && !err; i++) {
		if (db->opts.stop && *db->opts.stop) {
			err = -EINTR;
			break;
		}
		ksym_table__at(cand, i, &s);
		err = ksym_db_site_loc(db, &c, &s, &loc);
		if (err <= 0)
			continue;
		err = 0;
		need = strlen(s.name) + (s.module ? strlen(s.module) : 0) + 24;
		while (cap - len < need) {
			char *nb = realloc(buf, cap * 2);

			if (!nb) {
				free(buf);
				free(se);
				return -ENOMEM;
			}
			buf = nb;
			cap *= 2;
		}
		len += sprintf(buf + len, "%" PRIx64 " %s%s%s%s\n", loc, s.name,
			       s.module ? " [" : "", s.module ? s.module : "", s.module ? "]" : "");
		se[sn++] = (struct site_entry){ .loc = loc,
						.flag = ksym_site__entry_flag(ksym_site__entry(&s, loc), loc) };
	}
	db->check.flux_waits = c.flux_waits;
	if (!err && !len)
		err = -ENODATA;	/* nothing confirmed: no cache rather than an empty one */
	if (err) {
		free(buf);
		free(se);
		return err;
	}
	*out = ksym_table__parse(KSYM_FMT_FUNCS_ADDRS, buf, len, NULL);
	err = *out ? 0 : -errno;
	if (*out)
		mark_entries(*out, se, sn);
	free(se);
	return err;
}

/*
 * A whole checked table left with only the sites tracefs lists, where it
 * lists addresses (Linux >= 6.5): the kcore check's look-alikes (a NOP of
 * another kind at a function's entry) each cost a link, as plan/plan.c
 * says, and a cache keeps them for every later run. Without that list, *t as
 * it is.
 */
static void exact_sites(struct ksym_db *db, struct ksym_table **t)
{
	struct ksym_parse_opts po = { .sz = sizeof(po), .stop = db->opts.stop };
	size_t i, n = ksym_table__cnt(*t);
	struct ksym_table *ft, *sel;
	uint8_t *marks;
	char path[160];
	struct ksym s, f;

	if (!db->tracefs[0] && ksym_db_find_tracefs(db))
		return;
	snprintf(path, sizeof(path), "%s/available_filter_functions_addrs", db->tracefs);
	if (access(path, R_OK))
		return;
	ft = ksym_table__load(KSYM_FMT_FUNCS_ADDRS, path, &po);
	marks = calloc(n / 8 + 1, 1);
	if (!ft || !marks) {
		ksym_table__free(ft);
		free(marks);
		return;
	}
	for (i = 0; i < n; i++) {
		ksym_table__at(*t, i, &s);
		if (!ksym_table__addr(ft, s.addr, &f) && f.addr == s.addr)
			marks[i / 8] |= 1u << (i % 8);
	}
	sel = ksym_table__select(*t, marks);
	if (sel) {
		ksym_table__free(*t);
		*t = sel;
	}
	ksym_table__free(ft);
	free(marks);
}

/*
 * The whole table from tracefs' list of sites, read live where kcore is open
 * (as plan.c orders it): exact, and a build cache for the next boots once it
 * has the anchors the list lacks.
 */
static bool sites_whole(const struct ksym_db *db, int i)
{
	return db->kcore && db->tier == KSYM_TIER_LIVE && !db->pending[i].checked &&
	       !db->pending[i].partial && !db->pending[i].subset && !db->opts.kcore_path &&
	       !strcmp(db->pending[i].name, "funcs") && !db->opts.funcs_addrs_path &&
	       (db->origin == KSYM_ORIG_ADDRS || db->origin == KSYM_ORIG_FTRACE);
}

/*
 * vmlinux's BTF answers for the next boots of this build: the sites as
 * offsets from this boot's _text (the layout the build tier read, else this
 * boot's own).
 */
static void store_btf_build(struct ksym_db *db)
{
	struct ksym_layout own = {};
	const struct ksym_layout *l = &db->layout;
	struct ksym_cache_key key;
	char name[100];
	size_t i;

	if (!l->id_len || !l->text) {
		if (ksym_layout__live_from(&own, db->kcore, ksym_db_modules(db)))
			return;
		l = &own;
	}
	for (i = 0; i < db->btf_build_put_cnt && l->text; i++) {
		if (db->btf_build_put[i].loc < l->text)
			break;	/* (not vmlinux's: no file rather than a wrong one) */
		db->btf_build_put[i].loc -= l->text;
	}
	if (l->text && i == db->btf_build_put_cnt &&
	    ksym_cache__btf_build_name(l, db->btf_build_ret, db->match_hash, name, sizeof(name),
				       &key) &&
	    !ksym_cache__store_btf(db->opts.build_cache_dir, name, &key, db->btf_build_put,
				   db->btf_build_put_cnt))
		ksym_prune_newest(db->opts.build_cache_dir, "btf", KSYM_MATCH_CACHE_KEEP);
	if (l == &own)
		ksym_layout__free(&own);
}

void ksym_db__flush(struct ksym_db *db)
{
	bool rebased = db->tier == KSYM_TIER_BUILD;
	struct ksym_cache_key now;
	uint64_t t0 = ksym_now_ns();
	const char *name;
	int i, err;

	/* a boot's first run measured on a later one: the build cache is all it is
	 * about; a build cache found wrong: nothing from it is worth keeping */
	if (rebased && (db->opts.no_run_cache || db->rebase_bad || db->layout.bases_hidden))
		db->pending_cnt = 0;	/* (hidden module bases: its modules are unresolved) */
	/* modules loaded or unloaded since: what was read may no longer hold */
	if (db->pending_cnt && (ksym_cache__live_key(&now, "") ||
				now.modules_hash != db->pending[0].key.modules_hash)) {
		if (db->opts.verbose)
			ksym_db_warn(db, "modules changed while running: symbol cache not written");
		db->pending_cnt = 0;
	}
	for (i = 0; i < db->pending_cnt; i++) {
		const struct ksym_table *from = db->pending[i].t;
		uint64_t anchors[KSYM_ANCHOR_CNT];
		struct ksym_table *c = NULL;

		/* (the records' names came with the anchors: no read for them) */
		if (sites_whole(db, i) && db->origin == KSYM_ORIG_FTRACE)
			ksym_db_build_store(db, from, db->anchors, db->pending[i].key.modules_hash, false);
		else if (sites_whole(db, i) && !ksym_db_live_anchors(db, anchors))
			ksym_db_build_store(db, from, anchors, db->pending[i].key.modules_hash, false);
		if (db->pending[i].checked) {
			err = checked_table(db, from, &c);
			if (!err && !db->pending[i].partial && !rebased && !db->opts.kcore_path)
				exact_sites(db, &c);
			/* a function not where the build cache said: no cache from it */
			if (rebased && db->rebase_bad)
				err = -ESTALE;
			/* (a share has the anchors: the filter keeps the names the check
			 * looks up) */
			if (!err && !rebased && ksym_opts_live_kallsyms(&db->opts) && !db->opts.kcore_path) {
				ksym_db_find_anchors(from, anchors);
				ksym_db_build_store(db, c, anchors, db->pending[i].key.modules_hash,
						    db->pending[i].partial);
			}
			if (!err && rebased && db->live_merged && !db->match_stored) {
				ksym_db_build_match_store(db, c, &db->layout, db->anchors, false);
				db->match_stored = true;
			}
			if (err) {
				ksym_table__free(c);
				continue;
			}
		}
		name = db->pending[i].name;
		err = db->opts.no_run_cache ? 0 : ksym_db_store_run(db, i, c ? c : from, &name);
		ksym_table__free(c);
		/* root's cache that cannot be written (/run full, read-only) is worth a
		 * word; a user's run is not expected to write root's */
		if (err && (db->opts.verbose || !geteuid()))
			ksym_db_warn(db, "cannot write cache %s/%s: %s; the run goes on without it",
				     db->opts.cache_dir, name, strerror(-err));
	}
	/*
	 * The whole build cache used and right so far: what the patterns matched
	 * in it, for the next boot (sites as the file has them, each checked again
	 * when used); with modules read live, from the checked table above.
	 */
	if (rebased && db->extent != KSYM_EXT_MATCHED && !db->rebase_bad &&
	    !db->layout.bases_hidden && !db->opts.no_cache && !db->live_merged &&
	    !db->match_stored) {
		ksym_db_build_match_store(db, db->funcs, &db->layout, db->anchors, false);
		db->match_stored = true;
	}
	/* the BTF answers, the modules unchanged (the key is the same check's) */
	if (db->btf_put && !ksym_cache__live_key(&now, "") &&
	    now.modules_hash == db->btf_put_key.modules_hash) {
		err = ksym_cache__store_btf(db->opts.cache_dir, db->btf_put_name, &db->btf_put_key,
					    db->btf_put, db->btf_put_cnt);
		if (!err)
			ksym_prune_newest(db->opts.cache_dir, "btf", KSYM_MATCH_CACHE_KEEP);
		else if (db->opts.verbose || !geteuid())
			ksym_db_warn(db, "cannot write cache %s/%s: %s; the run goes on without it",
				     db->opts.cache_dir, db->btf_put_name, strerror(-err));
	}
	if (db->btf_build_put && db->btf_put)
		store_btf_build(db);
	if (db->pending_cnt || db->btf_put)
		db->phase_ns[KSYM_PH_STORE] += ksym_now_ns() - t0;
	free(db->btf_put);
	db->btf_put = NULL;
	free(db->btf_build_put);
	db->btf_build_put = NULL;
	db->pending_cnt = 0;
}
