/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* ksym table internals, shared by the parser and the query code only. */
#ifndef KSYM_INTERNAL_H
#define KSYM_INTERNAL_H

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
	/* exact-name index, alive between batch_begin and the last batch_end */
	struct ksym_slot *slots;
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

/* FNV-1a: short names, no setup; good enough spread for power-of-two tables. */
static inline uint32_t ksym_hash(const char *s)
{
	uint32_t h = 2166136261u;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

void ksym_table__finish(struct ksym_table *t);
/* The name index of ents[0..cnt): 2^k slots at most 3/4 full; NULL on ENOMEM. */
struct ksym_slot *ksym_build_slots(const struct ksym_ent *ents, size_t cnt, const char *buf,
				   uint32_t *mask);

#endif
