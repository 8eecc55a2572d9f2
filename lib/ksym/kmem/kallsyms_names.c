// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * vmlinux's compressed names in kernel memory: a window that reads them
 * front to back, and the token table that expands them. ksym_kmem_table.h
 * says what each function gives.
 */
#include <errno.h>
#include <string.h>

#include "ksym_kmem_table.h"

void ksym_stream_init(struct ksym_stream *s, struct ksym_kcore *kc, uint64_t addr, uint64_t max)
{
	s->kc = kc;
	s->addr = addr;
	s->end = addr + max < addr ? UINT64_MAX : addr + max;
	s->have = s->pos = 0;
}

/* Back to where ksym_stream_init() started s: read again only if the window has moved. */
void ksym_stream_rewind(struct ksym_stream *s, uint64_t addr, uint64_t max)
{
	if (s->addr == addr)
		s->pos = 0;
	else
		ksym_stream_init(s, s->kc, addr, max);
}

/* n (<= STREAM_WIN / 2) bytes at the position: s->buf + s->pos */
int ksym_stream_need(struct ksym_stream *s, size_t n)
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

int ksym_tokens_read(struct ksym_kcore *kc, const uint64_t at[KS_CNT], struct ksym_tokens *t)
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
