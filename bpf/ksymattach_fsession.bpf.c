// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * fsession.multi's program for ksymattach's own links (ksa_fsession.bpf.h
 * counts). libbpf 1.5 knows neither the section nor the attach type:
 * src/engine/tmulti.c registers the section's handler before it opens this
 * object.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "ksa_fsession.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

SEC("fsession.multi")
int ksa_fsession(void *ctx)
{
	return fsession_count(ctx);
}
