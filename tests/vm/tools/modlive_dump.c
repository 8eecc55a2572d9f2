// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * modlive_dump [MODULE]...: each loaded module's text symbols (or the named
 * modules'), read from the kernel's own tables through /proc/kcore
 * (ksym_modlive__read), printed as /proc/kallsyms prints them, for the VM
 * tests to compare symbol for symbol. Exit 1 with the reason where a module
 * cannot be read.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ksym_internal.h"
#include "ksym_kmem.h"

static int dump(struct ksym_kcore *kc, const struct ksym_mod_btf *b, const char *mod)
{
	struct ksym_parse_opts o = { .text_only = true };
	struct ksym_feed *f = ksym_feed__new(&o, 1024, 64 << 10);
	struct ksym_table *t;
	struct ksym s;
	size_t i;
	int err;

	if (!f)
		return -errno;
	err = ksym_modlive__read(kc, b, mod, f);
	t = ksym_feed__end(f, err);
	if (!t)
		return -errno;
	for (i = 0; i < ksym_table__cnt(t); i++) {
		ksym_table__at(t, i, &s);
		printf("%016" PRIx64 " %c %s\t[%s]\n", s.addr, s.type, s.name, s.module);
	}
	ksym_table__free(t);
	return 0;
}

int main(int argc, char **argv)
{
	struct ksym_kcore *kc = ksym_kcore__open(NULL);
	struct ksym_mod_btf b;
	char line[512], mod[64];
	int err, i, bad = 0;
	FILE *m;

	if (!kc) {
		perror("modlive_dump: /proc/kcore");
		return 1;
	}
	err = ksym_modlive__btf(&b);
	if (err) {
		fprintf(stderr, "modlive_dump: struct module from BTF: %s\n", strerror(-err));
		return 1;
	}
	for (i = 1; i < argc; i++)
		if ((err = dump(kc, &b, argv[i]))) {
			fprintf(stderr, "modlive_dump: %s: %s\n", argv[i], strerror(-err));
			bad = 1;
		}
	if (argc > 1)
		return bad;
	m = fopen("/proc/modules", "r");
	while (m && fgets(line, sizeof(line), m))
		if (sscanf(line, "%63s", mod) == 1 && (err = dump(kc, &b, mod))) {
			fprintf(stderr, "modlive_dump: %s: %s\n", mod, strerror(-err));
			bad = 1;
		}
	if (m)
		fclose(m);
	return bad || !m;
}
