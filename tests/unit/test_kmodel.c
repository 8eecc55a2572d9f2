// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Every lookup variant of the kernel model against a plain reference, on real
 * tables: every sampled name found with exactly the positions that carry it
 * (duplicates included), misses missed, addresses named right.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "kmodel.h"

static const unsigned int variants[] = {
	0,
	KMODEL_ONTHEFLY,
	KMODEL_ONTHEFLY | KMODEL_UNROLLED,
	KMODEL_BATCH,
	KMODEL_NEARMARK,
	KMODEL_TOPTREE,
	KMODEL_NEARMARK | KMODEL_TOPTREE | KMODEL_ONTHEFLY | KMODEL_UNROLLED,
	KMODEL_DUPBIT,
	KMODEL_DUPBIT | KMODEL_NEARMARK | KMODEL_TOPTREE | KMODEL_ONTHEFLY,
	KMODEL_SUBMARK | KMODEL_ONTHEFLY,
	KMODEL_SUBMARK | KMODEL_NEARMARK | KMODEL_PREFETCH,
	KMODEL_KEYTREE,
	KMODEL_KEYTREE | KMODEL_TOPTREE | KMODEL_SUBMARK | KMODEL_PREFETCH | KMODEL_ONTHEFLY,
	KMODEL_KEYTREE | KMODEL_DUPBIT | KMODEL_NEARMARK | KMODEL_BATCH | KMODEL_PREFETCH,
	KMODEL_PREFETCH | KMODEL_UNROLLED,
};

/* Every name of the table through the key tree: its nodes are hit by name too. */
static void check_every_name(struct kmodel *m, unsigned int flags)
{
	char name[512], miss[540];
	size_t i, first, last, n = kmodel__cnt(m);
	uint64_t addr, skipped = 0;

	for (i = 0; i < n; i++) {
		assert_int_equal(kmodel__at(m, i, &addr, name, sizeof(name)), 0);
		assert_int_equal(kmodel__lookup_name(m, name, flags, &first, &last, &skipped), 0);
		assert_true(first <= last);
		snprintf(miss, sizeof(miss), "%s\x7f", name);
		assert_int_equal(kmodel__lookup_name(m, miss, flags, &first, &last, &skipped),
				 -ESRCH);
	}
}

/*
 * every: on the first layout, every symbol of the table rather than every
 * 97th (the other layouts and the larger tables stay sampled, for time).
 */
