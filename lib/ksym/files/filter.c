// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The parser's filters: the prefixes and the exact names a load asks for.
 * Most names are dropped on their first two bytes, against a bitmap of the
 * first two bytes the prefixes and names allow.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ksym_filter.h"
#include "ksym_parser.h"

static bool exact_name(const struct parser *ps, const char *name, size_t len)
{
	uint32_t i, r;

	for (i = ksym_hash_len(name, len) & ps->nmask; (r = ps->nslot[i]); i = (i + 1) & ps->nmask)
		if (ps->nlen[r - 1] == len && !memcmp(ps->names[r - 1], name, len))
			return true;
	return false;
}

/*
 * The name [name, name + len) starts with one of the prefixes asked for or is
 * one of the names. No filter: everything is kept.
 */
bool ksym_keep_name(const struct parser *ps, const char *name, size_t len)
{
	unsigned int k = ksym_first2(name, len);
	size_t i;

	if (!ps->prefixes && !ps->names)
		return true;
	if (ps->names && exact_name(ps, name, len))
		return true;
	if (!ps->prefixes || !(ps->first2[k / 64] >> (k % 64) & 1))
		return false;
	for (i = 0; i < ps->prefix_cnt; i++)
		if (ps->plen[i] < 2 ? name[0] == ps->prefixes[i][0]
				    : ps->key[i] == k && ps->plen[i] <= len &&
					      !memcmp(name + 2, ps->prefixes[i] + 2, ps->plen[i] - 2))
			return true;
	return false;
}

/* The set of exact names; "mod:name" stands for name. */
static int names_init(struct parser *ps, const char *const *names, size_t cnt)
{
	size_t i, sz = 16;
	uint32_t h;

	while (sz < 2 * cnt)
		sz *= 2;
	ps->names = malloc(cnt * sizeof(*ps->names));
	ps->nlen = malloc(cnt * sizeof(*ps->nlen));
	ps->nslot = calloc(sz, sizeof(*ps->nslot));
	if (!ps->names || !ps->nlen || !ps->nslot)
		return -ENOMEM;
	ps->nmask = sz - 1;
	for (i = 0; i < cnt; i++) {
		const char *n = names[i], *colon = strchr(n, ':');

		ps->names[i] = colon ? colon + 1 : n;
		ps->nlen[i] = strlen(ps->names[i]);
		if (ps->nlen[i]) {
			unsigned int k = ksym_first2(ps->names[i], ps->nlen[i]);

			ps->want2[k / 64] |= 1ull << (k % 64);
		}
		for (h = ksym_hash_len(ps->names[i], ps->nlen[i]) & ps->nmask; ps->nslot[h];
		     h = (h + 1) & ps->nmask)
			;
		ps->nslot[h] = i + 1;
	}
	return 0;
}

/* The first-two-bytes filter; an empty prefix keeps everything. */
static int prefixes_init(struct parser *ps)
{
	size_t i, c;

	ps->key = malloc(ps->prefix_cnt * sizeof(*ps->key));
	ps->plen = malloc(ps->prefix_cnt * sizeof(*ps->plen));
	if (!ps->key || !ps->plen)
		return -ENOMEM;
	for (i = 0; i < ps->prefix_cnt; i++) {
		const char *p = ps->prefixes[i];

		ps->plen[i] = strlen(p);
		if (!ps->plen[i]) {
			ps->prefixes = NULL;	/* keeps all */
			return 0;
		}
		ps->key[i] = ps->plen[i] > 1 ? ksym_first2(p, 2) : 0;
		if (ps->plen[i] > 1) {
			ps->first2[ps->key[i] / 64] |= 1ull << (ps->key[i] % 64);
			continue;
		}
		for (c = 0; c < 256; c++) {
			unsigned int k = (unsigned char)p[0] << 8 | c;

			ps->first2[k / 64] |= 1ull << (k % 64);
		}
	}
	return 0;
}

int ksym_filters_init(struct parser *ps)
{
	int err = ps->prefixes ? prefixes_init(ps) : 0;

	if (!err && ps->want)
		err = names_init(ps, ps->want, ps->want_cnt);
	return err;
}
