/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The one clock every phase timing uses. */
#ifndef KSYM_CLOCK_H
#define KSYM_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

#endif
