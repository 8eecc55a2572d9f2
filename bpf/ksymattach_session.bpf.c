// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * kprobe.session: calls on entry, latency on return. An object of its own: its
 * kfuncs make libbpf load and search the vmlinux BTF, which the other modes
 * need not pay for.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "ksa_common.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* kprobe.session kfuncs (Linux >= 6.10) */
extern bool bpf_session_is_return(void) __ksym;
extern __u64 *bpf_session_cookie(void) __ksym;

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
