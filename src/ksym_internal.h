/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* ksym table internals, shared by the parser and the query code only. */
#ifndef KSYM_INTERNAL_H
#define KSYM_INTERNAL_H

#include <string.h>

#include "ksym.h"

/* 24 bytes per symbol; strings live in the read buffer. */
struct ksym_ent {
	uint64_t addr;
	uint32_t name;		/* offset of the NUL-terminated name in buf */
	uint32_t seq;		/* input order: keeps the sort stable */
	uint32_t size;		/* saturates at UINT32_MAX */
	uint16_t mod;		/* 0: vmlinux, else mods[mod - 1] */
	char type;
	uint8_t flags;
};

struct ksym_slot {
	uint32_t hash;
	uint32_t idx;		/* entry index + 1; 0 = empty */
};

struct ksym_table {
	char *buf;
	size_t len;
	struct ksym_ent *ents;
	size_t cnt;
	uint32_t *mods;		/* offsets of module names in buf */
	size_t mod_cnt;
	enum ksym_format fmt;
	/*
	 * Exact-name index, alive between batch_begin and the last batch_end: one
	 * slot per distinct name (its lowest-address entry), the other entries of
	 * that name chained by dup_next in address order. Kernel tables hold
	 * hundreds of "__func__.0"; as slots of their own they would form probe
	 * runs that every lookup nearby has to walk.
	 */
	struct ksym_slot *slots;
	uint32_t *dup_next;	/* entry -> index + 1 of the next same-named; 0: last */
	uint32_t slot_mask;
	int batch_refs;
	/* a cache file mapped read-only: everything above points into it */
	void *map;
	size_t map_len;
};

static inline const char *ksym_ent_name(const struct ksym_table *t, const struct ksym_ent *e)
{
	return t->buf + e->name;
}

static inline const char *ksym_ent_mod(const struct ksym_table *t, const struct ksym_ent *e)
{
	return e->mod ? t->buf + t->mods[e->mod - 1] : NULL;
}

/*
 * Eight bytes a step, then a finalizer that mixes the high bits down: a
 * power-of-two table uses the low bits, and kernel names share long prefixes.
 * (Byte-at-a-time FNV cost a third of a lookup.)
 */
static inline uint32_t ksym_hash(const char *s)
{
	const uint64_t K = 0xff51afd7ed558ccdull;
	size_t len = strlen(s);
	uint64_t h = 0x9e3779b97f4a7c15ull ^ len, w;

	for (; len >= 8; s += 8, len -= 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * K;
		h ^= h >> 32;
	}
	w = 0;
	memcpy(&w, s, len);
	h = (h ^ w) * K;
	h ^= h >> 29;
	h *= 0xc4ceb9fe1a85ec53ull;
	return (uint32_t)(h ^ (h >> 32));
}

void ksym_table__finish(struct ksym_table *t);
/* The name index of ents[0..cnt): 2^k slots at most 3/4 full, and dup_next. */
int ksym_build_index(const struct ksym_ent *ents, size_t cnt, const char *buf,
		     struct ksym_slot **slots, uint32_t **dup_next, uint32_t *mask);

/* Index + 1 of the lowest-address entry called name (hash h), 0: none. */
static inline uint32_t ksym_index_first(const struct ksym_table *t, const char *name, uint32_t h)
{
	uint32_t s;

	for (s = h & t->slot_mask; t->slots[s].idx; s = (s + 1) & t->slot_mask) {
		const struct ksym_ent *e = &t->ents[t->slots[s].idx - 1];

		if (t->slots[s].hash == h && !strcmp(t->buf + e->name, name))
			return t->slots[s].idx;
	}
	return 0;
}

#endif
