// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The table's lookups: an entry by position, by name (the index, or a batch of
 * names), by address (the address keys), by glob; and what a caller marks or
 * selects of it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ksym_internal.h"

static bool mod_ok(const struct ksym_table *t, const struct ksym_ent *e, const char *module)
{
	if (!module)
		return true;
	if (!*module)
		return e->mod == 0;
	return e->mod && !strcmp(ksym_ent_mod(t, e), module);
}

/*
 * "mod:rest": the module into buf (and *module), the rest returned. Without a
 * ':' returns s and leaves *module alone; NULL when mod does not fit.
 */
static const char *split_module(const char *s, char *buf, size_t len, const char **module)
{
	const char *colon = strchr(s, ':');

	if (!colon)
		return s;
	if ((size_t)(colon - s) >= len)
		return NULL;
	memcpy(buf, s, colon - s);
	buf[colon - s] = '\0';
	*module = buf;
	return colon + 1;
}

/*
 * Matches in address order, but the unresolved ones (no address yet, or of a
 * module the build cache knows and this boot has not loaded) after the rest:
 * a lookup of one answer gets the function that is there.
 */
static int match_cmp(const struct ksym_table *t, uint32_t a, uint32_t b)
{
	int ua = ksym_ent_flags(t, &t->ents[a]) & KSYM_F_UNRESOLVED;
	int ub = ksym_ent_flags(t, &t->ents[b]) & KSYM_F_UNRESOLVED;

	if (ua != ub)
		return ua ? 1 : -1;
	return ksym_addr_cmp(t, a, b);
}

/* Keeps out[0..*n) the lowest max matches in match order; counts them all. */
static void add_match(const struct ksym_table *t, uint32_t i, uint32_t *best, size_t max,
		      size_t *n)
{
	size_t k = *n < max ? *n : max;

	(*n)++;
	if (k == max && (!max || match_cmp(t, best[max - 1], i) < 0))
		return;
	if (k == max)
		k--;
	while (k > 0 && match_cmp(t, best[k - 1], i) > 0) {
		best[k] = best[k - 1];
		k--;
	}
	best[k] = i;
}

#define FIND_MAX 64

/*
 * find, module already split off: every match, the lowest max kept. With an
 * index, the chain from head (ksym_index_first's), else one scan.
 */
static int find_all(const struct ksym_table *t, const char *name, uint32_t head,
		    const char *module, struct ksym *out, size_t max)
{
	uint32_t best[FIND_MAX], i1, v;
	size_t n = 0, i, keep = max < FIND_MAX ? max : FIND_MAX;

	if (t->ix.slots) {
		for (v = head; v; v = ksym_index_next(t, v)) {
			i1 = v & KSYM_IX_IDX;
			if (mod_ok(t, &t->ents[i1 - 1], module))
				add_match(t, i1 - 1, best, keep, &n);
		}
	} else {
		/* no index: one scan, first byte checked before the call */
		for (i = 0; i < t->cnt; i++) {
			const struct ksym_ent *e = &t->ents[i];
			const char *en = ksym_ent_name(t, e);

			if (en[0] == name[0] && !strcmp(en, name) && mod_ok(t, e, module))
				add_match(t, i, best, keep, &n);
		}
	}
	for (i = 0; i < n && i < keep; i++)
		ksym_fill(t, &t->ents[best[i]], &out[i]);
	return n;
}

/*
 * find with an index: most names are one symbol's, answered here without
 * find_all's match array and sort (with the one-scan split in find, single
 * hits on 6.12's table took 111-122 ns where they took 147-163, alternated runs).
 */
static inline int find_indexed(const struct ksym_table *t, const char *name, uint32_t h,
			       const char *module, struct ksym *out, size_t max)
{
	uint32_t v = ksym_index_first(t, name, h);
	const struct ksym_ent *e;

	if (!v)
		return 0;
	if (v & KSYM_IX_MORE || !max)
		return find_all(t, name, v, module, out, max);
	e = &t->ents[(v & KSYM_IX_IDX) - 1];
	if (!mod_ok(t, e, module))
		return 0;
	ksym_fill(t, e, out);
	return 1;
}

int ksym_table__find(const struct ksym_table *t, const char *name, const char *module,
		     struct ksym *out, size_t max)
{
	/* one scan finds the ':' or the end, which gives the length the hash needs */
	const char *end = module ? name + strlen(name) : strchrnul(name, ':');
	char modbuf[64];

	if (*end) {
		if ((size_t)(end - name) >= sizeof(modbuf))
			return -ENAMETOOLONG;
		memcpy(modbuf, name, end - name);
		modbuf[end - name] = '\0';
		module = modbuf;
		name = end + 1;
		end = name + strlen(name);
	}
	if (!t->ix.slots)
		return find_all(t, name, 0, module, out, max);
	return find_indexed(t, name, ksym_hash_len(name, end - name), module, out, max);
}

