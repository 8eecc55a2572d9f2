// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The cache file's resolve section: the table's symbols again, bucketed by
 * the hash of their names, each record holding its own name and its own check.
 * A list of names is resolved from a line or two per name, each checked before
 * it is used, instead of from a table that must be checked whole first.
 *
 * Layout: bucket offsets (buckets + 1, u32) | module name offsets (u32) |
 * module names, NUL-terminated | zeros to 8 | records, by bucket. The head
 * (everything before the records) is checked whole by the caller.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ksym_internal.h"

/*
 * A record: these 22 bytes, then the name, its NUL and a zero to an even size.
 * Packed, as what a warm lookup pays most for is the first touch of each page
 * of a freshly mapped file (0.2-1.5 us a 4 KiB page on the build VM), and
 * 10,000 names touch nearly every page. A bucket's records are sorted by
 * hash, name, then address, so a name's duplicates are a run marked at both
 * ends: a run cut short by a damaged record is noticed without checking the
 * bucket.
 */
struct res_rec {
	uint64_t addr;
	uint32_t size;
	uint32_t check;		/* over the fields, the name's hash and the bucket */
	uint16_t mod;		/* 0: vmlinux, else module mod - 1 */
	uint16_t len;		/* RES_LEN: name length; RES_FIRST/LAST: run ends */
	char type;
	uint8_t flags;
} __attribute__((packed, aligned(2)));

#define RES_LEN		0x3fffu
#define RES_FIRST	0x4000u
#define RES_LAST	0x8000u

struct res_layout {
	size_t dir_len, modoff_len;
	uint32_t *hash;		/* per entry */
	uint32_t *order;	/* entries by bucket, then hash, name, address */
};

static size_t align8(size_t v)
{
	return (v + 7) & ~(size_t)7;
}

static size_t rec_size(size_t len)
{
	return (sizeof(struct res_rec) + len + 2) & ~(size_t)1;
}

/*
 * Each field through its own odd multiplier (a bijection), xored, then a full
 * avalanche: a change to one field changes the result before the truncation,
 * and a random change survives it once in 2^32.
 */
static inline uint32_t rec_check(const struct res_rec *r, uint32_t name_hash, uint32_t bucket)
{
	uint64_t a = r->addr ^ ((uint64_t)name_hash << 32 | bucket);
	uint64_t b = (uint64_t)r->size << 32 | r->mod;
	uint64_t c = (uint32_t)r->len << 16 | (uint32_t)(unsigned char)r->type << 8 | r->flags;

	return ksym_fold32(ksym_fmix64(a * 0x9e3779b97f4a7c15ull ^ b * 0xc2b2ae3d27d4eb4full ^
				       c * 0x165667b19e3779f9ull));
}

/* ---- building ---- */

/* Hash, then name, then address: a name's records side by side, in address order. */
static int res_cmp(const struct ksym_table *t, const uint32_t *hash, uint32_t x, uint32_t y)
{
	int d;

	if (hash[x] != hash[y])
		return hash[x] < hash[y] ? -1 : 1;
	d = strcmp(ksym_ent_name(t, &t->ents[x]), ksym_ent_name(t, &t->ents[y]));
	if (d)
		return d;
	if (t->ents[x].addr != t->ents[y].addr)
		return t->ents[x].addr < t->ents[y].addr ? -1 : 1;
	return x < y ? -1 : x > y;
}

void ksym_res__plan_free(struct ksym_res_plan *p)
{
	if (!p || !p->l)
		return;
	free(p->l->hash);
	free(p->l->order);
	free(p->l);
	p->l = NULL;
}

