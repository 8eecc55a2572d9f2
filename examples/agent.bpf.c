// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The example agent's probe: counts calls into the functions it is attached to. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "Dual BSD/GPL";

__u64 hits;

SEC("kprobe.multi")
int count(void *ctx)
{
	__sync_fetch_and_add(&hits, 1);
	return 0;
}
