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
#include <sys/mman.h>

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
	uint16_t *sub;			/* SUBMARK: offsets from the 256:1 marker */
	size_t nsub;
	unsigned int sub_shift, sub_per;	/* a sub-marker every 2^k; per block */
	unsigned char *seqs;		/* 3 bytes per symbol, big-endian */
	char *token_table;		/* 256 NUL-terminated expansions */
	size_t token_table_len;
	uint16_t token_index[256];
	uint32_t *batch;		/* transient: record offset per position */
	int batch_refs;
	unsigned int window;		/* NEARMARK */
	unsigned char *tree;		/* TOPTREE: 3-byte offsets by heap node id (1-based) */
	unsigned int tree_levels;
	uint32_t *keys;			/* KEYTREE: lcp << 24 | next 3 name bytes */
	unsigned int key_levels;
};


/*
 * The kernel maps .rodata with 2 MiB pages; 4 KiB pages would add TLB misses
 * to the model's probes that the kernel does not have. The mapping's length
 * sits in front of the data.
 */
#define HUGE_SZ (2ul << 20)
#define RODATA_HDR 64

static void *rodata_alloc(size_t size)
{
	size_t len = (size + RODATA_HDR + HUGE_SZ - 1) & ~(HUGE_SZ - 1);
	char *p;

	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	madvise(p, len, MADV_HUGEPAGE);
	*(size_t *)p = len;
	return p + RODATA_HDR;
}

static void rodata_free(void *data)
{
	char *p = data;

	if (p)
		munmap(p - RODATA_HDR, *(size_t *)(p - RODATA_HDR));
}

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

/*
 * A name the linker script may provide (__start_X, __stop_X, __end_X,
 * __X_start, __X_end): at an address it shares, it sorts after the others.
 */
static bool linker_provided(const char *name)
{
	size_t len = strlen(name);

	if (len < 8 || name[0] != '_' || name[1] != '_')
		return false;
	return !strncmp(name + 2, "start_", 6) || !strncmp(name + 2, "stop_", 5) ||
	       !strncmp(name + 2, "end_", 4) || !strcmp(name + len - 6, "_start") ||
	       !strcmp(name + len - 4, "_end");
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
	/* then what the program named before what the linker script may have */
	wx = linker_provided((const char *)x->sym + 1);
	wy = linker_provided((const char *)y->sym + 1);
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
	m->addrs = rodata_alloc(c.n * sizeof(*m->addrs));
	m->seqs = rodata_alloc(c.n * 3);
	order = malloc(c.n * sizeof(*order));
	for (i = 0, off = 0; i < c.n; i++)
		off += c.v[i].len + (c.v[i].len > 0x7f ? 2 : 1);
	m->names = rodata_alloc(off);
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
	rodata_free(m->addrs);
	rodata_free(m->names);
	rodata_free(m->markers);
	rodata_free(m->seqs);
	rodata_free(m->sub);
	free(m->token_table);
	free(m->batch);
	free(m->tree);
	free(m->keys);
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
	rodata_free(m->markers);
	m->markers = rodata_alloc(n * sizeof(*m->markers));
	if (!m->markers)
		return -ENOMEM;
	for (i = 0, off = 0; i < m->cnt; i++) {
		if (!(i & ((1u << shift) - 1)))
			m->markers[i >> shift] = off;
		off = record_len(m->names + off, &len) - m->names + len;
	}
	m->nmarkers = n;
	m->shift = shift;
	rodata_free(m->sub);
	m->sub = NULL;
	m->nsub = 0;
	return 0;
}

int kmodel__set_submarkers(struct kmodel *m, unsigned int shift)
{
	size_t i, off, base = 0, nblk = (m->cnt >> 8) + 1;
	uint32_t len;

	rodata_free(m->sub);
	m->sub = NULL;
	m->nsub = 0;
	if (shift >= 8)
		return 0;
	if (m->shift != 8)
		return -EINVAL;
	m->sub_shift = shift;
	m->sub_per = (1u << (8 - shift)) - 1;
	m->nsub = nblk * m->sub_per;
	m->sub = rodata_alloc(m->nsub * sizeof(*m->sub));
	if (!m->sub)
		return -ENOMEM;
	for (i = 0, off = 0; i < m->cnt; i++) {
		size_t in_blk = i & 0xff;

		if (!in_blk) {
			base = off;
		} else if (!(in_blk & ((1u << shift) - 1))) {
			/* a block that does not fit 16 bits: the build would fail */
			if (off - base > 0xffff)
				return -E2BIG;
			m->sub[(i >> 8) * m->sub_per + (in_blk >> shift) - 1] = off - base;
		}
		off = record_len(m->names + off, &len) - m->names + len;
	}
	return 0;
}

