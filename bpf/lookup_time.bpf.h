/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The kernel's own name lookups, timed: an fentry/fexit pair on each kallsyms
 * lookup function. The lookups nest (kallsyms_lookup_name() goes on into the
 * modules' lookup), so only a thread's outermost call is timed, once.
 * Included by watch.bpf.c (every process's) and ksymattach_lookups.bpf.c
 * (--compare's own attach).
 */
#ifndef LOOKUP_TIME_BPF_H
#define LOOKUP_TIME_BPF_H

#ifndef LOOKUP_THREADS
#define LOOKUP_THREADS 16384
#endif

/* Per thread: how deep in the lookups it is, and since when. */
struct lookup_depth {
	__u64 ts;
	__u32 depth;
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, LOOKUP_THREADS);
	__type(key, __u32);
	__type(value, struct lookup_depth);
} depths SEC(".maps");

static __always_inline void lookup_enter(void)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct lookup_depth *d, zero = {};

	d = bpf_map_lookup_elem(&depths, &tid);
	if (!d) {
		bpf_map_update_elem(&depths, &tid, &zero, BPF_NOEXIST);
		d = bpf_map_lookup_elem(&depths, &tid);
		if (!d)
			return;
	}
	if (d->depth++ == 0)
		d->ts = bpf_ktime_get_ns();
}

/* The outermost call's time at its return; 0 for an inner one, or an unseen entry. */
static __always_inline __u64 lookup_exit(void)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct lookup_depth *d;

	d = bpf_map_lookup_elem(&depths, &tid);
	if (!d || !d->depth || --d->depth)
		return 0;
	return bpf_ktime_get_ns() - d->ts ?: 1;
}

/*
 * The pair on one lookup function fn: on_time(ns) takes an outermost call's
 * time. Userspace loads only the pairs whose function the kernel's BTF has.
 */
#define LOOKUP_PAIR(fn, on_time)                                \
	SEC("fentry/" #fn) int BPF_PROG(enter_##fn)             \
	{                                                       \
		lookup_enter();                                 \
		return 0;                                       \
	}                                                       \
	SEC("fexit/" #fn) int BPF_PROG(exit_##fn)               \
	{                                                       \
		__u64 ns = lookup_exit();                       \
                                                                \
		if (ns)                                         \
			on_time(ns);                            \
		return 0;                                       \
	}

#endif
