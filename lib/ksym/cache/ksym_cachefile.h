/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the cache files share, the /run cache's (run.c) and the build
 * cache's (build.c): a part of cache/, declared here rather than in the
 * table's header.
 */
#ifndef KSYM_CACHEFILE_H
#define KSYM_CACHEFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ksym_internal.h"

/*
 * Cache files (run.c), shared with the build cache (build.c): the
 * checksum; dir/name mapped if it is a private regular file of ours at least
 * min bytes long (NULL with errno); the directory made or checked (ours,
 * closed to others); a file written whole or not at all; a mapped table's
 * offsets and chains checked.
 */
uint64_t ksym_sum64(const void *p, size_t len);
struct stat;
char *ksym_cache_map(const char *dir, const char *name, size_t min, struct stat *st,
		     bool populate, bool writable);
int ksym_cache_dir(const char *dir);
/* A mapping dropped (if any) on a refusal: NULL with errno = err. */
void *ksym_unmap_err(void *map, size_t len, int err);
/* Whether two keys are the same boot, release, source and modules. */
bool ksym_cache_key_eq(const struct ksym_cache_key *a, const struct ksym_cache_key *b);
/* The answers that live in map, held until ksym_answers__free() (run.c). */
struct ksym_answers *ksym_answers_of(char *map, size_t len);
/* The running kernel's cache key, from /proc/modules' text as read already. */
int ksym_cache__live_key_from(struct ksym_cache_key *key, const char *source, const char *modules);
/* Written whole or not at all (a temporary renamed); in a cache directory. */
int ksym_cache_write(const char *dir, const char *name, const void *hdr, size_t hlen,
		     const void *pay, size_t plen);
/* The same for a file anywhere (an export). */
int ksym_file_write(const char *dir, const char *name, const void *buf, size_t len);
bool ksym_cache_valid(const struct ksym_table *t, uint64_t nslots);

#endif
