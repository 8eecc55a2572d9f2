/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The processes seen attaching, one record each, built from decoded events.
 * Pure (no I/O): its unit test plays events into it.
 *
 * A process's attach comes in bursts: a burst is a run of its attach events
 * (symbol files opened and closed, programs loaded, links and probes made or
 * refused) with no gap between the end of one and the start of the next longer
 * than the table's gap. A burst's stall is the wall time from its first event
 * to the end of its last link or probe; a burst without one has none. A
 * process's stall is its longest burst's, and its CPU time the CPU its threads
 * that made attach calls burned in that burst, up to that last link.
 */
#ifndef WATCH_PROCS_H
#define WATCH_PROCS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "decode.h"

/* The threads whose CPU time a burst counts; a burst's later threads are
 * left out (an agent's attach runs in one or a few). */
#define KSW_BURST_THREADS 8

struct ksw_thread {
	uint32_t tid;
	uint64_t cpu_first, cpu_last;
};

struct ksw_burst {
	uint64_t start, last_end;	/* its first event, the end of its latest */
	uint64_t link_end;		/* the end of its last link or probe; 0: none */
	uint64_t cpu_at_link;		/* its threads' CPU up to then */
	size_t nthreads;
	struct ksw_thread threads[KSW_BURST_THREADS];
};

/* A program the process loaded: what a nameless raw tracepoint open of it makes. */
struct ksw_prog {
	int fd;
	uint32_t attach_type;
};

struct ksw_proc {
	uint32_t pid;
	uint64_t start_time;	/* ns since boot: pid and this are one process */
	char comm[16];
	uint64_t cgroup;
	const char *cg_path, *unit;	/* named while it ran (units.h); NULL: not yet */
	bool exited;
	uint64_t first_seen, last_seen;

	uint64_t functions;	/* targeted by the links and probes made */
	unsigned int by;	/* enum ksw_by bits */
	uint64_t made[KSW_K_NR];	/* links and probes made, by kind */
	uint64_t refused;		/* loads, links and probes the kernel refused */
	int last_errno;
	uint64_t progs;			/* programs loaded */
	uint64_t load_ns;		/* in program loads (the verifier), refused ones too */
	uint64_t attach_ns;		/* in the calls that make links and probes */
	__u64 files_opened[KSW_F_NR];	/* (the kernel side's type: one sum for both) */

	struct ksw_stat stat;	/* the kernel's side, last read (final once exited) */
	bool stat_final;

	struct ksw_burst cur;	/* the burst under way, or the last */
	bool in_burst;
	uint64_t bursts;	/* bursts with a link or probe */
	uint64_t stall_ns;	/* the longest burst's */
	uint64_t stall_cpu_ns;	/* that burst's CPU */
	uint64_t stall_sum_ns;	/* the stalls of its bursts with a link, summed */
	bool totalled;		/* in the running totals (totals.h) */

	struct ksw_prog *progv;	/* programs loaded and not yet seen closed */
	size_t progc, progcap;
};

struct ksw_procs;

/* gap_ns: the longest quiet gap within a burst; max: records kept at most (the
 * oldest ended process goes first when full). NULL on no memory. */
struct ksw_procs *ksw_procs__new(uint64_t gap_ns, size_t max);
void ksw_procs__free(struct ksw_procs *t);

/* Accounts one event. 0, or -ENOMEM (the event is lost, counted). */
int ksw_procs__add(struct ksw_procs *t, const struct ksw_event *e, const struct ksw_action *a);

/* The record of a live process, to refresh its kernel side; NULL if unknown. */
struct ksw_proc *ksw_procs__find(struct ksw_procs *t, uint32_t pid);

/* The records, sorted by stall, longest first (then symbol reads, then pid).
 * The array is the table's own, valid until the next add. */
struct ksw_proc **ksw_procs__sorted(struct ksw_procs *t, size_t *cnt);

/* Records dropped to keep the table bounded, events lost to no memory. */
uint64_t ksw_procs__evicted(const struct ksw_procs *t);

struct ksw_totals;

/* The running totals since the table began (totals.h): the ended and dropped
 * processes' and every live one's now. The caller frees it; NULL on no memory. */
struct ksw_totals *ksw_procs__totals(const struct ksw_procs *t);

/* A record's stall, counting the burst under way. */
uint64_t ksw_proc_stall_ns(const struct ksw_proc *p);
uint64_t ksw_proc_stall_cpu_ns(const struct ksw_proc *p);
/* The kernel's time reading symbol files for it, and their bytes. */
uint64_t ksw_proc_read_ns(const struct ksw_proc *p);
uint64_t ksw_proc_read_bytes(const struct ksw_proc *p);
uint64_t ksw_proc_files(const struct ksw_proc *p);
/* Links and probes made, all kinds. */
uint64_t ksw_proc_made(const struct ksw_proc *p);

#endif
