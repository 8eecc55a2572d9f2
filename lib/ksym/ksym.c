// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The table: in address order once finished (ksym_table__finish()), its
 * lookups by name, by address and by glob, and what a caller selects of it.
 * Its name index is ksym_index.c; tables made from tables, ksym_join.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "ksym_internal.h"

const char *ksym_version(void)
{
	return KSYM_VERSION;
}

/* ---- address order ---- */

static inline int addr_cmp(const struct ksym_table *t, uint32_t a, uint32_t b)
{
	uint64_t x = ksym_ent_addr(t, &t->ents[a]), y = ksym_ent_addr(t, &t->ents[b]);

	if (x != y)
		return x < y ? -1 : 1;
	return a < b ? -1 : a > b;
}

static int addr_cmp_r(const void *a, const void *b, void *t)
{
	return addr_cmp(t, *(const uint32_t *)a, *(const uint32_t *)b);
}

/* A chain or slot reference (entry index + 1 in KSYM_IX_IDX) after the move. */
static uint32_t remap_ref(uint32_t v, size_t q, const uint32_t *inv)
{
	uint32_t i = v & KSYM_IX_IDX;

	if (!i || i - 1 < q)
		return v;
	return (v & ~KSYM_IX_IDX) | (inv[i - 1 - q] + 1);
}

/* An index built while parsing follows its entries: slots and chains renamed. */
static int remap_index(struct ksym_index *ix, size_t n, size_t q, const uint32_t *inv)
{
	uint32_t *next, s;
	size_t i;

	if (!ix->slots)
		return 0;
	next = malloc(ix->dup_cap * sizeof(*next));
	if (!next)
		return -ENOMEM;
	for (i = 0; i < q; i++)
		next[i] = remap_ref(ix->dup_next[i], q, inv);
	for (; i < n; i++)
		next[inv[i - q]] = remap_ref(ix->dup_next[i], q, inv);
	for (s = 0; s <= ix->mask; s++)
		ix->slots[s].ref = remap_ref(ix->slots[s].ref, q, inv);
	free(ix->dup_next);
	ix->dup_next = next;
	return 0;
}

/*
 * Entries into address order, stably: the first listed stays first at an
 * address. An address lookup then goes from its search straight to the entry,
 * not through a permutation, one dependent read fewer (6.12's saved table,
 * modules out of order: see README). /proc/kallsyms is vmlinux in address
 * order, then modules in no order: just the tail is sorted, then merged, and
 * the entries before the first that moves stay where they are.
 */
static int sort_by_addr(struct ksym_table *t)
{
	size_t p, q, m, i, a, b, n = t->cnt;
	uint32_t *tail, *out, *inv;
	uint8_t *done;
	int err;

	for (p = 1; p < n && t->ents[p - 1].addr <= t->ents[p].addr; p++)
		;
	if (p >= n)
		return 0;
	tail = malloc((n - p) * sizeof(*tail));
	if (!tail)
		return -ENOMEM;
	for (i = p; i < n; i++)
		tail[i - p] = i;
	qsort_r(tail, n - p, sizeof(*tail), addr_cmp_r, t);
	/* the prefix up to the first entry above the tail's lowest stays */
	for (a = 0, b = p; a < b;) {
		size_t mid = a + (b - a) / 2;

		if (t->ents[mid].addr <= t->ents[tail[0]].addr)
			a = mid + 1;
		else
			b = mid;
	}
	q = a;
	m = n - q;
	out = malloc(m * sizeof(*out));	/* new position q + k takes old out[k] */
	inv = malloc(m * sizeof(*inv));
	done = calloc(m, 1);
	if (!out || !inv || !done) {
		err = -ENOMEM;
		goto out;
	}
	for (a = q, b = 0, i = 0; i < m; i++) {
		if (b == n - p || (a < p && addr_cmp(t, a, tail[b]) < 0))
			out[i] = a++;
		else
			out[i] = tail[b++];
		inv[out[i] - q] = q + i;
	}
	/* the index first: it can fail, the move cannot */
	err = remap_index(&t->ix, n, q, inv);
	if (err)
		goto out;
	/* the moves as cycles: each entry moves once, with one held aside */
	for (i = 0; i < m; i++) {
		struct ksym_ent held;
		size_t j, src;

		if (done[i])
			continue;
		held = t->ents[q + i];
		for (j = i;; j = src) {
			done[j] = 1;
			src = out[j] - q;
			if (src == i) {
				t->ents[q + j] = held;
				break;
			}
			t->ents[q + j] = t->ents[q + src];
		}
	}
out:
	free(tail);
	free(out);
	free(inv);
	free(done);
	return err;
}

/* A table whose addresses span more than the keys can hold: no keys. */
static struct ksym_akeys akeys_none;

static void akeys_free(struct ksym_akeys *k)
{
	if (k != &akeys_none)
		free(k);
}

static struct ksym_akeys *akeys_build(const struct ksym_table *t)
{
	struct ksym_akeys *k;
	size_t first = 0, i;
	uint64_t top;