static void check_file(const char *path, bool every)
{
	/* u32 markers every 2^shift, u16 sub-markers every 2^sub (8: none) */
	static const struct {
		unsigned int shift, sub;
	} layouts[] = { { 8, 8 }, { 8, 5 }, { 8, 0 }, { 4, 8 }, { 0, 8 } };
	struct ksym_table *t;
	struct kmodel *m;
	size_t n, i, v, k, checked = 0;
	char name[512], miss[540], text[600];
	uint64_t addr, skipped = 0;

	if (access(path, R_OK)) {
		print_message("# %s: not readable here\n", path);
		skip();
	}
	t = ksym_table__load(KSYM_FMT_KALLSYMS, path, NULL);
	if (!t && errno == EPERM)
		skip();
	assert_non_null(t);
	m = kmodel__build(t, NULL);
	assert_non_null(m);
	n = kmodel__cnt(m);
	assert_true(n > 1000);
	assert_int_equal(ksym_table__batch_begin(t), 0);
	assert_int_equal(kmodel__batch_begin(m), 0);
	assert_int_equal(kmodel__set_markers(m, 4), 0);
	assert_int_equal(kmodel__set_submarkers(m, 5), -EINVAL);
	for (k = 0; k < sizeof(layouts) / sizeof(layouts[0]); k++) {
		assert_int_equal(kmodel__set_markers(m, layouts[k].shift), 0);
		/* sub-markers sit between 256:1 markers only */
		assert_int_equal(kmodel__set_submarkers(m, layouts[k].sub), 0);
		assert_int_equal(kmodel__set_layout(m, 16, 10, 10), 0);
		if (k == 1)
			check_every_name(m, KMODEL_KEYTREE | KMODEL_SUBMARK | KMODEL_DUPBIT |
						    KMODEL_ONTHEFLY);
		for (i = k; i < n; i += every && !k ? 1 : 97) {
			struct ksym ref[64];
			int nref;

			assert_int_equal(kmodel__at(m, i, &addr, name, sizeof(name)), 0);
			/* the reference: vmlinux symbols of that name in the source table */
			nref = ksym_table__find(t, name, "", ref, 64);
			assert_true(nref >= 1);
			snprintf(miss, sizeof(miss), "%s.kmodel_miss", name);
			for (v = 0; v < sizeof(variants) / sizeof(variants[0]); v++) {
				size_t first, last, j;
				bool here = false;

				assert_int_equal(kmodel__lookup_name(m, name, variants[v], &first, &last,
								     &skipped), 0);
				assert_int_equal(last - first + 1, nref);
				for (j = first; j <= last; j++) {
					char other[512];
					uint64_t oa;

					assert_int_equal(kmodel__at(m, kmodel__name_pos(m, j), &oa, other,
								    sizeof(other)), 0);
					assert_string_equal(other, name);
					here |= kmodel__name_pos(m, j) == i;
				}
				assert_true(here);
				assert_int_equal(kmodel__lookup_name(m, miss, variants[v], &first, &last,
								     &skipped), -ESRCH);
				/* address: the symbol itself or an alias at the same address */
				assert_int_equal(kmodel__lookup_addr(m, addr, variants[v], text,
								     sizeof(text), &skipped), 0);
				assert_non_null(strstr(text, "+0x0/"));
			}
			checked++;
		}
	}
	kmodel__batch_end(m);
	ksym_table__batch_end(t);
	print_message("# %s: %zu symbols, %zu names checked x %zu variants (%s on the first of %zu "
		      "layouts)\n", path, n, checked, sizeof(variants) / sizeof(variants[0]),
		      every ? "every symbol" : "every 97th", k);
	kmodel__free(m);
	ksym_table__free(t);
}

static const char *data(const char *series)
{
	static char buf[2][512];
	static int slot;
	const char *dir = getenv("KSYM_DATA");

	slot ^= 1;
	snprintf(buf[slot], sizeof(buf[slot]), "%s/%s/kallsyms", dir ? dir : "build/data",
		 series);
	return buf[slot];
}

static void test_612(void **s)
{
	(void)s;
	check_file(data("6.12"), false);
}

/* the sanitized build looks for memory errors: the sampled pass reaches the same code */
#ifdef __SANITIZE_ADDRESS__
#define EVERY_SYMBOL false
#else
#define EVERY_SYMBOL true
#endif

static void test_61(void **s)
{
	(void)s;
	check_file(data("6.1"), EVERY_SYMBOL);
}

static void test_live(void **s)
{
	(void)s;
	check_file("/proc/kallsyms", false);
}

/* The token table expands back to every name: the compression loses nothing. */
static void test_roundtrip(void **s)
{
	struct ksym_table *t = ksym_table__load(KSYM_FMT_KALLSYMS, data("6.12"), NULL);
	struct kmodel *m;
	struct ksym sym;
	char name[512];
	uint64_t addr;
	size_t i, pos = 0;

	(void)s;
	assert_non_null(t);
	m = kmodel__build(t, NULL);
	assert_non_null(m);
	/* vmlinux symbols in address order, as the source lists them */
	for (i = 0; i < ksym_table__cnt(t); i++) {
		ksym_table__at(t, i, &sym);
		if (sym.module)
			continue;
		assert_int_equal(kmodel__at(m, pos, &addr, name, sizeof(name)), 0);
		assert_int_equal(addr, sym.addr);
		pos++;
	}
	assert_int_equal(pos, kmodel__cnt(m));
	kmodel__free(m);
	ksym_table__free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_612),
		cmocka_unit_test(test_61),
		cmocka_unit_test(test_live),
	};

	return cmocka_run_group_tests_name("kmodel", tests, NULL, NULL);
}
