// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The kernel's table read from its memory (kmem/kallsyms.c), on tables written
 * here as the kernel's build writes them (kmem_image.h) into a kcore-like
 * file: every text symbol decoded at its address whichever form of address
 * the kernel wrote, filtered as a text parse filters, and anything else
 * refused with the error the library documents. The module walk needs the
 * running kernel's struct module (its BTF): the VM tests check it against
 * /proc/kallsyms on real kernels.
 */
#include <errno.h>
#include <inttypes.h>
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
#include "ksym_kmem.h"
#include "kmem_image.h"

#define TEXT (KIMG_STEXT - 0x1000)	/* _text: the head code before _stext; the relative base */
#define PERCPU 2			/* syms[]' per-CPU symbols, first */

static char path[] = "/tmp/ksym-kmem-test.XXXXXX";
static int fd = -1;
static unsigned char *img;

static char long_name[300];

/* percpu symbols, vmlinux's head code and text (one long name), data between */
static struct kimg_sym syms[] = {
	{ 0x0, 'A', "fixed_percpu_data" },
	{ 0x1000, 'A', "cpu_debug_store" },
	{ TEXT, 'T', "_text" },
	{ TEXT + 0x40, 'T', "startup_64" },
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
	{ KIMG_STEXT + 0x200040, 'b', "ftrace_pages_start" },
	{ KIMG_STEXT + 0x200080, 'd', "twice" },
	{ KIMG_STEXT + 0x2000c0, 'd', "twice" },
	{ KIMG_AT + KIMG_MODULES, 'd', "modules" },
};

#define NSYMS (sizeof(syms) / sizeof(syms[0]))

static const enum kimg_enc encs[] = { KIMG_BASE_RELATIVE, KIMG_ABS_PERCPU, KIMG_PLACE_RELATIVE,
				      KIMG_ABSOLUTE };

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

/* The per-CPU symbols have an address of their own only as themselves or absolute. */
static size_t first_of(enum kimg_enc enc)
{
	return enc == KIMG_ABS_PERCPU || enc == KIMG_ABSOLUTE ? 0 : PERCPU;
}

/* syms[] up to n in enc, into img (zeroed first); the image's length. */
static size_t build(size_t n, enum kimg_enc enc)
{
	size_t len, first = first_of(enc);

	memset(img, 0, KIMG_MAX);
	len = kimg_build(img, syms + first, n - first, enc, TEXT);
	assert_int_not_equal(len, 0);
	return len;
}