	if (!t->cnt)
		return &akeys_none;
	/*
	 * The keys cover the top 4 GiB of the used addresses: the kernel and its
	 * modules. Below them (per-cpu offsets, unresolved names) the entries
	 * are searched themselves.
	 */
	top = ksym_ent_addr(t, ksym_ent_at(t, t->cnt - 1));
	for (; first < t->cnt; first++) {
		const struct ksym_ent *e = ksym_ent_at(t, first);

		if (!(ksym_ent_flags(t, e) & KSYM_F_UNRESOLVED) && top - ksym_ent_addr(t, e) <= UINT32_MAX)
			break;
	}
	if (first == t->cnt)
		return &akeys_none;
	k = malloc(sizeof(*k) + (t->cnt - first) * sizeof(k->k[0]));
	if (!k)
		return NULL;
	k->first = first;
	k->base = ksym_ent_addr(t, ksym_ent_at(t, first));
	for (i = first; i < t->cnt; i++)
		k->k[i - first] = ksym_ent_addr(t, ksym_ent_at(t, i)) - k->base;
	return k;
}

/*
 * The keys, built by the first lookup that needs them. A lookup is a reader
 * of a const table, possibly beside others: whoever publishes first wins.
 * NULL: search the entries (no keys for this table, or no memory now).
 */
static const struct ksym_akeys *akeys_get(const struct ksym_table *t)
{
	struct ksym_akeys **slot = &((struct ksym_table *)t)->akeys;
	struct ksym_akeys *k = __atomic_load_n(slot, __ATOMIC_ACQUIRE), *none = NULL;

	if (!k) {
		k = akeys_build(t);
		if (!k)
			return NULL;
		if (!__atomic_compare_exchange_n(slot, &none, k, false, __ATOMIC_ACQ_REL,
						 __ATOMIC_ACQUIRE)) {
			akeys_free(k);
			k = none;
		}
	}
	return k == &akeys_none ? NULL : k;
}

int ksym_table__finish(struct ksym_table *t)
{
	uint64_t next = 0;	/* the next higher address in the module, 0: none */
	struct ksym_ent *e, *n;
	size_t i;
	int err;

	err = sort_by_addr(t);
	if (err)
		return err;
	/*
	 * size: distance to the next higher address in the same module (for a
	 * function list, the next traceable one: an upper bound). A blacklist
	 * brings its own sizes. Backwards, so a run at one address takes the
	 * same next address without looking ahead for each of its symbols.
	 */
	for (i = t->cnt; i-- > 0 && t->fmt != KSYM_FMT_BLACKLIST;) {
		e = &t->ents[i];
		if (e->flags & KSYM_F_UNRESOLVED)
			break;	/* they sort first */
		n = i + 1 < t->cnt ? &t->ents[i + 1] : NULL;
		if (!n || n->mod != e->mod)
			next = 0;
		else if (n->addr > e->addr)
			next = n->addr;
		e->size = !next ? 0 : next - e->addr > UINT32_MAX ? UINT32_MAX : next - e->addr;
	}
	/* addresses may have changed (the join): the keys are built again when asked */
	akeys_free(t->akeys);
	t->akeys = NULL;
	return 0;
}

void ksym_table__free(struct ksym_table *t)
{
	if (!t)
		return;
	akeys_free(t->akeys);
	if (t->map) {
		/* a rebased build cache: its own entries and index over mapped strings */
		if (t->ent_cap) {
			ksym_index_free(&t->ix);
			ksym_mem_free(t->ents, t->ent_cap * sizeof(*t->ents));
		}
		free(t->mod_base);
		free(t->order);
		munmap(t->map, t->map_len);
		free(t);
		return;
	}
	ksym_index_free(&t->ix);
	ksym_mem_free(t->ents, t->ent_cap * sizeof(*t->ents));
	free(t->mods);
	if (t->buf_cap)
		ksym_mem_free(t->buf, t->buf_cap);
	else
		free(t->buf);
	free(t);
}

size_t ksym_table__cnt(const struct ksym_table *t)
{
	return t->cnt;
}

static void fill(const struct ksym_table *t, const struct ksym_ent *e, struct ksym *out)
{
	out->addr = ksym_ent_addr(t, e);
	out->size = e->size;
	out->name = ksym_ent_name(t, e);
	out->module = ksym_ent_mod(t, e);
	out->type = e->type;
	out->flags = ksym_ent_flags(t, e);
}

int ksym_table__at(const struct ksym_table *t, size_t i, struct ksym *out)
{
	if (i >= t->cnt)
		return -ERANGE;
	fill(t, ksym_ent_at(t, i), out);
	return 0;
}

/* ---- lookups ---- */

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
	return addr_cmp(t, a, b);
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
		fill(t, &t->ents[best[i]], &out[i]);
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
	fill(t, e, out);
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
	const struct ksym_akeys *ak = akeys_get(t);
	size_t lo = 0, hi = t->cnt;

	if (ak && addr >= ak->base) {
		lo = akey_upper(t, ak, addr);
		/* several symbols at one address: report the first one listed */
		while (lo - 1 > ak->first && ak->k[lo - 2 - ak->first] == ak->k[lo - 1 - ak->first])
			lo--;
		fill(t, ksym_ent_at(t, lo - 1), out);
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
	fill(t, ksym_ent_at(t, lo - 1), out);
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

	fill(t, ksym_ent_at(t, pos), &sym);
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

	return c ? c : addr_cmp(t, x, y);
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
		fill(t, &t->ents[order[i]], &sym);
		ret = fn(&sym, ctx);
	}
	free(order);
	return ret;
}
