// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The reference methods of bench_ref.h: deliberately the usual way, not tuned. */
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "bench_ref.h"

int ref_syms__parse(FILE *f, struct ref_syms *rs)
{
	unsigned long long addr;
	char type, name[500];
	int ret;

	for (;;) {
		ret = fscanf(f, "%llx %c %499s%*[^\n]\n", &addr, &type, name);
		if (ret == EOF && feof(f))
			return 0;
		if (ret != 3)
			return -EINVAL;
		if (rs->cnt == rs->cap) {
			size_t ncap = rs->cap ? rs->cap * 2 : 1024;
			struct ref_sym *n = realloc(rs->v, ncap * sizeof(*n));

			if (!n)
				return -ENOMEM;
			rs->v = n;
			rs->cap = ncap;
		}
		rs->v[rs->cnt].addr = addr;
		rs->v[rs->cnt].type = type;
		rs->v[rs->cnt].name = strdup(name);
		if (!rs->v[rs->cnt].name)
			return -ENOMEM;
		rs->cnt++;
	}
}

static int by_addr(const void *a, const void *b)
{
	const struct ref_sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

void ref_syms__sort(struct ref_syms *rs)
{
	qsort(rs->v, rs->cnt, sizeof(*rs->v), by_addr);
}

void ref_syms__free(struct ref_syms *rs)
{
	size_t i;

	for (i = 0; i < rs->cnt; i++)
		free(rs->v[i].name);
	free(rs->v);
	memset(rs, 0, sizeof(*rs));
}

const struct ref_sym *ref_syms__find(const struct ref_syms *rs, const char *name)
{
	size_t i;

	for (i = 0; i < rs->cnt; i++)
		if (!strcmp(rs->v[i].name, name))
			return &rs->v[i];
	return NULL;
}

const struct ref_sym *ref_syms__addr(const struct ref_syms *rs, uint64_t addr)
{
	size_t lo = 0, hi = rs->cnt;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (rs->v[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &rs->v[lo - 1] : NULL;
}

size_t ref_syms__match(const struct ref_syms *rs, const char *glob)
{
	size_t i, n = 0;

	for (i = 0; i < rs->cnt; i++)
		n += !fnmatch(glob, rs->v[i].name, FNM_NOESCAPE);
	return n;
}
