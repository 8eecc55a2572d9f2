// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The kernel's table read from its memory (ksym_kmem.c), on tables written
 * here as the kernel's build writes them (kmem_image.h) into a kcore-like
 * file: every text symbol decoded at its address, filtered as a text parse
 * filters, and anything else refused with the error the library documents.
 * The module walk needs the running kernel's struct module (its BTF): the VM
 * tests check it against /proc/kallsyms on real kernels.
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

#include <ksym/ksym.h>
#include "ksym_internal.h"
#include "kmem_image.h"

static char path[] = "/tmp/ksym-kmem-test.XXXXXX";
static int fd = -1;
static unsigned char *img;

static char long_name[300];

/* percpu symbols, vmlinux's text (one long name), data between */
static struct kimg_sym syms[] = {
	{ 0x0, 'A', "fixed_percpu_data" },
	{ 0x1000, 'A', "cpu_debug_store" },
	{ KIMG_STEXT, 'T', "_stext" },
	{ KIMG_STEXT + 0x10, 't', "vfs_helper" },
	{ KIMG_STEXT + 0x40, 'T', "vfs_read" },
	{ KIMG_STEXT + 0x80, 'T', "vfs_write" },
	{ KIMG_STEXT + 0xc0, 'W', "ksys_read" },
	{ KIMG_STEXT + 0x100, 't', "__x64_sys_read" },
	{ KIMG_STEXT + 0x140, 't', long_name },
	{ KIMG_STEXT + 0x180, 'T', "schedule" },
	{ KIMG_STEXT + 0x1c0, 'T', "_etext" },
	{ KIMG_STEXT + 0x200000, 'D', "vfs_data" },
	{ KIMG_AT + KIMG_MODULES, 'd', "modules" },
};

#define NSYMS (sizeof(syms) / sizeof(syms[0]))

static int setup(void **state)
{
	(void)state;
	memset(long_name, 'x', sizeof(long_name) - 1);
	memcpy(long_name, "long_", 5);
	fd = mkstemp(path);
	img = calloc(1, KIMG_MAX);
	return fd < 0 || !img;
}

static int teardown(void **state)
{
	(void)state;
	close(fd);
	unlink(path);
	free(img);
	return 0;
}

/*
 * The tables of syms in the file; info: VMCOREINFO (NULL: none). Relative
 * offsets count from _stext: the per-CPU symbols are left out then.
 */
static void make(size_t n, bool abs_percpu, const char *info)
{
	size_t len, first = abs_percpu ? 0 : 2;

	memset(img, 0, KIMG_MAX);
	len = kimg_build(img, syms + first, n - first, abs_percpu, KIMG_STEXT);
	assert_int_equal(kimg_write(fd, info, img, len), 0);
}

static struct ksym_table *load(const struct ksym_parse_opts *opts, int *err)
{
	struct ksym_kcore *kc = ksym_kcore__open(path);
	struct ksym_table *t;

	assert_non_null(kc);
	t = ksym_kmem__load(kc, opts);
	*err = t ? 0 : errno;
	ksym_kcore__close(kc);
	return t;
}

static void default_info(char *buf, size_t len)
{
	kimg_info(buf, len, KIMG_STEXT);
}

static void expect_text(const struct ksym_table *t, const char *const *names, size_t n)
{
	size_t i, j, k = 0;
	struct ksym s;

	assert_int_equal(ksym_table__cnt(t), n);
	for (i = 0; i < NSYMS; i++) {
		for (j = 0; j < n && strcmp(names[j], syms[i].name); j++)
			;
		if (j == n)
			continue;
		ksym_table__at(t, k++, &s);
		assert_string_equal(s.name, syms[i].name);
		assert_int_equal(s.addr, syms[i].addr);
		assert_int_equal(s.type, syms[i].type);
		assert_null(s.module);
	}
	assert_int_equal(k, n);
}

static const char *const all_text[] = { "_stext", "vfs_helper", "vfs_read", "vfs_write",
					"ksys_read", "__x64_sys_read", long_name, "schedule",
					"_etext" };

/* The file as made, loaded with o: the text symbols names[] and no others. */
static void loads(const struct ksym_parse_opts *o, const char *const *names, size_t n)
{
	struct ksym_table *t;
	int err;

	t = load(o, &err);
	assert_non_null(t);
	expect_text(t, names, n);
	ksym_table__free(t);
}

static void whole(bool abs_percpu)
{
	struct ksym_parse_opts o = { .sz = sizeof(o), .text_only = true };
	char info[1024];

	default_info(info, sizeof(info));
	make(NSYMS, abs_percpu, info);
	loads(&o, all_text, sizeof(all_text) / sizeof(all_text[0]));
}

/* With CONFIG_KALLSYMS_ABSOLUTE_PERCPU (x86-64 up to 6.14), and without. */
static void test_whole_abs_percpu(void **state)
{
	(void)state;
	whole(true);
}

static void test_whole_relative(void **state)
{
	(void)state;
	whole(false);
}