/* The tables of syms in the file in enc; info: VMCOREINFO (NULL: none). */
static void make(size_t n, enum kimg_enc enc, const char *info)
{
	size_t len = build(n, enc);

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

static void default_info(char *buf, size_t len, enum kimg_enc enc)
{
	kimg_info(buf, len, KIMG_STEXT, enc);
}

/* info (of size len) with SYMBOL(sym) at addr instead (0: without it). */
static void info_set(char *info, size_t len, const char *sym, uint64_t addr)
{
	char key[64], *p, *end;
	size_t used;

	snprintf(key, sizeof(key), "SYMBOL(%s)=", sym);
	p = strstr(info, key);
	if (p) {
		end = strchr(p, '\n');
		assert_non_null(end);
		memmove(p, end + 1, strlen(end + 1) + 1);
	}
	used = strlen(info);
	if (addr)
		assert_true((size_t)snprintf(info + used, len - used, "%s%" PRIx64 "\n", key,
					     addr) < len - used);
}

/* t's symbols: the text ones of s[0, cnt) named in names[] (NULL: all), in order. */
static void expect_syms(const struct ksym_table *t, const struct kimg_sym *s, size_t cnt,
			const char *const *names, size_t n)
{
	size_t i, j, k = 0;
	struct ksym got;

	for (i = 0; i < cnt; i++) {
		if (!ksym_type_is_text(s[i].type))
			continue;
		for (j = 0; names && j < n && strcmp(names[j], s[i].name); j++)
			;
		if (names && j == n)
			continue;
		assert_true(k < ksym_table__cnt(t));
		ksym_table__at(t, k++, &got);
		assert_string_equal(got.name, s[i].name);
		assert_int_equal(got.addr, s[i].addr);
		assert_int_equal(got.type, s[i].type);
		assert_null(got.module);
	}
	assert_int_equal(ksym_table__cnt(t), k);
	assert_int_equal(k, names ? n : k);
}

static const char *const all_text[] = { "_text", "startup_64", "_stext", "vfs_helper",
					"vfs_read", "vfs_write", "ksys_read", "__x64_sys_read",
					long_name, "schedule", "_etext" };

/* The file as made, loaded with o: the text symbols names[] and no others. */
static void loads(const struct ksym_parse_opts *o, const char *const *names, size_t n)
{
	struct ksym_table *t;
	int err;

	t = load(o, &err);
	assert_non_null(t);
	expect_syms(t, syms, NSYMS, names, n);
	ksym_table__free(t);
}

/*
 * Every text symbol at its address: the head code below _stext, the text
 * above; and with memory mapped past the names, as in a kernel (the reader's
 * first window whole, not only the bytes it needs).
 */
static void whole(enum kimg_enc enc)
{
	struct ksym_parse_opts o = { .sz = sizeof(o), .text_only = true };
	char info[1024];

	default_info(info, sizeof(info), enc);
	make(NSYMS, enc, info);
	loads(&o, all_text, sizeof(all_text) / sizeof(all_text[0]));
	assert_int_equal(kimg_write(fd, info, img, KIMG_MAX), 0);
	loads(&o, all_text, sizeof(all_text) / sizeof(all_text[0]));
}

/*
 * Each form a kernel has written, as the test's state: absolute per-CPU
 * (x86-64 before 6.15), relative_base + offset (6.15 to 6.19, other
 * architectures from 4.6), each offset from its own slot without
 * kallsyms_relative_base in VMCOREINFO (7.0 on), kallsyms_addresses[] (no
 * CONFIG_KALLSYMS_BASE_RELATIVE, before 6.11).
 */
static enum kimg_enc forms[] = { KIMG_ABS_PERCPU, KIMG_BASE_RELATIVE, KIMG_PLACE_RELATIVE,
				 KIMG_ABSOLUTE };

static void test_whole(void **state)
{
	whole(*(enum kimg_enc *)*state);
}

/* Prefixes and names, as the text parse filters; a one-byte prefix; in each form. */
static void test_filtered(void **state)
{
	static const char *const prefixes[] = { "vfs_", "_" };
	static const char *const names[] = { "schedule", "9pnet:p9_client_read" };
	static const char *const want[] = { "_text", "_stext", "vfs_helper", "vfs_read",
					    "vfs_write", "__x64_sys_read", "schedule", "_etext" };
	char info[1024];
	size_t e;

	(void)state;
	for (e = 0; e < sizeof(encs) / sizeof(encs[0]); e++) {
		struct ksym_parse_opts o = { .sz = sizeof(o), .text_only = true,
					     .prefixes = prefixes, .prefix_cnt = 2,
					     .names = names, .name_cnt = 2 };

		default_info(info, sizeof(info), encs[e]);
		make(NSYMS, encs[e], info);
		loads(&o, want, sizeof(want) / sizeof(want[0]));
		/* a prefix decided by the first token alone, and one a token starts inside */
		o.prefixes = (const char *const[]){ "vfs_w", "sched" };
		o.names = NULL;
		o.name_cnt = 0;
		loads(&o, (const char *const[]){ "vfs_write", "schedule" }, 2);
	}
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

static void expect_error(const char *info, size_t n, enum kimg_enc enc, int want)
{
	struct ksym_parse_opts o = { .sz = sizeof(o), .text_only = true };
	int err;

	make(n, enc, info);
	assert_null(load(&o, &err));
	assert_int_equal(err, want);
}

/*
 * No note, or one without the table (a kernel before 6.0), or naming neither
 * kallsyms_offsets nor kallsyms_addresses: not supported.
 */
static void test_no_table(void **state)
{
	char info[1024];

	(void)state;
	expect_error(NULL, NSYMS, KIMG_ABS_PERCPU, EOPNOTSUPP);
	expect_error("OSRELEASE=5.15.0\nSYMBOL(_stext)=ffffffff81000000\n", NSYMS,
		     KIMG_ABS_PERCPU, EOPNOTSUPP);
	default_info(info, sizeof(info), KIMG_BASE_RELATIVE);
	info_set(info, sizeof(info), "kallsyms_offsets", 0);
	expect_error(info, NSYMS, KIMG_BASE_RELATIVE, EOPNOTSUPP);
	default_info(info, sizeof(info), KIMG_ABSOLUTE);
	info_set(info, sizeof(info), "kallsyms_addresses", 0);
	expect_error(info, NSYMS, KIMG_ABSOLUTE, EOPNOTSUPP);
}

/* _stext elsewhere than VMCOREINFO says, in every form: none reproduces it. */
static void test_stext_elsewhere(void **state)
{
	char info[1024];
	size_t e, len;

	(void)state;
	for (e = 0; e < sizeof(encs) / sizeof(encs[0]); e++) {
		kimg_info(info, sizeof(info), KIMG_STEXT + 0x1000, encs[e]);
		expect_error(info, NSYMS, encs[e], EPROTO);
	}
	/* a table without _stext at all */
	default_info(info, sizeof(info), KIMG_ABS_PERCPU);
	memset(img, 0, KIMG_MAX);
	len = kimg_build(img, (struct kimg_sym[]){ { KIMG_STEXT + 0x10, 'T', "vfs_read" } }, 1,
			 KIMG_ABS_PERCPU, TEXT);
	assert_int_equal(refused(info, len), EBADMSG);
}

/*
 * Tables in one form, VMCOREINFO naming another's: only the forms its tables
 * can have are tried, and none of them fits.
 */
static void test_form_not_named(void **state)
{
	char info[1024];

	(void)state;
	/* offsets from relative_base with it gone from VMCOREINFO: place-relative alone */
	default_info(info, sizeof(info), KIMG_BASE_RELATIVE);
	info_set(info, sizeof(info), "kallsyms_relative_base", 0);
	expect_error(info, NSYMS, KIMG_BASE_RELATIVE, EPROTO);
	expect_error(info, NSYMS, KIMG_ABS_PERCPU, EPROTO);
	/* place-relative offsets read as addresses, addresses read as offsets */
	default_info(info, sizeof(info), KIMG_ABSOLUTE);
	expect_error(info, NSYMS, KIMG_PLACE_RELATIVE, EPROTO);
	default_info(info, sizeof(info), KIMG_PLACE_RELATIVE);
	expect_error(info, NSYMS, KIMG_ABSOLUTE, EPROTO);
	default_info(info, sizeof(info), KIMG_BASE_RELATIVE);
	expect_error(info, NSYMS, KIMG_ABSOLUTE, EPROTO);
}

/*
 * Place-relative offsets with VMCOREINFO still naming a relative base: every
 * form is tried, the one that fits used; a base that makes base-relative fit
 * too leaves two: refused, not guessed.
 */
static void test_two_forms_fit(void **state)
{
	uint64_t slot = KIMG_AT + KIMG_OFFSETS + 4 * 2, base;	/* _stext's, the third */
	char info[1024];
	size_t len;

	(void)state;
	assert_string_equal(syms[PERCPU + 2].name, "_stext");
	default_info(info, sizeof(info), KIMG_BASE_RELATIVE);
	len = build(NSYMS, KIMG_PLACE_RELATIVE);
	assert_int_equal(kimg_write(fd, info, img, len), 0);
	loads(&(struct ksym_parse_opts){ .sz = sizeof(struct ksym_parse_opts), .text_only = true },
	      all_text, sizeof(all_text) / sizeof(all_text[0]));
	/* _stext's offset is negative (its slot is above it): base + (u32)off wraps */
	base = slot - (1ull << 32);
	memcpy(img + KIMG_RELBASE, &base, 8);
	assert_int_equal(refused(info, len), EPROTO);
}

/*
 * _stext further into the names than the reader's first window (64 KiB):
 * the names are read again from their start.
 */
static void test_stext_far(void **state)
{
	static char names[260][300];
	struct kimg_sym far[260 + NSYMS];
	struct ksym_parse_opts o = { .sz = sizeof(o), .text_only = true };
	enum kimg_enc two[] = { KIMG_BASE_RELATIVE, KIMG_PLACE_RELATIVE };
	struct ksym_table *t;
	char info[1024];
	size_t i, n = 0, len, e;
	int err;

	(void)state;
	far[n++] = syms[PERCPU];
	for (i = 0; i < 260; i++) {
		memset(names[i], 'y', sizeof(names[i]) - 1);
		snprintf(names[i], 16, "head_%03zu", i);
		names[i][8] = 'y';
		far[n++] = (struct kimg_sym){ TEXT + 8 * (i + 1), 't', names[i] };
	}
	for (i = PERCPU + 2; i < NSYMS; i++)
		far[n++] = syms[i];
	for (e = 0; e < 2; e++) {
		default_info(info, sizeof(info), two[e]);
		memset(img, 0, KIMG_MAX);
		len = kimg_build(img, far, n, two[e], TEXT);
		assert_true(len > KIMG_NAMES + (64u << 10));
		assert_int_equal(kimg_write(fd, info, img, len), 0);
		t = load(&o, &err);
		assert_non_null(t);
		expect_syms(t, far, n, NULL, 0);
		ksym_table__free(t);
	}
}

/* The names cut short by the end of memory; a count past the offsets' table. */
static void test_truncated(void **state)
{
	char info[1024];
	size_t len;
	uint32_t n;
	int err;

	(void)state;
	default_info(info, sizeof(info), KIMG_ABS_PERCPU);
	len = build(NSYMS, KIMG_ABS_PERCPU);
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
	default_info(info, sizeof(info), KIMG_ABS_PERCPU);
	len = build(NSYMS, KIMG_ABS_PERCPU);
	memcpy(index, img + KIMG_TOKEN_INDEX, sizeof(index));
	index[7] = 0x1eff;	/* a zero byte past the tokens: an empty token */
	memcpy(img + KIMG_TOKEN_INDEX, index, sizeof(index));
	assert_int_equal(refused(info, len), EBADMSG);
	len = build(NSYMS, KIMG_ABS_PERCPU);
	img[KIMG_NAMES] = 0;
	assert_int_equal(refused(info, len), EBADMSG);
}

/*
 * The token table ends with the token furthest into it, not index 255's, and
 * no further: here the tokens in reverse order, where the memory mapped ends.
 */
static void test_tokens_at_end(void **state)
{
	struct ksym_parse_opts o = { .sz = sizeof(o), .text_only = true };
	uint16_t index[256];
	char info[1024], one[2];
	size_t len, at;
	int i;

	(void)state;
	default_info(info, sizeof(info), KIMG_PLACE_RELATIVE);
	len = build(NSYMS, KIMG_PLACE_RELATIVE);
	at = len;
	for (i = 255; i >= 0; i--) {
		const char *tok = kimg_token(i, one);

		index[i] = at - len;
		memcpy(img + at, tok, strlen(tok) + 1);
		at += strlen(tok) + 1;
	}
	memset(img + KIMG_TOKEN_TABLE, 0, KIMG_TOKEN_INDEX - KIMG_TOKEN_TABLE);
	memcpy(img + KIMG_TOKEN_INDEX, index, sizeof(index));
	info_set(info, sizeof(info), "kallsyms_token_table", KIMG_AT + len);
	assert_int_equal(kimg_write(fd, info, img, at), 0);
	loads(&o, all_text, sizeof(all_text) / sizeof(all_text[0]));
	/* its NUL not mapped: that token is cut short */
	assert_int_equal(refused(info, at - 1), EFAULT);
}

/* Good tables, loaded with o: refused with want. */
static void good_refused(const struct ksym_parse_opts *o, int want)
{
	char info[1024];
	int err;

	default_info(info, sizeof(info), KIMG_ABS_PERCPU);
	make(NSYMS, KIMG_ABS_PERCPU, info);
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

/* Variables looked up in the same walk: found, absent, named twice, or no name. */
static void test_vars(void **state)
{
	struct ksym_kmem_var v[] = { { "ftrace_pages_start" }, { "ftrace_absent" }, { "twice" },
				     { "vfs_read" } };
	struct ksym_parse_opts po = { .sz = sizeof(po), .text_only = true };
	struct ksym_kcore *kc;
	struct ksym_table *t;
	char info[1024];
	struct ksym s;

	(void)state;
	default_info(info, sizeof(info), KIMG_BASE_RELATIVE);
	make(NSYMS, KIMG_BASE_RELATIVE, info);
	kc = ksym_kcore__open(path);
	assert_non_null(kc);
	t = ksym_kmem__load_vars(kc, &po, v, 4);
	assert_non_null(t);
	assert_true(v[0].addr == KIMG_STEXT + 0x200040);
	assert_true(v[1].addr == 0);
	assert_true(v[2].addr == UINT64_MAX);
	assert_true(v[3].addr == 0);	/* text: a function, not a variable */
	/* the table is the one ksym_kmem__load() makes: text only */
	assert_int_equal(ksym_table__find(t, "vfs_read", "", &s, 1), 1);
	assert_int_equal(ksym_table__find(t, "ftrace_pages_start", "", &s, 1), 0);
	ksym_table__free(t);
	v[1].name = "f";
	assert_null(ksym_kmem__load_vars(kc, &po, v, 2));
	assert_int_equal(errno, EINVAL);
	ksym_kcore__close(kc);
}

/* A core of another architecture's kernel: refused as it is opened, not misread. */
static void test_other_machine(void **state)
{
	char info[1024];
	uint16_t m = KIMG_MACHINE == EM_X86_64 ? EM_AARCH64 : EM_X86_64;
	struct ksym_kcore *kc;

	(void)state;
	default_info(info, sizeof(info), KIMG_PLACE_RELATIVE);
	make(NSYMS, KIMG_PLACE_RELATIVE, info);
	kc = ksym_kcore__open(path);
	assert_non_null(kc);
	ksym_kcore__close(kc);
	assert_int_equal(pwrite(fd, &m, sizeof(m), offsetof(Elf64_Ehdr, e_machine)), sizeof(m));
	errno = 0;
	assert_null(ksym_kcore__open(path));
	assert_int_equal(errno, ENOEXEC);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		{ "test_whole_abs_percpu", test_whole, NULL, NULL, &forms[0] },
		{ "test_whole_relative", test_whole, NULL, NULL, &forms[1] },
		{ "test_whole_place_relative", test_whole, NULL, NULL, &forms[2] },
		{ "test_whole_absolute", test_whole, NULL, NULL, &forms[3] },
		cmocka_unit_test(test_filtered),
		cmocka_unit_test(test_no_table),
		cmocka_unit_test(test_stext_elsewhere),
		cmocka_unit_test(test_form_not_named),
		cmocka_unit_test(test_two_forms_fit),
		cmocka_unit_test(test_stext_far),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_bad_tokens),
		cmocka_unit_test(test_tokens_at_end),
		cmocka_unit_test(test_text_only),
		cmocka_unit_test(test_stopped),
		cmocka_unit_test(test_vars),
		cmocka_unit_test(test_other_machine),
	};

	return cmocka_run_group_tests_name("ksym-kmem", tests, setup, teardown);
}
