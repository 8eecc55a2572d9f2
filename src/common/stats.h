/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Medians of measured rounds: every benchmark here reports them. */
#ifndef KSYM_STATS_H
#define KSYM_STATS_H

#include <stdlib.h>

static inline int stats_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Sorts v in place. */
static inline double stats_median(double *v, int n)
{
	qsort(v, n, sizeof(*v), stats_cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#endif
