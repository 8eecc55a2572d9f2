// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target for the BTF functions' index (lib/ksym/btf): the input is
 * a BTF object, read as vmlinux's and then as a module's split BTF over
 * itself. Whatever the bytes: no crash, no read past them, and every FUNC the
 * index holds is found by its name, at its id or an earlier one, with a
 * prototype verdict in range.
 */
#include <stdlib.h>
#include <string.h>

#include "../../lib/ksym/btf/ksym_bfuncs.h"

static void check(const struct ksym_bfuncs *f)
{
	size_t i, n = ksym_bfuncs__cnt(f);

	for (i = 0; i < n; i++) {
		uint32_t id, first;
		const char *name = ksym_bfuncs__at(f, i, &id);

		if (!ksym_bfuncs__find(f, name, &first) || first > id)
			abort();
		if (ksym_bfuncs__proto(f, id, false) >= KSYM_BPROTO_CNT)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ksym_bfuncs *base, *mod;
	void *a = malloc(size ? size : 1), *b;

	if (!a)
		return 0;
	memcpy(a, data, size);
	base = ksym_bfuncs__parse(a, size, NULL);
	if (!base)
		return 0;
	check(base);
	b = malloc(size ? size : 1);
	if (b) {
		memcpy(b, data, size);
		mod = ksym_bfuncs__parse(b, size, base);
		if (mod)
			check(mod);
		ksym_bfuncs__free(mod);
	}
	ksym_bfuncs__free(base);
	return 0;
}
