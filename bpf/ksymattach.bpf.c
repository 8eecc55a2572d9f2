// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Hit counters: kprobe.multi, and classic kprobes where it is missing. No kfunc
 * and no CO-RE relocation here, so loading this object needs no vmlinux BTF
 * (ksymattach_session.bpf.c has the session kfuncs).
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

/* Fallback for kernels without kprobe.multi: one classic kprobe per function. */
SEC("kprobe")
int ksa_kprobe(struct pt_regs *ctx)
{
	return count_hit(ctx);
}
