// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The cache, other sources (blacklist, ELF, System.map) and the %pS formatter. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include <ksym/ksym.h>
#include "helpers.h"
#include "ksym_btfcache.h"
#include "ksym_build.h"
#include "ksym_cachefile.h"

static char dir[] = "/tmp/ksym-cache-test.XXXXXX";

static struct ksym_table *tbl(enum ksym_format fmt, const char *text)
{
	char *buf = strdup(text);

	assert_non_null(buf);
	return ksym_table__parse(fmt, buf, strlen(text), NULL);
}

static const char *sample =
	"ffffffff81000000 T _stext\n"
	"ffffffff81000100 T vfs_read\n"
	"ffffffff81000200 t dup\n"
	"ffffffff81000300 t dup\n"
	"ffffffffc0001000 t v9fs_kill_super\t[9p]\n";

static struct ksym_cache_key key_of(const char *boot)
{
	struct ksym_cache_key k = {};

	snprintf(k.boot_id, sizeof(k.boot_id), "%s", boot);
	snprintf(k.release, sizeof(k.release), "6.12.0-test");
	snprintf(k.source, sizeof(k.source), "test");
	k.modules_hash = 42;
	return k;
}

static char *path_of(const char *name)
{
	static char p[2][256];
	static int n;

	n ^= 1;
	snprintf(p[n], sizeof(p[n]), "%s/%s", dir, name);
	return p[n];
}

static void store_sample(const char *name, struct ksym_cache_key *k)
{
	struct ksym_table *t = tbl(KSYM_FMT_KALLSYMS, sample);

	assert_non_null(t);
	assert_int_equal(ksym_cache__store(dir, name, k, t), 0);
	ksym_table__free(t);
}

