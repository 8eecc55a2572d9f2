// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The kernel's kallsyms table in userspace. Building follows scripts/kallsyms.c
 * (same sort, same greedy pair tokens, same record format); lookups follow
 * kernel/kallsyms.c, counting every record walked past.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kmodel.h"

#define KSYM_LEN 512	/* the kernel's KSYM_NAME_LEN */
#define DUP_BIT (1u << 23)	/* in a seq: same name as the entry before */

struct sym_in {
	uint64_t addr;
	unsigned char *sym;	/* "<type><name>", compressed in place */
	uint32_t len;
	uint32_t seq;		/* input order */
	const char *name;	/* the uncompressed name (no type), for seqs_of_names */
};

struct kmodel {
	size_t cnt;
	uint64_t *addrs;		/* address order */
	unsigned char *names;		/* length-prefixed token records */
	size_t names_len;
	uint32_t *markers;
	size_t nmarkers;
	unsigned int shift;
	unsigned char *seqs;		/* 3 bytes per symbol, big-endian */
	char *token_table;		/* 256 NUL-terminated expansions */
	size_t token_table_len;
	uint16_t token_index[256];
	uint32_t *batch;		/* transient: record offset per position */
	int batch_refs;
	unsigned int window;		/* NEARMARK */
	uint32_t *tree;			/* TOPTREE: offsets by heap node id (1-based) */
	unsigned int tree_levels;
};

/* ---- building (scripts/kallsyms.c) ---- */

static int token_profit[0x10000];
static unsigned char best_table[256][2];
static unsigned char best_table_len[256];

static void learn_symbol(const unsigned char *s, uint32_t len)
{
	uint32_t i;

	for (i = 0; i + 1 < len; i++)
		token_profit[s[i] + (s[i + 1] << 8)]++;
}

static void forget_symbol(const unsigned char *s, uint32_t len)
{
	uint32_t i;

	for (i = 0; i + 1 < len; i++)
		token_profit[s[i] + (s[i + 1] << 8)]--;
}

static unsigned char *find_token(unsigned char *s, uint32_t len, const unsigned char *tok)
{
	uint32_t i;

	for (i = 0; i + 1 < len; i++)
		if (s[i] == tok[0] && s[i + 1] == tok[1])
			return &s[i];
	return NULL;
}

/* Replace tok by idx, left to right, non-overlapping; recount those symbols. */
static void compress_symbols(struct sym_in *syms, size_t cnt, const unsigned char *tok, int idx)
{
	size_t i;

	for (i = 0; i < cnt; i++) {
		unsigned char *p1 = syms[i].sym, *p2;
		uint32_t len = syms[i].len, size;

		p2 = find_token(p1, len, tok);
		if (!p2)
			continue;
		forget_symbol(syms[i].sym, len);
		size = len;
		do {
			*p2 = idx;
			p2++;
			size -= p2 - p1;
			memmove(p2, p2 + 1, size);
			p1 = p2;
			len--;
			if (size < 2)
				break;
			p2 = find_token(p1, size, tok);
		} while (p2);
		syms[i].len = len;
		learn_symbol(syms[i].sym, len);
	}
}

/* Highest profit, lowest pair index on ties. */
static int find_best_token(void)
{
	int i, best = 0, bestprofit = -10000;

	for (i = 0; i < 0x10000; i++) {
		if (token_profit[i] > bestprofit) {
			best = i;
			bestprofit = token_profit[i];
		}
	}
	return best;
}

static void optimize(struct sym_in *syms, size_t cnt)
{
	size_t i, j;
	int t, best;

	memset(token_profit, 0, sizeof(token_profit));
	memset(best_table_len, 0, sizeof(best_table_len));
	/* every byte value in use is a literal token */
	for (i = 0; i < cnt; i++) {
		for (j = 0; j < syms[i].len; j++) {
			best_table[syms[i].sym[j]][0] = syms[i].sym[j];
			best_table_len[syms[i].sym[j]] = 1;
		}
		learn_symbol(syms[i].sym, syms[i].len);
	}
	/* the free slots, from 255 down, take the most profitable pairs */
	for (t = 255; t >= 0; t--) {
		if (best_table_len[t])
			continue;
		best = find_best_token();
		if (token_profit[best] == 0)
			break;
		best_table_len[t] = 2;
		best_table[t][0] = best & 0xff;
		best_table[t][1] = best >> 8;
		compress_symbols(syms, cnt, best_table[t], t);
	}
}

