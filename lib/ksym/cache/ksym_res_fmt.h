/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The resolve section's format, shared by its writer (resolve_write.c) and
 * its reader (resolve.c).
 *
 * Layout: bucket offsets (buckets + 1, u32) | module name offsets (u32) |
 * prefix offsets (256 u32) | prefix lengths (256 u8) | strings (module names,
 * NUL-terminated, then prefixes) | zeros to 8 | records, by bucket. The head
 * (everything before the records) is checked whole by the caller.
 */
#ifndef KSYM_RES_FMT_H
#define KSYM_RES_FMT_H

#include <stddef.h>
#include <stdint.h>

#include "ksym_res.h"

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

struct res_view {
	uint64_t addr;
	uint32_t size;
	uint16_t mod;
	const char *name;	/* the stored part */
	size_t len;
};

static inline size_t rec_bytes(uint16_t meta)
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

#endif /* KSYM_RES_FMT_H */
