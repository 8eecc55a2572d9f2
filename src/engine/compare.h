/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * --compare: the same targets attached and detached by each resolver in turn,
 * rounds interleaved, so each phase's median, min and max, the CPU split and
 * each resolver's ratio to libbpf come from one run on one machine.
 */
#ifndef COMPARE_H
#define COMPARE_H

#include "attach.h"
#include "format.h"

struct compare_opts {
	size_t sz;
	const struct kattach_opts *attach;	/* resolver and cache are set per row */
	int rounds;				/* default 5 */
	enum report_format format;
	const char *kernel;
};

/* Returns the exit status; prints one line on stderr on failure. */
int compare__run(const struct compare_opts *opts);

#endif
