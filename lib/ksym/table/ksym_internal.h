/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The table's part of the library's internals: the table's layout, its name
 * index, and the functions the table's files share; every part of libksym
 * builds on it. Nothing outside lib/ksym includes this. The readers of kernel
 * memory are in ksym_kmem.h, the cache files in ksym_cachefile.h, ksym_res.h
 * and ksym_build.h, the sources in ksym_source.h, the load's own state in
 * ksym_db.h.
 */
#ifndef KSYM_INTERNAL_H
#define KSYM_INTERNAL_H

#include <string.h>
#include <time.h>

#include <ksym/ksym.h>

/* The kernel's KSYM_NAME_LEN is 512 (with the NUL). */
#define KSYM_NAME_MAX 511

/* The phases' clock (the tool's src/common/clock.h is the same, on its side). */
static inline uint64_t ksym_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* The files' sections start at multiples of 8. */
static inline size_t ksym_align8(size_t v)
{
	return (v + 7) & ~(size_t)7;
}

/* A 64-bit field at byte off of a struct read from kernel memory. */
static inline uint64_t ksym_get64(const unsigned char *p, int off)
{
	uint64_t v;

	memcpy(&v, p + off, 8);
	return v;
}

/*
 * A caller's opts (of any older size) into o, sized as this library's; the
 * stats they point at, or local: where a loader's counts go.
 */
static inline struct ksym_parse_stats *ksym_opts_copy(struct ksym_parse_opts *o,
						      const struct ksym_parse_opts *opts,
						      struct ksym_parse_stats *local)
{
	memset(o, 0, sizeof(*o));
	if (opts)
		memcpy(o, opts, opts->sz < sizeof(*o) ? opts->sz : sizeof(*o));
	o->sz = sizeof(*o);
	if (!o->stats)
		o->stats = local;
	return o->stats;
}

/*
 * One per symbol, in file order while parsing (the name index is built as the
 * file is read), in address order once finished: ksym_table__finish() moves
 * the few that are out of place (module symbols in /proc/kallsyms), stably,
 * and renames them in the index.
 */
struct ksym_ent {
	uint64_t addr;
	uint32_t name;		/* offset of the NUL-terminated name in buf */
	uint32_t size;		/* saturates at UINT32_MAX */
	uint16_t mod;		/* 0: vmlinux, else mods[mod - 1] */
	char type;
	uint8_t flags;
};

/*
 * A slot holds the name's offset beside its entry, so a hit loads the string and
 * the entry side by side instead of one after the other; and seven more hash
 * bits, so a probe rarely compares a string that is not the one.
 */
struct ksym_slot {
	uint32_t ref;		/* KSYM_IX_*: entry index + 1, chain bit, hash tag; 0 = empty */
	uint32_t name;		/* offset of the name in buf */
};

#define KSYM_IX_IDX	0x00ffffffu	/* entry index + 1 */
#define KSYM_IX_MORE	0x01000000u	/* dup_next of that entry continues the chain */
#define KSYM_IX_TAG	0xfe000000u	/* the hash's top seven bits */
#define KSYM_IX_MAX	KSYM_IX_IDX	/* entries an index can hold */

/*
 * Exact-name index: one slot per distinct name, holding its latest entry; the
 * others are chained by dup_next (same KSYM_IX_IDX | KSYM_IX_MORE encoding),
 * each to an earlier one, so a name without duplicates never touches dup_next.
 * Kernel tables hold hundreds of "__func__.0": as slots of their own they would
 * form probe runs that every lookup nearby has to walk. Chains only go
 * backwards, so even a corrupt one ends. Callers order what they find by address.
 */
struct ksym_index {
	struct ksym_slot *slots;
	uint32_t *dup_next;	/* entry -> the chain's next (KSYM_IX_IDX | KSYM_IX_MORE) */
	uint32_t mask;
	size_t used;		/* slots in use */
	size_t dup_cap;
};

struct ksym_akeys {
	size_t first;		/* address-order position of k[0] */
	uint64_t base;		/* the address k[] counts from */
	uint32_t k[];
};

