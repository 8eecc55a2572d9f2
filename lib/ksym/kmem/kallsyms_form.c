// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Which form vmlinux's kallsyms addresses take. The kernels' scripts wrote
 * four, VMCOREINFO does not say which, and the offsets alone cannot tell: the
 * one form that puts _stext where VMCOREINFO says is used.
 */
#include <errno.h>
#include <string.h>

#include "ksym_kmem_table.h"

/*
 * The form that decodes symbol stext (_stext's index) at VMCOREINFO's
 * SYMBOL(_stext), among those the tables VMCOREINFO names allow: exactly one,
 * else -EPROTO (none does, or more than one).
 */
int ksym_pick_form(struct ksym_kcore *kc, const uint64_t at[KS_CNT], uint32_t stext,
		   struct ksym_addr_form *d)
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
		struct ksym_addr_form c = { .enc = e, .width = by_addr ? 8 : 4, .base = base,
				       .table = by_addr ? at[KS_ADDRESSES] : at[KS_OFFSETS] };

		if (!c.table || (rel && !at[KS_RELATIVE_BASE]))
			continue;
		if (ksym_sym_addr(&c, stext, by_addr ? addr : off) == at[KS_STEXT]) {
			*d = c;
			fits++;
		}
	}
	return fits == 1 ? 0 : -EPROTO;
}

/* Whether tokens c[0, n) spell "<type>_stext": compared as they come, not expanded. */
static bool is_stext(const struct ksym_tokens *t, const unsigned char *c, size_t n)
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
 * _stext's index, for ksym_pick_form(): a first pass over the names that stops at
 * it (a few hundred in, after the per-CPU symbols and the head code: inside
 * the stream's first window). -EBADMSG: no _stext.
 */
int ksym_find_stext(struct ksym_stream *names, const struct ksym_tokens *t, uint32_t num,
		    const volatile sig_atomic_t *stop, uint32_t *stext)
{
	const unsigned char *c;
	uint32_t i;
	size_t n;
	int err;

	for (i = 0; i < num; i++) {
		if (stop && *stop && !(i & 4095))
			return -EINTR;
		err = ksym_next_name(names, &c, &n);
		if (err)
			return err;
		if (is_stext(t, c, n)) {
			*stext = i;
			return 0;
		}
	}
	return -EBADMSG;
}