int ksym_res__plan(const struct ksym_table *t, struct ksym_res_plan *p)
{
	size_t i, j, recs = 0, strs = 0;
	uint32_t *start = NULL, mask;
	struct res_layout *l;
	int err = -ENOMEM;

	memset(p, 0, sizeof(*p));
	l = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	p->l = l;
	p->buckets = 1;
	/* two symbols a bucket at most: a lookup reads a line or two */
	while (p->buckets < (t->cnt + 1) / 2)
		p->buckets <<= 1;
	mask = p->buckets - 1;
	l->hash = malloc((t->cnt ? t->cnt : 1) * sizeof(*l->hash));
	l->order = malloc((t->cnt ? t->cnt : 1) * sizeof(*l->order));
	start = calloc(p->buckets + 1, sizeof(*start));
	if (!l->hash || !l->order || !start)
		goto fail;
	for (i = 0; i < t->cnt; i++) {
		const char *s = ksym_ent_name(t, &t->ents[i]);
		size_t len = strlen(s);

		err = -ENAMETOOLONG;
		if (len > RES_LEN)
			goto fail;
		l->hash[i] = ksym_hash_len(s, len);
		start[(l->hash[i] & mask) + 1]++;
		recs += rec_size(len);
	}
	/* counting sort into buckets, then each bucket (a few entries) by insertion */
	for (i = 0; i < p->buckets; i++)
		start[i + 1] += start[i];
	for (i = 0; i < t->cnt; i++)
		l->order[start[l->hash[i] & mask]++] = i;
	for (i = 1; i < t->cnt; i++) {
		uint32_t v = l->order[i], b = l->hash[v] & mask;

		for (j = i; j > 0 && (l->hash[l->order[j - 1]] & mask) == b &&
			    res_cmp(t, l->hash, l->order[j - 1], v) > 0; j--)
			l->order[j] = l->order[j - 1];
		l->order[j] = v;
	}
	free(start);
	for (i = 0; i < t->mod_cnt; i++)
		strs += strlen(t->buf + t->mods[i]) + 1;
	l->dir_len = (p->buckets + 1) * sizeof(uint32_t);
	l->modoff_len = t->mod_cnt * sizeof(uint32_t);
	p->mods = t->mod_cnt;
	/* a NUL at the strings' end even without modules */
	p->head_len = align8(l->dir_len + l->modoff_len + strs + 1);
	p->len = p->head_len + recs;
	if (p->len <= UINT32_MAX)
		return 0;
	err = -E2BIG;
	start = NULL;
fail:
	free(start);
	ksym_res__plan_free(p);
	return err;
}

static bool same_name(const struct ksym_table *t, const uint32_t *hash, uint32_t x, uint32_t y)
{
	return hash[x] == hash[y] &&
	       !strcmp(ksym_ent_name(t, &t->ents[x]), ksym_ent_name(t, &t->ents[y]));
}

void ksym_res__write(const struct ksym_table *t, const struct ksym_res_plan *p, char *out)
{
	const struct res_layout *l = p->l;
	uint32_t *dir = (uint32_t *)out, *modoff = (uint32_t *)(out + l->dir_len);
	char *str = out + l->dir_len + l->modoff_len, *recs = out + p->head_len;
	size_t i, off = 0, soff = 0, b = 0;

	for (i = 0; i < t->mod_cnt; i++) {
		const char *m = t->buf + t->mods[i];

		modoff[i] = soff;
		memcpy(str + soff, m, strlen(m) + 1);
		soff += strlen(m) + 1;
	}
	for (i = 0; i < t->cnt; i++) {
		uint32_t e = l->order[i], h = l->hash[e];
		const struct ksym_ent *ent = &t->ents[e];
		const char *n = ksym_ent_name(t, ent);
		struct res_rec *r = (struct res_rec *)(recs + off);
		size_t len = strlen(n);

		while (b <= (h & (p->buckets - 1)))
			dir[b++] = off;
		r->addr = ent->addr;
		r->size = ent->size;
		r->mod = ent->mod;
		r->len = len;
		/* a run: the same name, side by side (another hash, another name) */
		if (!i || !same_name(t, l->hash, e, l->order[i - 1]))
			r->len |= RES_FIRST;
		if (i + 1 == t->cnt || !same_name(t, l->hash, e, l->order[i + 1]))
			r->len |= RES_LAST;
		r->type = ent->type;
		r->flags = ent->flags;
		r->check = rec_check(r, h, h & (p->buckets - 1));
		memcpy(r + 1, n, len);
		off += rec_size(len);
	}
	while (b <= p->buckets)
		dir[b++] = off;
}

/* ---- resolving ---- */

int ksym_res__open(struct ksym_res *x, const char *sec, size_t len, size_t head_len,
		   uint32_t buckets, uint32_t mods)
{
	size_t i;

	if (!buckets || (buckets & (buckets - 1)) || head_len > len || (head_len & 7) ||
	    ((size_t)buckets + 1 + mods) * sizeof(uint32_t) >= head_len)
		return -EBADMSG;
	x->buckets = buckets;
	x->mods = mods;
	x->dir = (const uint32_t *)sec;
	x->modoff = x->dir + buckets + 1;
	x->str = (const char *)(x->modoff + mods);
	x->str_len = sec + head_len - x->str;
	x->recs = sec + head_len;
	x->rec_len = len - head_len;
	/* the head is small and checked whole: its offsets once, here */
	if (x->str[x->str_len - 1])
		return -EBADMSG;
	for (i = 0; i < mods; i++)
		if (x->modoff[i] >= x->str_len || !x->str[x->modoff[i]])
			return -EBADMSG;
	return 0;
}

/* The record at off, inside [off, hi), its end in *next; NULL if it spills. */
static inline const struct res_rec *res_at(const struct ksym_res *x, size_t off, size_t hi,
					   size_t *next)
{
	const struct res_rec *r = (const struct res_rec *)(x->recs + off);
	size_t len;

	if (hi - off < sizeof(*r))
		return NULL;
	len = r->len & RES_LEN;
	*next = off + rec_size(len);
	/* the NUL and the pad: no byte of a record goes unchecked */
	if (*next > hi || x->recs[*next - 1] || ((const char *)(r + 1))[len] || r->mod > x->mods)
		return NULL;
	return r;
}

