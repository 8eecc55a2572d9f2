// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target for the ksym iterator's record reader: the input's first
 * byte picks the filters (text only, a prefix, a name) and a piece size, the
 * rest is what the iterator's reads would return. It is read in one piece and
 * in small ones, as reads may split it: both must give the same table (or the
 * same refusal), and every symbol kept must be found by its name.
 */
#include "../../lib/ksym/kmem/iter.c"

static struct ksym_table *read_records(const uint8_t *data, size_t size, size_t piece,
				       const struct ksym_parse_opts *o, int *errp)
{
	struct ksym_feed *f = ksym_feed__new(o, 64, 4096);
	struct feed fd = { .f = f };
	size_t have = 0, at = 0, n;
	char *buf = malloc(ITER_BUF);
	struct ksym_table *t;
	int err = 0;

	if (!f || !buf)
		abort();
	while (!err && at < size) {
		n = size - at < piece ? size - at : piece;
		if (n > ITER_BUF - have)
			n = ITER_BUF - have;
		memcpy(buf + have, data + at, n);
		at += n;
		err = feed_more(&fd, buf, &have, n);
	}
	if (!err)
		err = feed_last(&fd, buf, buf + have);
	free(buf);
	t = ksym_feed__end(f, err);
	*errp = t ? 0 : errno;
	return t;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const prefix[] = { "vfs_" }, *const name[] = { "m:schedule" };
	struct ksym_parse_opts o = { .sz = sizeof(o) };
	struct ksym_table *whole, *pieces;
	int err_w, err_p;
	struct ksym a, b;
	size_t i;

	if (!size)
		return 0;
	o.text_only = data[0] & 1;
	if (data[0] & 2) {
		o.prefixes = prefix;
		o.prefix_cnt = 1;
	}
	if (data[0] & 4) {
		o.names = name;
		o.name_cnt = 1;
	}
	whole = read_records(data + 1, size - 1, ITER_BUF, &o, &err_w);
	pieces = read_records(data + 1, size - 1, 1 + (data[0] >> 3), &o, &err_p);
	if (!whole != !pieces || (!whole && err_w != err_p))
		abort();
	if (whole) {
		if (ksym_table__cnt(whole) != ksym_table__cnt(pieces))
			abort();
		for (i = 0; i < ksym_table__cnt(whole); i++) {
			ksym_table__at(whole, i, &a);
			ksym_table__at(pieces, i, &b);
			if (a.addr != b.addr || a.type != b.type || strcmp(a.name, b.name) ||
			    !a.module != !b.module || (a.module && strcmp(a.module, b.module)))
				abort();
			if (ksym_table__find(whole, a.name, a.module ? a.module : "", &b, 1) < 1)
				abort();
		}
	}
	ksym_table__free(whole);
	ksym_table__free(pieces);
	return 0;
}
