/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The build cache's file format, shared by its files: the format and its
 * checks (build.c), the store (build_store.c) and the load
 * (build_load.c).
 */
#ifndef KSYM_BUILD_FMT_H
#define KSYM_BUILD_FMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ksym_internal.h"
#include "ksym_build.h"

#define BUILD_MAGIC "KSYMBLD1"
#define BUILD_VERSION 3	/* 2: anchors + 1 (_stext is at _text); 3: mod_btf */

struct build_hdr {
	char magic[8];
	uint32_t version;
	uint32_t ent_size;
	uint8_t id[KSYM_BUILD_ID_MAX];
	uint8_t id_len;
	uint8_t pad[3];
	char source[64];			/* what the functions were read from */
	uint64_t anchors[KSYM_ANCHOR_CNT];	/* offsets from _text + 1; 0: unknown */
	/* where struct module keeps its symbols in this build (-1: unknown) */
	int32_t mod_btf[KSYM_MOD_OFF_CNT];
	uint32_t slot_mask;
	uint32_t vm_cnt;			/* vmlinux's entries, first */
	uint64_t cnt, mod_cnt, nslots, buf_len;
	uint64_t payload_sum;
	uint64_t hdr_sum;
};

/* One per module, in the order of the entries' groups. */
struct build_mod {
	uint8_t id[KSYM_BUILD_ID_MAX];
	uint8_t id_len;
	uint8_t pad[3];
	uint32_t first, cnt;		/* its entries */
};

/* A file mapped and checked: its header, its modules, its table in place. */
struct build_view {
	const struct build_hdr *h;
	const struct build_mod *mods;
	struct ksym_table t;		/* the file's table, offsets as addresses */
};

/* l's module of that name, or NULL */
const struct ksym_layout_mod *ksym_build_layout_mod(const struct ksym_layout *l, const char *name);
uint64_t ksym_build_hdr_sum(const struct build_hdr *h);
/* map (len bytes) is a build cache file, v its view; strict: one from elsewhere */
bool ksym_build_check(const char *map, size_t len, struct build_view *v, bool strict);

#endif
