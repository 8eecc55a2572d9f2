/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * ksymattach bench: the lookup layer against the reference methods
 * (bench_ref.h), side by side in one run, on each symbol file given. Prints
 * medians and ratios, never a number it did not measure.
 */
#ifndef BENCH_H
#define BENCH_H

#include <stdbool.h>
#include <stddef.h>

#include "format.h"

struct bench_opts {
	size_t sz;
	const char *const *files;	/* kallsyms-format files; none: /proc/kallsyms */
	size_t file_cnt;
	int rounds;			/* medians over this many rounds (default 5) */
	size_t lookups;			/* names and addresses per round (default 10000) */
	enum report_format format;
};

int bench__run(const struct bench_opts *opts);
/* The kernel kallsyms model's variants on one kallsyms-format file (bench_kmodel.c). */
int bench__kernel_model(const char *path, int rounds, size_t lookups, enum report_format format);
/* Hidden helper: load path as the bench does and print this process's peak RSS
 * in KiB (ref: with the reference method). Runs in a fresh process. */
int bench__rss_probe(const char *path, bool ref);
/* One cold resolve ("raw" read, "full" table, "list" of names) in this fresh process. */
int bench__cold_probe(const char *path, const char *mode, const char *names_file);

#endif