void kmodel__arrays(const struct kmodel *m, struct kmodel_arrays *out)
{
	*out = (struct kmodel_arrays){
		.cnt = m->cnt,
		.names = m->names,
		.names_len = m->names_len,
		.markers = m->markers,
		.nmarkers = m->nmarkers,
		.sub = m->sub,
		.nsub = m->nsub,
		.seqs = m->seqs,
		.token_table = m->token_table,
		.token_table_len = m->token_table_len,
		.token_index = m->token_index,
		.tree = m->tree ? m->tree + 3 : NULL,
		.tree_len = m->tree ? ((1u << m->tree_levels) - 1) * 3 : 0,
	};
}

void kmodel__size(const struct kmodel *m, struct kmodel_size *out)
{
	out->names = m->names_len;
	out->markers = m->nmarkers * sizeof(uint32_t);
	out->seqs = m->cnt * 3;
	out->token_table = m->token_table_len;
	out->token_index = sizeof(m->token_index);
	out->offsets = m->cnt * sizeof(uint32_t);	/* kallsyms_offsets: u32 each */
	out->submarkers = m->nsub * sizeof(*m->sub);
	out->toptree = m->tree ? ((1u << m->tree_levels) - 1) * 3 : 0;
	out->keytree = m->keys ? ((1u << m->key_levels) - 1) * sizeof(uint32_t) : 0;
}

