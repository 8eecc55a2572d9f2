/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Types shared by the BPF programs and userspace. */
#ifndef KSYMATTACH_SHARED_H
#define KSYMATTACH_SHARED_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* log2 latency buckets: slot i counts returns with 2^i <= ns < 2^(i+1). */
#define KSA_LAT_SLOTS 40

/*
 * Per function and per CPU, keyed by the function entry IP the kernel reports
 * (bpf_get_func_ip). Userspace sums the CPUs and maps the IP back to a symbol
 * by address, since with IBT the reported IP need not equal the attach address.
 */
struct ksa_stat {
	__u64 calls;	/* entries */
	__u64 returns;	/* kprobe.session: returns seen */
	__u64 lat_sum_ns;
	__u64 lat_log2[KSA_LAT_SLOTS];
};

#endif
