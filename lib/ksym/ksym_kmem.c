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
 * where VMCOREINFO says is used. Read here, a name is expanded only as far as
 * the filter needs to see (its first bytes, for a prefix), and a module's
 * symbols come from its struct module (ksym_modlive.c), found on the kernel's
 * own list of them (ksym_kmem_mods.c).
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

#define SYMS_MAX (4u << 20)	/* kallsyms_num_syms: a 2026 distribution kernel has ~160k */
#define NAMES_MAX (256u << 20)	/* the compressed names: ~2 MB there */
#define TOKEN_TABLE_MAX (UINT16_MAX + 256)	/* a u16 index's reach, and its token */
#define NAME_TOKENS_MAX 1024	/* a name's compressed bytes: KSYM_NAME_LEN 512, and one for the type */

/*
 * Where VMCOREINFO says the table is: those before KS_NEEDED always, then the
 * offsets (and their base, before 7.0) or the addresses.
 */
enum { KS_NAMES, KS_NUM, KS_TOKEN_TABLE, KS_TOKEN_INDEX, KS_STEXT, KS_NEEDED,
       KS_OFFSETS = KS_NEEDED, KS_RELATIVE_BASE, KS_ADDRESSES, KS_CNT };

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

/*
 * A forward-only reader of kernel memory through a window: the names are read
 * once, front to back, and most of them are dropped after a few bytes, so a
 * buffer of the whole 2 MB (pages touched for the first time) is not wanted.
 */
#define STREAM_WIN (64u << 10)

struct stream {
	struct ksym_kcore *kc;
	uint64_t addr, end;	/* of buf[0]; where the bound stops reads */
	size_t have, pos;
	unsigned char buf[STREAM_WIN];
};

static void stream_init(struct stream *s, struct ksym_kcore *kc, uint64_t addr, uint64_t max)
{
	s->kc = kc;
	s->addr = addr;
	s->end = addr + max < addr ? UINT64_MAX : addr + max;
	s->have = s->pos = 0;
}

/* Back to where stream_init() started s: read again only if the window has moved. */
static void stream_rewind(struct stream *s, uint64_t addr, uint64_t max)
{
	if (s->addr == addr)
		s->pos = 0;
	else
		stream_init(s, s->kc, addr, max);
}

/* n (<= STREAM_WIN / 2) bytes at the position: s->buf + s->pos */
static int stream_need(struct stream *s, size_t n)
{
	uint64_t at;
	size_t want;
	int err;

	if (s->have - s->pos >= n)
		return 0;
	memmove(s->buf, s->buf + s->pos, s->have - s->pos);
	s->addr += s->pos;
	s->have -= s->pos;
	s->pos = 0;
	at = s->addr + s->have;
	want = STREAM_WIN - s->have;
	if (at >= s->end || s->end - at < n - s->have)
		return -EBADMSG;	/* past any table's bound */
	if (want > s->end - at)
		want = s->end - at;
	err = ksym_kcore__read_bulk(s->kc, at, s->buf + s->have, want);
	/* the window reached past the segment: only what is needed */
	if (err == -EFAULT) {
		want = n - s->have;
		err = ksym_kcore__read_bulk(s->kc, at, s->buf + s->have, want);
	}
	if (err)
		return err;
	s->have += want;
	return 0;
}

/* The next name's compressed bytes (*c, *n tokens), and s past them. */
static inline int next_name(struct stream *s, const unsigned char **c, size_t *n)
{
	const unsigned char *p;
	size_t hdr = 1;
	int err;

	err = stream_need(s, 2);
	if (err)
		return err;
	/* a length byte, or two where the first has its high bit set (6.1's big symbols) */
	p = s->buf + s->pos;
	*n = p[0];
	if (*n & 0x80) {
		*n = (*n & 0x7f) | (size_t)p[1] << 7;
		hdr = 2;
	}
	if (!*n || *n > NAME_TOKENS_MAX)
		return -EBADMSG;
	err = stream_need(s, hdr + *n);
	if (err)
		return err;
	*c = s->buf + s->pos + hdr;
	s->pos += hdr + *n;
	return 0;
}

struct tokens {
	char table[TOKEN_TABLE_MAX + 1];
	const char *tok[256];
	uint8_t len[256];
};

