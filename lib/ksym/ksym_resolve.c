// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The cache file's resolve section: the table's symbols again, bucketed by
 * the hash of their names, each record holding its own name and its own check.
 * A list of names is resolved from a few lines per name, each record checked
 * before it is used, instead of from a table that must be checked whole first.
 *
 * What costs a warm lookup most is memory: the first touch of each page of a
 * freshly mapped file (0.2-1.6 us a 4 KiB page on the build VM) and a miss per
 * line, and 10,000 names touch nearly every page. So the records are packed:
 * addresses are 32-bit offsets from the kernel's text mapping where they fit,
 * sizes 16-bit where they fit, and a name's common prefix ("__pfx_",
 * "__x64_sys_", "trace_event_raw_event_", ...) is one byte, from a table of
 * 255 chosen per symbol table. The 165k-symbol cache of 6.12 is 17.4 MB where
 * fixed 22-byte headers and whole names made it 20.0 (11.6 without the
 * section), and 10,000 new names resolved in 1.07-1.30 ms where they took
 * 1.28-1.65 (bench, six runs of each, alternated).
 *
 * Layout: bucket offsets (buckets + 1, u32) | module name offsets (u32) |
 * prefix offsets (256 u32) | prefix lengths (256 u8) | strings (module names,
 * NUL-terminated, then prefixes) | zeros to 8 | records, by bucket. The head
 * (everything before the records) is checked whole by the caller.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ksym_internal.h"

/*
 * A record: these 9 bytes, then addr (4 or 8), size (2 or 4), module (0 or 2)
 * and the name without its prefix, no NUL. A bucket's records are sorted by
 * hash, name, then address, so a name's duplicates are a run marked at both
 * ends: a run cut short by a damaged record is noticed without checking the
 * bucket.
 */
struct res_rec {
	uint32_t check;		/* over everything, the whole name's hash and the bucket */
	uint16_t meta;		/* RES_* */
	uint8_t pfx;		/* prefix id; 0: none */
	char type;
	uint8_t flags;
} __attribute__((packed));

#define RES_LEN		0x01ffu	/* bytes of name stored */
#define RES_FIRST	0x0200u	/* first of its name's run */
#define RES_LAST	0x0400u	/* last of it */
#define RES_ADDR64	0x0800u	/* addr in 8 bytes, else 4 from RES_BASE */
#define RES_SIZE32	0x1000u	/* size in 4 bytes, else 2 */
#define RES_MOD		0x2000u	/* a module index follows; else vmlinux */

#define RES_BASE	0xffffffff80000000ull	/* kernel text and modules: 2 GiB above */
#define RES_PFX		256
#define RES_PFX_LEN	48	/* longest prefix considered */
#define RES_NAME_MAX	(RES_PFX_LEN + RES_LEN)

struct res_layout {
	size_t dir_len, modoff_len, str_len;
	uint32_t *hash;		/* per entry */
	uint32_t *order;	/* entries by bucket, then hash, name, address */
	uint8_t *pfx;		/* per entry */
	uint32_t *nlen;		/* per entry: its name's length, measured once */
	const char *pfx_str[RES_PFX];
	uint8_t pfx_len[RES_PFX];
	unsigned int pfx_cnt;	/* including 0, the empty one */
};

struct res_view {
	uint64_t addr;
	uint32_t size;
	uint16_t mod;
	const char *name;	/* the stored part */
	size_t len;
};

static size_t align8(size_t v)
{
	return (v + 7) & ~(size_t)7;
}

static size_t rec_bytes(uint16_t meta)
{
	return sizeof(struct res_rec) + (meta & RES_ADDR64 ? 8 : 4) + (meta & RES_SIZE32 ? 4 : 2) +
	       (meta & RES_MOD ? 2 : 0) + (meta & RES_LEN);
}

/*
 * Each part through its own odd multiplier (a bijection), xored, then a full
 * avalanche: a change to one part changes the result before the truncation,
 * and a random change survives it once in 2^32.
 */
