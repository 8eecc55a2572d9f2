/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The /run cache file's resolve section, as its file (run.c) writes
 * and reads it: a part of the cache's format, not of the table; its layout is
 * ksym_res_fmt.h.
 */
#ifndef KSYM_RES_H
#define KSYM_RES_H

#include <stddef.h>
#include <stdint.h>

#include "ksym_internal.h"

/*
 * A cache file's resolve section: planned for a table (sizes, record order,
 * name prefixes), then written into len zeroed bytes (resolve_write.c); the
 * first head_len of them are for the caller to check whole, the records check
 * themselves as they are read (resolve.c).
 */
struct res_layout;

struct ksym_res_plan {
	uint32_t buckets, mods;
	size_t head_len, len;
	struct res_layout *l;
};

int ksym_res__plan(const struct ksym_table *t, struct ksym_res_plan *p);
void ksym_res__write(const struct ksym_table *t, const struct ksym_res_plan *p, char *out);
void ksym_res__plan_free(struct ksym_res_plan *p);

/* A section read back, its head checked: -EBADMSG where its offsets cannot be. */
struct ksym_res {
	const uint32_t *dir, *modoff, *pfxoff;
	const uint8_t *pfxlen;
	const char *str, *recs;
	size_t str_len, rec_len;
	uint32_t buckets, mods;
};

int ksym_res__open(struct ksym_res *x, const char *sec, size_t len, size_t head_len,
		   uint32_t buckets, uint32_t mods);
/*
 * ksym_table__find_many() over the section, but out[i].name is names[i] (after
 * any "mod:"): the records keep no whole names. The number found, or -EBADMSG
 * at the first damaged record read.
 */
int ksym_res__find_many(const struct ksym_res *x, const char *const *names, size_t n,
			struct ksym *out);

#endif
