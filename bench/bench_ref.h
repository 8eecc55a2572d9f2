/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Reference methods for the benchmark, written the way common BPF tooling does
 * them today, so the bench measures ksym against them side by side:
 * - parse: the fscanf line loop libbpf uses for /proc/kallsyms
 *   ("%llx %c %499s%*[^\n]\n"), each symbol stored with its own strdup;
 * - exact name lookup: a linear scan (libbpf-tools' trace_helpers);
 * - address lookup: bsearch over the address-sorted array (the same);
 * - glob: fnmatch over every name.
 */
#ifndef BENCH_REF_H
#define BENCH_REF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct ref_sym {
	uint64_t addr;
	char *name;
	char type;
};

struct ref_syms {
	struct ref_sym *v;
	size_t cnt, cap;
};

/* Parses f with the fscanf loop; 0 or -EINVAL on a line it cannot read. */
int ref_syms__parse(FILE *f, struct ref_syms *rs);
void ref_syms__sort(struct ref_syms *rs);	/* by address */
void ref_syms__free(struct ref_syms *rs);
const struct ref_sym *ref_syms__find(const struct ref_syms *rs, const char *name);
const struct ref_sym *ref_syms__addr(const struct ref_syms *rs, uint64_t addr);
size_t ref_syms__match(const struct ref_syms *rs, const char *glob);

#endif