static void test_roundtrip(void **state)
{
	struct ksym_cache_key k = key_of("boot-a");
	struct ksym_table *t;
	struct ksym s[4];
	struct stat st;

	(void)state;
	store_sample("rt", &k);
	assert_int_equal(stat(path_of("rt"), &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	t = ksym_cache__load(dir, "rt", &k);
	assert_non_null(t);
	assert_int_equal(ksym_table__cnt(t), 5);
	/* the index is there without a batch, and batches are harmless */
	assert_int_equal(ksym_table__find(t, "dup", NULL, s, 4), 2);
	assert_int_equal(s[0].addr, 0xffffffff81000200ull);
	assert_int_equal(ksym_table__batch_begin(t), 0);
	ksym_table__batch_end(t);
	assert_int_equal(ksym_table__find(t, "9p:v9fs_kill_super", NULL, s, 4), 1);
	assert_string_equal(s[0].module, "9p");
	assert_int_equal(ksym_table__addr(t, 0xffffffff81000150ull, s), 0);
	assert_string_equal(s[0].name, "vfs_read");
	assert_int_equal(s[0].size, 0x100);
	/* read-only: the join refuses it */
	assert_int_equal(ksym_table__resolve(t, t), -EROFS);
	ksym_table__free(t);
}

static void test_stale_key(void **state)
{
	struct ksym_cache_key k = key_of("boot-a"), other;

	(void)state;
	store_sample("stale", &k);
	other = key_of("boot-b");
	assert_null(ksym_cache__load(dir, "stale", &other));
	assert_int_equal(errno, ESTALE);
	other = key_of("boot-a");
	other.modules_hash++;	/* a module came or went */
	assert_null(ksym_cache__load(dir, "stale", &other));
	assert_int_equal(errno, ESTALE);
	assert_null(ksym_cache__load(dir, "missing", &k));
	assert_int_equal(errno, ENOENT);
}

/* A list's own table answers that list only: another list, even reordered, is stale. */
static void test_list_key(void **state)
{
	static const char *const list[] = { "vfs_read", "dup" }, *const swapped[] = { "dup",
										     "vfs_read" };
	static const char *const split_a[] = { "ab", "c" }, *const split_b[] = { "a", "bc" };
	struct ksym_parse_opts o = { .sz = sizeof(o), .names = list, .name_cnt = 2 };
	struct ksym_cache_key base = key_of("boot-a"), k, k2;
	struct ksym_table *t;
	struct ksym out[2];
	char *buf = strdup(sample);

	(void)state;
	ksym_cache__list_key(&k, &base, list, 2);
	ksym_cache__list_key(&k2, &base, list, 2);
	assert_memory_equal(&k, &k2, sizeof(k));
	assert_string_not_equal(k.source, base.source);
	assert_non_null(buf);
	t = ksym_table__parse(KSYM_FMT_KALLSYMS, buf, strlen(sample), &o);
	assert_non_null(t);
	assert_int_equal(ksym_table__cnt(t), 3);
	assert_int_equal(ksym_cache__store(dir, "list", &k, t), 0);
	ksym_table__free(t);
	t = ksym_cache__load(dir, "list", &k);
	assert_non_null(t);
	assert_int_equal(ksym_table__find_many(t, list, 2, out), 2);
	assert_int_equal(out[0].addr, 0xffffffff81000100ull);
	ksym_table__free(t);
	ksym_cache__list_key(&k2, &base, swapped, 2);
	assert_null(ksym_cache__load(dir, "list", &k2));
	assert_int_equal(errno, ESTALE);
	ksym_cache__list_key(&k, &base, split_a, 2);
	ksym_cache__list_key(&k2, &base, split_b, 2);
	assert_string_not_equal(k.source, k2.source);
}

/* A list's answers come back for that list only, intact or not at all. */
static void test_answers(void **state)
{
	static const char *const list[] = { "vfs_read", "nope", "9p:v9fs_kill_super", "dup" };
	static const char *const other[] = { "vfs_read", "nope", "9p:v9fs_kill_super", "dupe" };
	struct ksym_cache_key base = key_of("boot-a"), k;
	struct ksym_table *t = tbl(KSYM_FMT_KALLSYMS, sample);
	struct ksym_answers *a;
	struct ksym want[4], got[4];
	struct stat st;
	char c;
	int fd;

	(void)state;
	assert_non_null(t);
	assert_int_equal(ksym_table__batch_begin(t), 0);
	assert_int_equal(ksym_table__find_many(t, list, 4, want), 3);
	ksym_cache__list_key(&k, &base, list, 4);
	assert_int_equal(ksym_cache__store_answers(dir, "ans", &k, list, 4, want), 0);
	a = ksym_cache__load_answers(dir, "ans", &k, list, 4, got);
	assert_non_null(a);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(!got[i].name, !want[i].name);
		if (!want[i].name)
			continue;
		assert_string_equal(got[i].name, want[i].name);
		assert_int_equal(got[i].addr, want[i].addr);
		assert_int_equal(got[i].size, want[i].size);
		assert_int_equal(got[i].type, want[i].type);
		assert_int_equal(!got[i].module, !want[i].module);
	}
	assert_string_equal(got[2].module, "9p");
	assert_string_equal(got[2].name, "v9fs_kill_super");
	ksym_answers__free(a);
	/* another list, even under the right key: stale, name for name */
	assert_null(ksym_cache__load_answers(dir, "ans", &k, other, 4, got));
	assert_int_equal(errno, ESTALE);
	assert_null(ksym_cache__load_answers(dir, "ans", &k, list, 3, got));
	assert_int_equal(errno, ESTALE);
	/* a flipped byte anywhere, a missing one at the end */
	assert_int_equal(stat(path_of("ans"), &st), 0);
	fd = open(path_of("ans"), O_RDWR);
	assert_true(fd >= 0);
	assert_int_equal(pread(fd, &c, 1, st.st_size - 9), 1);
	c ^= 0x20;
	assert_int_equal(pwrite(fd, &c, 1, st.st_size - 9), 1);
	close(fd);
	assert_null(ksym_cache__load_answers(dir, "ans", &k, list, 4, got));
	assert_int_equal(errno, EBADMSG);
	assert_int_equal(ksym_cache__store_answers(dir, "ans", &k, list, 4, want), 0);
	assert_int_equal(truncate(path_of("ans"), st.st_size - 1), 0);
	assert_null(ksym_cache__load_answers(dir, "ans", &k, list, 4, got));
	assert_int_equal(errno, EBADMSG);
	ksym_table__free(t);
}

/*
 * A pattern set's BTF answers come back sorted by site, for that boot and
 * those modules only, intact or not at all: a flipped bit at every offset
 * and a byte cut off are refused, never answered from.
 */
static void test_btf_answers(void **state)
{
	const struct ksym_btf_rec want[3] = {
		{ .loc = 0xffffffff81000300, .id = 7, .verdict = KSYM_BTF_OK, .kallsyms_cnt = 1 },
		{ .loc = 0xffffffff81000100, .id = 9, .verdict = KSYM_BTF_PROTO, .proto = 2,
		  .kallsyms_cnt = 1 },
		{ .loc = 0xffffffffc0000200, .verdict = KSYM_BTF_NO_BTF },
	};
	struct ksym_cache_key k = key_of("boot-a"), other = key_of("boot-b");
	struct ksym_btf_rec *got;
	struct stat st;
	size_t n, off;
	int fd;

	(void)state;
	assert_int_equal(ksym_cache__store_btf(dir, "btf-x", &k, want, 3), 0);
	got = ksym_cache__load_btf(dir, "btf-x", &k, &n);
	assert_non_null(got);
	assert_int_equal(n, 3);
	assert_memory_equal(&got[0], &want[1], sizeof(*got));
	assert_memory_equal(&got[1], &want[0], sizeof(*got));
	assert_memory_equal(&got[2], &want[2], sizeof(*got));
	free(got);
	assert_null(ksym_cache__load_btf(dir, "btf-x", &other, &n));
	assert_int_equal(errno, ESTALE);
	other = k;
	other.modules_hash++;
	assert_null(ksym_cache__load_btf(dir, "btf-x", &other, &n));
	assert_int_equal(errno, ESTALE);
	assert_int_equal(stat(path_of("btf-x"), &st), 0);
	for (off = 0; off < (size_t)st.st_size; off++) {
		unsigned char c;

		fd = open(path_of("btf-x"), O_RDWR);
		assert_true(fd >= 0);
		assert_int_equal(pread(fd, &c, 1, off), 1);
		c ^= 1u << (off % 8);
		assert_int_equal(pwrite(fd, &c, 1, off), 1);
		close(fd);
		got = ksym_cache__load_btf(dir, "btf-x", &k, &n);
		/* (a bit of the key's own text: another key, refused as stale) */
		assert_null(got);
		assert_true(errno == EBADMSG || errno == ESTALE);
		assert_int_equal(ksym_cache__store_btf(dir, "btf-x", &k, want, 3), 0);
	}
	assert_int_equal(truncate(path_of("btf-x"), st.st_size - 1), 0);
	assert_null(ksym_cache__load_btf(dir, "btf-x", &k, &n));
	assert_int_equal(errno, EBADMSG);
	assert_null(ksym_cache__load_btf(dir, "btf-none", &k, &n));
	assert_int_equal(errno, ENOENT);
}

/* The build cache's file of a pattern set's answers: one a build and a kind of program. */
static void test_btf_build_name(void **state)
{
	struct ksym_layout l = { .id = { 0xab, 0x01 }, .id_len = 2, .text = 0xffffffff81000000 };
	struct ksym_cache_key k1, k2;
	char n1[100], n2[100];

	(void)state;
	assert_true(ksym_cache__btf_build_name(&l, false, "00ff", n1, sizeof(n1), &k1));
	assert_string_equal(n1, "btf-ab01-00ff");
	assert_true(ksym_cache__btf_build_name(&l, true, "00ff", n2, sizeof(n2), &k2));
	assert_string_equal(n2, "btfr-ab01-00ff");
	assert_true(ksym_cache_key_eq(&k1, &k2));
	l.id[1] = 0x02;
	assert_true(ksym_cache__btf_build_name(&l, false, "00ff", n2, sizeof(n2), &k2));
	assert_false(ksym_cache_key_eq(&k1, &k2));
	l.id_len = 0;
	assert_false(ksym_cache__btf_build_name(&l, false, "00ff", n2, sizeof(n2), &k2));
	l.id_len = 2;
	assert_false(ksym_cache__btf_build_name(&l, false, "", n2, sizeof(n2), &k2));
}

/* A list over every name of the sample, its modules, and what it lacks. */
static const char *const res_list[] = {
	"vfs_read", "dup", "_stext", "v9fs_kill_super", "9p:v9fs_kill_super", ":dup",
	"9p:dup", ":v9fs_kill_super", "nope", "xx:vfs_read", "dupe", "", "vfs_rea",
};
#define RES_N (sizeof(res_list) / sizeof(res_list[0]))

/* What find_many gives the list on table t. */
static void want_of(struct ksym_table *t, const char *const *list, size_t n, struct ksym *want)
{
	assert_int_equal(ksym_table__batch_begin(t), 0);
	ksym_table__find_many(t, list, n, want);
	ksym_table__batch_end(t);
}

/*
 * t stored as dir/name and list resolved from its resolve section, which must
 * answer as the table does; the answers (in got, n of them) stay for more checks.
 */
static struct ksym_answers *resolved_as_table(struct ksym_table *t, const char *name,
					      const char *const *list, size_t n, struct ksym *got)
{
	struct ksym_cache_key k = key_of("boot-a");
	struct ksym *want = calloc(n, sizeof(*want));
	struct ksym_answers *a;

	assert_non_null(t);
	assert_non_null(want);
	want_of(t, list, n, want);
	assert_int_equal(ksym_cache__store(dir, name, &k, t), 0);
	a = ksym_cache__resolve(dir, name, &k, list, n, got);
	assert_non_null(a);
	assert_true(same_answers(want, got, n));
	free(want);
	return a;
}

/* The resolve section answers as the table does, misses and modules included. */
static void test_resolve(void **state)
{
	struct ksym_cache_key k = key_of("boot-a"), other = key_of("boot-b");
	struct ksym_table *t = tbl(KSYM_FMT_KALLSYMS, sample);
	struct ksym got[RES_N];
	struct ksym_answers *a;

	(void)state;
	a = resolved_as_table(t, "res", res_list, RES_N, got);
	/* the lowest of a name's run, its module, vmlinux only */
	assert_int_equal(got[1].addr, 0xffffffff81000200ull);
	assert_string_equal(got[4].module, "9p");
	assert_int_equal(got[5].addr, 0xffffffff81000200ull);
	assert_null(got[6].name);
	assert_null(got[7].name);
	assert_null(got[8].name);
	ksym_answers__free(a);
	assert_null(ksym_cache__resolve(dir, "res", &other, res_list, RES_N, got));
	assert_int_equal(errno, ESTALE);
	assert_null(ksym_cache__resolve(dir, "missing", &k, res_list, RES_N, got));
	assert_int_equal(errno, ENOENT);
	ksym_table__free(t);
}

/* Long runs of one name, many modules, many buckets: every name and a miss each. */
static void test_resolve_many(void **state)
{
	size_t cap = 1 << 20, len = 0, n = 0, i;
	char *text = malloc(cap), **names = calloc(5000, sizeof(*names));
	struct ksym *got = calloc(5000, sizeof(*got));
	struct ksym_answers *a;
	struct ksym_table *t;

	(void)state;
	assert_non_null(text);
	assert_non_null(names);
	for (i = 0; i < 300; i++)	/* one name 300 times, the lowest address last */
		len += snprintf(text + len, cap - len, "ffffffff81%06zx t cleanup_module\n", 300 - i);
	for (i = 0; i < 2000; i++)
		len += snprintf(text + len, cap - len, "ffffffff82%06zx T fn_%zu%s\n", i, i,
				i % 3 ? "" : "\t[m3]");
	for (i = 0; i < 50; i++)	/* outside the 32-bit window, and large */
		len += snprintf(text + len, cap - len, "%016zx D percpu_%zu\n", i * 0x100000, i);
	t = tbl(KSYM_FMT_KALLSYMS, text);
	for (i = 0; i < 2000; i++) {
		assert_true(asprintf(&names[n++], "fn_%zu", i) > 0);
		/* a miss one longer, and one the same but for its (compressed) prefix */
		assert_true(asprintf(&names[n++], i % 2 ? "fn_%zu_" : "gn_%zu", i) > 0);
	}
	for (i = 0; i < 50; i++)
		assert_true(asprintf(&names[n++], "percpu_%zu", i) > 0);
	assert_true(asprintf(&names[n++], "cleanup_module") > 0);
	assert_true(asprintf(&names[n++], "m3:fn_3") > 0);
	assert_true(asprintf(&names[n++], "m3:fn_4") > 0);
	a = resolved_as_table(t, "many", (const char *const *)names, n, got);
	assert_int_equal(got[4050].addr, 0xffffffff81000001ull);
	assert_non_null(got[n - 2].name);
	assert_null(got[n - 1].name);
	ksym_answers__free(a);
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(got);
	free(text);
	ksym_table__free(t);
}

/* A name with thousands of duplicates: one long run, checked whole on a hit. */
static void test_resolve_long_run(void **state)
{
	static const char *const list[] = { "__func__.0", "other", "__func__.1" };
	size_t cap = 1 << 20, len = 0, i;
	char *text = malloc(cap);
	struct ksym got[3];
	struct ksym_answers *a;
	struct ksym_table *t;

	(void)state;
	assert_non_null(text);
	for (i = 0; i < 6000; i++)
		len += snprintf(text + len, cap - len, "ffffffff81%06zx d __func__.0\n", 6000 - i);
	len += snprintf(text + len, cap - len, "ffffffff82000000 T other\n");
	t = tbl(KSYM_FMT_KALLSYMS, text);
	a = resolved_as_table(t, "long", list, 3, got);
	assert_int_equal(got[0].addr, 0xffffffff81000001ull);
	assert_null(got[2].name);
	ksym_answers__free(a);
	ksym_table__free(t);
	free(text);
}

/*
 * A prefix shared by many names is stored once: a name that differs only
 * there must not match. With a few buckets, some of these share one with
 * the name they imitate.
 */
static void test_resolve_prefixes(void **state)
{
	static const char *const list[] = { "ab_x1", "cd_x1", "ab_x2", "zz_x2", "ab_x3", "qq_x3",
					    "ab_x4", "ee_x4", "ab_x5", "xy_x5", "ab_x6", "ab__x6",
					    "b_x1", "abx_x1" };
	struct ksym got[14];
	struct ksym_answers *a;
	struct ksym_table *t = tbl(KSYM_FMT_KALLSYMS,
				   "ffffffff81000000 T ab_x1\nffffffff81000010 T ab_x2\n"
				   "ffffffff81000020 T ab_x3\nffffffff81000030 T ab_x4\n"
				   "ffffffff81000040 T ab_x5\nffffffff81000050 T ab_x6\n");

	(void)state;
	a = resolved_as_table(t, "pfx", list, 14, got);
	for (size_t i = 0; i < 12; i += 2)
		assert_null(got[i + 1].name);
	ksym_answers__free(a);
	ksym_table__free(t);
}

/*
 * One flipped bit at every offset: the table refuses to load where its part
 * changed, the resolve section refuses where its part did; neither ever
 * answers wrong, and no byte goes unchecked by both.
 */
static void test_truncated_and_flipped(void **state)
{
	struct ksym_cache_key k = key_of("boot-a");
	struct ksym_table *ref = tbl(KSYM_FMT_KALLSYMS, sample), *t;
	struct ksym want[RES_N], got[RES_N];
	struct ksym_answers *a;
	size_t table_bad = 0, res_bad = 0, i;
	struct stat st;
	off_t off;
	char c;
	int fd;

	(void)state;
	assert_non_null(ref);
	want_of(ref, res_list, RES_N, want);
	store_sample("trunc", &k);
	assert_int_equal(stat(path_of("trunc"), &st), 0);
	assert_int_equal(truncate(path_of("trunc"), st.st_size - 1), 0);
	assert_null(ksym_cache__load(dir, "trunc", &k));
	assert_int_equal(errno, EBADMSG);
	assert_null(ksym_cache__resolve(dir, "trunc", &k, res_list, RES_N, got));
	assert_int_equal(errno, EBADMSG);
	assert_int_equal(truncate(path_of("trunc"), 10), 0);
	assert_null(ksym_cache__load(dir, "trunc", &k));
	assert_int_equal(errno, EBADMSG);
	assert_null(ksym_cache__resolve(dir, "trunc", &k, res_list, RES_N, got));
	assert_int_equal(errno, EBADMSG);

	store_sample("flip", &k);
	assert_int_equal(stat(path_of("flip"), &st), 0);
	for (off = 0; off < st.st_size; off++) {
		fd = open(path_of("flip"), O_RDWR);
		assert_true(fd >= 0);
		assert_int_equal(pread(fd, &c, 1, off), 1);
		c ^= 0x10;
		assert_int_equal(pwrite(fd, &c, 1, off), 1);
		t = ksym_cache__load(dir, "flip", &k);
		if (t) {
			want_of(t, res_list, RES_N, got);
			assert_true(same_answers(want, got, RES_N));
			ksym_table__free(t);
		} else {
			assert_true(errno == EBADMSG || errno == ESTALE);
			table_bad++;
		}
		a = ksym_cache__resolve(dir, "flip", &k, res_list, RES_N, got);
		if (a) {
			assert_true(same_answers(want, got, RES_N));
			ksym_answers__free(a);
			assert_null(t);
		} else {
			assert_true(errno == EBADMSG || errno == ESTALE);
			res_bad++;
		}
		/* alone, too: in a list, another name's check may notice first */
		for (i = 0; i < RES_N; i++) {
			a = ksym_cache__resolve(dir, "flip", &k, &res_list[i], 1, got);
			if (a)
				assert_true(same_answers(&want[i], got, 1));
			else
				assert_true(errno == EBADMSG || errno == ESTALE);
			ksym_answers__free(a);
		}
		c ^= 0x10;
		assert_int_equal(pwrite(fd, &c, 1, off), 1);
		close(fd);
	}
	/* each part had flips of its own, and the header's counted for both */
	assert_true(table_bad > 0 && res_bad > 0 && table_bad < (size_t)st.st_size &&
		    res_bad < (size_t)st.st_size && table_bad + res_bad > (size_t)st.st_size);
	/* restored: good again */
	t = ksym_cache__load(dir, "flip", &k);
	assert_non_null(t);
	ksym_table__free(t);
	a = ksym_cache__resolve(dir, "flip", &k, res_list, RES_N, got);
	assert_non_null(a);
	ksym_answers__free(a);
	ksym_table__free(ref);
}

static void test_unsafe_files(void **state)
{
	struct ksym_cache_key k = key_of("boot-a");
	struct ksym_table *t;

	(void)state;
	store_sample("good", &k);
	/* a symlink to a good cache is still refused (O_NOFOLLOW) */
	assert_int_equal(symlink(path_of("good"), path_of("link")), 0);
	assert_null(ksym_cache__load(dir, "link", &k));
	assert_int_equal(errno, EPERM);
	/* readable by others */
	store_sample("mode", &k);
	assert_int_equal(chmod(path_of("mode"), 0644), 0);
	assert_null(ksym_cache__load(dir, "mode", &k));
	assert_int_equal(errno, EPERM);
	/* owned by someone else */
	store_sample("owner", &k);
	assert_int_equal(chown(path_of("owner"), 65534, 65534), 0);
	t = ksym_cache__load(dir, "owner", &k);
	if (geteuid() == 0) {
		assert_null(t);
		assert_int_equal(errno, EPERM);
	}
	ksym_table__free(t);
	/* not a regular file */
	assert_int_equal(mkdir(path_of("adir"), 0700), 0);
	assert_null(ksym_cache__load(dir, "adir", &k));
	assert_int_equal(errno, EPERM);
	/* a directory others may write to is not used for writing */
	assert_int_equal(chmod(dir, 0777), 0);
	t = tbl(KSYM_FMT_KALLSYMS, sample);
	assert_int_equal(ksym_cache__store(dir, "x", &k, t), -EPERM);
	ksym_table__free(t);
	assert_int_equal(chmod(dir, 0700), 0);
}

/*
 * A writer killed before its rename leaves its temporary (its pid in the name):
 * the next write in the cache directory removes it, whichever name it was
 * for, and only those of writers gone.
 */
static void test_dead_writers(void **state)
{
	struct ksym_cache_key k = key_of("boot-a");
	char dead[64], alive[64], other[64];
	const char *keep = ".tmps.notapid.AbC123";
	pid_t pid = fork();

	(void)state;
	assert_true(pid >= 0);
	if (!pid)
		_exit(0);
	assert_int_equal(waitpid(pid, NULL, 0), pid);	/* a pid no process has now */
	snprintf(dead, sizeof(dead), ".tmps.%d.AbC123", (int)pid);
	snprintf(alive, sizeof(alive), ".tmps.%d.AbC123", (int)getppid());
	snprintf(other, sizeof(other), ".other-x.%d.AbC123", (int)pid);
	for (int i = 0; i < 4; i++) {
		const char *n = i == 0 ? dead : i == 1 ? alive : i == 2 ? other : keep;
		FILE *f = fopen(path_of(n), "w");

		assert_non_null(f);
		fputs("half a table", f);
		fclose(f);
	}
	store_sample("tmps", &k);
	assert_int_equal(access(path_of(dead), F_OK), -1);
	assert_int_equal(access(path_of(other), F_OK), -1);	/* another name's, gone too */
	assert_int_equal(access(path_of(alive), F_OK), 0);	/* its writer may rename it yet */
	assert_int_equal(access(path_of(keep), F_OK), 0);	/* not a temporary of ours */
	assert_int_equal(access(path_of("tmps"), F_OK), 0);
	unlink(path_of(alive));
	unlink(path_of(keep));
}

static void test_live_key(void **state)
{
	struct ksym_cache_key a, b;

	(void)state;
	assert_int_equal(ksym_cache__live_key(&a, "src"), 0);
	assert_int_equal(ksym_cache__live_key(&b, "src"), 0);
	assert_int_equal(strlen(a.boot_id), 36);
	assert_memory_equal(&a, &b, sizeof(a));
	assert_int_equal(ksym_cache__live_key(&b, "other"), 0);
	assert_string_not_equal(a.source, b.source);
}

static void test_blacklist(void **state)
{
	struct ksym_table *t;
	struct ksym s;

	(void)state;
	t = tbl(KSYM_FMT_BLACKLIST,
		"0xffffffff9b608940-0xffffffff9b608970\twarn_thunk_thunk\n"
		"0xffffffff9c401030-0xffffffff9c401050\tasm_exc_divide_error\n"
		"0xffffffffc0001000-0xffffffffc0001010\tmod_fn\t[mod]\n"
		"0xffffffff9c401050-0xffffffff9c401040\tbackwards\n"
		"ffffffff9c401050-0xffffffff9c401060\tno_prefix\n");
	assert_non_null(t);
	assert_int_equal(ksym_table__cnt(t), 3);
	assert_int_equal(ksym_table__addr(t, 0xffffffff9c401040ull, &s), 0);
	assert_string_equal(s.name, "asm_exc_divide_error");
	assert_int_equal(s.size, 0x20);	/* the range, not the gap to the next */
	assert_int_equal(ksym_table__addr(t, 0xffffffffc0001008ull, &s), 0);
	assert_string_equal(s.module, "mod");
	ksym_table__free(t);
}

static void test_snprint(void **state)
{
	struct ksym s = { .addr = 0x1000, .size = 0x150, .name = "vfs_read" };
	char buf[128];

	(void)state;
	ksym__snprint(buf, sizeof(buf), &s, 0x101c);
	assert_string_equal(buf, "vfs_read+0x1c/0x150");
	s.module = "9p";
	s.size = 0;
	ksym__snprint(buf, sizeof(buf), &s, 0x1000);
	assert_string_equal(buf, "vfs_read+0x0 [9p]");
}

/* The ELF loader agrees with nm on a binary of our own. */
static void test_elf_vs_nm(void **state)
{
	char self[256];
	struct ksym_table *t;
	struct ksym s[64];
	char cmd[512], line[600], name[512], type;
	unsigned long addr;
	size_t checked = 0;
	FILE *p;

	(void)state;
	/* resolved here: for nm, /proc/self/exe would be nm */
	memset(self, 0, sizeof(self));
	assert_true(readlink("/proc/self/exe", self, sizeof(self) - 1) > 0);
	t = ksym_table__load_elf(self, NULL);
	assert_non_null(t);
	snprintf(cmd, sizeof(cmd), "nm --defined-only '%s'", self);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		int n, i;
		bool hit = false;

		if (sscanf(line, "%lx %c %511s", &addr, &type, name) != 3)
			continue;
		if (type != 'T' && type != 't')
			continue;
		n = ksym_table__find(t, name, NULL, s, 64);
		for (i = 0; i < n && i < 64; i++)
			hit |= s[i].addr == addr && (s[i].type == 'T' || s[i].type == 't');
		if (!hit)
			fail_msg("%s at %lx: not found by the ELF loader", name, addr);
		checked++;
	}
	pclose(p);
	assert_true(checked > 20);
	ksym_table__free(t);

	/* not an ELF file */
	assert_null(ksym_table__load_elf("/proc/self/status", NULL));
	assert_int_equal(errno, ENOEXEC);
}