/*
 * A hit is a slot, then its name and entry: misses that depend on each other.
 * Across names they do not, so a group's slots are fetched together, then its
 * names and entries, and only then is each name looked up for real.
 */
#define FIND_GROUP 16

int ksym_table__find_many(const struct ksym_table *t, const char *const *names, size_t n,
			  struct ksym *out)
{
	const struct ksym_slot *slots = t->ix.slots;
	uint32_t h[FIND_GROUP], m = t->ix.mask, r;
	size_t base, j, k, found = 0;

	for (base = 0; base < n; base += FIND_GROUP) {
		k = n - base < FIND_GROUP ? n - base : FIND_GROUP;
		for (j = 0; slots && j < k; j++) {
			h[j] = ksym_hash(names[base + j]);
			__builtin_prefetch(&slots[h[j] & m]);
		}
		for (j = 0; slots && j < k; j++) {
			const struct ksym_slot *sl = &slots[h[j] & m];

			r = sl->ref;
			if (r && (r & KSYM_IX_TAG) == (h[j] & KSYM_IX_TAG)) {
				__builtin_prefetch(t->buf + sl->name);
				__builtin_prefetch(&t->ents[(r & KSYM_IX_IDX) - 1]);
			}
		}
		for (j = 0; j < k; j++) {
			const char *name = names[base + j];
			int got;

			/* "mod:name" hashes differently: the plain path splits it */
			if (!slots || strchr(name, ':'))
				got = ksym_table__find(t, name, NULL, &out[base + j], 1);
			else
				got = find_indexed(t, name, h[j], NULL, &out[base + j], 1);
			if (got > 0)
				found++;
			else
				memset(&out[base + j], 0, sizeof(out[0]));
		}
	}
	return found;
}

/* One step: the half of [b, b + n) that holds the last key <= key, no branch. */
static inline const uint32_t *akey_halve(const uint32_t *b, size_t *n, uint32_t key)
{
	size_t half = *n / 2;

	/* both halves' middles fetched a step early */
	__builtin_prefetch(b + half / 2);
	__builtin_prefetch(b + half + half / 2);
	*n -= half;
	return b[half] <= key ? b + half : b;
}

/* Address-order position of the first symbol above addr, by its key. */
static size_t akey_upper(const struct ksym_table *t, const struct ksym_akeys *ak, uint64_t addr)
{
	const uint32_t *b = ak->k;
	size_t n = t->cnt - ak->first, at;
	uint32_t key;

	key = addr - ak->base > UINT32_MAX ? UINT32_MAX : addr - ak->base;
	while (n > 16)
		b = akey_halve(b, &n, key);
	/* the answer is within a line or two now: its entry fetched meanwhile */
	at = ak->first + (b - ak->k);
	__builtin_prefetch(t->ents + at);
	__builtin_prefetch(t->ents + at + n / 2);
	__builtin_prefetch(t->ents + at + n - 1);
	while (n > 1)
		b = akey_halve(b, &n, key);
	/* *b <= key throughout: k[0] is 0 */
	return ak->first + (b - ak->k) + 1;
}

int ksym_table__addr(const struct ksym_table *t, uint64_t addr, struct ksym *out)
{
	const struct ksym_akeys *ak = ksym_akeys_get(t);
	size_t lo = 0, hi = t->cnt;

	if (ak && addr >= ak->base) {
		lo = akey_upper(t, ak, addr);
		/* several symbols at one address: report the first one listed */
		while (lo - 1 > ak->first && ak->k[lo - 2 - ak->first] == ak->k[lo - 1 - ak->first])
			lo--;
		ksym_fill(t, ksym_ent_at(t, lo - 1), out);
		return 0;
	}
	/* first position with addr' > addr, then step back */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ksym_ent_addr(t, ksym_ent_at(t, mid)) <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || (ksym_ent_flags(t, ksym_ent_at(t, lo - 1)) & KSYM_F_UNRESOLVED))
		return -ENOENT;
	/* several symbols at one address: report the first one listed */
	while (lo > 1 && ksym_ent_addr(t, ksym_ent_at(t, lo - 2)) ==
			 ksym_ent_addr(t, ksym_ent_at(t, lo - 1)))
		lo--;
	ksym_fill(t, ksym_ent_at(t, lo - 1), out);
	return 0;
}

