// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Hit counters and session latency, one program per attach mode. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "ksymattach.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

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

/* kprobe.session kfuncs (Linux >= 6.10); weak so older kernels can load the rest. */
extern bool bpf_session_is_return(void) __ksym __weak;
extern __u64 *bpf_session_cookie(void) __ksym __weak;

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

static __always_inline int count_hit(void *ctx)
{
	struct ksa_stat *s;

	if (is_self())
		return 0;
	s = stat_of(bpf_get_func_ip(ctx));
	if (s)
		s->calls++;
	return 0;
}

SEC("kprobe.multi")
int ksa_multi(struct pt_regs *ctx)
{
	return count_hit(ctx);
}

/* Fallback for kernels without kprobe.multi: one classic kprobe per function. */
SEC("kprobe")
int ksa_kprobe(struct pt_regs *ctx)
{
	return count_hit(ctx);
}

SEC("kprobe.session")
int ksa_session(struct pt_regs *ctx)
{
	__u64 *cookie = bpf_session_cookie();
	struct ksa_stat *s;
	__u64 delta;
	__u32 slot;

	if (!bpf_session_is_return()) {
		if (is_self())
			return 1;	/* nonzero: no return probe */
		*cookie = bpf_ktime_get_ns();
		count_hit(ctx);
		return 0;	/* 0: run the return probe too */
	}
	delta = bpf_ktime_get_ns() - *cookie;
	s = stat_of(bpf_get_func_ip(ctx));
	if (!s)
		return 0;
	slot = log2_u64(delta);
	if (slot >= KSA_LAT_SLOTS)
		slot = KSA_LAT_SLOTS - 1;
	s->returns++;
	s->lat_sum_ns += delta;
	s->lat_log2[slot]++;
	return 0;
}