static void test_system_map(void **state)
{
	struct ksym_table *t;
	struct ksym s;

	(void)state;
	t = tbl(KSYM_FMT_SYSTEM_MAP,
		"ffffffff81000000 T _stext\n"
		"ffffffff81000100 T vfs_read\n"
		"ffffffff81000100 T vfs_read [mod]\n");	/* no modules in a System.map */
	assert_non_null(t);
	assert_int_equal(ksym_table__cnt(t), 2);
	assert_int_equal(ksym_table__addr(t, 0xffffffff81000101ull, &s), 0);
	assert_string_equal(s.name, "vfs_read");
	ksym_table__free(t);
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[300];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_stale_key),
		cmocka_unit_test(test_list_key),
		cmocka_unit_test(test_answers),
		cmocka_unit_test(test_btf_answers),
		cmocka_unit_test(test_btf_build_name),
		cmocka_unit_test(test_resolve),
		cmocka_unit_test(test_resolve_many),
		cmocka_unit_test(test_resolve_prefixes),
		cmocka_unit_test(test_resolve_long_run),
		cmocka_unit_test(test_truncated_and_flipped),
		cmocka_unit_test(test_unsafe_files),
		cmocka_unit_test(test_dead_writers),
		cmocka_unit_test(test_live_key),
		cmocka_unit_test(test_blacklist),
		cmocka_unit_test(test_snprint),
		cmocka_unit_test(test_elf_vs_nm),
		cmocka_unit_test(test_system_map),
	};

	return cmocka_run_group_tests_name("ksym-cache-sources", tests, setup, teardown);
}