static inline uint32_t rec_check(const struct res_rec *r, const struct res_view *v,
				 uint32_t name_hash, uint32_t bucket)
{
	uint64_t a = v->addr ^ ((uint64_t)name_hash << 32 | bucket);
	uint64_t b = (uint64_t)v->size << 32 | (uint32_t)v->mod << 16 | r->meta;
	uint64_t c = (uint32_t)r->pfx << 16 | (uint32_t)(unsigned char)r->type << 8 | r->flags;

	return ksym_fold32(ksym_fmix64(a * 0x9e3779b97f4a7c15ull ^ b * 0xc2b2ae3d27d4eb4full ^
				       c * 0x165667b19e3779f9ull));
}

/* ---- building ---- */

struct pfx_cand {
	const char *s;
	uint32_t len, cnt;
};

static struct pfx_cand *cand_slot(struct pfx_cand *m, size_t mask, const char *s, size_t len)
{
	size_t i = ksym_hash_len(s, len) & mask;

	while (m[i].s && (m[i].len != len || memcmp(m[i].s, s, len)))
		i = (i + 1) & mask;
	return &m[i];
}

static int gain_cmp(const void *a, const void *b)
{
	const struct pfx_cand *x = a, *y = b;
	uint64_t gx = (uint64_t)x->len * x->cnt, gy = (uint64_t)y->len * y->cnt;

	return gx < gy ? 1 : gx > gy ? -1 : 0;
}

/*
 * The 255 prefixes ending in '_' that save the most bytes, each counted as if
 * alone (nested ones overlap; each name then takes its longest). Fills in each
 * entry's prefix and name length.
 */
static int pick_prefixes(const struct ksym_table *t, struct res_layout *l)
{
	/* counted on a sample of at most ~32k names: common prefixes are common there too */
	size_t step = t->cnt / 32768 + 1, mask = 1, i, k, n = 0;
	struct pfx_cand *m, *c, chosen[4 * RES_PFX] = {};

	/* 165k kernel names have ~130k distinct candidates: a map of twice the names */
	while (mask < 2 * (t->cnt / step) + 16)
		mask <<= 1;
	m = calloc(mask, sizeof(*m));
	if (!m)
		return -ENOMEM;
	mask--;
	for (i = 0; i < t->cnt; i += step) {
		const char *s = ksym_ent_name(t, &t->ents[i]);

		for (k = 2; s[k] && k <= RES_PFX_LEN; k++) {
			if (s[k - 1] != '_')
				continue;
			c = cand_slot(m, mask, s, k);
			if (!c->s) {
				/* a full map takes no more: the rest go without */
				if (++n > (mask + 1) / 2)
					goto pick;
				c->s = s;
				c->len = k;
			}
			c->cnt++;
		}
	}
pick:
	/* packed to the front, best first */
	for (i = 0, k = 0; i <= mask; i++)
		if (m[i].s && m[i].cnt > 1)
			m[k++] = m[i];
	qsort(m, k, sizeof(*m), gain_cmp);
	l->pfx_cnt = 1;
	for (i = 0; i < k && l->pfx_cnt < RES_PFX; i++) {
		l->pfx_str[l->pfx_cnt] = m[i].s;
		l->pfx_len[l->pfx_cnt++] = m[i].len;
	}
	free(m);
	/* each name's longest: the chosen in a small map of their own */
	for (i = 1; i < l->pfx_cnt; i++) {
		c = cand_slot(chosen, 4 * RES_PFX - 1, l->pfx_str[i], l->pfx_len[i]);
		c->s = l->pfx_str[i];
		c->len = l->pfx_len[i];
		c->cnt = i;
	}
	for (i = 0; i < t->cnt; i++) {
		const char *s = ksym_ent_name(t, &t->ents[i]);
		size_t len = strlen(s);

		l->nlen[i] = len;
		l->pfx[i] = 0;
		for (k = len < RES_PFX_LEN + 1 ? len - 1 : RES_PFX_LEN; len > 2 && k >= 2; k--) {
			if (s[k - 1] != '_')
				continue;
			c = cand_slot(chosen, 4 * RES_PFX - 1, s, k);
			if (c->s) {
				l->pfx[i] = c->cnt;
				break;
			}
		}
	}
	return 0;
}

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

