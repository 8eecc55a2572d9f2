// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A pattern set's BTF answers in /run (ksym_btfcache.h): a header with the
 * key and two checksums, then fixed-size records sorted by site. The answers
 * hold while the boot and the modules loaded do: vmlinux's BTF and kallsyms
 * cannot change under a boot, a module's go with it.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "ksym_btfcache.h"
#include "ksym_build.h"
#include "ksym_cachefile.h"

#define BTF_MAGIC "KSYMBTF1"
#define BTF_VERSION 1
/* (a pattern set matches at most every function: a bound no kernel comes near) */
#define BTF_MAX_RECS (1u << 22)

struct btf_hdr {
	char magic[8];
	uint32_t version;
	uint32_t rec_size;
	struct ksym_cache_key key;
	uint64_t n;
	uint64_t payload_sum;
	uint64_t hdr_sum;
};

static uint64_t btf_hdr_sum(const struct btf_hdr *h)
{
	return ksym_sum64(h, offsetof(struct btf_hdr, hdr_sum));
}

int ksym_btf_rec_cmp(const void *x, const void *y)
{
	const struct ksym_btf_rec *a = x, *b = y;

	return a->loc < b->loc ? -1 : a->loc > b->loc;
}

int ksym_cache__store_btf(const char *dir, const char *name, const struct ksym_cache_key *key,
			  const struct ksym_btf_rec *v, size_t n)
{
	struct ksym_btf_rec *s;
	struct btf_hdr h = {};
	int err;

	if (n > BTF_MAX_RECS)
		return -E2BIG;
	err = ksym_cache_dir(dir);
	if (err)
		return err;
	s = malloc((n ? n : 1) * sizeof(*s));
	if (!s)
		return -ENOMEM;
	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), ksym_btf_rec_cmp);
	memcpy(h.magic, BTF_MAGIC, 8);
	h.version = BTF_VERSION;
	h.rec_size = sizeof(*s);
	h.key = *key;
	h.n = n;
	h.payload_sum = ksym_sum64(s, n * sizeof(*s));
	h.hdr_sum = btf_hdr_sum(&h);
	err = ksym_cache_write(dir, name, &h, sizeof(h), s, n * sizeof(*s));
	free(s);
	return err;
}

struct ksym_btf_rec *ksym_cache__load_btf(const char *dir, const char *name,
					  const struct ksym_cache_key *key, size_t *n)
{
	const struct btf_hdr *h;
	struct ksym_btf_rec *v;
	struct stat st;
	size_t i, len;
	char *map;

	*n = 0;
	map = ksym_cache_map(dir, name, sizeof(*h), &st, true, false);
	if (!map)
		return NULL;
	h = (const struct btf_hdr *)map;
	if (memcmp(h->magic, BTF_MAGIC, 8) || h->version != BTF_VERSION ||
	    h->rec_size != sizeof(*v) || h->hdr_sum != btf_hdr_sum(h) || h->n > BTF_MAX_RECS)
		return ksym_unmap_err(map, st.st_size, EBADMSG);
	if (!ksym_cache_key_eq(&h->key, key))
		return ksym_unmap_err(map, st.st_size, ESTALE);
	len = h->n * sizeof(*v);
	if (sizeof(*h) + len != (size_t)st.st_size ||
	    ksym_sum64(map + sizeof(*h), len) != h->payload_sum)
		return ksym_unmap_err(map, st.st_size, EBADMSG);
	v = malloc(len ? len : 1);
	if (!v)
		return ksym_unmap_err(map, st.st_size, ENOMEM);
	memcpy(v, map + sizeof(*h), len);
	/* sorted as written: a file that is not was not written here */
	for (i = 1; i < h->n; i++) {
		if (v[i - 1].loc >= v[i].loc) {
			free(v);
			return ksym_unmap_err(map, st.st_size, EBADMSG);
		}
	}
	*n = h->n;
	munmap(map, st.st_size);
	return v;
}

bool ksym_cache__btf_build_name(const struct ksym_layout *l, bool ret, const char *hash,
				char *name, size_t len, struct ksym_cache_key *key)
{
	char build[2 * KSYM_BUILD_ID_MAX + 8];

	if (!l->id_len || !hash[0])
		return false;
	ksym_build__name(l, build, sizeof(build));
	snprintf(name, len, "btf%s-%s-%s", ret ? "r" : "", build + 6, hash);
	memset(key, 0, sizeof(*key));
	snprintf(key->source, sizeof(key->source), "btf %s", build + 6);
	return true;
}
