/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * ksymattach watch: every other process's attach, measured from the kernel.
 * Its BPF programs (bpf/watch.bpf.c) see the bpf() and perf_event_open() calls,
 * the symbol files read and the kernel's own name resolution; this part turns
 * what they send into one record a process (procs.h) and prints the records
 * (report.c). It uses no other part of ksymattach but the output helpers.
 */
#ifndef WATCH_KWATCH_H
#define WATCH_KWATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "format.h"	/* src/output: enum report_format */
#include "procs.h"
#include "totals.h"

struct kwatch;

struct kwatch_opts {
	size_t sz;
	bool show_self;		/* the watcher's own calls too (-v) */
	double gap_s;		/* the longest quiet gap within a burst (0: 5 s) */
	size_t max_procs;	/* records kept at most (0: 4096) */
	const char *cgroup_root;	/* NULL: /sys/fs/cgroup */
};

/* What the watcher could not measure on this kernel, each with why. */
enum kwatch_field {
	KWATCH_F_RESOLVE,	/* the kernel's name resolution */
	KWATCH_F_DETACH,	/* links freed */
	KWATCH_F_NR,
};

/* Loads and attaches the probes. 0, or a negative errno with err filled in one
 * line that names the cause; nothing is left attached then. */
int kwatch__open(const struct kwatch_opts *opts, struct kwatch **wp, char *err, size_t errsz);

/* Waits up to timeout_ms for events and accounts them. 0, or a negative errno. */
int kwatch__poll(struct kwatch *w, int timeout_ms);

/* Reads the kernel's per-process totals of every live process seen. */
void kwatch__refresh(struct kwatch *w);

/* The records, sorted by stall (procs.h), valid until the next poll. */
struct ksw_proc **kwatch__procs(struct kwatch *w, size_t *cnt);

/* The running totals since the watch began (totals.h), the kernel's side of
 * live processes read first; the caller frees them. NULL on no memory. */
struct ksw_totals *kwatch__totals(struct kwatch *w);

/* A record's cgroup path and unit; NULL when unknown. */
void kwatch__unit(struct kwatch *w, const struct ksw_proc *p, const char **path,
		  const char **unit);

/* NULL when the field is measured, else why not (one phrase). */
const char *kwatch__unmeasured(const struct kwatch *w, enum kwatch_field f);

/* The kernel's lookups hooked, comma-separated ("" when none). */
const char *kwatch__resolve_hooks(const struct kwatch *w);

/* Events the ring buffer had no room for; records dropped to stay bounded. */
uint64_t kwatch__dropped(const struct kwatch *w);
uint64_t kwatch__evicted(const struct kwatch *w);

/* The watcher's own load and attach, in ns. */
uint64_t kwatch__setup_ns(const struct kwatch *w);

/* Detaches everything and frees. */
void kwatch__free(struct kwatch *w);

struct kwatch_print_opts {
	size_t sz;
	enum report_format format;
	const char *kernel;	/* the release, for the report's head */
	double duration_s;	/* how long it watched */
	bool screen;		/* text for a terminal: clear it first, as top does */
	uint64_t min_stall_ns;	/* records with a shorter stall are left out */
	double stall_threshold_s;	/* > 0: exported for the alert rule (prom) */
};

/* Whether a record is one the report shows. */
bool kwatch__shown(const struct ksw_proc *p, const struct kwatch_print_opts *opts);

void kwatch__print(FILE *f, struct kwatch *w, const struct kwatch_print_opts *opts);

/* The running totals since the watch began, by comm and unit, as Prometheus
 * counters (totals.h); the kernel's side is read first. 0, or -ENOMEM. */
int kwatch__print_totals(FILE *f, struct kwatch *w);

#endif