static uint16_t meta_of(const struct ksym_ent *e, size_t stored)
{
	uint16_t meta = stored;

	if (e->addr - RES_BASE > UINT32_MAX)
		meta |= RES_ADDR64;
	if (e->size > UINT16_MAX)
		meta |= RES_SIZE32;
	if (e->mod)
		meta |= RES_MOD;
	return meta;
}

void ksym_res__plan_free(struct ksym_res_plan *p)
{
	if (!p || !p->l)
		return;
	free(p->l->hash);
	free(p->l->order);
	free(p->l->pfx);
	free(p->l->nlen);
	free(p->l);
	p->l = NULL;
}

int ksym_res__plan(const struct ksym_table *t, struct ksym_res_plan *p)
{
	struct res_layout *l;
	size_t i, j, recs = 0;
	uint32_t *start = NULL;
	int err = -ENOMEM;

	memset(p, 0, sizeof(*p));
	l = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	p->l = l;
	p->buckets = 1;
	/* two symbols a bucket at most: a lookup reads one or two lines */
	while (p->buckets < (t->cnt + 1) / 2)
		p->buckets <<= 1;
	l->hash = malloc((t->cnt ? t->cnt : 1) * sizeof(*l->hash));
	l->order = malloc((t->cnt ? t->cnt : 1) * sizeof(*l->order));
	l->pfx = malloc(t->cnt ? t->cnt : 1);
	l->nlen = malloc((t->cnt ? t->cnt : 1) * sizeof(*l->nlen));
	start = calloc(p->buckets + 1, sizeof(*start));
	if (!l->hash || !l->order || !l->pfx || !l->nlen || !start || pick_prefixes(t, l))
		goto fail;
	for (i = 0; i < t->cnt; i++) {
		const struct ksym_ent *e = &t->ents[i];
		size_t stored = l->nlen[i] - l->pfx_len[l->pfx[i]];

		err = -ENAMETOOLONG;
		if (stored > RES_LEN)
			goto fail;
		l->hash[i] = ksym_hash_len(ksym_ent_name(t, e), l->nlen[i]);
		start[(l->hash[i] & (p->buckets - 1)) + 1]++;
		recs += rec_bytes(meta_of(e, stored));
	}
	/* counting sort into buckets, then each bucket (a few entries) by insertion */
	for (i = 0; i < p->buckets; i++)
		start[i + 1] += start[i];
	for (i = 0; i < t->cnt; i++)
		l->order[start[l->hash[i] & (p->buckets - 1)]++] = i;
	for (i = 1; i < t->cnt; i++) {
		uint32_t v = l->order[i], b = l->hash[v] & (p->buckets - 1);

		for (j = i; j > 0 && (l->hash[l->order[j - 1]] & (p->buckets - 1)) == b &&
			    res_cmp(t, l->hash, l->order[j - 1], v) > 0; j--)
			l->order[j] = l->order[j - 1];
		l->order[j] = v;
	}
	free(start);
	start = NULL;
	for (i = 0; i < t->mod_cnt; i++)
		l->str_len += strlen(t->buf + t->mods[i]) + 1;
	for (i = 1; i < l->pfx_cnt; i++)
		l->str_len += l->pfx_len[i];
	l->dir_len = (p->buckets + 1) * sizeof(uint32_t);
	l->modoff_len = t->mod_cnt * sizeof(uint32_t);
	p->mods = t->mod_cnt;
	/* a NUL at the strings' end even without modules */
	p->head_len = align8(l->dir_len + l->modoff_len + RES_PFX * 5 + l->str_len + 1);
	p->len = p->head_len + recs;
	err = p->len > UINT32_MAX ? -E2BIG : 0;
	if (!err)
		return 0;
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
	uint32_t *pfxoff = (uint32_t *)(out + l->dir_len + l->modoff_len);
	uint8_t *pfxlen = (uint8_t *)(pfxoff + RES_PFX);
	char *str = (char *)(pfxlen + RES_PFX), *recs = out + p->head_len;
	size_t i, off = 0, soff = 0, b = 0;

	for (i = 0; i < t->mod_cnt; i++) {
		const char *m = t->buf + t->mods[i];

		modoff[i] = soff;
		memcpy(str + soff, m, strlen(m) + 1);
		soff += strlen(m) + 1;
	}
	for (i = 1; i < l->pfx_cnt; i++) {
		pfxoff[i] = soff;
		pfxlen[i] = l->pfx_len[i];
		memcpy(str + soff, l->pfx_str[i], l->pfx_len[i]);
		soff += l->pfx_len[i];
	}
	for (i = 0; i < t->cnt; i++) {
		uint32_t e = l->order[i], h = l->hash[e];
		const struct ksym_ent *ent = &t->ents[e];
		const char *n = ksym_ent_name(t, ent);
		struct res_rec *r = (struct res_rec *)(recs + off);
		char *q = (char *)(r + 1);
		struct res_view v = {
			.addr = ent->addr, .size = ent->size, .mod = ent->mod,
			.name = n + l->pfx_len[l->pfx[e]],
			.len = l->nlen[e] - l->pfx_len[l->pfx[e]],
		};

		while (b <= (h & (p->buckets - 1)))
			dir[b++] = off;
		r->meta = meta_of(ent, v.len);
		/* a run: the same name, side by side (another hash, another name) */
		if (!i || !same_name(t, l->hash, e, l->order[i - 1]))
			r->meta |= RES_FIRST;
		if (i + 1 == t->cnt || !same_name(t, l->hash, e, l->order[i + 1]))
			r->meta |= RES_LAST;
		r->pfx = l->pfx[e];
		r->type = ent->type;
		r->flags = ent->flags;
		r->check = rec_check(r, &v, h, h & (p->buckets - 1));
		if (r->meta & RES_ADDR64) {
			memcpy(q, &v.addr, 8);
			q += 8;
		} else {
			uint32_t a = v.addr - RES_BASE;

			memcpy(q, &a, 4);
			q += 4;
		}
		if (r->meta & RES_SIZE32) {
			memcpy(q, &v.size, 4);
			q += 4;
		} else {
			uint16_t s = v.size;

			memcpy(q, &s, 2);
			q += 2;
		}
		if (r->meta & RES_MOD) {
			memcpy(q, &v.mod, 2);
			q += 2;
		}
		memcpy(q, v.name, v.len);
		off += rec_bytes(r->meta);
	}
	while (b <= p->buckets)
		dir[b++] = off;
}