/* 1: found (out filled), 0: not in the table, -EBADMSG: a damaged record. */
static int res_find(const struct ksym_res *x, const char *q, size_t qlen, const char *module,
		    uint32_t h, struct ksym *out)
{
	uint32_t b = h & (x->buckets - 1);
	size_t lo = x->dir[b], hi = x->dir[b + 1], off, next;
	const struct res_rec *r;
	int found = 0;

	if (lo > hi || hi > x->rec_len || (lo & 1))
		return -EBADMSG;
	for (off = lo; off < hi; off = next) {
		r = res_at(x, off, hi, &next);
		if (!r)
			return -EBADMSG;
		if ((r->len & RES_LEN) != qlen || memcmp(r + 1, q, qlen))
			continue;
		/* the name's run, whole, each record checked */
		if (!(r->len & RES_FIRST))
			return -EBADMSG;
		for (;;) {
			const char *mod = r->mod ? x->str + x->modoff[r->mod - 1] : NULL;

			if (rec_check(r, h, b) != r->check)
				return -EBADMSG;
			if (!found && (!module || (*module ? mod && !strcmp(mod, module) : !mod))) {
				out->addr = r->addr;
				out->size = r->size;
				out->name = (const char *)(r + 1);
				out->module = mod;
				out->type = r->type;
				out->flags = r->flags;
				found = 1;
			}
			if (r->len & RES_LAST)
				return found;
			off = next;
			r = res_at(x, off, hi, &next);
			if (!r || (r->len & RES_LEN) != qlen || memcmp(r + 1, q, qlen))
				return -EBADMSG;
		}
	}
	/* not here: every record of the bucket checked, a damaged one could be it */
	for (off = lo; off < hi; off = next) {
		r = res_at(x, off, hi, &next);
		if (!r || rec_check(r, ksym_hash_len((const char *)(r + 1), r->len & RES_LEN), b) !=
				  r->check)
			return -EBADMSG;
	}
	return 0;
}

#define RES_AHEAD 16
#define RES_RING 64	/* > 2 * RES_AHEAD, a power of two */

struct res_q {
	const char *name;
	size_t len, mod_len;	/* mod_len: "mod:" before the name, or 0 */
	uint32_t h;
};

int ksym_res__find_many(const struct ksym_res *x, const char *const *names, size_t n,
			struct ksym *out)
{
	struct res_q qs[RES_RING];
	size_t i;
	int found = 0;

	/*
	 * A pipeline: name i is hashed and its bucket's offset fetched while name
	 * i - RES_AHEAD has its records fetched and name i - 2 * RES_AHEAD is
	 * looked up, so that the misses of many names are in flight at once.
	 * (Prefetches do not fault pages in: a page's first touch still stalls.)
	 */
	for (i = 0; i < n + 2 * RES_AHEAD; i++) {
		/* the caller's strings may be anywhere: each is fetched ahead too */
		if (i + RES_AHEAD < n)
			__builtin_prefetch(names[i + RES_AHEAD]);
		if (i < n) {
			struct res_q *p = &qs[i % RES_RING];
			const char *colon;

			p->name = names[i];
			p->len = strlen(p->name);
			p->mod_len = 0;
			/* "mod:name": the name's hash, then the module among its run */
			colon = memchr(p->name, ':', p->len);
			if (colon) {
				p->mod_len = colon - p->name + 1;
				p->len -= p->mod_len;
			}
			p->h = ksym_hash_len(p->name + p->mod_len, p->len);
			__builtin_prefetch(&x->dir[p->h & (x->buckets - 1)]);
		}
		if (i >= RES_AHEAD && i - RES_AHEAD < n) {
			uint32_t o = x->dir[qs[(i - RES_AHEAD) % RES_RING].h & (x->buckets - 1)];

			/* a bucket is a record or two: its first two lines */
			if (o + 64 < x->rec_len) {
				__builtin_prefetch(x->recs + o);
				__builtin_prefetch(x->recs + o + 64);
			}
		}
		if (i >= 2 * RES_AHEAD) {
			size_t w = i - 2 * RES_AHEAD;
			const struct res_q *p = &qs[w % RES_RING];
			char modbuf[64];
			int got = 0;

			if (p->mod_len <= sizeof(modbuf)) {
				if (p->mod_len) {
					memcpy(modbuf, p->name, p->mod_len - 1);
					modbuf[p->mod_len - 1] = '\0';
				}
				got = res_find(x, p->name + p->mod_len, p->len,
					       p->mod_len ? modbuf : NULL, p->h, &out[w]);
			}
			if (got < 0)
				return got;
			if (!got)
				memset(&out[w], 0, sizeof(out[0]));
			found += got;
		}
	}
	return found;
}
