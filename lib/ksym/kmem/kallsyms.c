// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The kernel's text symbols from its own tables, read through /proc/kcore.
 *
 * /proc/kallsyms and the ksym iterator both walk the kernel's table in the
 * kernel, which expands each of ~160k compressed names before anyone sees one:
 * in the project's TCG guest that walk alone took 256-308 ms, as long as a
 * cold attach's whole budget. The tables the walk reads are in kernel memory,
 * and the VMCOREINFO note that kcore carries for crash tools (Linux >= 6.0)
 * says where: kallsyms_names, _token_table, _token_index, _num_syms, and the
 * addresses as kallsyms_offsets (with _relative_base before 7.0) or, without
 * CONFIG_KALLSYMS_BASE_RELATIVE, kallsyms_addresses. Which of the kernels'
 * forms the offsets take is not written anywhere: the one that puts _stext
 * where VMCOREINFO says is used (kallsyms_form.c). Read here, a name is
 * expanded only as far as the filter needs to see (its first bytes, for a
 * prefix; kallsyms_names.c reads and expands them), and a module's symbols
 * come from its struct module (modlive.c), found on the kernel's own
 * list of them (modules.c).
 *
 * What this cannot see, the walks list after the modules: ftrace's and BPF's
 * trampolines, BPF programs. Only text symbols are fed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ksym_internal.h"
#include "ksym_kmem.h"
#include "ksym_kmem_table.h"

#define SYMS_MAX (4u << 20)	/* kallsyms_num_syms: a 2026 distribution kernel has ~160k */
#define NAMES_MAX (256u << 20)	/* the compressed names: ~2 MB there */

static const char *const ks_names[KS_CNT] = {
	[KS_NAMES] = "kallsyms_names", [KS_NUM] = "kallsyms_num_syms",
	[KS_TOKEN_TABLE] = "kallsyms_token_table", [KS_TOKEN_INDEX] = "kallsyms_token_index",
	[KS_STEXT] = "_stext", [KS_OFFSETS] = "kallsyms_offsets",
	[KS_RELATIVE_BASE] = "kallsyms_relative_base", [KS_ADDRESSES] = "kallsyms_addresses",
};

/* -ENOENT: a table VMCOREINFO does not name (0 in at[] for one it may leave out). */
static int where(const char *info, uint64_t at[KS_CNT])
{
	const char *p;
	size_t i;

	for (i = 0; i < KS_CNT; i++) {
		char key[64], *end;
		size_t n = (size_t)snprintf(key, sizeof(key), "SYMBOL(%s)=", ks_names[i]);

		at[i] = 0;
		for (p = info; (p = strstr(p, key)); p += n)
			if (p == info || p[-1] == '\n')
				break;
		if (!p && i < KS_NEEDED)
			return -ENOENT;
		if (!p)
			continue;
		at[i] = strtoull(p + n, &end, 16);
		if (end == p + n || (*end && *end != '\n') || !at[i])
			return -EBADMSG;
	}
	return at[KS_OFFSETS] || at[KS_ADDRESSES] ? 0 : -ENOENT;
}

/* What the module walk needs from vmlinux's table, seen on the way. */
struct seen {
	uint64_t modules[4];	/* every symbol called "modules": the list head is one */
	size_t modules_cnt;
	bool stext;
	struct ksym_kmem_var *vars;	/* the caller's, looked up in the same walk */
	size_t var_cnt;
};

/*
 * What a name whose first token is tk can be, decided once per token: where
 * the token holds the type and two bytes, the filter's answer for every name
 * it starts (and the names the walk itself looks for are kept).
 */
enum { FIRST_ASK, FIRST_DROP, FIRST_KEEP };

/*
 * A name the walk itself needs ("modules", "_stext") or its caller asked for,
 * by its first two bytes.
 */
static bool walk_wants(const struct seen *seen, const char *s)
{
	size_t i;

	if ((s[0] == 'm' && s[1] == 'o') || (s[0] == '_' && s[1] == 's'))
		return true;
	for (i = 0; i < seen->var_cnt; i++)
		if (!memcmp(s, seen->vars[i].name, 2))
			return true;
	return false;
}

static uint8_t first_look(const struct ksym_feed *f, const struct seen *seen,
			  const struct ksym_tokens *t, unsigned int tk)
{
	const char *s = t->tok[tk];

	if (t->len[tk] < 3)
		return FIRST_ASK;
	if (walk_wants(seen, s + 1))
		return FIRST_KEEP;
	return ksym_feed__may_keep(f, s[0], s + 1, 2) ? FIRST_KEEP : FIRST_DROP;
}

