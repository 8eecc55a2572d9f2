/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The running kernel's memory read through kcore: the types from its BTF
 * (btf.c), its modules (modlive.c), its kallsyms table
 * (kallsyms.c), ftrace's records (ftrace.c) and VMCOREINFO.
 */
#ifndef KSYM_KMEM_H
#define KSYM_KMEM_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "ksym_internal.h"

/*
 * Raw vmlinux BTF (btf.c): FUNC func's id (0: none; func may be NULL) and,
 * for each of s, whether a struct of that name is there, its size and its
 * fields' byte offsets (-1: none, or a bitfield). -EOPNOTSUPP: a BTF kind
 * newer than this code, so nothing past it can be read.
 */
struct ksym_btf_struct {
	const char *name;
	const char *const *fields;
	size_t field_cnt;
	int *off;
	uint32_t size;
	bool found;
};

int ksym_btf__scan(const char *func, uint32_t *func_id, struct ksym_btf_struct *s, size_t cnt);
/* The same from a BTF file open at fd (read with pread: its offset is left alone). */
int ksym_btf__scan_fd(int fd, const char *func, uint32_t *func_id, struct ksym_btf_struct *s,
		      size_t cnt);

/* len bytes of kernel memory at addr in one segment of kc, whatever len is. */
int ksym_kcore__read_bulk(struct ksym_kcore *kc, uint64_t addr, void *buf, size_t len);

/*
 * The base of vmlinux's offsets in the build cache, as kcore shows it: _text
 * (x86-64) or _stext (VMCOREINFO; elsewhere); 0 unknown.
 */
uint64_t ksym_kcore__text_base(const struct ksym_kcore *kc);

/*
 * A loaded module's symbols as /proc/kallsyms lists them, from the kernel's
 * own tables through kcore (modlive.c). The offsets are the build's
 * (from its BTF, kept in the build cache); -1 in any: unknown.
 */
enum { KSYM_MOD_NAME, KSYM_MOD_KALLSYMS, KSYM_MODK_SYMTAB, KSYM_MODK_NUM, KSYM_MODK_STRTAB,
       KSYM_MODK_TYPETAB, KSYM_MOD_OFF_CNT };

struct ksym_mod_btf {
	int32_t off[KSYM_MOD_OFF_CNT];
};

/* this kernel's offsets, from its BTF: -EOPNOTSUPP where one is missing */
int ksym_modlive__btf(struct ksym_mod_btf *b);
/*
 * Module mod's text symbols fed to f (its filter applies). -EPERM: its
 * address hidden (kptr_restrict=2); -ESTALE: what kcore holds there is not
 * that module (gone, or offsets of another build); -EBADMSG: tables no
 * kernel makes.
 */
int ksym_modlive__read(struct ksym_kcore *kc, const struct ksym_mod_btf *b, const char *mod,
		       struct ksym_feed *f);
/*
 * A module's exports (its mod->syms) as (value, address of the name) pairs
 * sorted by value: with them a symbol's type is cased as /proc/kallsyms cases it.
 */
struct ksym_mod_exports {
	struct ksym_kcore *kc;
	uint64_t *v;
	size_t cnt;
};

/* The same with its struct module at at (the fuzzer's: no sysfs); ex may be NULL. */
int ksym_modlive__read_at(struct ksym_kcore *kc, const struct ksym_mod_btf *b, const char *mod,
			  uint64_t at, const struct ksym_mod_exports *ex, struct ksym_feed *f);

/*
 * The running kernel's text symbols from its own tables through kc (kallsyms.c;
 * NULL: /proc/kcore opened for it), as /proc/kallsyms lists them but for the
 * trampolines and BPF programs listed after the modules. opts must ask for
 * text only (EINVAL). NULL with errno: EOPNOTSUPP no kallsyms in VMCOREINFO
 * (kernel < 6.0), ENOEXEC a struct layout not known here, EBADMSG tables unlike the
 * kernel's, EPROTO no form of address puts _stext where VMCOREINFO says, ESTALE
 * the module list changed under the walk, EINTR stopped;
 * kcore's own errors.
 */
struct ksym_table *ksym_kmem__load(struct ksym_kcore *kc, const struct ksym_parse_opts *opts);
/*
 * Each loaded module's text symbols into f, in the list's order (modules.c);
 * heads: every vmlinux symbol called "modules", the list's head among them.
 * -ESTALE: the list changed under the walk.
 */
int ksym_kmem__modules(struct ksym_kcore *kc, const uint64_t *heads, size_t cnt,
		       struct ksym_feed *f, const volatile sig_atomic_t *stop);

/*
 * The same, and the addresses of vmlinux's variables named in vars (names of
 * two bytes or more; data, not text), looked up in the same walk: 0 where the
 * kernel has none, UINT64_MAX where it has more than one.
 */
struct ksym_kmem_var {
	const char *name;
	uint64_t addr;
};

struct ksym_table *ksym_kmem__load_vars(struct ksym_kcore *kc, const struct ksym_parse_opts *opts,
					struct ksym_kmem_var *vars, size_t var_cnt);

/*
 * The traceable functions as tracefs' available_filter_functions_addrs lists
 * them (KSYM_FMT_FUNCS_ADDRS: each record's address and its function's name),
 * from ftrace's records in memory through kc (ftrace.c); opts give only
 * stop. *syms (may be NULL): the kernel's text symbols the names came from.
 * NULL with errno: ksym_kmem__load()'s, and ENODATA no ftrace records (no
 * ftrace_pages_start), ENOEXEC their layout not in the kernel's BTF (or no
 * BTF), ESTALE the records changed under the read (a module loaded or unloaded).
 */
struct ksym_table *ksym_ftrace__load(struct ksym_kcore *kc, const struct ksym_parse_opts *opts,
				     struct ksym_table **syms);

/* Its steps, apart for the unit test: the records' layout from the kernel's BTF, */
#define KSYM_FTRACE_PAGE_MAX 64

struct ksym_ftrace_layout {
	int pg_next, pg_records, pg_index;	/* struct ftrace_page's fields */
	int rec_ip;				/* struct dyn_ftrace's */
	uint32_t pg_size, rec_size;
};

int ksym_ftrace__layout(struct ksym_ftrace_layout *l);
/*
 * every record's address on the chain from head (the address of
 * ftrace_pages_start), sorted (EBADMSG a chain no kernel makes, ESTALE one
 * that changed under the read, EINTR stopped),
 */
int ksym_ftrace__read(struct ksym_kcore *kc, const struct ksym_ftrace_layout *l, uint64_t head,
		      const volatile sig_atomic_t *stop, uint64_t **ips, size_t *cnt);
/*
 * and each named by the text symbol of syms at it or at most bound bytes
 * before it (4 where the kernel has ENDBR64s, else 0; the first of that
 * address's names), into f; a record no function starts at is left out.
 * EBADMSG: records, and none of them a function's.
 */
int ksym_ftrace__name(const struct ksym_table *syms, const uint64_t *ips, size_t n,
		      unsigned int bound, struct ksym_feed *f);

/* kcore's VMCOREINFO note, NUL-terminated (malloc()ed in *text); -ENOENT: none. */
int ksym_kcore__vmcoreinfo(const struct ksym_kcore *kc, char **text);

#endif
