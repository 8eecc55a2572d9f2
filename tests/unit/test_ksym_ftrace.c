// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ftrace's records read from kernel memory and named (kmem/ftrace.c): a chain
 * of record groups written here as the kernel lays them out, in a kcore-like
 * file (kmem_image.h), read back sorted; chains no kernel makes refused; each
 * record named as tracefs' list names it. The layouts from a kernel's BTF and
 * the whole list against tracefs' own are checked in the VM tests.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <ksym/ksym.h>
#include "ksym_internal.h"
#include "ksym_kmem.h"
#include "kmem_image.h"

#define IMG_LEN (64u << 10)
#define HEAD 0x100		/* ftrace_pages_start */
#define PAGE(i) (0x200 + 0x40 * (i))	/* struct ftrace_page i */
#define RECS(i) (0x1000 + 0x1000 * (i))	/* its records */

/* x86-64's layouts since 4.x: { next, records, index, order }, { ip, flags, arch } */
static const struct ksym_ftrace_layout lay = {
	.pg_next = 0, .pg_records = 8, .pg_index = 16, .rec_ip = 0, .pg_size = 24, .rec_size = 16,
};

static char path[] = "/tmp/ksym-ftrace-test.XXXXXX";
static int fd = -1;
static unsigned char img[IMG_LEN];

static void put64(size_t at, uint64_t v)
{
	memcpy(img + at, &v, 8);
}

/* group i: n records from ips, next group next (-1: none) */
static void group(int i, const uint64_t *ips, int32_t n, int next)
{
	int k;

	put64(PAGE(i), next < 0 ? 0 : KIMG_AT + PAGE(next));
	put64(PAGE(i) + 8, KIMG_AT + RECS(i));
	memcpy(img + PAGE(i) + 16, &n, 4);
	for (k = 0; k < n; k++) {
		put64(RECS(i) + 16 * k, ips[k]);
		put64(RECS(i) + 16 * k + 8, 0x1);	/* flags: a reference count */
	}
}

/* a fresh image: the head, and group 0 of one record at ip, its next as group() takes it */
static void one_group(uint64_t ip, int next)
{
	memset(img, 0, sizeof(img));
	put64(HEAD, KIMG_AT + PAGE(0));
	group(0, &ip, 1, next);
}

static int setup(void **state)
{
	(void)state;
	fd = mkstemp(path);
	return fd < 0;
}

static int teardown(void **state)
{
	(void)state;
	close(fd);
	unlink(path);
	return 0;
}

/* the image in the file, read back from head; the error, ips and n set on success */
static int read_back(uint64_t head, uint64_t **ips, size_t *n, const volatile sig_atomic_t *stop)
{
	struct ksym_kcore *kc;
	int err;

	assert_int_equal(kimg_write(fd, NULL, img, IMG_LEN), 0);
	kc = ksym_kcore__open(path);
	assert_non_null(kc);
	*ips = NULL;
	*n = 0;
	err = ksym_ftrace__read(kc, &lay, head, stop, ips, n);
	ksym_kcore__close(kc);
	return err;
}

/* Three groups, one empty (a module's freed init records), the vmlinux one last. */
static void test_read_chain(void **state)
{
	static const uint64_t a[] = { 0xffffffffc0001004, 0xffffffffc0001040 };
	static const uint64_t b[] = { 0xffffffff81000024, 0xffffffff81000060, 0xffffffff81000100 };
	uint64_t *ips;
	size_t n;

	(void)state;
	memset(img, 0, sizeof(img));
	put64(HEAD, KIMG_AT + PAGE(0));
	group(0, a, 2, 1);
	group(1, NULL, 0, 2);
	group(2, b, 3, -1);
	assert_int_equal(read_back(KIMG_AT + HEAD, &ips, &n, NULL), 0);
	assert_int_equal(n, 5);
	assert_true(ips[0] == b[0] && ips[1] == b[1] && ips[2] == b[2]);
	assert_true(ips[3] == a[0] && ips[4] == a[1]);
	free(ips);
}

