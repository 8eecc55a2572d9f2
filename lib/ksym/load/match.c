// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * What the caller's patterns match, each function with its ftrace site: the
 * walk an agent or the attach engine asks for. A build cache found wrong on
 * the way (a site not where it said) is handled here: the file is gone, the
 * table is loaded again, cold, and the walk starts over before the caller has
 * seen a function. Callers get the sites of one table only.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ksym_db.h"

struct walk {
	struct ksym_db *db;
	struct ksym_site *v;
	size_t n, cap;
	size_t pattern;
};

static int add(const struct ksym *sym, void *ctx)
{
	struct walk *w = ctx;
	struct ksym_db *db = w->db;
	uint64_t loc = sym->addr;
	int site;

	if (sym->flags & KSYM_F_UNRESOLVED)
		return 0;	/* a module the build cache knows, not loaded now */
	if (db->opts.stop && *db->opts.stop)
		return ksym_db_fail(db, EINTR, "interrupted while resolving");
	site = ksym_db__ftrace_loc(db, sym, &loc);
	if (site == -ESTALE)
		return site;
	if (site < 0 && site != -ENODATA)
		return ksym_db_fail(db, site, "cannot check %s in the kernel text: %s", sym->name,
				    strerror(-site));
	if (w->n == w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 256;
		struct ksym_site *v = realloc(w->v, cap * sizeof(*v));

		if (!v)
			return ksym_db_fail(db, ENOMEM, "out of memory");
		w->v = v;
		w->cap = cap;
	}
	w->v[w->n++] = (struct ksym_site){ .sym = *sym, .loc = site ? loc : 0, .site = site,
					   .pattern = w->pattern,
					   .entry = site > 0 ? ksym_site__entry(sym, loc) : 0 };
	return 0;
}

/* Every pattern's matches, in the patterns' order. */
static int walk(struct walk *w)
{
	struct ksym_db *db = w->db;
	struct ksym_table *t = db->funcs;
	bool batch;
	size_t i, j;
	int err = 0;

	/* past the measured break-even (bench: tens of lookups), index the names */
	for (i = j = 0; i < db->opts.pattern_cnt; i++)
		j += ksym_glob_is_literal(db->opts.patterns[i]);
	batch = j >= 16 && !ksym_table__batch_begin(t);
	for (i = 0; i < db->opts.pattern_cnt && !err; i++) {
		const char *p = db->opts.patterns[i];

		w->pattern = i;
		/* an exact name is one index lookup, not a pass over every function */
		if (ksym_glob_is_literal(p)) {
			struct ksym sym[64];
			int n = ksym_table__find(t, p, NULL, sym, 64);

			for (j = 0; j < (size_t)n && j < 64 && !err; j++)
				err = add(&sym[j], w);
		} else {
			err = ksym_table__match(t, p, add, w);
		}
	}
	if (batch)
		ksym_table__batch_end(t);
	return err;
}

/*
 * The load again, cold: a db as the caller made it, the build cache left
 * out, its times added to this one's.
 */
static int reload_cold(struct ksym_db *db)
{
	struct ksym_db_opts o = db->opts;
	uint64_t ph[KSYM_PH_CNT];
	struct ksym_db *fresh;
	int i;

	o.no_build_cache = true;
	fresh = ksym_db__new(&o);
	if (!fresh)
		return ksym_db_fail(db, ENOMEM, "out of memory");
	memcpy(ph, db->phase_ns, sizeof(ph));
	ksym_db_release(db);
	*db = *fresh;
	free(fresh);
	ksym_db_bind_reading(db);
	for (i = 0; i < KSYM_PH_CNT; i++)
		db->phase_ns[i] += ph[i];
	return ksym_db__load(db);
}

int ksym_db__each_match(struct ksym_db *db, ksym_site_fn fn, void *ctx)
{
	struct walk w = { .db = db };
	size_t i;
	int err;

	db->err[0] = '\0';
	err = db->funcs ? 0 : ksym_db__load_more(db, KSYM_DB_FUNCS);
	if (!err)
		err = walk(&w);
	if (err == -ESTALE && db->tier == KSYM_TIER_BUILD) {
		w.n = 0;
		err = reload_cold(db);
		if (!err)
			err = walk(&w);
	}
	for (i = 0; i < w.n && !err; i++)
		err = fn(&w.v[i], ctx);
	free(w.v);
	return err;
}

struct addrs {
	unsigned long *v;
	size_t n, cap;
};

static int add_addr(const struct ksym_site *s, void *ctx)
{
	struct addrs *a = ctx;

	if (!s->site)
		return 0;
	if (a->n == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 256;
		unsigned long *v = realloc(a->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		a->v = v;
		a->cap = cap;
	}
	/* the function's own address where known: the kernel maps it to the site */
	a->v[a->n++] = s->entry ? s->entry : s->loc;
	return 0;
}

static int cmp_addr(const void *x, const void *y)
{
	unsigned long a = *(const unsigned long *)x, b = *(const unsigned long *)y;

	return a < b ? -1 : a > b;
}

int ksym_db__sites(struct ksym_db *db, unsigned long **addrs, size_t *cnt)
{
	struct addrs a = {};
	size_t i, j;
	int err;

	*addrs = NULL;
	*cnt = 0;
	err = ksym_db__each_match(db, add_addr, &a);
	if (err == -ENOMEM && !db->err[0])
		ksym_db_fail(db, ENOMEM, "out of memory");
	if (!err && !a.n)
		err = ksym_db_fail(db, ENOENT, "no traceable function matches the patterns (in %s)",
				   ksym_db__funcs_source(db));
	if (err) {
		free(a.v);
		return err;
	}
	/* one site per address: overlapping patterns and aliases collapse */
	qsort(a.v, a.n, sizeof(*a.v), cmp_addr);
	for (i = j = 0; i < a.n; i++)
		if (!j || a.v[j - 1] != a.v[i])
			a.v[j++] = a.v[i];
	*addrs = a.v;
	*cnt = j;
	return 0;
}
