/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The kernel's BTF functions by name, as tracing_multi links take them: one
 * index per BTF object (vmlinux, or a module's split BTF over vmlinux's),
 * each FUNC with its type id and whether a BPF trampoline takes its
 * prototype. The kernel looks each id's name up in kallsyms itself; which
 * function that finds is the load's to check, not this part's.
 */
#ifndef KSYM_BFUNCS_H
#define KSYM_BFUNCS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ksym_bfuncs;

/* Why a trampoline cannot take a prototype, as the kernel's verifier says. */
enum ksym_bproto {
	KSYM_BPROTO_OK,
	KSYM_BPROTO_ARGS,	/* more arguments than a trampoline passes (12 8-byte slots) */
	KSYM_BPROTO_VARARGS,
	KSYM_BPROTO_ARG,	/* an argument neither an integer, an enum, a pointer,
				 * nor a struct or union of at most 16 bytes */
	KSYM_BPROTO_RET,	/* a struct, union or float returned */
	KSYM_BPROTO_RET_SIZE,	/* at return: a value of more than 8 bytes returned */
	KSYM_BPROTO_BAD,	/* a type id or a chain of types the file does not hold */
	KSYM_BPROTO_CNT,
};

/* The verdict's words: "takes more than 12 arguments", ... */
const char *ksym_bproto__str(enum ksym_bproto p);

/*
 * An object's index from its raw BTF (/sys/kernel/btf/NAME's bytes), which it
 * keeps: base is vmlinux's for a module's split BTF, NULL for vmlinux. NULL
 * with errno set: -EBADMSG a file that is no BTF or is cut short, -ENOMEM.
 * The index takes data (malloc()ed) in both cases.
 */
struct ksym_bfuncs *ksym_bfuncs__parse(void *data, size_t len, const struct ksym_bfuncs *base);
/* The same from a file, read whole (at most 64 MiB). */
struct ksym_bfuncs *ksym_bfuncs__load(const char *path, const struct ksym_bfuncs *base);
void ksym_bfuncs__free(struct ksym_bfuncs *f);

/* FUNC types the object holds (not its base's). */
size_t ksym_bfuncs__cnt(const struct ksym_bfuncs *f);
/* This object's first type id: 1 for vmlinux, past its base's for a module. */
uint32_t ksym_bfuncs__start_id(const struct ksym_bfuncs *f);

/*
 * The FUNCs called name in this object: how many (0 where none), the first
 * one's id in *id (BTF order, which is the kernel's too).
 */
size_t ksym_bfuncs__find(const struct ksym_bfuncs *f, const char *name, uint32_t *id);
/*
 * Whether a trampoline takes the prototype of FUNC id (an id of this object),
 * at entry, or at return too (fexit, fsession: the return value is passed on).
 */
enum ksym_bproto ksym_bfuncs__proto(const struct ksym_bfuncs *f, uint32_t id, bool at_return);
/* The i-th FUNC of the object in BTF order (i < cnt): its name and id. */
const char *ksym_bfuncs__at(const struct ksym_bfuncs *f, size_t i, uint32_t *id);

/* Bytes after a type's struct btf_type, by kind; SIZE_MAX for a kind unknown here. */
struct btf_type;
size_t ksym_btf__extra(const struct btf_type *t);

#endif