struct ksym_table {
	char *buf;
	size_t len;
	size_t buf_cap;		/* from ksym_mem_alloc(buf_cap); 0: malloc()ed */
	struct ksym_ent *ents;	/* from ksym_mem_alloc(ent_cap entries) */
	size_t cnt;
	size_t ent_cap;
	/*
	 * The resolved symbols' addresses in address order, as offsets from the
	 * first: 4 bytes a symbol where an entry is 24, so an address search
	 * walks a twelfth of the entries' pages. Built by the first address
	 * lookup (a table loaded for names only never pays for it).
	 */
	struct ksym_akeys *akeys;
	uint32_t *mods;		/* offsets of module names in buf */
	size_t mod_cnt;
	enum ksym_format fmt;
	struct ksym_index ix;	/* alive between batch_begin and the last batch_end */
	int batch_refs;
	/* a cache file mapped read-only: everything above points into it */
	void *map;
	size_t map_len;
	/*
	 * A build cache used where it is mapped: entries hold offsets, and
	 * mod_base[mod] (0: vmlinux) is this boot's base of each (malloc()ed);
	 * KSYM_BASE_NONE: a module not loaded now, its entries unresolved.
	 */
	uint64_t *mod_base;
	/*
	 * Address-order position -> entry, where the file's groups are not in
	 * this boot's order (modules loaded in another order, some not at all):
	 * the unresolved first, then by address. NULL: the entries are in order.
	 * Moving 40k mapped entries and their index instead cost 2-6 times the
	 * whole load (measured in the TCG guest; most at a boot's first run).
	 */
	uint32_t *order;
};

#define KSYM_BASE_NONE UINT64_MAX

/* An entry's address: its own, or its offset from its base in a build cache. */
static inline uint64_t ksym_ent_addr(const struct ksym_table *t, const struct ksym_ent *e)
{
	if (!t->mod_base)
		return e->addr;
	return t->mod_base[e->mod] == KSYM_BASE_NONE ? 0 : e->addr + t->mod_base[e->mod];
}

/* Its flags: a build cache's entry of a module not loaded now is unresolved. */
static inline unsigned int ksym_ent_flags(const struct ksym_table *t, const struct ksym_ent *e)
{
	return t->mod_base && t->mod_base[e->mod] == KSYM_BASE_NONE ? e->flags | KSYM_F_UNRESOLVED
								     : e->flags;
}

/* The entry at address-order position pos. */
static inline const struct ksym_ent *ksym_ent_at(const struct ksym_table *t, size_t pos)
{
	return &t->ents[t->order ? t->order[pos] : pos];
}

static inline const char *ksym_ent_name(const struct ksym_table *t, const struct ksym_ent *e)
{
	return t->buf + e->name;
}

static inline const char *ksym_ent_mod(const struct ksym_table *t, const struct ksym_ent *e)
{
	return e->mod ? t->buf + t->mods[e->mod - 1] : NULL;
}

/* Entries a and b in address order, ties by index: every sort gives one order. */
static inline int ksym_addr_cmp(const struct ksym_table *t, uint32_t a, uint32_t b)
{
	uint64_t x = ksym_ent_addr(t, &t->ents[a]), y = ksym_ent_addr(t, &t->ents[b]);

	if (x != y)
		return x < y ? -1 : 1;
	return a < b ? -1 : a > b;
}

/* The entry e as a struct ksym. */
static inline void ksym_fill(const struct ksym_table *t, const struct ksym_ent *e, struct ksym *out)
{
	out->addr = ksym_ent_addr(t, e);
	out->size = e->size;
	out->name = ksym_ent_name(t, e);
	out->module = ksym_ent_mod(t, e);
	out->type = e->type;
	out->flags = ksym_ent_flags(t, e);
}

/* The table's address keys, built at the first lookup by address (table.c). */
const struct ksym_akeys *ksym_akeys_get(const struct ksym_table *t);

/* A function's kallsyms type: t/T, or w/W for a weak one. */
static inline bool ksym_type_is_text(char type)
{
	return type == 't' || type == 'T' || type == 'w' || type == 'W';
}

/*
 * Eight bytes a step, then a finalizer that mixes the high bits down: a
 * power-of-two table uses the low bits, and kernel names share long prefixes.
 * (Byte-at-a-time FNV cost a third of a lookup.)
 */
static inline uint32_t ksym_hash_len(const char *s, size_t len)
{
	const uint64_t K = 0xff51afd7ed558ccdull;
	uint64_t h = 0x9e3779b97f4a7c15ull ^ len, w;
	size_t rem = len % 8, i;
	bool whole = len >= 8;

	for (; len >= 8; s += 8, len -= 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * K;
		h ^= h >> 32;
	}
	/*
	 * The tail as the last eight bytes shifted down, where there are eight:
	 * copying up to seven bytes into a word stalled every lookup on a store
	 * that the load could not take its bytes from (a hit in a table that
	 * fits the cache: 51 ns before, 40-45 ns after, measured).
	 */
	if (rem && whole) {
		memcpy(&w, s + rem - 8, 8);
		w >>= 64 - 8 * rem;
	} else {
		for (w = 0, i = 0; i < rem; i++)
			w |= (uint64_t)(unsigned char)s[i] << 8 * i;
	}
	h = (h ^ w) * K;
	h ^= h >> 29;
	h *= 0xc4ceb9fe1a85ec53ull;
	return (uint32_t)(h ^ (h >> 32));
}