/* No group at all: a kernel whose records are all freed has none to list. */
static void test_read_empty(void **state)
{
	uint64_t *ips;
	size_t n;

	(void)state;
	memset(img, 0, sizeof(img));
	assert_int_equal(read_back(KIMG_AT + HEAD, &ips, &n, NULL), 0);
	assert_int_equal(n, 0);
	free(ips);
}

/* A chain that comes back on itself ends at the bound: no kernel has that many. */
static void test_read_cycle(void **state)
{
	static const uint64_t a[] = { 0xffffffff81000024 };
	uint64_t *ips;
	size_t n;

	(void)state;
	one_group(a[0], 1);
	group(1, a, 1, 0);
	assert_int_equal(read_back(KIMG_AT + HEAD, &ips, &n, NULL), -EBADMSG);
	assert_null(ips);
}

static void test_read_bad_index(void **state)
{
	static const uint64_t a[] = { 0xffffffff81000024 };
	int32_t bad[] = { -1, (int32_t)(4u << 20) + 1 };
	uint64_t *ips;
	size_t n, i;

	(void)state;
	for (i = 0; i < 2; i++) {
		one_group(a[0], -1);
		memcpy(img + PAGE(0) + 16, &bad[i], 4);
		assert_int_equal(read_back(KIMG_AT + HEAD, &ips, &n, NULL), -EBADMSG);
	}
}

/* A group or its records where kcore maps nothing: freed under the read. */
static void test_read_gone(void **state)
{
	static const uint64_t a[] = { 0xffffffff81000024 };
	uint64_t *ips;
	size_t n;

	(void)state;
	one_group(a[0], 1);
	put64(PAGE(0), KIMG_AT + IMG_LEN + 0x1000);
	assert_int_equal(read_back(KIMG_AT + HEAD, &ips, &n, NULL), -ESTALE);
	group(0, a, 1, -1);
	put64(PAGE(0) + 8, KIMG_AT + IMG_LEN - 8);
	assert_int_equal(read_back(KIMG_AT + HEAD, &ips, &n, NULL), -ESTALE);
}

static void test_read_stopped(void **state)
{
	static volatile sig_atomic_t stop = 1;
	static const uint64_t a[] = { 0xffffffff81000024 };
	uint64_t *ips;
	size_t n;

	(void)state;
	one_group(a[0], -1);
	assert_int_equal(read_back(KIMG_AT + HEAD, &ips, &n, &stop), -EINTR);
}

