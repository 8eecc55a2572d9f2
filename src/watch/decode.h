/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * One event of the watcher's BPF side, read as what the process did: a program
 * loaded, a link or probe made (of which kind, on how many functions, by names,
 * addresses or BTF ids), a symbol file opened or closed. Pure: it reads the
 * event and the running kernel's layout, nothing else, so its unit test feeds
 * it attributes written by hand.
 */
#ifndef WATCH_DECODE_H
#define WATCH_DECODE_H

#include <stdbool.h>
#include <stdint.h>

#include "watch.h"	/* bpf/: the event */

/* What an event was. */
enum ksw_act {
	KSW_ACT_NONE,		/* nothing about attaching */
	KSW_ACT_LOAD,		/* a program loaded (or refused) */
	KSW_ACT_ATTACH,		/* a link or a probe made (or refused) */
	KSW_ACT_FILE_OPEN,	/* a symbol file opened */
	KSW_ACT_FILE_CLOSE,
	KSW_ACT_EXIT,
};

/* What was attached. */
enum ksw_kind {
	KSW_K_KPROBE_MULTI,	/* kprobe.multi (and kretprobe.multi) */
	KSW_K_KPROBE_SESSION,
	KSW_K_TRAMPOLINE,	/* fentry, fexit, fmod_ret, LSM: one function */
	KSW_K_TRACING_MULTI,	/* fentry/fexit/fsession.multi */
	KSW_K_KPROBE,		/* a classic kprobe through perf_event_open() */
	KSW_K_KPROBE_EVENTS,	/* a classic kprobe written to tracefs */
	KSW_K_RAW_TP,		/* raw tracepoints and tp_btf */
	KSW_K_TRACEPOINT,	/* a tracepoint's perf event (perhaps of kprobe_events) */
	KSW_K_PERF_LINK,	/* a program put on a perf event made before */
	KSW_K_OTHER,		/* any other link (cgroup, XDP, ...) */
	KSW_K_NR,
};

/* How the kernel was told which functions: as a set of bits, since one process
 * may do several. */
enum ksw_by {
	KSW_BY_NAMES = 1 << 0,		/* the kernel resolves each name */
	KSW_BY_ADDRS = 1 << 1,
	KSW_BY_IDS = 1 << 2,		/* BTF ids: the kernel resolves each id's name */
};

/* A link made by a program whose kind only its load says (a raw tracepoint open
 * without a name): the caller looks the program up by prog_fd. */
#define KSW_K_BY_PROG KSW_K_NR

struct ksw_action {
	enum ksw_act act;
	unsigned int kind;	/* enum ksw_kind, or KSW_K_BY_PROG */
	unsigned int by;	/* enum ksw_by bits */
	uint64_t functions;	/* functions it targets (0: tracepoints, others) */
	int err;		/* the call's errno: 0 when it succeeded */
	int fd;			/* LOAD: the program made; ATTACH: the program used */
	uint32_t attach_type;	/* LOAD: the program's expected attach type */
	unsigned int file;	/* FILE_*: enum ksw_file */
};

/* What decoding needs of the running kernel, read from it (probe.c). */
struct ksw_layout {
	uint32_t kprobe_pmu;		/* the kprobe PMU's perf type; 0: none */
	bool tracing_multi;		/* the kernel has the tracing_multi link */
	uint32_t tm_types[3];		/* its attach types: fentry, fexit, fsession */
	uint32_t tm_cnt_off;		/* link_create.tracing_multi.cnt in bpf_attr */
};

/* The kind a program's expected attach type gives a nameless raw tracepoint
 * open (fentry and its kin: a trampoline; else a raw tracepoint). */
unsigned int ksw_kind_of_prog(uint32_t attach_type);

void ksw_decode(const struct ksw_event *e, const struct ksw_layout *l, struct ksw_action *a);

/* Names, for the reports. */
const char *ksw_kind_name(unsigned int kind);
const char *ksw_file_name(unsigned int file);

#endif
