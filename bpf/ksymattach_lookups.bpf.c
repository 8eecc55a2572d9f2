// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * --compare's meter of the kernel's own name lookups: the time a
 * tracing_multi link's creation spends in kallsyms, for one process (the
 * kernel looks up the name of every BTF id it is given). Userspace opens the
 * window around the link calls it measures and reads the sums.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "lookup_time.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

const volatile __u32 self_tgid = 0;

/* Written by userspace through the mapped .bss: measure while set. */
__u32 on;
__u64 lookup_ns;
__u64 lookup_calls;

static __always_inline void add_time(__u64 ns)
{
	if (!on || bpf_get_current_pid_tgid() >> 32 != self_tgid)
		return;
	__sync_fetch_and_add(&lookup_ns, ns);
	__sync_fetch_and_add(&lookup_calls, 1);
}

LOOKUP_PAIR(kallsyms_lookup_name, add_time)
LOOKUP_PAIR(module_kallsyms_lookup_name, add_time)
LOOKUP_PAIR(find_kallsyms_symbol_value, add_time)
LOOKUP_PAIR(kallsyms_on_each_symbol, add_time)
LOOKUP_PAIR(kallsyms_on_each_match_symbol, add_time)
