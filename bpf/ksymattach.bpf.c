// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Hit counters for kprobe.multi: the object libbpf loads and attaches by
 * pattern (the libbpf resolver's row), or by name as classic kprobes. ksymattach's own runs load the same
 * counter by hand (src/engine/hitprog.c), for kprobe.multi and classic kprobes.
 * No kfunc and no CO-RE relocation here, so loading this object needs no
 * vmlinux BTF (ksymattach_session.bpf.c has the session kfuncs).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "ksa_common.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

SEC("kprobe.multi")
int ksa_multi(struct pt_regs *ctx)
{
	return count_hit(ctx);
}

/* Where there is no kprobe.multi: libbpf's classic kprobe, one per name. */
SEC("kprobe")
int ksa_kprobe(struct pt_regs *ctx)
{
	return count_hit(ctx);
}

/*
 * The same where kprobes have no bpf_get_func_ip() (before Linux 5.15): on
 * x86-64 a kprobe's handler sees the IP its int3 left, one past the probed
 * address; arm64's BRK leaves the probed address itself.
 */
#if defined(__TARGET_ARCH_arm64)
/* arm64's UAPI register set (asm/ptrace.h), which libbpf's PT_REGS_IP() reads;
 * the committed vmlinux.h is x86-64's and does not have it */
struct user_pt_regs {
	__u64 regs[31];
	__u64 sp;
	__u64 pc;
	__u64 pstate;
};
#define KPROBE_IP_PAST 0
#else
#define KPROBE_IP_PAST 1
#endif

SEC("kprobe")
int ksa_kprobe_regs(struct pt_regs *ctx)
{
	if (is_self())
		return 0;
	return count_ip(PT_REGS_IP(ctx) - KPROBE_IP_PAST);
}
