// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target for one parser (FUZZ_FMT picks the format). Beyond not
 * crashing: every symbol parsed must be found again by name and by address,
 * and the same bytes loaded from a file (read 16 bytes at a time in this
 * build, so that lines split everywhere) must give the same table and stats.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <ksym/ksym.h>

/* The same bytes through ksym_table__load(): t's table, or t's failure. */
static void same_loaded(const uint8_t *data, size_t size, const struct ksym_table *t,
			const struct ksym_parse_stats *st)
{
	struct ksym_parse_stats ls;
	struct ksym_parse_opts po = { .sz = sizeof(po), .index = true, .stats = &ls };
	struct ksym_table *l;
	struct ksym a, b;
	char path[64];
	size_t i;
	int fd = memfd_create("fuzz", MFD_CLOEXEC);

	if (fd < 0 || (size && write(fd, data, size) != (ssize_t)size))
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	l = ksym_table__load(FUZZ_FMT, path, &po);
	close(fd);
	if (!l != !t || ls.lines != st->lines || ls.symbols != st->symbols ||
	    ls.skipped != st->skipped || ls.malformed != st->malformed ||
	    memcmp(ls.bad_line, st->bad_line, sizeof(ls.bad_line)))
		abort();
	for (i = 0; l && i < ksym_table__cnt(t); i++) {
		if (ksym_table__at(t, i, &a) || ksym_table__at(l, i, &b) || a.addr != b.addr ||
		    a.size != b.size || a.type != b.type || a.flags != b.flags ||
		    strcmp(a.name, b.name) || !a.module != !b.module ||
		    (a.module && strcmp(a.module, b.module)))
			abort();
	}
	if (l)
		ksym_table__batch_end(l);
	ksym_table__free(l);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ksym_parse_stats st;
	struct ksym_parse_opts po = { .sz = sizeof(po), .index = true, .stats = &st };
	struct ksym_table *t;
	struct ksym s, hit[64];
	char *buf;
	size_t i;

	buf = malloc(size + 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	t = ksym_table__parse(FUZZ_FMT, buf, size, &po);
	same_loaded(data, size, t, &st);
	if (!t)
		return 0;
	for (i = 0; i < ksym_table__cnt(t); i++) {
		bool found = false;
		int n, j;

		if (ksym_table__at(t, i, &s))
			abort();
		n = ksym_table__find(t, s.name, s.module ? s.module : "", hit, 64);
		if (n < 1)
			abort();
		for (j = 0; j < n && j < 64; j++)
			found |= hit[j].addr == s.addr && !strcmp(hit[j].name, s.name);
		if (!found && n <= 64)
			abort();
		if (!(s.flags & KSYM_F_UNRESOLVED)) {
			if (ksym_table__addr(t, s.addr, hit) || hit[0].addr != s.addr)
				abort();
		}
	}
	ksym_table__batch_end(t);
	ksym_table__free(t);
	return 0;
}
