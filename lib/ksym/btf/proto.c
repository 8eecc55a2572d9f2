// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Whether a BPF trampoline takes a function's prototype: the kernel's verifier
 * builds a call model of it (btf_distill_func_proto(), kernel/bpf/btf.c) and
 * refuses the attach where it cannot. A tracing_multi link is refused whole
 * for one such function, so the load leaves them out first, for the same
 * reasons the kernel gives.
 */
#include <linux/btf.h>

#include "ksym_bfuncs_int.h"

#define TRAMP_ARGS_MAX 12	/* MAX_BPF_FUNC_ARGS */
#define TRAMP_ARG_MAX 16	/* bytes of a struct passed by value */

static const char *const words[KSYM_BPROTO_CNT] = {
	[KSYM_BPROTO_OK] = "a trampoline takes it",
	[KSYM_BPROTO_ARGS] = "takes more than 12 arguments (8-byte slots)",
	[KSYM_BPROTO_VARARGS] = "takes variable arguments",
	[KSYM_BPROTO_ARG] = "takes an argument a trampoline cannot pass",
	[KSYM_BPROTO_RET] = "returns a struct, a union or a float",
	[KSYM_BPROTO_RET_SIZE] = "returns more than 8 bytes",
	[KSYM_BPROTO_BAD] = "its prototype is not in BTF",
};

const char *ksym_bproto__str(enum ksym_bproto p)
{
	return p < KSYM_BPROTO_CNT ? words[p] : "?";
}

static bool is_modifier(uint32_t kind)
{
	return kind == BTF_KIND_TYPEDEF || kind == BTF_KIND_VOLATILE ||
	       kind == BTF_KIND_CONST || kind == BTF_KIND_RESTRICT || kind == 18 /* TYPE_TAG */;
}

/*
 * The bytes a value of type id takes in a call, as the kernel's
 * __get_type_size() counts them: 0 for void, -1 for a type it does not pass;
 * *aggr says whether it is a struct or a union.
 */
static long type_size(const struct ksym_bfuncs *f, uint32_t id, bool *aggr)
{
	const struct btf_type *t;
	unsigned int hops = 0;
	uint32_t kind;

	*aggr = false;
	if (!id)
		return 0;
	for (t = ksym_bfuncs_type(f, id); t; t = ksym_bfuncs_type(f, t->type)) {
		kind = BTF_INFO_KIND(t->info);
		if (!is_modifier(kind))
			break;
		if (++hops > 64)	/* a loop of typedefs: no type at its end */
			return -2;
	}
	if (!t)
		return -2;
	switch (kind) {
	case BTF_KIND_PTR:
		return 8;
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		*aggr = true;
		return t->size;
	case BTF_KIND_INT:
	case BTF_KIND_ENUM:
	case 19:	/* ENUM64 */
		return t->size;
	default:
		return -1;
	}
}

enum ksym_bproto ksym_bfuncs__proto(const struct ksym_bfuncs *f, uint32_t id, bool at_return)
{
	const struct btf_type *fn = ksym_bfuncs_type(f, id), *pr;
	const struct btf_param *p;
	uint32_t i, n, slots;
	bool aggr;
	long sz;

	if (!fn || BTF_INFO_KIND(fn->info) != BTF_KIND_FUNC)
		return KSYM_BPROTO_BAD;
	pr = ksym_bfuncs_type(f, fn->type);
	if (!pr || BTF_INFO_KIND(pr->info) != BTF_KIND_FUNC_PROTO)
		return KSYM_BPROTO_BAD;
	n = BTF_INFO_VLEN(pr->info);
	if (n > TRAMP_ARGS_MAX)
		return KSYM_BPROTO_ARGS;
	sz = type_size(f, pr->type, &aggr);
	if (sz == -2)
		return KSYM_BPROTO_BAD;
	if (sz < 0 || aggr)
		return KSYM_BPROTO_RET;
	if (at_return && sz > 8)
		return KSYM_BPROTO_RET_SIZE;
	p = (const void *)(pr + 1);
	for (i = 0, slots = 0; i < n; i++) {
		if (i == n - 1 && !p[i].type)
			return KSYM_BPROTO_VARARGS;
		sz = type_size(f, p[i].type, &aggr);
		if (sz == -2)
			return KSYM_BPROTO_BAD;
		if (sz <= 0 || sz > TRAMP_ARG_MAX)
			return KSYM_BPROTO_ARG;
		slots += (sz + 7) / 8;
	}
	/* x86-64's trampoline counts 8-byte slots: a 16-byte struct takes two */
	return slots > TRAMP_ARGS_MAX ? KSYM_BPROTO_ARGS : KSYM_BPROTO_OK;
}