/* fn(t, pos, ctx) for each address-order position glob matches, until it returns nonzero. */
static int match_pos(const struct ksym_table *t, const char *glob,
		     int (*fn)(const struct ksym_table *t, size_t pos, void *ctx), void *ctx)
{
	const char *module = NULL;
	char modbuf[64];
	size_t plen, i;
	int ret;

	glob = split_module(glob, modbuf, sizeof(modbuf), &module);
	if (!glob)
		return -ENAMETOOLONG;
	plen = strcspn(glob, "*?[");
	for (i = 0; i < t->cnt; i++) {
		const struct ksym_ent *e = ksym_ent_at(t, i);
		const char *name = ksym_ent_name(t, e);

		/* literal prefix first: most names fail in the first byte or two */
		if (strncmp(name, glob, plen) || !ksym_glob_match(glob + plen, name + plen) ||
		    (module && !mod_ok(t, e, module)))
			continue;
		ret = fn(t, i, ctx);
		if (ret)
			return ret;
	}
	return 0;
}

struct match_ctx {
	ksym_fn fn;
	void *ctx;
};

static int match_one(const struct ksym_table *t, size_t pos, void *ctx)
{
	struct match_ctx *m = ctx;
	struct ksym sym;

	ksym_fill(t, ksym_ent_at(t, pos), &sym);
	return m->fn(&sym, m->ctx);
}

int ksym_table__match(const struct ksym_table *t, const char *glob, ksym_fn fn, void *ctx)
{
	struct match_ctx m = { fn, ctx };

	return match_pos(t, glob, match_one, &m);
}

static int mark_one(const struct ksym_table *t, size_t pos, void *ctx)
{
	uint8_t *marks = ctx;

	(void)t;
	marks[pos / 8] |= 1u << (pos % 8);
	return 0;
}

int ksym_table__mark(const struct ksym_table *t, const char *glob, uint8_t *marks)
{
	return match_pos(t, glob, mark_one, marks);
}

struct ksym_table *ksym_table__select(const struct ksym_table *t, const uint8_t *marks)
{
	struct ksym_table *s = calloc(1, sizeof(*s));
	size_t i, n = 0, len = 0;
	int err = -ENOMEM;

	if (!s)
		return NULL;
	for (i = 0; i < t->mod_cnt; i++)
		len += strlen(t->buf + t->mods[i]) + 1;
	for (i = 0; i < t->cnt; i++)
		if (marks[i / 8] & (1u << (i % 8))) {
			len += strlen(ksym_ent_name(t, ksym_ent_at(t, i))) + 1;
			n++;
		}
	s->buf = malloc(len ? len : 1);
	s->mods = malloc((t->mod_cnt + 1) * sizeof(*s->mods));
	s->ent_cap = n ? n : 1;
	s->ents = ksym_mem_alloc(s->ent_cap * sizeof(*s->ents));
	if (!s->buf || !s->mods || !s->ents)
		goto fail;
	/* every module stays, by the same number: a module with none selected too */
	for (i = 0; i < t->mod_cnt; i++) {
		size_t l = strlen(t->buf + t->mods[i]) + 1;

		memcpy(s->buf + s->len, t->buf + t->mods[i], l);
		s->mods[i] = s->len;
		s->len += l;
	}
	s->mod_cnt = t->mod_cnt;
	/* positions in address order: the entries stay in it, their sizes t's */
	for (i = 0; i < t->cnt; i++) {
		const struct ksym_ent *e = ksym_ent_at(t, i);
		struct ksym_ent *d = &s->ents[s->cnt];
		size_t l;

		if (!(marks[i / 8] & (1u << (i % 8))))
			continue;
		l = strlen(ksym_ent_name(t, e)) + 1;
		*d = *e;
		d->addr = ksym_ent_addr(t, e);
		d->flags = ksym_ent_flags(t, e);
		d->name = s->len;
		memcpy(s->buf + s->len, ksym_ent_name(t, e), l);
		s->len += l;
		s->cnt++;
	}
	s->fmt = t->fmt;
	err = ksym_index_build(&s->ix, s);
	if (!err)
		return s;
fail:
	ksym_table__free(s);
	errno = -err;
	return NULL;
}

static int name_cmp_r(const void *a, const void *b, void *arg)
{
	const struct ksym_table *t = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	int c = strcmp(ksym_ent_name(t, &t->ents[x]), ksym_ent_name(t, &t->ents[y]));

	return c ? c : ksym_addr_cmp(t, x, y);
}

int ksym_table__iter_names(const struct ksym_table *t, ksym_fn fn, void *ctx)
{
	uint32_t *order = malloc((t->cnt ? t->cnt : 1) * sizeof(*order));
	struct ksym sym;
	size_t i;
	int ret = 0;

	if (!order)
		return -ENOMEM;
	for (i = 0; i < t->cnt; i++)
		order[i] = i;
	qsort_r(order, t->cnt, sizeof(*order), name_cmp_r, (void *)t);
	for (i = 0; i < t->cnt && !ret; i++) {
		ksym_fill(t, &t->ents[order[i]], &sym);
		ret = fn(&sym, ctx);
	}
	free(order);
	return ret;
}
