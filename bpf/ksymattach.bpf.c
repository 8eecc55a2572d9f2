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
 * The same where kprobes have no bpf_get_func_ip() (before Linux 5.15): a
 * kprobe's handler sees the IP its int3 left, one past the probed address.
 */
SEC("kprobe")
int ksa_kprobe_regs(struct pt_regs *ctx)
{
	if (is_self())
		return 0;
	return count_ip(PT_REGS_IP(ctx) - 1);
}
