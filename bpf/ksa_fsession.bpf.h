/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * fsession.multi's counting (the tracing_multi link, Linux 7.2): one program
 * run at a function's entry and again at its return, through a BPF
 * trampoline, with a cookie of its own per call: calls on entry, latency on
 * return, as kprobe.session's program counts them. Included by
 * ksymattach_fsession.bpf.c (ksymattach's own links) and
 * ksymattach_tmulti18.bpf.c (libbpf 1.8's, in --compare).
 */
#ifndef KSA_FSESSION_BPF_H
#define KSA_FSESSION_BPF_H

#include "ksa_common.bpf.h"

/* fsession's kfuncs take the program's context (Linux 6.19 and later) */
extern bool bpf_session_is_return(void *ctx) __ksym;
extern __u64 *bpf_session_cookie(void *ctx) __ksym;

static __always_inline int fsession_count(void *ctx)
{
	__u64 *cookie = bpf_session_cookie(ctx);

	if (!bpf_session_is_return(ctx)) {
		/* (the return runs whatever the entry returns: a 0 cookie skips it) */
		*cookie = 0;
		if (is_self())
			return 0;
		*cookie = bpf_ktime_get_ns();
		count_hit(ctx);
		return 0;
	}
	if (!*cookie)
		return 0;
	count_return(bpf_get_func_ip(ctx), *cookie);
	return 0;
}

#endif
