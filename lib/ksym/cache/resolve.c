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
 * The format is in ksym_res_fmt.h; this file reads it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ksym_res_fmt.h"

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
static inline bool res_is(const struct ksym_res *x, const struct res_rec *r,
			  const struct res_view *v, const char *q, size_t qlen)
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
