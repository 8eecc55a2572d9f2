/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * vmlinux's kallsyms table in kernel memory, as its readers share it: where
 * VMCOREINFO says its parts are, the compressed names read front to back
 * (kallsyms_names.c), and the form its addresses take (kallsyms_form.c).
 * The walk over it is kallsyms.c's.
 */
#ifndef KSYM_KMEM_TABLE_H
#define KSYM_KMEM_TABLE_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "ksym_internal.h"
#include "ksym_kmem.h"

/*
 * Where VMCOREINFO says the table is: those before KS_NEEDED always, then the
 * offsets (and their base, before 7.0) or the addresses.
 */
enum { KS_NAMES, KS_NUM, KS_TOKEN_TABLE, KS_TOKEN_INDEX, KS_STEXT, KS_NEEDED,
       KS_OFFSETS = KS_NEEDED, KS_RELATIVE_BASE, KS_ADDRESSES, KS_CNT };

#define TOKEN_TABLE_MAX (UINT16_MAX + 256)	/* a u16 index's reach, and its token */
/* a name's compressed bytes: KSYM_NAME_LEN 512, and one for the type */
#define NAME_TOKENS_MAX 1024

/*
 * A forward-only reader of kernel memory through a window: the names are read
 * once, front to back, and most of them are dropped after a few bytes, so a
 * buffer of the whole 2 MB (pages touched for the first time) is not wanted.
 */
#define STREAM_WIN (64u << 10)

struct ksym_stream {
	struct ksym_kcore *kc;
	uint64_t addr, end;	/* of buf[0]; where the bound stops reads */
	size_t have, pos;
	unsigned char buf[STREAM_WIN];
};

void ksym_stream_init(struct ksym_stream *s, struct ksym_kcore *kc, uint64_t addr, uint64_t max);
/* Back to where ksym_stream_init() started s: read again only if the window has moved. */
void ksym_stream_rewind(struct ksym_stream *s, uint64_t addr, uint64_t max);
/* n (<= STREAM_WIN / 2) bytes at the position: s->buf + s->pos */
int ksym_stream_need(struct ksym_stream *s, size_t n);

/* The next name's compressed bytes (*c, *n tokens), and s past them. */
static inline int ksym_next_name(struct ksym_stream *s, const unsigned char **c, size_t *n)
{
	const unsigned char *p;
	size_t hdr = 1;
	int err;

	err = ksym_stream_need(s, 2);
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
	err = ksym_stream_need(s, hdr + *n);
	if (err)
		return err;
	*c = s->buf + s->pos + hdr;
	s->pos += hdr + *n;
	return 0;
}

struct ksym_tokens {
	char table[TOKEN_TABLE_MAX + 1];
	const char *tok[256];
	uint8_t len[256];
};

/* The token table and index at at[KS_TOKEN_*], checked: every token 1-255 bytes. */
int ksym_tokens_read(struct ksym_kcore *kc, const uint64_t at[KS_CNT], struct ksym_tokens *t);

/*
 * Expands tokens [*k, n) of a name into out (holding *len bytes) until it
 * holds at least want bytes or the name ends. -EBADMSG: longer than any name.
 */
static inline int ksym_expand(const struct ksym_tokens *t, const unsigned char *c, size_t n,
			      size_t *k, char *out, size_t *len, size_t want)
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

static inline bool ksym_name_is(const char *s, size_t len, const char *name)
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

struct ksym_addr_form {
	enum addr_enc enc;
	size_t width;		/* of an entry: 8 for addresses, 4 for offsets */
	uint64_t table;		/* kallsyms_offsets or _addresses */
	uint64_t base;		/* kallsyms_relative_base's value */
};

/* Symbol i's address, from its entry raw in the table. */
static inline uint64_t ksym_sym_addr(const struct ksym_addr_form *d, uint32_t i,
				     const unsigned char *raw)
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
int ksym_pick_form(struct ksym_kcore *kc, const uint64_t at[KS_CNT], uint32_t stext,
		   struct ksym_addr_form *d);

/*
 * _stext's index, for ksym_pick_form(): a first pass over the names that stops at
 * it (a few hundred in, after the per-CPU symbols and the head code: inside
 * the stream's first window). -EBADMSG: no _stext.
 */
int ksym_find_stext(struct ksym_stream *names, const struct ksym_tokens *t, uint32_t num,
		    const volatile sig_atomic_t *stop, uint32_t *stext);

#endif /* KSYM_KMEM_TABLE_H */
