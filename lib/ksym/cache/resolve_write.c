// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The resolve section's writer: it chooses the table's 255 name prefixes,
 * sizes each record (ksym_res__plan), then writes the head and the records
 * bucket by bucket (ksym_res__write). The format is in ksym_res_fmt.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ksym_res_fmt.h"

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
	p->head_len = ksym_align8(l->dir_len + l->modoff_len + RES_PFX * 5 + l->str_len + 1);
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