static inline uint32_t ksym_hash(const char *s)
{
	return ksym_hash_len(s, strlen(s));
}

/*
 * The chain of entries called name (hash h): its head, a KSYM_IX_IDX |
 * KSYM_IX_MORE value (entry index + 1 in KSYM_IX_IDX); 0: none.
 */
static inline uint32_t ksym_index_first(const struct ksym_table *t, const char *name, uint32_t h)
{
	const struct ksym_slot *slots = t->ix.slots;
	uint32_t s, m = t->ix.mask, tag = h & KSYM_IX_TAG, r;

	for (s = h & m; (r = slots[s].ref); s = (s + 1) & m) {
		if ((r & KSYM_IX_TAG) != tag)
			continue;
		/* the entry is what a hit needs next: fetch it while comparing */
		__builtin_prefetch(&t->ents[(r & KSYM_IX_IDX) - 1]);
		if (!strcmp(t->buf + slots[s].name, name))
			return r & (KSYM_IX_IDX | KSYM_IX_MORE);
	}
	return 0;
}

/* The chain's next after v, or 0. */
static inline uint32_t ksym_index_next(const struct ksym_table *t, uint32_t v)
{
	return v & KSYM_IX_MORE ? t->ix.dup_next[(v & KSYM_IX_IDX) - 1] : 0;
}

/*
 * Arrays that may be large (mem.c): a MiB and more in huge pages where
 * the kernel allows them. Zeroed when allocated; realloc and free must be
 * given the size last asked for.
 */
void *ksym_mem_alloc(size_t size);
void *ksym_mem_realloc(void *p, size_t old, size_t size);
void ksym_mem_free(void *p, size_t size);

/* Index building, also while parsing: init for about n entries, add in order. */
int ksym_index_init(struct ksym_index *ix, size_t n);
int ksym_index_add(struct ksym_index *ix, const struct ksym_table *t, uint32_t i);
/* Or all of t's entries at once (init included): faster than adding each in turn. */
int ksym_index_build(struct ksym_index *ix, const struct ksym_table *t);
void ksym_index_free(struct ksym_index *ix);

/*
 * A KALLSYMS table fed symbol by symbol (files/feed.c), filtered as a parse
 * with opts would: for the ksym iterator's records (names without a NUL in
 * them). A symbol the file format could not hold is counted malformed.
 * ents/arena: sizes to start from.
 * end() frees the feed and returns the table, or NULL with errno (from err
 * where err is nonzero).
 */
struct ksym_feed;

struct ksym_feed *ksym_feed__new(const struct ksym_parse_opts *opts, size_t ents, size_t arena);
/* The same as a table of another format: KSYM_FMT_FUNCS_ADDRS (type 0) or KALLSYMS. */
struct ksym_feed *ksym_feed__new_fmt(enum ksym_format fmt, const struct ksym_parse_opts *opts,
				     size_t ents, size_t arena);
int ksym_feed__add(struct ksym_feed *f, uint64_t addr, char type, const char *name,
		   size_t name_len, const char *mod, size_t mod_len);
struct ksym_table *ksym_feed__end(struct ksym_feed *f, int err);
/*
 * Whether a symbol of this type whose name starts with head (len bytes: two,
 * or the whole name where it is shorter) can pass f's filters: a first look,
 * before a compressed name is expanded whole.
 */
bool ksym_feed__may_keep(const struct ksym_feed *f, char type, const char *head, size_t len);

/*
 * a's entries and b's as one new table, a's addresses made this boot's (a
 * rebased build cache), b's modules after a's: the build cache and the
 * modules it does not know, read live. Indexed; NULL with errno.
 */
struct ksym_table *ksym_table__merge(const struct ksym_table *a, const struct ksym_table *b);

/*
 * Marks (a bit per address-order position) the entries glob matches, as
 * ksym_table__match() would; then a new table of the marked ones, indexed, in
 * t's order with t's sizes and every module of t: what a set of patterns can
 * match, kept apart so that a run with the same patterns reads only that.
 */
int ksym_table__mark(const struct ksym_table *t, const char *glob, uint8_t *marks);
struct ksym_table *ksym_table__select(const struct ksym_table *t, const uint8_t *marks);

/* After parsing or changing addresses: entries into address order, sizes. */
int ksym_table__finish(struct ksym_table *t);

/* murmur3's finalizer: every input bit flips each output bit half the time */
static inline uint64_t ksym_fmix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	return x ^ (x >> 33);
}

static inline uint32_t ksym_fold32(uint64_t x)
{
	return (uint32_t)(x ^ x >> 32);
}

#endif
