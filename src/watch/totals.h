/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Running totals since the watch began, one row a comm and unit, for the
 * Prometheus counters a watch that outlives its boot window exports. A
 * process's record adds its numbers once it is done with (ended, or dropped
 * from the table of processes); a live one is added to a copy at each export.
 * Every number only grows, as a counter must. Pure (no I/O).
 */
#ifndef WATCH_TOTALS_H
#define WATCH_TOTALS_H

#include <stddef.h>
#include <stdint.h>

#include "procs.h"

/* A row's sums. */
struct ksw_sums {
	uint64_t procs;		/* processes seen */
	uint64_t attaches;	/* bursts with a link or probe (procs.h) */
	uint64_t stall_ns;	/* those bursts' stalls, summed */
	uint64_t functions, links, refused, progs;
	uint64_t resolve_ns, read_ns;
};

struct ksw_total {
	char comm[16];
	char *unit;		/* "" when none */
	struct ksw_sums sums;
};

struct ksw_totals;

/* max: rows at most; a comm and unit past it is summed into the row whose comm
 * and unit are both "" (a fleet's series stay bounded). NULL on no memory. */
struct ksw_totals *ksw_totals__new(size_t max);
void ksw_totals__free(struct ksw_totals *t);

/* What one record adds: its numbers now, the burst under way counted. */
void ksw_sums_of(const struct ksw_proc *p, struct ksw_sums *s);

/* Adds s to the row of comm and unit (NULL: none). 0, or -ENOMEM. */
int ksw_totals__add(struct ksw_totals *t, const char *comm, const char *unit,
		    const struct ksw_sums *s);

/* A copy to add live records to. NULL on no memory. */
struct ksw_totals *ksw_totals__copy(const struct ksw_totals *t);

/* The rows, sorted by comm then unit; valid until the next add. */
const struct ksw_total *ksw_totals__rows(struct ksw_totals *t, size_t *cnt);

#endif
