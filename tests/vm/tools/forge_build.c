// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * forge_build DIR NAME DELTA: the running build's cache in DIR written again
 * with function NAME's offset moved by DELTA bytes, its checksums right: what a
 * wrong rebase (or a forged file) looks like to the next run, which must find
 * the function's ftrace site missing, never attach there.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ksym_internal.h"
#include "ksym_build.h"

int main(int argc, char **argv)
{
	uint64_t anchors[KSYM_ANCHOR_CNT];
	struct ksym_table *t, *u;
	struct ksym_layout l;
	size_t i, n, len = 0, unknown, cap;
	char *buf;
	int err, moved = 0;

	if (argc != 4) {
		fprintf(stderr, "usage: forge_build DIR NAME DELTA\n");
		return 2;
	}
	if (ksym_layout__live(&l, NULL)) {
		fprintf(stderr, "forge_build: cannot read this boot's layout\n");
		return 1;
	}
	t = ksym_build__load(argv[1], &l, anchors, &unknown, NULL, 0);
	if (!t) {
		perror("forge_build: loading the build cache");
		return 1;
	}
	n = ksym_table__cnt(t);
	cap = n * 128 + 1;
	buf = malloc(cap);
	for (i = 0; buf && i < n; i++) {
		struct ksym s;

		ksym_table__at(t, i, &s);
		if (s.flags & KSYM_F_UNRESOLVED)
			continue;
		if (!strcmp(s.name, argv[2])) {
			s.addr += strtoll(argv[3], NULL, 0);
			moved++;
		}
		len += snprintf(buf + len, cap - len, "%" PRIx64 " %s%s%s%s\n", s.addr, s.name,
				s.module ? " [" : "", s.module ? s.module : "", s.module ? "]" : "");
	}
	u = buf ? ksym_table__parse(KSYM_FMT_FUNCS_ADDRS, buf, len, NULL) : NULL;
	err = u ? ksym_build__store(argv[1], &l, u, anchors, "forged") : -1;
	printf("forge_build: %d entries of %s moved by %s: %s\n", moved, argv[2], argv[3],
	       err ? "not written" : "written");
	return err || !moved;
}
