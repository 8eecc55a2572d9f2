// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The programs libbpf 1.8 loads and attaches in --compare's libbpf row of the
 * tracing_multi modes, one a mode, counting as ksymattach's own do. Their
 * sections carry no pattern: the row hands libbpf the pattern, or the ids.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "ksa_fsession.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

SEC("fentry.multi")
int ksa18_fentry(void *ctx)
{
	count_hit(ctx);
	return 0;
}

SEC("fexit.multi")
int ksa18_fexit(void *ctx)
{
	count_hit(ctx);
	return 0;
}

SEC("fsession.multi")
int ksa18_fsession(void *ctx)
{
	return fsession_count(ctx);
}