static int vmlinux_syms(struct ksym_kcore *kc, const uint64_t at[KS_CNT], struct ksym_feed *f,
			const volatile sig_atomic_t *stop, struct seen *seen)
{
	struct ksym_stream *names = NULL, *offs = NULL;
	struct ksym_tokens *t = NULL;
	struct ksym_addr_form d = {};
	uint8_t first[256];
	uint32_t num, i, stext = 0;
	int err;

	err = ksym_kcore__read_bulk(kc, at[KS_NUM], &num, sizeof(num));
	if (err)
		return err;
	if (!num || num > SYMS_MAX)
		return -EBADMSG;
	t = malloc(sizeof(*t));
	names = malloc(sizeof(*names));
	offs = malloc(sizeof(*offs));
	if (!t || !names || !offs) {
		err = -ENOMEM;
		goto out;
	}
	err = ksym_tokens_read(kc, at, t);
	if (err)
		goto out;
	ksym_stream_init(names, kc, at[KS_NAMES], NAMES_MAX);
	err = ksym_find_stext(names, t, num, stop, &stext);
	if (!err)
		err = ksym_pick_form(kc, at, stext, &d);
	if (err)
		goto out;
	/* (the first pass stays in the first window on kernels: nothing read again) */
	ksym_stream_rewind(names, at[KS_NAMES], NAMES_MAX);
	ksym_stream_init(offs, kc, d.table, d.width * num);
	for (i = 0; i < 256; i++)
		first[i] = first_look(f, seen, t, i);
	for (i = 0; i < num; i++) {
		char name[KSYM_NAME_MAX + 2];
		size_t n, k = 0, len = 0;
		const unsigned char *c, *raw;
		uint64_t addr;

		if (stop && *stop && !(i & 4095)) {
			err = -EINTR;
			break;
		}
		err = ksym_next_name(names, &c, &n);
		if (!err)
			err = ksym_stream_need(offs, d.width);
		if (err)
			break;
		raw = offs->buf + offs->pos;
		offs->pos += d.width;
		/* a first token of the type and two bytes or more: the filter's answer */
		if (first[c[0]] == FIRST_DROP)
			continue;
		/* else the type and two bytes of the name, expanded: enough to say no */
		err = ksym_expand(t, c, n, &k, name, &len, 3);
		if (err)
			break;
		if (len < 2) {
			err = -EBADMSG;
			break;
		}
		if (!ksym_feed__may_keep(f, name[0], name + 1, len - 1) &&
		    (len < 3 || !walk_wants(seen, name + 1)))
			continue;
		err = ksym_expand(t, c, n, &k, name, &len, KSYM_NAME_MAX + 2);
		if (err)
			break;
		name[len] = '\0';
		addr = ksym_sym_addr(&d, i, raw);
		if (ksym_name_is(name + 1, len - 1, "modules") && seen->modules_cnt < 4)
			seen->modules[seen->modules_cnt++] = addr;
		if (ksym_name_is(name + 1, len - 1, "_stext")) {
			/* a second one elsewhere: not the kernel's tables */
			if (addr != at[KS_STEXT]) {
				err = -EBADMSG;
				break;
			}
			seen->stext = true;
		}
		for (size_t v = 0; v < seen->var_cnt; v++)
			if (!ksym_type_is_text(name[0]) && ksym_name_is(name + 1, len - 1, seen->vars[v].name))
				seen->vars[v].addr = seen->vars[v].addr ? UINT64_MAX : addr;
		if (ksym_type_is_text(name[0])) {
			err = ksym_feed__add(f, addr, name[0], name + 1, len - 1, NULL, 0);
			if (err)
				break;
		}
	}
	if (!err && !seen->stext)
		err = -EBADMSG;
out:
	free(t);
	free(names);
	free(offs);
	return err;
}

struct ksym_table *ksym_kmem__load(struct ksym_kcore *kc, const struct ksym_parse_opts *opts)
{
	return ksym_kmem__load_vars(kc, opts, NULL, 0);
}

struct ksym_table *ksym_kmem__load_vars(struct ksym_kcore *kc, const struct ksym_parse_opts *opts,
					struct ksym_kmem_var *vars, size_t var_cnt)
{
	struct ksym_parse_opts o = {};
	struct ksym_parse_stats local, *st;
	struct ksym_kcore *own = NULL;
	uint64_t t0 = ksym_now_ns(), at[KS_CNT];
	struct seen seen = { .vars = vars, .var_cnt = var_cnt };
	struct ksym_feed *f;
	char *info = NULL;
	size_t i;
	int err;

	for (i = 0; i < var_cnt; i++) {
		if (strlen(vars[i].name) < 2) {
			errno = EINVAL;
			return NULL;
		}
		vars[i].addr = 0;
	}

	st = ksym_opts_copy(&o, opts, &local);
	memset(st, 0, sizeof(*st));
	/* the modules' other symbols are not read: text only */
	if (!o.text_only) {
		errno = EINVAL;
		return NULL;
	}
	if (!kc) {
		kc = own = ksym_kcore__open(NULL);
		if (!kc)
			return NULL;
	}
	err = ksym_kcore__vmcoreinfo(kc, &info);
	if (!err)
		err = where(info, at);
	free(info);
	/* no note, or one without the table (a kernel before 6.0) or its addresses */
	if (err == -ENOENT)
		err = -EOPNOTSUPP;
	/* a whole table: ~165k text symbols, ~22 bytes of name each */
	f = err ? NULL : ksym_feed__new(&o, 200000, 4u << 20);
	if (!err && !f)
		err = -ENOMEM;
	if (!err)
		err = vmlinux_syms(kc, at, f, o.stop, &seen);
	if (!err)
		err = ksym_kmem__modules(kc, seen.modules, seen.modules_cnt, f, o.stop);
	ksym_kcore__close(own);
	st->read_ns = ksym_now_ns() - t0;
	if (!f) {
		errno = -err;
		return NULL;
	}
	return ksym_feed__end(f, err);
}

struct ksym_table *ksym_table__load_kmem(const struct ksym_parse_opts *opts)
{
	return ksym_kmem__load(NULL, opts);
}