int kmodel__batch_begin(struct kmodel *m)
{
	size_t i, off;
	uint32_t len;

	if (m->batch_refs++)
		return 0;
	/* kvmalloc'd in the kernel: ordinary pages */
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

/* Records between pos and the nearest marker (or sub-marker) before it. */
static inline unsigned int walk_mask(const struct kmodel *m, unsigned int flags)
{
	if ((flags & KMODEL_SUBMARK) && m->sub)
		return (1u << m->sub_shift) - 1;
	return (1u << m->shift) - 1;
}

/* The offset a walk to pos starts from. */
static inline uint32_t walk_start(const struct kmodel *m, size_t pos, unsigned int flags)
{
	if ((flags & KMODEL_SUBMARK) && m->sub) {
		size_t blk = pos >> 8, sub = (pos & 0xff) >> m->sub_shift;

		return m->markers[blk] + (sub ? m->sub[blk * m->sub_per + sub - 1] : 0);
	}
	return m->markers[pos >> m->shift];
}

/* The record of position pos: from its marker, skip the records in between. */
static uint32_t symbol_offset(const struct kmodel *m, size_t pos, unsigned int flags,
			      uint64_t *skipped)
{
	const unsigned char *p;
	size_t i, n;
	uint32_t len;

	if ((flags & KMODEL_BATCH) && m->batch)
		return m->batch[pos];
	p = m->names + walk_start(m, pos, flags);
	n = pos & walk_mask(m, flags);
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

/*
 * Within [mid - w, mid + w] (clamped to [low, high]): the probe whose record is
 * the fewest records past a marker. Scanning outward from mid keeps the search
 * as balanced as the choice allows; a probe on a marker ends the scan.
 */
static ssize_t near_marker(const struct kmodel *m, ssize_t low, ssize_t high, ssize_t mid,
			   unsigned int flags)
{
	/* markers are at most 256 apart: the seq's low byte is the distance */
	unsigned int mask = walk_mask(m, flags), best_cost = ~0u, c;
	ssize_t d, w = m->window, best = mid;

	for (d = 0; d <= w; d++) {
		if (mid - d < low && mid + d > high)
			break;
		if (mid - d >= low) {
			c = m->seqs[3 * (mid - d) + 2] & mask;
			if (c < best_cost) {
				best_cost = c;
				best = mid - d;
			}
		}
		if (d && mid + d <= high) {
			c = m->seqs[3 * (mid + d) + 2] & mask;
			if (c < best_cost) {
				best_cost = c;
				best = mid + d;
			}
		}
		if (!best_cost)
			break;
	}
	return best;
}

/* Heap numbering of the plain binary search tree over [0, cnt). */
static void fill_tree(struct kmodel *m, size_t node, ssize_t low, ssize_t high, unsigned int depth)
{
	ssize_t mid;
	uint64_t skipped = 0;
	uint32_t off;

	if (low > high || depth >= m->tree_levels)
		return;
	mid = low + (high - low) / 2;
	off = symbol_offset(m, seq_at(m, mid, KMODEL_UNROLLED), 0, &skipped);
	m->tree[3 * node] = off >> 16;
	m->tree[3 * node + 1] = off >> 8;
	m->tree[3 * node + 2] = off;
	fill_tree(m, 2 * node, low, mid - 1, depth + 1);
	fill_tree(m, 2 * node + 1, mid + 1, high, depth + 1);
}

/* Name-order entry i, expanded (no type letter). */
static void name_at(const struct kmodel *m, ssize_t i, char *buf, size_t room)
{
	uint64_t skipped = 0;

	expand(m, symbol_offset(m, seq_at(m, i, KMODEL_UNROLLED), 0, &skipped), buf, room);
}

/*
 * A search reaches [low, high] only for a name strictly between entries low - 1
 * and high + 1, so it shares their common prefix: the node keeps that length
 * and the three bytes after it, which almost always decide the compare.
 */
static void fill_keys(struct kmodel *m, size_t node, ssize_t low, ssize_t high,
		      unsigned int depth)
{
	char a[KSYM_LEN], b[KSYM_LEN], s[KSYM_LEN];
	size_t lcp = 0, j;
	ssize_t mid;
	uint32_t key;

	if (low > high || depth >= m->key_levels)
		return;
	mid = low + (high - low) / 2;
	if (low > 0 && high + 1 < (ssize_t)m->cnt) {
		name_at(m, low - 1, a, sizeof(a));
		name_at(m, high + 1, b, sizeof(b));
		while (a[lcp] && a[lcp] == b[lcp] && lcp < 255)
			lcp++;
	}
	name_at(m, mid, s, sizeof(s));
	key = lcp << 24;
	for (j = 0; j < 3 && s[lcp + j]; j++)
		key |= (uint32_t)(unsigned char)s[lcp + j] << (16 - 8 * j);
	m->keys[node] = key;
	fill_keys(m, 2 * node, low, mid - 1, depth + 1);
	fill_keys(m, 2 * node + 1, mid + 1, high, depth + 1);
}

int kmodel__set_layout(struct kmodel *m, unsigned int window, unsigned int tree_levels,
		       unsigned int key_levels)
{
	if (tree_levels > 20 || key_levels > 20)
		return -EINVAL;
	m->window = window;
	free(m->tree);
	free(m->keys);
	m->tree = NULL;
	m->keys = NULL;
	m->tree_levels = tree_levels;
	m->key_levels = key_levels;
	if (tree_levels) {
		/* offsets into a names stream under 16 MiB: 3 bytes, as seqs are */
		if (m->names_len >= 1u << 24)
			return -E2BIG;
		m->tree = calloc(1u << tree_levels, 3);
		if (!m->tree)
			return -ENOMEM;
		fill_tree(m, 1, 0, m->cnt - 1, 0);
	}
	if (key_levels) {
		m->keys = calloc(1u << key_levels, sizeof(*m->keys));
		if (!m->keys)
			return -ENOMEM;
		fill_keys(m, 1, 0, m->cnt - 1, 0);
	}
	return 0;
}

#define KEY_UNDECIDED 2

/*
 * A key node against name: < 0 or > 0 decided, 0 equal names, KEY_UNDECIDED
 * when the three bytes match and neither string ends in them.
 */
static int key_cmp(uint32_t key, const char *name)
{
	int j;

	name += key >> 24;
	for (j = 0; j < 3; j++) {
		unsigned char a = name[j], b = key >> (16 - 8 * j);

		if (a != b)
			return a < b ? -1 : 1;
		if (!a)
			return 0;
	}
	return KEY_UNDECIDED;
}

/* The probe of [low, high]: its middle, or the cheapest to reach near it. */
static inline ssize_t probe_of(const struct kmodel *m, ssize_t low, ssize_t high,
			       unsigned int flags)
{
	ssize_t mid = low + (high - low) / 2;

	if ((flags & KMODEL_NEARMARK) && m->window)
		mid = near_marker(m, low, high, mid, flags);
	return mid;
}

static inline uint32_t tree_off(const struct kmodel *m, size_t node)
{
	const unsigned char *p = m->tree + 3 * node;

	return (p[0] << 16) | (p[1] << 8) | p[2];
}

static inline bool in_tree(const struct kmodel *m, unsigned int flags, unsigned int depth)
{
	return (flags & KMODEL_TOPTREE) && m->tree && depth < m->tree_levels;
}

static inline bool in_keys(const struct kmodel *m, unsigned int flags, unsigned int depth)
{
	return (flags & KMODEL_KEYTREE) && m->keys && depth < m->key_levels;
}

/* The seqs a probe of [low, high] reads: the middle, or NEARMARK's window. */
static void prefetch_seqs(const struct kmodel *m, ssize_t low, ssize_t high, unsigned int flags)
{
	ssize_t mid = low + (high - low) / 2, w = (flags & KMODEL_NEARMARK) ? m->window : 0;

	if (low > high)
		return;
	__builtin_prefetch(m->seqs + 3 * (mid - w > low ? mid - w : low));
	__builtin_prefetch(m->seqs + 3 * mid);
	__builtin_prefetch(m->seqs + 3 * (high - mid > w ? mid + w : high));
}

/* The record a probe of [low, high] starts its walk at (its seqs asked a level up). */
static void prefetch_walk(const struct kmodel *m, ssize_t low, ssize_t high, unsigned int flags,
			  unsigned int depth, size_t node)
{
	uint32_t seq;

	if (low > high || in_keys(m, flags, depth))
		return;
	if (in_tree(m, flags, depth)) {
		__builtin_prefetch(m->names + tree_off(m, node));
		return;
	}
	seq = seq_at(m, probe_of(m, low, high, flags), KMODEL_UNROLLED);
	if ((flags & KMODEL_BATCH) && m->batch)
		__builtin_prefetch(m->names + m->batch[seq]);
	else
		__builtin_prefetch(m->names + walk_start(m, seq, flags));
}

/*
 * While probe mid compares, load what the next probe needs whichever way the
 * compare goes: its walk's start, and the seqs of the probes after it.
 */
static void prefetch_next(const struct kmodel *m, ssize_t low, ssize_t mid, ssize_t high,
			  unsigned int flags, unsigned int depth, size_t node)
{
	ssize_t l = low + (mid - 1 - low) / 2, r = mid + 1 + (high - mid - 1) / 2;

	/* grandchildren under the tree's bottom use plain middles as their ranges */
	prefetch_seqs(m, low, l - 1, flags);
	prefetch_seqs(m, l + 1, mid - 1, flags);
	prefetch_seqs(m, mid + 1, r - 1, flags);
	prefetch_seqs(m, r + 1, high, flags);
	prefetch_walk(m, low, mid - 1, flags, depth + 1, 2 * node);
	prefetch_walk(m, mid + 1, high, flags, depth + 1, 2 * node + 1);
}

int kmodel__lookup_name(const struct kmodel *m, const char *name, unsigned int flags,
			size_t *first, size_t *last, uint64_t *skipped)
{
	ssize_t low = 0, high = m->cnt - 1, mid = 0, lo, hi;
	size_t node = 1;
	unsigned int depth = 0;
	int ret = 1;

	while (low <= high) {
		bool top = in_tree(m, flags, depth), key = in_keys(m, flags, depth);

		/* the top nodes are the plain search tree's: their data is stored */
		mid = top || key ? low + (high - low) / 2 : probe_of(m, low, high, flags);
		if (flags & KMODEL_PREFETCH)
			prefetch_next(m, low, mid, high, flags, depth, node);
		/* a key decides most compares without reading the names stream */
		ret = key ? key_cmp(m->keys[node], name) : KEY_UNDECIDED;
		if (ret == KEY_UNDECIDED)
			ret = top ? compare_off(m, tree_off(m, node), name, flags)
				  : compare_at(m, mid, name, flags, skipped);
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
