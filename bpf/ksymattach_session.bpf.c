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

/*
 * kprobe.session's kfuncs (Linux >= 6.10). Their prototypes changed when
 * fentry sessions came (Linux 6.19): they take the program's context since.
 * libbpf matches an extern to the kernel's kfunc by the name before "___",
 * and leaves a weak one whose prototype differs unresolved: one object
 * declares both, and bpf_ksym_exists() picks the one the kernel has (the
 * verifier drops the other branch as dead code).
 */
extern bool bpf_session_is_return(void) __ksym __weak;
extern __u64 *bpf_session_cookie(void) __ksym __weak;
extern bool bpf_session_is_return___ctx(void *ctx) __ksym __weak;
extern __u64 *bpf_session_cookie___ctx(void *ctx) __ksym __weak;

static __always_inline bool session_is_return(void *ctx)
{
	if (bpf_ksym_exists(bpf_session_is_return___ctx))
		return bpf_session_is_return___ctx(ctx);
	return bpf_session_is_return();
}

static __always_inline __u64 *session_cookie(void *ctx)
{
	if (bpf_ksym_exists(bpf_session_cookie___ctx))
		return bpf_session_cookie___ctx(ctx);
	return bpf_session_cookie();
}

SEC("kprobe.session")
int ksa_session(struct pt_regs *ctx)
{
	__u64 *cookie = session_cookie(ctx);

	if (!session_is_return(ctx)) {
		if (is_self())
			return 1;	/* nonzero: no return probe */
		*cookie = bpf_ktime_get_ns();
		count_hit(ctx);
		return 0;	/* 0: run the return probe too */
	}
	count_return(bpf_get_func_ip(ctx), *cookie);
	return 0;
}
