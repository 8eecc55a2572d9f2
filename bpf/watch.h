/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Types shared by the watcher's BPF programs (watch.bpf.c) and userspace
 * (src/watch/): what another process did to attach, as the kernel saw it.
 */
#ifndef KSW_SHARED_H
#define KSW_SHARED_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* The first bytes of a bpf() or perf_event_open() attribute, as the caller
 * passed them: enough for a program load's attach_btf_obj_fd (116 bytes). */
#define KSW_ATTR_MAX 128

/* What an event is. */
enum ksw_ev {
	KSW_EV_BPF = 1,		/* a bpf() call: cmd, attr, its time and result */
	KSW_EV_PERF,		/* perf_event_open(): attr, its time and result */
	KSW_EV_OPEN,		/* a symbol file opened: kind in cmd */
	KSW_EV_CLOSE,		/* that file closed */
	KSW_EV_KPROBE_WRITE,	/* a write to tracefs' kprobe_events: the text in attr */
	KSW_EV_EXIT,		/* the process ended: its kernel-side totals in stat */
};

/* The files a process reads to resolve kernel functions. */
enum ksw_file {
	KSW_F_NONE,
	KSW_F_KALLSYMS,		/* /proc/kallsyms */
	KSW_F_FUNCS,		/* tracefs' available_filter_functions */
	KSW_F_FUNCS_ADDRS,	/* tracefs' available_filter_functions_addrs */
	KSW_F_BTF,		/* /sys/kernel/btf/ (vmlinux, modules) */
	KSW_F_KCORE,		/* /proc/kcore: the kernel's tables in its memory */
	KSW_F_KPROBE_EVENTS,	/* tracefs' kprobe_events: written, not read */
	KSW_F_NR,
};

/*
 * What the kernel keeps per process (tgid), read by userspace at every refresh
 * and sent whole with KSW_EV_EXIT: the reads of symbol files and the time the
 * kernel spent resolving names and freeing links on the process's behalf.
 */
struct ksw_stat {
	__u64 resolve_ns;	/* outermost kallsyms lookups, summed */
	__u64 resolve_calls;
	__u64 free_ns;		/* bpf_link_free(): a link's detach */
	__u64 links_freed;
	__u64 read_ns[KSW_F_NR];
	__u64 read_bytes[KSW_F_NR];
	__u64 reads[KSW_F_NR];
};

struct ksw_event {
	__u32 type;		/* enum ksw_ev */
	__u32 cmd;		/* bpf cmd, or enum ksw_file */
	__u32 tgid;
	__u32 tid;
	__u64 start_time;	/* the process's start (ns since boot): with tgid, who */
	__u64 cgroup;		/* cgroup v2 id */
	__u64 ts;		/* when the call began (CLOCK_MONOTONIC ns) */
	__u64 dur;		/* how long it took */
	__s64 ret;		/* its result */
	__u64 cpu0, cpu1;	/* the thread's CPU time at entry and at return */
	char comm[16];
	__u32 attr_len;		/* bytes of attr read */
	__u32 pad;
	__u8 attr[KSW_ATTR_MAX];
	struct ksw_stat stat;	/* KSW_EV_EXIT only */
};

/* The kernel functions that resolve names, hooked where the running kernel has
 * them (an fentry/fexit pair each). */
#define KSW_RESOLVE_FUNCS 6

#endif