/* ---- resolving ---- */

int ksym_res__open(struct ksym_res *x, const char *sec, size_t len, size_t head_len,
		   uint32_t buckets, uint32_t mods)
{
	size_t fixed = ((size_t)buckets + 1 + mods + RES_PFX) * sizeof(uint32_t) + RES_PFX;
	const uint8_t *pfxlen;
	size_t i;

	if (!buckets || (buckets & (buckets - 1)) || head_len > len || (head_len & 7) ||
	    fixed >= head_len)
		return -EBADMSG;
	x->buckets = buckets;
	x->mods = mods;
	x->dir = (const uint32_t *)sec;
	x->modoff = x->dir + buckets + 1;
	x->pfxoff = x->modoff + mods;
	pfxlen = (const uint8_t *)(x->pfxoff + RES_PFX);
	x->pfxlen = pfxlen;
	x->str = (const char *)(pfxlen + RES_PFX);
	x->str_len = sec + head_len - x->str;
	x->recs = sec + head_len;
	x->rec_len = len - head_len;
	/* the head is small and checked whole: its offsets once, here */
	if (x->str[x->str_len - 1])
		return -EBADMSG;
	for (i = 0; i < mods; i++)
		if (x->modoff[i] >= x->str_len || !x->str[x->modoff[i]])
			return -EBADMSG;
	for (i = 0; i < RES_PFX; i++)
		if (pfxlen[i] > RES_PFX_LEN || x->pfxoff[i] > x->str_len - pfxlen[i])
			return -EBADMSG;
	return 0;
}