static const char kallsyms[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81000010 t __pfx_vfs_read\n"
	"ffffffff81000020 T vfs_read\n"
	"ffffffff81000020 T vfs_read_alias\n"
	"ffffffff81000060 t small\n"
	"ffffffff81000070 t weak_left_over_before\n"
	"ffffffff810000c0 T vfs_write\n"
	"ffffffffc0001000 t mod_fn\t[mymod]\n";

/* ips named from kallsyms[] into a table of tracefs' list's kind */
static struct ksym_table *named(const uint64_t *ips, size_t n, unsigned int bound, int *err)
{
	struct ksym_parse_opts po = { .sz = sizeof(po), .index = true };
	char *text = strdup(kallsyms);	/* (the table takes it) */
	struct ksym_table *syms = ksym_table__parse(KSYM_FMT_KALLSYMS, text,
						    sizeof(kallsyms) - 1, NULL);
	struct ksym_feed *f = ksym_feed__new_fmt(KSYM_FMT_FUNCS_ADDRS, &po, 16, 4096);
	struct ksym_table *t;

	assert_non_null(syms);
	assert_non_null(f);
	*err = ksym_ftrace__name(syms, ips, n, bound, f);
	t = ksym_feed__end(f, *err);
	ksym_table__free(syms);
	return t;
}

/*
 * At a function, past its ENDBR (4 bytes), the first of two names at one
 * address, a module's; not below the first symbol, nor further into one
 * (a weak function's body that another replaced).
 */
static void test_name(void **state)
{
	static const uint64_t ips[] = {
		0xffffffff80fffff0,	/* below _stext: no name */
		0xffffffff81000024,	/* vfs_read past its ENDBR, named by the first alias */
		0xffffffff81000060,	/* small, at its start */
		0xffffffff810000a4,	/* 0x34 into weak_left_over_before: left out */
		0xffffffff810000c5,	/* 5 into vfs_write: left out */
		0xffffffff810000c4,	/* vfs_write */
		0xffffffffc0001004,	/* mod_fn [mymod] */
	};
	struct ksym_table *t;
	struct ksym s;
	int err;

	(void)state;
	t = named(ips, sizeof(ips) / sizeof(ips[0]), 4, &err);
	assert_int_equal(err, 0);
	assert_non_null(t);
	assert_int_equal(ksym_table__cnt(t), 4);
	assert_int_equal(ksym_table__at(t, 0, &s), 0);
	assert_true(s.addr == 0xffffffff81000024 && !strcmp(s.name, "vfs_read") && !s.module);
	assert_true(s.flags & KSYM_F_TRACEABLE);
	assert_int_equal(ksym_table__at(t, 1, &s), 0);
	assert_true(s.addr == 0xffffffff81000060 && !strcmp(s.name, "small"));
	assert_int_equal(ksym_table__at(t, 2, &s), 0);
	assert_true(s.addr == 0xffffffff810000c4 && !strcmp(s.name, "vfs_write"));
	assert_int_equal(ksym_table__at(t, 3, &s), 0);
	assert_true(s.addr == 0xffffffffc0001004 && !strcmp(s.name, "mod_fn") && s.module &&
		    !strcmp(s.module, "mymod"));
	/* found by name, as a table from tracefs' list is */
	assert_int_equal(ksym_table__find(t, "vfs_write", "", &s, 1), 1);
	assert_true(s.addr == 0xffffffff810000c4);
	assert_int_equal(ksym_table__find(t, "vfs_read_alias", "", &s, 1), 0);
	ksym_table__free(t);
}

/* A kernel without ENDBR64s names a record at a function's start only. */
static void test_name_no_endbr(void **state)
{
	static const uint64_t ips[] = { 0xffffffff81000024, 0xffffffff81000060,
					0xffffffff810000c0 };
	struct ksym_table *t;
	struct ksym s;
	int err;

	(void)state;
	t = named(ips, 3, 0, &err);
	assert_int_equal(err, 0);
	assert_non_null(t);
	assert_int_equal(ksym_table__cnt(t), 2);
	assert_int_equal(ksym_table__at(t, 0, &s), 0);
	assert_true(s.addr == 0xffffffff81000060 && !strcmp(s.name, "small"));
	assert_int_equal(ksym_table__at(t, 1, &s), 0);
	assert_true(s.addr == 0xffffffff810000c0 && !strcmp(s.name, "vfs_write"));
	ksym_table__free(t);
}

/* Records, and not one at a function: not this kernel's symbols. */
static void test_name_none(void **state)
{
	static const uint64_t ips[] = { 0xffffffff80000000, 0xffffffff81000090 };
	struct ksym_table *t;
	int err;

	(void)state;
	t = named(ips, 2, 4, &err);
	assert_int_equal(err, -EBADMSG);
	assert_null(t);
	/* none at all is an empty list, not an error */
	t = named(ips, 0, 4, &err);
	assert_int_equal(err, 0);
	assert_non_null(t);
	assert_int_equal(ksym_table__cnt(t), 0);
	ksym_table__free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_chain),
		cmocka_unit_test(test_read_empty),
		cmocka_unit_test(test_read_cycle),
		cmocka_unit_test(test_read_bad_index),
		cmocka_unit_test(test_read_gone),
		cmocka_unit_test(test_read_stopped),
		cmocka_unit_test(test_name),
		cmocka_unit_test(test_name_no_endbr),
		cmocka_unit_test(test_name_none),
	};

	return cmocka_run_group_tests_name("ksym-ftrace", tests, setup, teardown);
}