static int tokens_read(struct ksym_kcore *kc, const uint64_t at[KS_CNT], struct tokens *t)
{
	uint64_t table = at[KS_TOKEN_TABLE];
	uint16_t index[256];
	size_t last = 0, len, n, i;
	int err;

	err = ksym_kcore__read_bulk(kc, at[KS_TOKEN_INDEX], index, sizeof(index));
	if (err)
		return err;
	/*
	 * The table ends with the token furthest into it (whichever index that
	 * is): at most 255 bytes and a NUL past the largest index.
	 */
	for (i = 0; i < 256; i++)
		if (index[i] > last)
			last = index[i];
	len = last + 256;
	err = ksym_kcore__read_bulk(kc, table, t->table, len);
	/* the table where the memory mapped ends: no further than that token's NUL */
	if (err == -EFAULT) {
		len = last + 1;
		err = ksym_kcore__read_bulk(kc, table, t->table, len);
		for (; !err && t->table[len - 1] && len < last + 256; len++)
			err = ksym_kcore__read_bulk(kc, table + len, t->table + len, 1);
	}
	if (err)
		return err;
	n = strnlen(t->table + last, len - last);
	if (n == len - last)
		return -EBADMSG;
	len = last + n + 1;
	for (i = 0; i < 256; i++) {
		n = strnlen(t->table + index[i], len - index[i]);

		/* every token is a string of one to 255 bytes */
		if (!n || n > 255)
			return -EBADMSG;
		t->tok[i] = t->table + index[i];
		t->len[i] = n;
	}
	return 0;
}

/*
 * Expands tokens [*k, n) of a name into out (holding *len bytes) until it
 * holds at least want bytes or the name ends. -EBADMSG: longer than any name.
 */
static int expand(const struct tokens *t, const unsigned char *c, size_t n, size_t *k, char *out,
		  size_t *len, size_t want)
{
	while (*k < n && *len < want) {
		unsigned int tk = c[(*k)++];

		if (*len + t->len[tk] > KSYM_NAME_MAX + 1)
			return -EBADMSG;
		memcpy(out + *len, t->tok[tk], t->len[tk]);
		*len += t->len[tk];
	}
	return 0;
}

static bool name_is(const char *s, size_t len, const char *name)
{
	return strlen(name) == len && !memcmp(s, name, len);
}

/*
 * The forms of a symbol's address the kernels' scripts/kallsyms.c wrote.
 * VMCOREINFO names the tables but not the form, and the offsets alone cannot
 * tell: _stext decoded where VMCOREINFO says picks one.
 */
enum addr_enc {
	ENC_ABSOLUTE,	/* kallsyms_addresses[]: no CONFIG_KALLSYMS_BASE_RELATIVE (before 6.11) */
	ENC_RELATIVE,	/* relative_base + (u32)off (4.6 to 6.19) */
	ENC_ABS_PERCPU,	/* off >= 0 itself, else relative_base - 1 - off (x86-64 before 6.15) */
	ENC_PLACE,	/* &kallsyms_offsets[i] + (s32)off: 7.0 on, no relative_base */
	ENC_CNT
};

struct addr_form {
	enum addr_enc enc;
	size_t width;		/* of an entry: 8 for addresses, 4 for offsets */
	uint64_t table;		/* kallsyms_offsets or _addresses */
	uint64_t base;		/* kallsyms_relative_base's value */
};

/* Symbol i's address, from its entry raw in the table. */
static inline uint64_t sym_addr(const struct addr_form *d, uint32_t i, const unsigned char *raw)
{
	uint64_t a;
	int32_t off;

	if (d->enc == ENC_ABSOLUTE) {
		memcpy(&a, raw, 8);
		return a;
	}
	memcpy(&off, raw, 4);
	switch (d->enc) {
	case ENC_RELATIVE:
		return d->base + (uint32_t)off;
	case ENC_ABS_PERCPU:
		return off >= 0 ? (uint64_t)off : d->base - 1 - off;
	default:
		/* wrapping as the kernel's unsigned long does */
		return d->table + 4ull * i + (uint64_t)(int64_t)off;
	}
}

/*
 * The form that decodes symbol stext (_stext's index) at VMCOREINFO's
 * SYMBOL(_stext), among those the tables VMCOREINFO names allow: exactly one,
 * else -EPROTO (none does, or more than one).
 */
static int pick_form(struct ksym_kcore *kc, const uint64_t at[KS_CNT], uint32_t stext,
		     struct addr_form *d)
{
	unsigned char off[4] = {}, addr[8] = {};
	uint64_t base = 0;
	int fits = 0, err;
	unsigned int e;

