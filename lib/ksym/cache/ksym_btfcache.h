/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The /run file of a pattern set's BTF answers (btf.c): for each match, its
 * BTF id and the verdict on it, as a later run of the same patterns in the
 * same boot wants them back without reading BTF or kallsyms again.
 */
#ifndef KSYM_BTFCACHE_H
#define KSYM_BTFCACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ksym/ksym.h>

struct ksym_layout;

struct ksym_btf_rec {
	uint64_t loc;		/* the match's ftrace site: which match it answers */
	uint32_t id;		/* its BTF FUNC id in its object; 0: none */
	uint32_t verdict;	/* enum ksym_btf_verdict */
	uint32_t proto;		/* why a trampoline cannot take it (enum ksym_bproto) */
	uint32_t kallsyms_cnt;	/* symbols of its name in its object */
};

/* By loc, for qsort() and bsearch() */
int ksym_btf_rec_cmp(const void *x, const void *y);
/* v[n] written whole under dir/name, keyed by key. 0, or a negative errno. */
int ksym_cache__store_btf(const char *dir, const char *name, const struct ksym_cache_key *key,
			  const struct ksym_btf_rec *v, size_t n);
/*
 * The records of dir/name, sorted by loc, in a copy the caller frees; NULL
 * with errno: ENOENT (none), ESTALE (another key), EBADMSG (damaged), EPERM
 * (not a private file of ours), ENOMEM.
 */
struct ksym_btf_rec *ksym_cache__load_btf(const char *dir, const char *name,
					  const struct ksym_cache_key *key, size_t *n);

/*
 * The build cache's file of a pattern set's answers for vmlinux's functions
 * (hash: the patterns'; ret: the program runs at return too), their sites as
 * offsets from _text, and its key: vmlinux's build, whose BTF and kallsyms a
 * boot of it cannot change. False where the build is not known.
 */
bool ksym_cache__btf_build_name(const struct ksym_layout *l, bool ret, const char *hash,
				char *name, size_t len, struct ksym_cache_key *key);

#endif