/* Prefixes and names, as the text parse filters; a one-byte prefix. */
static void test_filtered(void **state)
{
	static const char *const prefixes[] = { "vfs_", "_" };
	static const char *const names[] = { "schedule", "9pnet:p9_client_read" };
	static const char *const want[] = { "_stext", "vfs_helper", "vfs_read", "vfs_write",
					    "__x64_sys_read", "schedule", "_etext" };
	struct ksym_parse_opts o = { .sz = sizeof(o), .text_only = true, .prefixes = prefixes,
				     .prefix_cnt = 2, .names = names, .name_cnt = 2 };
	char info[1024];

	(void)state;
	default_info(info, sizeof(info));
	make(NSYMS, true, info);
	loads(&o, want, sizeof(want) / sizeof(want[0]));
	/* a prefix decided by the first token alone, and one a token starts inside */
	o.prefixes = (const char *const[]){ "vfs_w", "sched" };
	o.names = NULL;
	o.name_cnt = 0;
	loads(&o, (const char *const[]){ "vfs_write", "schedule" }, 2);
}

/* The image's first len bytes in the file: the load must fail; its errno. */
static int refused(const char *info, size_t len)
{
	struct ksym_parse_opts o = { .sz = sizeof(o), .text_only = true };
	int err;

	assert_int_equal(kimg_write(fd, info, img, len), 0);
	assert_null(load(&o, &err));
	return err;
}

static void expect_error(const char *info, size_t n, int want)
{
	struct ksym_parse_opts o = { .sz = sizeof(o), .text_only = true };
	int err;

	make(n, true, info);
	assert_null(load(&o, &err));
	assert_int_equal(err, want);
}

/* No note, or one without the table (a kernel before 6.0): not supported. */
static void test_no_table(void **state)
{
	(void)state;
	expect_error(NULL, NSYMS, EOPNOTSUPP);
	expect_error("OSRELEASE=5.15.0\nSYMBOL(_stext)=ffffffff81000000\n", NSYMS, EOPNOTSUPP);
}

/* _stext elsewhere than VMCOREINFO says: not this kernel's tables. */
static void test_stext_elsewhere(void **state)
{
	char info[1024];
	size_t len;

	(void)state;
	kimg_info(info, sizeof(info), KIMG_STEXT + 0x1000);
	expect_error(info, NSYMS, EBADMSG);
	/* a table without _stext at all */
	kimg_info(info, sizeof(info), KIMG_STEXT);
	memset(img, 0, KIMG_MAX);
	len = kimg_build(img, (struct kimg_sym[]){ { KIMG_STEXT + 0x10, 'T', "vfs_read" } }, 1,
			 true, KIMG_STEXT);
	assert_int_equal(refused(info, len), EBADMSG);
}

/* The names cut short by the end of memory; a count past the offsets' table. */
static void test_truncated(void **state)
{
	char info[1024];
	size_t len;
	uint32_t n;
	int err;

	(void)state;
	default_info(info, sizeof(info));
	memset(img, 0, KIMG_MAX);
	len = kimg_build(img, syms, NSYMS, true, KIMG_STEXT);
	err = refused(info, len - 5);
	assert_true(err == EFAULT || err == EBADMSG);
	n = 1u << 30;
	memcpy(img + KIMG_NUM, &n, 4);
	assert_int_equal(refused(info, len), EBADMSG);
	n = 100000;	/* under the bound, past the image */
	memcpy(img + KIMG_NUM, &n, 4);
	assert_int_equal(refused(info, len), EFAULT);
}

/* A token that is no string; a name of no tokens. */
static void test_bad_tokens(void **state)
{
	char info[1024];
	uint16_t index[256];
	size_t len;

	(void)state;
	default_info(info, sizeof(info));
	memset(img, 0, KIMG_MAX);
	len = kimg_build(img, syms, NSYMS, true, KIMG_STEXT);
	memcpy(index, img + KIMG_TOKEN_INDEX, sizeof(index));
	index[7] = 0x1eff;	/* the table's last byte: an empty token */
	memcpy(img + KIMG_TOKEN_INDEX, index, sizeof(index));
	assert_int_equal(refused(info, len), EBADMSG);
	memset(img, 0, KIMG_MAX);
	len = kimg_build(img, syms, NSYMS, true, KIMG_STEXT);
	img[KIMG_NAMES] = 0;
	assert_int_equal(refused(info, len), EBADMSG);
}

/* Good tables, loaded with o: refused with want. */
static void good_refused(const struct ksym_parse_opts *o, int want)
{
	char info[1024];
	int err;

	default_info(info, sizeof(info));
	make(NSYMS, true, info);
	assert_null(load(o, &err));
	assert_int_equal(err, want);
}

/* Text only: the modules' other symbols are not read, so no whole table. */
static void test_text_only(void **state)
{
	(void)state;
	good_refused(&(struct ksym_parse_opts){ .sz = sizeof(struct ksym_parse_opts) }, EINVAL);
}

/* A stop asked for: EINTR, nothing returned. */
static void test_stopped(void **state)
{
	static volatile sig_atomic_t stop = 1;

	(void)state;
	good_refused(&(struct ksym_parse_opts){ .sz = sizeof(struct ksym_parse_opts),
						.text_only = true, .stop = &stop }, EINTR);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_whole_abs_percpu),
		cmocka_unit_test(test_whole_relative),
		cmocka_unit_test(test_filtered),
		cmocka_unit_test(test_no_table),
		cmocka_unit_test(test_stext_elsewhere),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_bad_tokens),
		cmocka_unit_test(test_text_only),
		cmocka_unit_test(test_stopped),
	};

	return cmocka_run_group_tests_name("ksym-kmem", tests, setup, teardown);
}