	if (at[KS_ADDRESSES]) {
		err = ksym_kcore__read_bulk(kc, at[KS_ADDRESSES] + 8ull * stext, addr, 8);
		if (err)
			return err;
	}
	if (at[KS_OFFSETS]) {
		err = ksym_kcore__read_bulk(kc, at[KS_OFFSETS] + 4ull * stext, off, 4);
		if (!err && at[KS_RELATIVE_BASE])
			err = ksym_kcore__read_bulk(kc, at[KS_RELATIVE_BASE], &base, 8);
		if (err)
			return err;
	}
	for (e = 0; e < ENC_CNT; e++) {
		bool by_addr = e == ENC_ABSOLUTE, rel = e == ENC_RELATIVE || e == ENC_ABS_PERCPU;
		struct addr_form c = { .enc = e, .width = by_addr ? 8 : 4, .base = base,
				       .table = by_addr ? at[KS_ADDRESSES] : at[KS_OFFSETS] };

		if (!c.table || (rel && !at[KS_RELATIVE_BASE]))
			continue;
		if (sym_addr(&c, stext, by_addr ? addr : off) == at[KS_STEXT]) {
			*d = c;
			fits++;
		}
	}
	return fits == 1 ? 0 : -EPROTO;
}

/* Whether tokens c[0, n) spell "<type>_stext": compared as they come, not expanded. */
static bool is_stext(const struct tokens *t, const unsigned char *c, size_t n)
{
	static const char want[] = "_stext";
	size_t k, got = 0;

	for (k = 0; k < n; k++) {
		/* the first token's first byte: the type */
		const char *s = t->tok[c[k]] + !k;
		size_t l = t->len[c[k]] - !k;

		if (got + l > sizeof(want) - 1 || memcmp(s, want + got, l))
			return false;
		got += l;
	}
	return got == sizeof(want) - 1;
}

/*
 * _stext's index, for pick_form(): a first pass over the names that stops at
 * it (a few hundred in, after the per-CPU symbols and the head code: inside
 * the stream's first window). -EBADMSG: no _stext.
 */
static int find_stext(struct stream *names, const struct tokens *t, uint32_t num,
		      const volatile sig_atomic_t *stop, uint32_t *stext)
{
	const unsigned char *c;
	uint32_t i;
	size_t n;
	int err;

	for (i = 0; i < num; i++) {
		if (stop && *stop && !(i & 4095))
			return -EINTR;
		err = next_name(names, &c, &n);
		if (err)
			return err;
		if (is_stext(t, c, n)) {
			*stext = i;
			return 0;
		}
	}
	return -EBADMSG;
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
			  const struct tokens *t, unsigned int tk)
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
	struct stream *names = NULL, *offs = NULL;
	struct tokens *t = NULL;
	struct addr_form d = {};
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
	err = tokens_read(kc, at, t);
	if (err)
		goto out;
	stream_init(names, kc, at[KS_NAMES], NAMES_MAX);
	err = find_stext(names, t, num, stop, &stext);
	if (!err)
		err = pick_form(kc, at, stext, &d);
	if (err)
		goto out;
	/* (the first pass stays in the first window on kernels: nothing read again) */
	stream_rewind(names, at[KS_NAMES], NAMES_MAX);
	stream_init(offs, kc, d.table, d.width * num);
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
		err = next_name(names, &c, &n);
		if (!err)
			err = stream_need(offs, d.width);
		if (err)
			break;
		raw = offs->buf + offs->pos;
		offs->pos += d.width;
		/* a first token of the type and two bytes or more: the filter's answer */
		if (first[c[0]] == FIRST_DROP)
			continue;
		/* else the type and two bytes of the name, expanded: enough to say no */
		err = expand(t, c, n, &k, name, &len, 3);
		if (err)
			break;
		if (len < 2) {
			err = -EBADMSG;
			break;
		}
		if (!ksym_feed__may_keep(f, name[0], name + 1, len - 1) &&
		    (len < 3 || !walk_wants(seen, name + 1)))
			continue;
		err = expand(t, c, n, &k, name, &len, KSYM_NAME_MAX + 2);
		if (err)
			break;
		name[len] = '\0';
		addr = sym_addr(&d, i, raw);
		if (name_is(name + 1, len - 1, "modules") && seen->modules_cnt < 4)
			seen->modules[seen->modules_cnt++] = addr;
		if (name_is(name + 1, len - 1, "_stext")) {
			/* a second one elsewhere: not the kernel's tables */
			if (addr != at[KS_STEXT]) {
				err = -EBADMSG;
				break;
			}
			seen->stext = true;
		}
		for (size_t v = 0; v < seen->var_cnt; v++)
			if (!ksym_type_is_text(name[0]) && name_is(name + 1, len - 1, seen->vars[v].name))
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
