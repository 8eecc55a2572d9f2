// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * One loaded module's symbols, from the kernel's own copy of them.
 *
 * /proc/kallsyms and the ksym iterator list a module's symbols only after
 * walking vmlinux's ~150k, each name expanded on the way. But the module's
 * struct module is at its .gnu.linkonce.this_module section, which sysfs
 * shows, and it points at the very symbol table, names and types those walks
 * print for it: a handful of reads through /proc/kcore. For the build cache's
 * first run of a boot, where udev loaded a module the file does not know.
 */
#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ksym_internal.h"
#include "ksym_kmem.h"

/* far above any module's: the largest (amdgpu, xfs) have some 30k symbols */
#define MOD_SYMS_MAX (1u << 20)
#define MOD_STR_MAX (32u << 20)
#define MOD_STRUCT_MAX 8192	/* struct module is ~1 KiB */
#define MOD_NAME_LEN 56		/* MODULE_NAME_LEN on 64-bit */
#define MOD_NAME_MAX 512	/* KSYM_NAME_LEN */

int ksym_modlive__btf(struct ksym_mod_btf *b)
{
	static const char *const mod_fields[] = { "name", "kallsyms" };
	static const char *const mk_fields[] = { "symtab", "num_symtab", "strtab", "typetab" };
	int off[6];
	struct ksym_btf_struct s[2] = {
		{ .name = "module", .fields = mod_fields, .field_cnt = 2, .off = off },
		{ .name = "mod_kallsyms", .fields = mk_fields, .field_cnt = 4, .off = off + 2 },
	};
	int err = ksym_btf__scan(NULL, NULL, s, 2), i;

	if (err)
		return err;
	for (i = 0; i < KSYM_MOD_OFF_CNT; i++) {
		/* (typetab: since 5.x; the types were in st_size before) */
		if (off[i] < 0 || !s[0].found || !s[1].found)
			return -EOPNOTSUPP;
		b->off[i] = off[i];
	}
	return 0;
}

static int this_module(const char *mod, uint64_t *addr)
{
	char path[160], *buf, *end;
	size_t len;
	int err;

	snprintf(path, sizeof(path), "/sys/module/%s/sections/.gnu.linkonce.this_module", mod);
	err = ksym__read_file(path, &buf, &len);
	if (err)
		return err;
	errno = 0;
	*addr = strtoull(buf, &end, 16);
	err = errno || end == buf ? -EBADMSG : !*addr ? -EPERM : 0;
	free(buf);
	return err;
}

int ksym_modlive__read(struct ksym_kcore *kc, const struct ksym_mod_btf *b, const char *mod,
		       struct ksym_feed *f)
{
	uint64_t at;
	int err = this_module(mod, &at);

	return err ? err : ksym_modlive__read_at(kc, b, mod, at, NULL, f);
}

/* Whether the string at at in kernel memory is name (read 64 bytes at a time). */
static int kstr_is(struct ksym_kcore *kc, uint64_t at, const char *name)
{
	size_t len = strlen(name) + 1, done, n;
	char b[64];
	int err;

	for (done = 0; done < len; done += n) {
		n = len - done < sizeof(b) ? len - done : sizeof(b);
		err = ksym_kcore__read(kc, at + done, b, n);
		if (err)
			return err;
		if (memcmp(b, name + done, n))
			return 0;
	}
	return 1;
}

/* /proc/kallsyms' case: upper where the module exports it under that name and value. */
static int exported(const struct ksym_mod_exports *ex, uint64_t value, const char *name)
{
	size_t lo = 0, hi = ex->cnt, mid;
	int r;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (ex->v[2 * mid] < value)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < ex->cnt && ex->v[2 * lo] == value; lo++) {
		r = kstr_is(ex->kc, ex->v[2 * lo + 1], name);
		if (r)
			return r;
	}
	return 0;
}

