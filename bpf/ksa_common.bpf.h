/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What both BPF objects share: the counters, keyed by the function's entry IP,
 * and the hit count. Included by ksymattach.bpf.c (kprobe.multi, classic
 * kprobes) and ksymattach_session.bpf.c (kprobe.session).
 */
#ifndef KSA_COMMON_BPF_H
#define KSA_COMMON_BPF_H

#include "ksymattach.h"

/* Resized by userspace to the number of targets before load. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 1);
	__type(key, __u64);
	__type(value, struct ksa_stat);
} stats SEC(".maps");

/* ksymattach's own process: what it does while attached (writing its cache,
 * reading the counters) is not what the user asked to see. Set before load. */
const volatile __u32 self_tgid = 0;

static __always_inline bool is_self(void)
{
	return self_tgid && bpf_get_current_pid_tgid() >> 32 == self_tgid;
}

static __always_inline struct ksa_stat *stat_of(__u64 ip)
{
	struct ksa_stat *s, zero = {};

	s = bpf_map_lookup_elem(&stats, &ip);
	if (s)
		return s;
	/* Only this CPU's copy is written; the others start zeroed. */
	bpf_map_update_elem(&stats, &ip, &zero, BPF_NOEXIST);
	return bpf_map_lookup_elem(&stats, &ip);
}

static __always_inline __u32 log2_u64(__u64 v)
{
	__u32 r = 0, shift;

	shift = (v > 0xffffffffULL) << 5; v >>= shift; r |= shift;
	shift = (v > 0xffff) << 4; v >>= shift; r |= shift;
	shift = (v > 0xff) << 3; v >>= shift; r |= shift;
	shift = (v > 0xf) << 2; v >>= shift; r |= shift;
	shift = (v > 0x3) << 1; v >>= shift; r |= shift;
	r |= (v >> 1);
	return r;
}

static __always_inline int count_ip(__u64 ip)
{
	struct ksa_stat *s = stat_of(ip);

	if (s)
		s->calls++;
	return 0;
}

/* A return: its latency since start (the entry's time) into ip's histogram. */
static __always_inline void count_return(__u64 ip, __u64 start)
{
	__u64 delta = bpf_ktime_get_ns() - start;
	struct ksa_stat *s = stat_of(ip);
	__u32 slot;

	if (!s)
		return;
	slot = log2_u64(delta);
	if (slot >= KSA_LAT_SLOTS)
		slot = KSA_LAT_SLOTS - 1;
	s->returns++;
	s->lat_sum_ns += delta;
	s->lat_log2[slot]++;
}

/* bpf_get_func_ip() after is_self(), as src/engine/hitprog.c assembles it */
static __always_inline int count_hit(void *ctx)
{
	if (is_self())
		return 0;
	return count_ip(bpf_get_func_ip(ctx));
}

#endif