/* A token's full expansion (tokens are made of tokens). */
static size_t expand_token(int t, char *out, size_t room)
{
	size_t n = 0;
	int i;

	if (best_table_len[t] == 1) {
		if (room)
			out[0] = best_table[t][0];
		return 1;
	}
	for (i = 0; i < best_table_len[t]; i++) {
		if (best_table[t][i] == t)
			return n;	/* cannot happen; guards a corrupt table */
		n += expand_token(best_table[t][i], out + n, room > n ? room - n : 0);
	}
	return n;
}

static int cmp_syms(const void *a, const void *b)
{
	const struct sym_in *x = a, *y = b;
	int wx, wy;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* non-weak first */
	wx = x->sym[0] == 'w' || x->sym[0] == 'W';
	wy = y->sym[0] == 'w' || y->sym[0] == 'W';
	if (wx != wy)
		return wx - wy;
	/* then fewer leading underscores */
	wx = strspn((const char *)x->sym + 1, "_");
	wy = strspn((const char *)y->sym + 1, "_");
	if (wx != wy)
		return wx - wy;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static const struct sym_in *sort_base;

static int cmp_names(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	int c = strcmp(sort_base[x].name, sort_base[y].name);

	return c ? c : x < y ? -1 : x > y;
}

struct collect {
	struct sym_in *v;
	size_t n, cap;
};

static int collect_fn(const struct ksym *s, void *ctx)
{
	struct collect *c = ctx;
	size_t l = strlen(s->name);

	if (s->module || l + 1 >= KSYM_LEN)
		return 0;
	if (c->n == c->cap) {
		size_t ncap = c->cap ? c->cap * 2 : 4096;
		struct sym_in *nv = realloc(c->v, ncap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		c->v = nv;
		c->cap = ncap;
	}
	c->v[c->n].addr = s->addr;
	c->v[c->n].len = l + 1;
	c->v[c->n].seq = c->n;
	c->v[c->n].name = s->name;
	c->v[c->n].sym = malloc(l + 2);
	if (!c->v[c->n].sym)
		return -ENOMEM;
	c->v[c->n].sym[0] = s->type ? s->type : '?';
	memcpy(c->v[c->n].sym + 1, s->name, l + 1);
	c->n++;
	return 0;
}

struct kmodel *kmodel__build(const struct ksym_table *t, const struct kmodel_opts *opts)
{
	struct collect c = {};
	struct kmodel *m = NULL;
	uint32_t *order = NULL;
	size_t i, off, ttl;
	int err;

	/* address order, ties in file order: what `nm -n` feeds the kernel build */
	for (i = 0, err = 0; i < ksym_table__cnt(t) && !err; i++) {
		struct ksym s;

		ksym_table__at(t, i, &s);
		err = collect_fn(&s, &c);
	}
	if (err || !c.n)
		goto fail;
	qsort(c.v, c.n, sizeof(*c.v), cmp_syms);
	for (i = 0; i < c.n; i++)
		c.v[i].seq = i;
	optimize(c.v, c.n);

	m = calloc(1, sizeof(*m));
	if (!m)
		goto fail;
	m->cnt = c.n;
	m->addrs = malloc(c.n * sizeof(*m->addrs));
	m->seqs = malloc(c.n * 3);
	order = malloc(c.n * sizeof(*order));
	for (i = 0, off = 0; i < c.n; i++)
		off += c.v[i].len + (c.v[i].len > 0x7f ? 2 : 1);
	m->names = malloc(off);
	m->names_len = off;
	if (!m->addrs || !m->seqs || !order || !m->names)
		goto fail;
	for (i = 0, off = 0; i < c.n; i++) {
		uint32_t l = c.v[i].len;

		m->addrs[i] = c.v[i].addr;
		/* length: one byte, or two when over 0x7f (low 7 bits first) */
		if (l > 0x7f) {
			m->names[off++] = (l & 0x7f) | 0x80;
			m->names[off++] = l >> 7;
		} else {
			m->names[off++] = l;
		}
		memcpy(m->names + off, c.v[i].sym, l);
		off += l;
	}
	/* token table: each of the 256 expanded, NUL-terminated, with a u16 index */
	for (i = 0, ttl = 0; i < 256; i++)
		ttl += expand_token(i, NULL, 0) + 1;
	m->token_table = calloc(1, ttl);
	if (!m->token_table)
		goto fail;
	for (i = 0, off = 0; i < 256; i++) {
		m->token_index[i] = off;
		off += expand_token(i, m->token_table + off, ttl - off);
		m->token_table[off++] = '\0';
	}
	m->token_table_len = ttl;
	/* seqs_of_names: address-order positions in name order */
	for (i = 0; i < c.n; i++)
		order[i] = i;
	sort_base = c.v;
	qsort(order, c.n, sizeof(*order), cmp_names);
	if (c.n >= DUP_BIT) {
		errno = E2BIG;
		goto fail;
	}
	for (i = 0; i < c.n; i++) {
		uint32_t v = order[i];

		if (i && !strcmp(c.v[order[i]].name, c.v[order[i - 1]].name))
			v |= DUP_BIT;
		m->seqs[3 * i] = v >> 16;
		m->seqs[3 * i + 1] = v >> 8;
		m->seqs[3 * i + 2] = v;
	}
	if (kmodel__set_markers(m, opts ? opts->marker_shift : 8))
		goto fail;
	for (i = 0; i < c.n; i++)
		free(c.v[i].sym);
	free(c.v);
	free(order);
	return m;
fail:
	for (i = 0; i < c.n; i++)
		free(c.v[i].sym);
	free(c.v);
	free(order);
	kmodel__free(m);
	errno = ENOMEM;
	return NULL;
}

void kmodel__free(struct kmodel *m)
{
	if (!m)
		return;
	free(m->addrs);
	free(m->names);
	free(m->markers);
	free(m->seqs);
	free(m->token_table);
	free(m->batch);
	free(m->tree);
	free(m);
}

size_t kmodel__cnt(const struct kmodel *m)
{
	return m->cnt;
}

static inline const unsigned char *record_len(const unsigned char *p, uint32_t *len)
{
	*len = *p++;
	if (*len & 0x80)
		*len = (*len & 0x7f) | (*p++ << 7);
	return p;
}

int kmodel__set_markers(struct kmodel *m, unsigned int shift)
{
	size_t i, off, n;
	uint32_t len;

	if (shift > 8)
		return -EINVAL;
	n = (m->cnt >> shift) + 1;
	free(m->markers);
	m->markers = malloc(n * sizeof(*m->markers));
	if (!m->markers)
		return -ENOMEM;
	for (i = 0, off = 0; i < m->cnt; i++) {
		if (!(i & ((1u << shift) - 1)))
			m->markers[i >> shift] = off;
		off = record_len(m->names + off, &len) - m->names + len;
	}
	m->nmarkers = n;
	m->shift = shift;
	return 0;
}

void kmodel__size(const struct kmodel *m, struct kmodel_size *out)
{
	out->names = m->names_len;
	out->markers = m->nmarkers * sizeof(uint32_t);
	out->seqs = m->cnt * 3;
	out->token_table = m->token_table_len;
	out->token_index = sizeof(m->token_index);
	out->offsets = m->cnt * sizeof(uint32_t);	/* kallsyms_offsets: u32 each */
	out->toptree = m->tree ? ((1u << m->tree_levels) - 1) * sizeof(uint32_t) : 0;
}

int kmodel__batch_begin(struct kmodel *m)
{
	size_t i, off;
	uint32_t len;

	if (m->batch_refs++)
		return 0;
	m->batch = malloc(m->cnt * sizeof(*m->batch));
	if (!m->batch) {
		m->batch_refs = 0;
		return -ENOMEM;
	}
	/* one scan over the names stream */
	for (i = 0, off = 0; i < m->cnt; i++) {
		m->batch[i] = off;
		off = record_len(m->names + off, &len) - m->names + len;
	}
	return 0;
}

void kmodel__batch_end(struct kmodel *m)
{
	if (m->batch_refs <= 0 || --m->batch_refs)
		return;
	free(m->batch);
	m->batch = NULL;
}

/* ---- lookups (kernel/kallsyms.c) ---- */

/* The record of position pos: from its marker, skip the records in between. */
static uint32_t symbol_offset(const struct kmodel *m, size_t pos, unsigned int flags,
			      uint64_t *skipped)
{
	const unsigned char *p;
	size_t i, n;
	uint32_t len;

	if ((flags & KMODEL_BATCH) && m->batch)
		return m->batch[pos];
	p = m->names + m->markers[pos >> m->shift];
	n = pos & ((1u << m->shift) - 1);
	for (i = 0; i < n; i++) {
		p = record_len(p, &len);
		p += len;
	}
	*skipped += n;
	return p - m->names;
}

/* Expands a record without its type letter. */
static void expand(const struct kmodel *m, uint32_t off, char *buf, size_t room)
{
	const unsigned char *p;
	uint32_t len;
	bool first = true;
	size_t n = 0;

	p = record_len(m->names + off, &len);
	while (len--) {
		const char *t = m->token_table + m->token_index[*p++];

		for (; *t; t++) {
			if (first) {
				first = false;
				continue;
			}
			if (n + 1 < room)
				buf[n++] = *t;
		}
	}
	buf[n] = '\0';
}

/* The series' on-the-fly compare: token by token, stop at the first difference. */
static int cmp_compressed(const struct kmodel *m, uint32_t off, const char *name)
{
	const unsigned char *p;
	uint32_t len;
	bool first = true;

	p = record_len(m->names + off, &len);
	while (len--) {
		const char *t = m->token_table + m->token_index[*p++];

		for (; *t; t++) {
			if (first) {
				first = false;
				continue;
			}
			if (*name != *t)
				return (unsigned char)*name - (unsigned char)*t;
			name++;
		}
	}
	return *name ? 1 : 0;
}

static inline uint32_t seq_at(const struct kmodel *m, size_t i, unsigned int flags)
{
	const unsigned char *p = m->seqs + 3 * i;
	uint32_t seq = 0;
	int j;

	if (flags & KMODEL_UNROLLED)
		return ((p[0] << 16) | (p[1] << 8) | p[2]) & (DUP_BIT - 1);
	for (j = 0; j < 3; j++)
		seq = (seq << 8) | p[j];
	return seq & (DUP_BIT - 1);
}

static inline bool dup_of_prev(const struct kmodel *m, size_t i)
{
	return m->seqs[3 * i] & (DUP_BIT >> 16);
}

static int compare_off(const struct kmodel *m, uint32_t off, const char *name,
		       unsigned int flags)
{
	char buf[KSYM_LEN];

	if (flags & KMODEL_ONTHEFLY)
		return cmp_compressed(m, off, name);
	expand(m, off, buf, sizeof(buf));
	return strcmp(name, buf);
}

static int compare_at(const struct kmodel *m, size_t i, const char *name, unsigned int flags,
		      uint64_t *skipped)
{
	return compare_off(m, symbol_offset(m, seq_at(m, i, flags), flags, skipped), name, flags);
}

/* Within [mid - w, mid + w] (clamped to [low, high]): the cheapest probe to reach. */
static size_t near_marker(const struct kmodel *m, size_t low, size_t high, size_t mid)
{
	size_t w = m->window, lo = mid - low > w ? mid - w : low, hi = high - mid > w ? mid + w : high;
	uint32_t mask = (1u << m->shift) - 1, best_cost = ~0u, c;
	size_t i, best = mid;

	for (i = lo; i <= hi && best_cost; i++) {
		c = seq_at(m, i, KMODEL_UNROLLED) & mask;
		/* prefer the middle on equal cost: keeps the search balanced */
		if (c < best_cost || (c == best_cost && (i > mid ? i - mid : mid - i) <
							 (best > mid ? best - mid : mid - best))) {
			best_cost = c;
			best = i;
		}
	}
	return best;
}

/* Heap numbering of the plain binary search tree over [0, cnt). */
static void fill_tree(struct kmodel *m, size_t node, ssize_t low, ssize_t high, unsigned int depth)
{
	ssize_t mid;
	uint64_t skipped = 0;

	if (low > high || depth >= m->tree_levels)
		return;
	mid = low + (high - low) / 2;
	m->tree[node] = symbol_offset(m, seq_at(m, mid, KMODEL_UNROLLED), 0, &skipped);
	fill_tree(m, 2 * node, low, mid - 1, depth + 1);
	fill_tree(m, 2 * node + 1, mid + 1, high, depth + 1);
}

int kmodel__set_layout(struct kmodel *m, unsigned int window, unsigned int tree_levels)
{
	if (tree_levels > 20)
		return -EINVAL;
	m->window = window;
	free(m->tree);
	m->tree = NULL;
	m->tree_levels = tree_levels;
	if (!tree_levels)
		return 0;
	m->tree = calloc(1u << tree_levels, sizeof(*m->tree));
	if (!m->tree)
		return -ENOMEM;
	fill_tree(m, 1, 0, m->cnt - 1, 0);
	return 0;
}

int kmodel__lookup_name(const struct kmodel *m, const char *name, unsigned int flags,
			size_t *first, size_t *last, uint64_t *skipped)
{
	ssize_t low = 0, high = m->cnt - 1, mid = 0, lo, hi;
	size_t node = 1;
	unsigned int depth = 0;
	int ret = 1;

	while (low <= high) {
		mid = low + (high - low) / 2;
		if ((flags & KMODEL_TOPTREE) && m->tree && depth < m->tree_levels) {
			/* a top node: its offset is stored, no walk */
			ret = compare_off(m, m->tree[node], name, flags);
		} else {
			if ((flags & KMODEL_NEARMARK) && m->window)
				mid = near_marker(m, low, high, mid);
			ret = compare_at(m, mid, name, flags, skipped);
		}
		depth++;
		if (ret > 0) {
			low = mid + 1;
			node = 2 * node + 1;
		} else if (ret < 0) {
			high = mid - 1;
			node = 2 * node;
		} else {
			break;
		}
	}
	if (ret)
		return -ESRCH;
	/* equal names are neighbours in name order: widen to all of them */
	if (flags & KMODEL_DUPBIT) {
		for (lo = mid; lo > 0 && dup_of_prev(m, lo); lo--)
			;
		for (hi = mid; hi + 1 < (ssize_t)m->cnt && dup_of_prev(m, hi + 1); hi++)
			;
	} else {
		for (lo = mid; lo > 0 && !compare_at(m, lo - 1, name, flags, skipped); lo--)
			;
		for (hi = mid; hi + 1 < (ssize_t)m->cnt &&
			       !compare_at(m, hi + 1, name, flags, skipped); hi++)
			;
	}
	*first = lo;
	*last = hi;
	return 0;
}

size_t kmodel__name_pos(const struct kmodel *m, size_t i)
{
	return seq_at(m, i, KMODEL_UNROLLED);
}

int kmodel__lookup_addr(const struct kmodel *m, uint64_t addr, unsigned int flags, char *buf,
			size_t len, uint64_t *skipped)
{
	size_t low = 0, high = m->cnt, pos, next;
	char name[KSYM_LEN];

	while (high - low > 1) {
		size_t mid = low + (high - low) / 2;

		if (m->addrs[mid] <= addr)
			low = mid;
		else
			high = mid;
	}
	if (!m->cnt || m->addrs[low] > addr)
		return -ENOENT;
	pos = low;
	/* the first of aliased symbols, as get_symbol_pos() reports */
	while (pos && m->addrs[pos - 1] == m->addrs[pos])
		pos--;
	for (next = pos + 1; next < m->cnt && m->addrs[next] == m->addrs[pos]; next++)
		;
	expand(m, symbol_offset(m, pos, flags, skipped), name, sizeof(name));
	snprintf(buf, len, "%s+0x%llx/0x%llx", name, (unsigned long long)(addr - m->addrs[pos]),
		 (unsigned long long)(next < m->cnt ? m->addrs[next] - m->addrs[pos] : 0));
	return 0;
}

int kmodel__at(const struct kmodel *m, size_t pos, uint64_t *addr, char *name, size_t len)
{
	uint64_t skipped = 0;

	if (pos >= m->cnt)
		return -ERANGE;
	*addr = m->addrs[pos];
	expand(m, symbol_offset(m, pos, 0, &skipped), name, len);
	return 0;
}
