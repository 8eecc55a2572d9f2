// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The loaded modules' text symbols from kernel memory: the module list walked
 * from its head ("modules", found in vmlinux's table by kallsyms.c), each
 * struct module laid out as the kernel's BTF says, its exports read to case
 * the types as /proc/kallsyms does, its symbols read by modlive.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ksym_internal.h"
#include "ksym_kmem.h"

#define MODS_MAX 65536
#define MOD_STATE_UNFORMED 3	/* enum module_state */
#define EXPORTS_MAX (1u << 20)
#define MOD_NAME_LEN 56		/* MODULE_NAME_LEN on 64-bit */
#define MOD_HEAD_MAX 8192	/* how far into struct module the fields we read may be */

/* struct module's fields the walk reads, and its kernel_symbol's size, from BTF. */
enum { M_LIST, M_STATE, M_SYMS, M_NUM_SYMS, M_CNT };

struct walk_btf {
	struct ksym_mod_btf mod;	/* what ksym_modlive__read_at() reads */
	int off[M_CNT];
};

static int walk_btf(struct walk_btf *w)
{
	static const char *const mod_fields[] = { "name", "kallsyms", "list", "state", "syms",
						  "num_syms" };
	static const char *const mk_fields[] = { "symtab", "num_symtab", "strtab", "typetab" };
	static const char *const ks_fields[] = { "value_offset", "name_offset" };
	int off[12], i;
	struct ksym_btf_struct s[3] = {
		{ .name = "module", .fields = mod_fields, .field_cnt = 6, .off = off },
		{ .name = "mod_kallsyms", .fields = mk_fields, .field_cnt = 4, .off = off + 6 },
		{ .name = "kernel_symbol", .fields = ks_fields, .field_cnt = 2, .off = off + 10 },
	};
	int err = ksym_btf__scan(NULL, NULL, s, 3);

	if (err)
		return err;
	/* exports as 32-bit self-relative offsets (x86-64's PREL32 relocations) */
	if (!s[0].found || !s[1].found || !s[2].found || s[2].size != 12 || off[10] != 0 ||
	    off[11] != 4)
		return -ENOEXEC;
	for (i = 0; i < 10; i++)
		if (off[i] < 0 || off[i] > MOD_HEAD_MAX - MOD_NAME_LEN)
			return -ENOEXEC;
	w->mod.off[KSYM_MOD_NAME] = off[0];
	w->mod.off[KSYM_MOD_KALLSYMS] = off[1];
	for (i = 0; i < 4; i++)
		w->mod.off[KSYM_MODK_SYMTAB + i] = off[6 + i];
	for (i = 0; i < M_CNT; i++)
		w->off[i] = off[2 + i];
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The module's exports (mod->syms: the kernel's is_exported() looks at no
 * other), as the addresses their names are at and their values, sorted by
 * value: /proc/kallsyms lists a module's symbol in upper case only if it is
 * one of these, by name and value.
 */
static int read_exports(struct ksym_kcore *kc, uint64_t syms, uint32_t num,
			struct ksym_mod_exports *ex)
{
	int32_t *ks = NULL;
	uint32_t i;
	int err;

	ex->cnt = 0;
	ex->v = NULL;
	if (!num)
		return 0;
	if (num > EXPORTS_MAX)
		return -EBADMSG;
	ks = malloc(num * 12ull);
	ex->v = malloc(num * 2 * sizeof(*ex->v));
	if (!ks || !ex->v) {
		err = -ENOMEM;
		goto out;
	}
	err = ksym_kcore__read_bulk(kc, syms, ks, num * 12ull);
	if (err)
		goto out;
	for (i = 0; i < num; i++) {
		uint64_t at = syms + 12ull * i;

		ex->v[2 * i] = at + (int64_t)ks[3 * i];		/* the value */
		ex->v[2 * i + 1] = at + 4 + (int64_t)ks[3 * i + 1];	/* its name */
	}
	qsort(ex->v, num, 2 * sizeof(*ex->v), cmp_u64);
	ex->cnt = num;
	ex->kc = kc;
out:
	free(ks);
	if (err) {
		free(ex->v);
		ex->v = NULL;
	}
	return err;
}

/* The list head among the symbols called "modules": its first node points back at it. */
static int find_head(struct ksym_kcore *kc, const uint64_t *heads, size_t cnt, uint64_t *head)
{
	size_t i, found = 0;

	for (i = 0; i < cnt; i++) {
		uint64_t h[2], back;

		if (ksym_kcore__read_bulk(kc, heads[i], h, sizeof(h)))
			continue;
		if (h[0] == heads[i] ? h[1] != heads[i] :
		    ksym_kcore__read_bulk(kc, h[0] + 8, &back, 8) || back != heads[i])
			continue;
		*head = heads[i];
		found++;
	}
	return found == 1 ? 0 : -EBADMSG;
}

/*
 * Each loaded module's text symbols, in the list's order as the walks list
 * them. -ESTALE: the list changed under the walk (a module went).
 */
int ksym_kmem__modules(struct ksym_kcore *kc, const uint64_t *heads, size_t cnt,
		       struct ksym_feed *f, const volatile sig_atomic_t *stop)
{
	struct walk_btf w;
	uint64_t head = 0, node;
	size_t need = 0, n;
	int err, i;

	/* a kernel without modules has no list of them */
	if (!cnt)
		return 0;
	err = find_head(kc, heads, cnt, &head);
	if (!err)
		err = ksym_kcore__read_bulk(kc, head, &node, 8);
	/* none loaded: no struct module to know the layout of */
	if (err || node == head)
		return err;
	err = walk_btf(&w);
	if (err)
		return err;
	for (i = 0; i < M_CNT; i++)
		if ((size_t)w.off[i] + 8 > need)
			need = w.off[i] + 8;
	if ((size_t)w.mod.off[KSYM_MOD_NAME] + MOD_NAME_LEN > need)
		need = w.mod.off[KSYM_MOD_NAME] + MOD_NAME_LEN;
	for (n = 0; node != head; n++) {
		unsigned char m[MOD_HEAD_MAX];
		struct ksym_mod_exports ex;
		uint64_t at = node - w.off[M_LIST];
		uint32_t state, nsyms;
		const char *name;

		if (n == MODS_MAX)
			return -EBADMSG;
		if (stop && *stop)
			return -EINTR;
		err = ksym_kcore__read_bulk(kc, at, m, need);
		if (err)
			return err == -EFAULT ? -ESTALE : err;
		name = (const char *)m + w.mod.off[KSYM_MOD_NAME];
		if (!memchr(name, '\0', MOD_NAME_LEN) || !*name)
			return -ESTALE;
		memcpy(&state, m + w.off[M_STATE], 4);
		memcpy(&nsyms, m + w.off[M_NUM_SYMS], 4);
		node = ksym_get64(m, w.off[M_LIST]);
		if (state == MOD_STATE_UNFORMED)
			continue;
		err = read_exports(kc, ksym_get64(m, w.off[M_SYMS]), nsyms, &ex);
		if (err)
			return err == -EFAULT ? -ESTALE : err;
		err = ksym_modlive__read_at(kc, &w.mod, name, at, &ex, f);
		if (err == -EOPNOTSUPP)
			err = -ENOEXEC;	/* a layout not known here, not a kernel without the table */
		free(ex.v);
	}
	return err;
}
