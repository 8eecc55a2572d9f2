/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Objects whose programs are fentry/fexit pairs on named kernel functions
 * (the watcher's, the lookups' meter): which of them this kernel can load.
 */
#ifndef KSYM_TRAMPOLINES_H
#define KSYM_TRAMPOLINES_H

#include <stdbool.h>
#include <string.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

/* "fentry/NAME" -> NAME */
static inline const char *tramp_target(const struct bpf_program *p)
{
	const char *s = strchr(bpf_program__section_name(p), '/');

	return s ? s + 1 : "";
}

static inline bool tramp_is(const struct bpf_program *p)
{
	return bpf_program__type(p) == BPF_PROG_TYPE_TRACING;
}

/*
 * Leaves unloaded each trampoline program whose function btf (NULL: none)
 * lacks: a function the kernel does not have is none it calls.
 */
static inline void tramp_keep_known(struct bpf_object *obj, const struct btf *btf)
{
	struct bpf_program *p;

	bpf_object__for_each_program(p, obj) {
		if (tramp_is(p) &&
		    (!btf || btf__find_by_name_kind(btf, tramp_target(p), BTF_KIND_FUNC) < 0))
			bpf_program__set_autoload(p, false);
	}
}

#endif