/* The record at off, inside [off, hi): its fields in *v, its end in *next. */
static inline const struct res_rec *res_at(const struct ksym_res *x, size_t off, size_t hi,
				    struct res_view *v, size_t *next)
{
	const struct res_rec *r = (const struct res_rec *)(x->recs + off);
	const char *q = (const char *)(r + 1);

	if (hi - off < sizeof(*r) + 6)
		return NULL;
	*next = off + rec_bytes(r->meta);
	if (*next > hi)
		return NULL;
	if (r->meta & RES_ADDR64) {
		memcpy(&v->addr, q, 8);
		q += 8;
	} else {
		uint32_t a;

		memcpy(&a, q, 4);
		v->addr = RES_BASE + a;
		q += 4;
	}
	if (r->meta & RES_SIZE32) {
		memcpy(&v->size, q, 4);
		q += 4;
	} else {
		uint16_t s;

		memcpy(&s, q, 2);
		v->size = s;
		q += 2;
	}
	v->mod = 0;
	if (r->meta & RES_MOD) {
		memcpy(&v->mod, q, 2);
		q += 2;
		if (!v->mod || v->mod > x->mods)
			return NULL;
	}
	v->name = q;
	v->len = r->meta & RES_LEN;
	return r;
}

/* Whether the record's whole name (prefix, then what it stores) is q. */
static inline bool res_is(const struct ksym_res *x, const struct res_rec *r, const struct res_view *v,
		   const char *q, size_t qlen)
{
	size_t pl = x->pfxlen[r->pfx];

	return pl + v->len == qlen && !memcmp(v->name, q + pl, v->len) &&
	       !memcmp(x->str + x->pfxoff[r->pfx], q, pl);
}

/* 1: found (out filled), 0: not in the table, -EBADMSG: a damaged record. */
static int res_find(const struct ksym_res *x, const char *q, size_t qlen, const char *module,
		    uint32_t h, struct ksym *out)
{
	uint32_t b = h & (x->buckets - 1);
	size_t lo = x->dir[b], hi = x->dir[b + 1], off, next;
	const struct res_rec *r;
	struct res_view v;
	int found = 0;

	if (lo > hi || hi > x->rec_len)
		return -EBADMSG;
	for (off = lo; off < hi; off = next) {
		r = res_at(x, off, hi, &v, &next);
		if (!r)
			return -EBADMSG;
		if (!res_is(x, r, &v, q, qlen))
			continue;
		/* the name's run, whole, each record checked */
		if (!(r->meta & RES_FIRST))
			return -EBADMSG;
		for (;;) {
			const char *mod = v.mod ? x->str + x->modoff[v.mod - 1] : NULL;

			if (rec_check(r, &v, h, b) != r->check)
				return -EBADMSG;
			if (!found && (!module || (*module ? mod && !strcmp(mod, module) : !mod))) {
				out->addr = v.addr;
				out->size = v.size;
				out->name = q;
				out->module = mod;
				out->type = r->type;
				out->flags = r->flags;
				found = 1;
			}
			if (r->meta & RES_LAST)
				return found;
			off = next;
			r = res_at(x, off, hi, &v, &next);
			if (!r || (r->meta & RES_FIRST) || !res_is(x, r, &v, q, qlen))
				return -EBADMSG;
		}
	}
	/* not here: every record of the bucket checked, a damaged one could be it */
	for (off = lo; off < hi; off = next) {
		char full[RES_NAME_MAX];
		size_t pl;

		r = res_at(x, off, hi, &v, &next);
		if (!r)
			return -EBADMSG;
		pl = x->pfxlen[r->pfx];
		memcpy(full, x->str + x->pfxoff[r->pfx], pl);
		memcpy(full + pl, v.name, v.len);
		if (rec_check(r, &v, ksym_hash_len(full, pl + v.len), b) != r->check)
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
	 */
	for (i = 0; i < n + 2 * RES_AHEAD; i++) {
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
