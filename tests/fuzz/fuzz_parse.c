// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target for one parser (FUZZ_FMT picks the format). Beyond not
 * crashing: every symbol parsed must be found again by name and by address.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ksym.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ksym_parse_opts po = { .sz = sizeof(po), .index = true };
	struct ksym_table *t;
	struct ksym s, hit[64];
	char *buf;
	size_t i;

	buf = malloc(size + 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	t = ksym_table__parse(FUZZ_FMT, buf, size, &po);
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
