/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Prometheus text exposition (node_exporter's textfile collector) of one view
 * of the attached functions: a run's, the boot service's or the daemon's,
 * whose view merges several attaches. Cardinality is bounded: only the top
 * functions by calls get series of their own, the rest are summed.
 */
#ifndef OUTPUT_PROM_H
#define OUTPUT_PROM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "attach.h"

struct prom_fn {
	const char *name;
	const char *module;	/* NULL: vmlinux */
	struct ksa_stat stat;
	bool series;		/* with top == PROM_TOP_MARKED: has series of its own */
};

/* prom_view.top: the functions' own series flags say, not the busiest first. */
#define PROM_TOP_MARKED ((size_t)-1)

struct prom_view {
	size_t sz;			/* sizeof(struct prom_view) */
	const char *version, *kernel, *mode, *resolver, *source;
	bool session;			/* latency histograms */
	bool fallback;			/* classic kprobes stood in */
	size_t matched, attached, excluded, links;
	uint64_t phase_ns[KATTACH_PH_CNT];	/* the last attach's phases */
	double boot_stall_s;		/* < 0: not known (no boot report this boot) */
	double stall_threshold_s;	/* <= 0: not exported */
	double updated_s;		/* unix time of this view; 0: not exported */
	double interval_s;		/* the daemon's report interval; 0: not exported */
	const struct prom_fn *fns;
	size_t fn_cnt;
	size_t top;			/* the busiest this many have series of their own */
};

/* The attach stall a resolver causes: read, parse, index, match, load, attach. */
uint64_t prom__stall_ns(const uint64_t *phase_ns);
/* sum += st, field by field: views merge and sum counters. */
void prom__stat_add(struct ksa_stat *sum, const struct ksa_stat *st);
/*
 * One run's view: the fields a kattach has, and its attached functions in
 * *fns (free() it), each without a series of its own. The caller sets the
 * rest (versions, top, threshold, ...). 0 or -ENOMEM.
 */
int prom__view_of(struct prom_view *v, const struct kattach *a, struct prom_fn **fns);
/* Writes the exposition; 0, or -errno (from the stream, or ENOMEM). */
int prom__write(FILE *f, const struct prom_view *v);

#endif
