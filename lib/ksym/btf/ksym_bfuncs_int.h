/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The index's layout, shared by its files: the walk and the lookups
 * (funcs.c) and the prototype check (proto.c).
 */
#ifndef KSYM_BFUNCS_INT_H
#define KSYM_BFUNCS_INT_H

#include <linux/btf.h>

#include "ksym_bfuncs.h"

struct ksym_bfuncs {
	const struct ksym_bfuncs *base;	/* vmlinux's, for a module's split BTF */
	char *data;			/* the file, kept */
	size_t len;
	bool mapped;			/* data is the file mapped, not a copy */
	const char *types;		/* its type section */
	size_t types_len;
	const char *strs;		/* its strings */
	uint32_t str_len;
	uint32_t start_id;		/* the first type's id */
	uint32_t type_cnt;
	uint32_t *type_off;		/* each type's offset in types */
	uint32_t *funcs;		/* the FUNCs' ids, in BTF order */
	size_t func_cnt;
	uint32_t *slots;		/* the names' index: a FUNC's position + 1 */
	uint32_t mask;
};

/* A type by id, in this object or its base; NULL past them. */
const struct btf_type *ksym_bfuncs_type(const struct ksym_bfuncs *f, uint32_t id);
/* A string by offset, in the base's strings or this object's; NULL past them. */
const char *ksym_bfuncs_str(const struct ksym_bfuncs *f, uint32_t off);

#endif