int ksym_modlive__read_at(struct ksym_kcore *kc, const struct ksym_mod_btf *b, const char *mod,
			  uint64_t at, const struct ksym_mod_exports *ex, struct ksym_feed *f)
{
	const int *o = b->off;
	unsigned char m[MOD_STRUCT_MAX], k[MOD_STRUCT_MAX];
	uint64_t kat, symtab, strtab, typetab;
	size_t i, need, str_len = 0, mod_len = strlen(mod);
	Elf64_Sym *syms = NULL;
	char *types = NULL, *str = NULL;
	uint32_t num;
	int err, j;

	for (j = 0; j < KSYM_MOD_OFF_CNT; j++)
		if (o[j] < 0 || o[j] > MOD_STRUCT_MAX - MOD_NAME_LEN)
			return -EOPNOTSUPP;
	need = (o[KSYM_MOD_NAME] > o[KSYM_MOD_KALLSYMS] ? o[KSYM_MOD_NAME] : o[KSYM_MOD_KALLSYMS]) +
	       MOD_NAME_LEN;
	err = ksym_kcore__read_bulk(kc, at, m, need);
	if (err)
		return err;
	/* the module's own name where the build's layout puts it: this is it */
	if (mod_len >= MOD_NAME_LEN || memcmp(m + o[KSYM_MOD_NAME], mod, mod_len + 1))
		return -ESTALE;
	kat = ksym_get64(m, o[KSYM_MOD_KALLSYMS]);
	for (need = 0, j = KSYM_MODK_SYMTAB; j <= KSYM_MODK_TYPETAB; j++)
		if ((size_t)o[j] + 8 > need)
			need = o[j] + 8;
	err = ksym_kcore__read_bulk(kc, kat, k, need);
	if (err)
		return err == -EFAULT ? -ESTALE : err;
	symtab = ksym_get64(k, o[KSYM_MODK_SYMTAB]);
	strtab = ksym_get64(k, o[KSYM_MODK_STRTAB]);
	typetab = ksym_get64(k, o[KSYM_MODK_TYPETAB]);
	memcpy(&num, k + o[KSYM_MODK_NUM], 4);
	if (num > MOD_SYMS_MAX)
		return -EBADMSG;
	syms = malloc((num ? num : 1) * sizeof(*syms));
	types = malloc(num ? num : 1);
	if (!syms || !types) {
		err = -ENOMEM;
		goto out;
	}
	err = num ? ksym_kcore__read_bulk(kc, symtab, syms, num * sizeof(*syms)) : 0;
	if (!err && num)
		err = ksym_kcore__read_bulk(kc, typetab, types, num);
	if (err)
		goto out;
	/* the names: as far as the last function's, and a longest name past it */
	for (i = 0; i < num; i++)
		if (ksym_type_is_text(types[i]) && syms[i].st_name >= str_len)
			str_len = (size_t)syms[i].st_name + 1;	/* (a u32: ~0 + 1 is 0) */
	str_len = str_len ? str_len + MOD_NAME_MAX : 0;
	if (str_len > MOD_STR_MAX) {
		err = -EBADMSG;
		goto out;
	}
	str = malloc(str_len + 1);
	if (!str) {
		err = -ENOMEM;
		goto out;
	}
	/* a strtab ending near its allocation's end: kcore reads the hole as zeros */
	err = str_len ? ksym_kcore__read_bulk(kc, strtab, str, str_len) : 0;
	if (err)
		goto out;
	str[str_len] = '\0';
	for (i = 0; i < num && !err; i++) {
		const char *name;
		char type = types[i];

		if (!ksym_type_is_text(type) || syms[i].st_name >= str_len)
			continue;
		name = str + syms[i].st_name;
		/* the type's case as elf_type() gave it, unless the exports are known */
		if (ex) {
			err = exported(ex, syms[i].st_value, name);
			if (err < 0)
				break;
			type = err ? type & ~0x20 : type | 0x20;
		}
		err = ksym_feed__add(f, syms[i].st_value, type, name, strlen(name), mod, mod_len);
	}
out:
	free(syms);
	free(types);
	free(str);
	/* a pointer to no kernel memory: the module went while it was read */
	return err == -EFAULT ? -ESTALE : err;
}
