// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Unit tests of the ksym layer: parser quirks, queries, the funcs join. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
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
#include "core_file.h"
#include "helpers.h"

static struct ksym_parse_stats st;

/*
 * Parses a string (the parser may write one byte past len: strdup has it) with
 * opts (NULL: none), its stats always in st.
 */
static struct ksym_table *tbl_opts(enum ksym_format fmt, const char *text,
				   struct ksym_parse_opts *opts)
{
	struct ksym_parse_opts o = { .sz = sizeof(o) };
	char *buf = strdup(text);

	assert_non_null(buf);
	if (!opts)
		opts = &o;
	opts->stats = &st;
	return ksym_table__parse(fmt, buf, strlen(text), opts);
}

static struct ksym_table *tbl(enum ksym_format fmt, const char *text)
{
	return tbl_opts(fmt, text, NULL);
}

static void test_kallsyms_basic(void **state)
{
	struct ksym_table *t;
	struct ksym k[4];
	int pass;

	(void)state;
	t = tbl(KSYM_FMT_KALLSYMS,
		"ffffffff81000000 T _stext\n"
		"ffffffff81000100 t __pfx_vfs_read\n"
		"ffffffff81000110 T vfs_read\n"
		"ffffffff81000200 t vfs_read.cold\n"
		"ffffffff81000300 t helper.isra.0\n"
		"ffffffff81000400 t helper.constprop.0\n"
		"ffffffff81000500 t foo.llvm.123456\n"
		"ffffffffc0001000 t v9fs_kill_super\t[9p]\n"
		"ffffffffc0001040 T v9fs_set_super\t[9p]\n");
	assert_non_null(t);
	assert_int_equal(ksym_table__cnt(t), 9);
	assert_int_equal(st.malformed, 0);

	/* the scan (no batch), then the index */
	for (pass = 0; pass < 2; pass++) {
		if (pass)
			assert_int_equal(ksym_table__batch_begin(t), 0);
		assert_int_equal(ksym_table__find(t, "vfs_read", NULL, k, 4), 1);
		assert_int_equal(k[0].addr, 0xffffffff81000110ull);
		assert_int_equal(k[0].type, 'T');
		assert_null(k[0].module);
		assert_int_equal(k[0].size, 0xf0);	/* up to vfs_read.cold */

		/* suffixed names are names of their own */
		assert_int_equal(ksym_table__find(t, "vfs_read.cold", NULL, k, 4), 1);
		assert_int_equal(ksym_table__find(t, "helper.isra.0", NULL, k, 4), 1);
		assert_int_equal(ksym_table__find(t, "foo.llvm.123456", NULL, k, 4), 1);
		assert_int_equal(ksym_table__find(t, "foo", NULL, k, 4), 0);

		assert_int_equal(ksym_table__find(t, "v9fs_set_super", NULL, k, 4), 1);
		assert_string_equal(k[0].module, "9p");
		assert_int_equal(k[0].size, 0);	/* last of its module: unknown */
		assert_int_equal(ksym_table__find(t, "9p:v9fs_set_super", NULL, k, 4), 1);
		assert_int_equal(ksym_table__find(t, "v9fs_set_super", "", k, 4), 0);
		assert_int_equal(ksym_table__find(t, "vfs_read", "9p", k, 4), 0);
		assert_int_equal(ksym_table__find(t, "vfs_read", NULL, k, 0), 1);	/* counted */
	}
	ksym_table__batch_end(t);
	ksym_table__free(t);
}

static void test_duplicates_and_batch(void **state)
{
	struct ksym_table *t;
	struct ksym k[4];
	int pass;

	(void)state;
	t = tbl(KSYM_FMT_KALLSYMS,
		"ffffffff81000300 t dup\n"
		"ffffffff81000100 t dup\n"	/* out of order: must be sorted */
		"ffffffff81000200 T other\n"
		"ffffffffc0000100 t dup\t[mod]\n");
	assert_non_null(t);
	for (pass = 0; pass < 2; pass++) {
		/* same answers without and with the batch index */
		if (pass)
			assert_int_equal(ksym_table__batch_begin(t), 0);
		assert_int_equal(ksym_table__find(t, "dup", NULL, k, 4), 3);
		assert_int_equal(k[0].addr, 0xffffffff81000100ull);
		assert_int_equal(k[1].addr, 0xffffffff81000300ull);
		assert_string_equal(k[2].module, "mod");
		assert_int_equal(ksym_table__find(t, "dup", "", k, 4), 2);
		assert_int_equal(ksym_table__find(t, "mod:dup", NULL, k, 4), 1);
		/* max bounds what is filled, not what is counted */
		assert_int_equal(ksym_table__find(t, "dup", NULL, k, 1), 3);
		assert_int_equal(ksym_table__find(t, "nope", NULL, k, 4), 0);
	}
	/* nesting: the index lives until the last end */
	assert_int_equal(ksym_table__batch_begin(t), 0);
	ksym_table__batch_end(t);
	assert_int_equal(ksym_table__find(t, "other", NULL, k, 4), 1);
	ksym_table__batch_end(t);
	ksym_table__batch_end(t);	/* unbalanced end is harmless */
	assert_int_equal(ksym_table__find(t, "other", NULL, k, 4), 1);
	ksym_table__free(t);
}

static void test_addr_lookup(void **state)
{
	struct ksym_table *t;
	struct ksym k;

	(void)state;
	t = tbl(KSYM_FMT_KALLSYMS,
		"ffffffff81000000 T a\n"
		"ffffffff81000000 T a_alias\n"
		"ffffffff81000040 T b\n");
	assert_non_null(t);
	assert_int_equal(ksym_table__addr(t, 0xffffffff81000000ull, &k), 0);
	assert_string_equal(k.name, "a");
	assert_int_equal(ksym_table__addr(t, 0xffffffff8100003full, &k), 0);
	assert_string_equal(k.name, "a");
	assert_int_equal(k.size, 0x40);
	assert_int_equal(ksym_table__addr(t, 0xffffffff81000041ull, &k), 0);
	assert_string_equal(k.name, "b");
	assert_int_equal(ksym_table__addr(t, 0xffffffff80ffffffull, &k), -ENOENT);
	ksym_table__free(t);

	/*
	 * Per-cpu offsets far below the kernel, modules out of order: the top
	 * 4 GiB are searched by key, what is below by the entries themselves.
	 */
	t = tbl(KSYM_FMT_KALLSYMS,
		"0000000000000000 A fixed_percpu_data\n"
		"0000000000001000 A cpu_debug_store\n"
		"ffffffff81000000 T _stext\n"
		"ffffffff81000000 T _text\n"
		"ffffffff81000100 t foo\n"
		"ffffffffc0002000 t late\t[m2]\n"
		"ffffffffc0000000 t early\t[m1]\n"
		"ffffffffc0000000 t early_alias\t[m1]\n");
	assert_non_null(t);
	assert_int_equal(ksym_table__addr(t, 0x800, &k), 0);
	assert_string_equal(k.name, "fixed_percpu_data");
	assert_int_equal(ksym_table__addr(t, 0xffffffff80ffffffull, &k), 0);
	assert_string_equal(k.name, "cpu_debug_store");
	assert_int_equal(ksym_table__addr(t, 0xffffffff810000ffull, &k), 0);
	assert_string_equal(k.name, "_stext");
	assert_int_equal(ksym_table__addr(t, 0xffffffffbfffffffull, &k), 0);
	assert_string_equal(k.name, "foo");
	assert_int_equal(ksym_table__addr(t, 0xffffffffc0000010ull, &k), 0);
	assert_string_equal(k.name, "early");
	assert_string_equal(k.module, "m1");
	assert_int_equal(ksym_table__addr(t, ~0ull, &k), 0);
	assert_string_equal(k.name, "late");
	ksym_table__free(t);
}

/*
 * Finishing a table moves its unsorted entries into address order (stably) and
 * renames them in an index built while parsing: "mid" goes into the sorted
 * prefix, the module tail is reordered, "m0" is in two modules at one address.
 * Names, duplicates, address order and addresses answer as from a sorted file.
 */
static void test_sort_moves_indexed(void **state)
{
	static const char *const order[] = { "a", "mid", "b", "m0", "m0_alias", "m0", "m1" };
	struct ksym_parse_opts o = { .sz = sizeof(o), .index = true };
	struct ksym_table *t;
	struct ksym k[4];
	size_t i, idx;

	(void)state;
	for (idx = 0; idx < 2; idx++) {
		o.index = idx;
		t = tbl_opts(KSYM_FMT_KALLSYMS,
			     "ffffffff81000000 T a\n"
			     "ffffffff81000010 T b\n"
			     "ffffffffc0001000 t m1\t[m]\n"
			     "ffffffffc0000000 t m0\t[m]\n"
			     "ffffffffc0000000 t m0_alias\t[m]\n"
			     "ffffffff81000008 T mid\n"
			     "ffffffffc0000000 t m0\t[n]\n",
			     &o);
		assert_non_null(t);
		assert_int_equal(ksym_table__batch_begin(t), 0);
		for (i = 0; i < 7; i++) {
			assert_int_equal(ksym_table__at(t, i, &k[0]), 0);
			assert_string_equal(k[0].name, order[i]);
		}
		assert_int_equal(ksym_table__at(t, 5, &k[0]), 0);
		assert_string_equal(k[0].module, "n");
		assert_int_equal(ksym_table__find(t, "m0", NULL, k, 4), 2);
		assert_string_equal(k[0].module, "m");
		assert_string_equal(k[1].module, "n");
		assert_int_equal(ksym_table__find(t, "n:m0", NULL, k, 4), 1);
		assert_string_equal(k[0].module, "n");
		assert_int_equal(ksym_table__find(t, "mid", NULL, k, 4), 1);
		assert_int_equal(k[0].addr, 0xffffffff81000008ull);
		assert_int_equal(k[0].size, 8);
		assert_int_equal(ksym_table__find(t, "m1", NULL, k, 4), 1);
		assert_int_equal(k[0].addr, 0xffffffffc0001000ull);
		assert_int_equal(ksym_table__find(t, "b", NULL, k, 4), 1);
		assert_int_equal(k[0].addr, 0xffffffff81000010ull);
		assert_int_equal(ksym_table__addr(t, 0xffffffffc0000fffull, &k[0]), 0);
		assert_string_equal(k[0].name, "m0");
		assert_string_equal(k[0].module, "m");
		assert_int_equal(ksym_table__addr(t, 0xffffffff8100000full, &k[0]), 0);
		assert_string_equal(k[0].name, "mid");
		ksym_table__batch_end(t);
		ksym_table__free(t);
	}
}

/*
 * Two loads: 8 KiB of "text" at 0xffffffff81000000, each byte its offset's low
 * byte, and 100 bytes of 0x5a at 0xffffffffc0000000; nothing mapped between.
 */
static int write_core(const char *path)
{
	static unsigned char text[8192], mod[100];
	const struct core_seg seg[2] = {
		{ 0xffffffff81000000ull, text, sizeof(text) },
		{ 0xffffffffc0000000ull, mod, sizeof(mod) },
	};
	size_t i;

	for (i = 0; i < sizeof(text); i++)
		text[i] = i & 0xff;
	memset(mod, 0x5a, sizeof(mod));
	return write_core_segs(path, seg, 2);
}

/* An instruction with a rel32 at text[off], as if at address from: to where it goes. */
static void put_rel32(unsigned char *text, size_t off, unsigned char op, uint64_t from, uint64_t to)
{
	int32_t rel = (int32_t)(to - (from + 5));

	text[off] = op;
	memcpy(text + off + 1, &rel, 4);
}

/*
 * Call sites found through a core file, as ksym_db finds them in /proc/kcore:
 * a NOP or a call to a trampoline at the entry or past ENDBR64 is a site; a
 * site caught mid-patch (int3, then a NOP's tail or a rel32) is one if the
 * call being patched goes to a trampoline the table lists; an int3 a kprobe
 * put over other code, padding, a call to a plain function, plain code are not.
 */
static void test_kcore_sites(void **state)
{
	static const unsigned char nop5[5] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };
	static const unsigned char endbr[4] = { 0xf3, 0x0f, 0x1e, 0xfa };
	static const unsigned char plain[4] = { 0x55, 0x48, 0x89, 0xe5 };
	static const struct {
		const char *name;
		int want, off;
	} cases[] = {
		{ "f_nop", 1, 0 },	  { "f_endbr", 1, 4 },	    { "f_traced", 1, 0 },
		{ "f_patching", 1, 0 },	  { "f_patching_ibt", 1, 4 }, { "f_kprobed", 0, 0 },
		{ "f_int3_nop", 1, 0 },	  { "f_calls_fn", 0, 0 },   { "f_plain", 0, 0 },
		{ "f_padding", 0, 0 },	  { "f_traced_new", 1, 0 },
	};
	const uint64_t T = 0xffffffff81000000ull, M = 0xffffffffc0000000ull;
	char ks[] = "/tmp/ksym-sites-ks.XXXXXX", core[] = "/tmp/ksym-sites-core.XXXXXX";
	unsigned char text[4096], mod[64];
	const struct core_seg seg[2] = { { T, text, sizeof(text) }, { M, mod, sizeof(mod) } };
	struct ksym_db_opts o = { .sz = sizeof(o), .need = KSYM_DB_FUNCS, .no_cache = true,
				  .funcs_from = KSYM_FUNCS_KALLSYMS };
	struct ksym_db *db;
	struct ksym sym;
	uint64_t loc;
	size_t i;
	FILE *f;
	int fd;

	(void)state;
	memset(text, 0x90, sizeof(text));
	memset(mod, 0x90, sizeof(mod));
	memcpy(text + 0x200, nop5, 5);
	memcpy(text + 0x300, endbr, 4);
	memcpy(text + 0x304, nop5, 5);
	put_rel32(text, 0x400, 0xe8, T + 0x400, T + 0x100);
	put_rel32(text, 0x500, 0xcc, T + 0x500, T + 0x100);
	memcpy(text + 0x600, endbr, 4);
	put_rel32(text, 0x604, 0xcc, T + 0x604, M);
	put_rel32(text, 0x700, 0xcc, T + 0x700, M + 0x20);	/* no symbol starts there */
	text[0x800] = 0xcc;
	memcpy(text + 0x801, nop5 + 1, 4);
	put_rel32(text, 0x900, 0xe8, T + 0x900, T + 0x200);
	memcpy(text + 0xa00, plain, 4);
	memset(text + 0xb00, 0xcc, 16);
	put_rel32(text, 0xc00, 0xe8, T + 0xc00, M + 0x30);	/* a trampoline made since */
	fd = mkstemp(core);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(write_core_segs(core, seg, 2), 0);
	fd = mkstemp(ks);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	fprintf(f, "ffffffff81000000 T _stext\n"
		   "ffffffff81000100 T ftrace_caller\n"
		   "ffffffff81000200 T f_nop\n"
		   "ffffffff81000300 T f_endbr\n"
		   "ffffffff81000400 T f_traced\n"
		   "ffffffff81000500 T f_patching\n"
		   "ffffffff81000600 T f_patching_ibt\n"
		   "ffffffff81000700 T f_kprobed\n"
		   "ffffffff81000800 T f_int3_nop\n"
		   "ffffffff81000900 T f_calls_fn\n"
		   "ffffffff81000a00 T f_plain\n"
		   "ffffffff81000b00 T f_padding\n"
		   "ffffffff81000c00 T f_traced_new\n"
		   "ffffffff81000f00 T _etext\n"
		   "ffffffffc0000000 t ftrace_trampoline\t[__builtin__ftrace]\n");
	assert_int_equal(fclose(f), 0);

	/* a core file needs the symbols of its kernel */
	o.kcore_path = core;
	db = ksym_db__new(&o);
	assert_non_null(db);
	assert_int_equal(ksym_db__load(db), -EINVAL);
	assert_non_null(strstr(ksym_db__errmsg(db), "kcore"));
	ksym_db__free(db);

	o.kallsyms_path = ks;
	db = ksym_db__new(&o);
	assert_non_null(db);
	assert_int_equal(ksym_db__load(db), 0);
	assert_string_equal(ksym_db__funcs_source(db), "kallsyms+kcore");
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(ksym_table__find(ksym_db__funcs(db), cases[i].name, NULL, &sym, 1),
				 1);
		loc = 0;
		if (ksym_db__ftrace_loc(db, &sym, &loc) != cases[i].want)
			fail_msg("%s: a site is %s, ftrace_loc says otherwise", cases[i].name,
				 cases[i].want ? "there" : "not there");
		if (cases[i].want)
			assert_int_equal(loc, sym.addr + cases[i].off);
	}
	ksym_db__free(db);

	/* what patterns match, as an agent hands them to libbpf: traceable only, sorted, once */
	{
		const char *pats[] = { "f_*", "f_nop", "f_traced" };
		unsigned long *addrs, last = 0;
		size_t n, want = 0;

		for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
			want += cases[i].want;
		o.patterns = pats;
		o.pattern_cnt = 3;
		db = ksym_db__new(&o);
		assert_non_null(db);
		assert_int_equal(ksym_db__sites(db, &addrs, &n), 0);
		assert_int_equal(n, want);
		for (i = 0; i < n; i++) {
			assert_true(addrs[i] > last);
			last = addrs[i];
		}
		assert_int_equal(addrs[0], T + 0x200);		/* f_nop */
		/* f_endbr: its own address, not its site past ENDBR64 */
		assert_int_equal(addrs[1], T + 0x300);
		free(addrs);
		ksym_db__free(db);
		/* nothing traceable: -ENOENT, and a line that says so */
		pats[0] = "f_plain";
		o.pattern_cnt = 1;
		db = ksym_db__new(&o);
		assert_non_null(db);
		assert_int_equal(ksym_db__sites(db, &addrs, &n), -ENOENT);
		assert_null(addrs);
		assert_non_null(strstr(ksym_db__errmsg(db), "no traceable function matches"));
		ksym_db__free(db);
		o.patterns = NULL;
		o.pattern_cnt = 0;
	}

	/* a core file that is not there is an error naming it */
	unlink(core);
	db = ksym_db__new(&o);
	assert_non_null(db);
	assert_int_equal(ksym_db__load(db), -ENOENT);
	assert_non_null(strstr(ksym_db__errmsg(db), core));
	ksym_db__free(db);
	unlink(ks);
}

static void test_kcore_read(void **state)
{
	char path[] = "/tmp/ksym-kcore.XXXXXX";
	unsigned char b[64], want[64];
	struct ksym_kcore *kc;
	size_t i;
	int fd;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(write_core(path), 0);
	kc = ksym_kcore__open(path);
	assert_non_null(kc);
	/* inside the text, across its 4 KiB windows, to its last byte */
	for (i = 0; i + 16 <= 8192; i += 4090) {
		size_t k;

		for (k = 0; k < 16; k++)
			want[k] = (i + k) & 0xff;
		assert_int_equal(ksym_kcore__read(kc, 0xffffffff81000000ull + i, b, 16), 0);
		assert_memory_equal(b, want, 16);
	}
	assert_int_equal(ksym_kcore__read(kc, 0xffffffff81000000ull + 8176, b, 16), 0);
	assert_int_equal(b[15], 8191 & 0xff);
	/* past a segment's end, between segments, below all: nothing there */
	assert_int_equal(ksym_kcore__read(kc, 0xffffffff81000000ull + 8180, b, 16), -EFAULT);
	assert_int_equal(ksym_kcore__read(kc, 0xffffffffa0000000ull, b, 16), -EFAULT);
	assert_int_equal(ksym_kcore__read(kc, 0x1000, b, 16), -EFAULT);
	assert_int_equal(ksym_kcore__read(kc, 0xffffffffc0000000ull + 84, b, 16), 0);
	memset(want, 0x5a, 16);
	assert_memory_equal(b, want, 16);
	assert_int_equal(ksym_kcore__read(kc, 0xffffffffc0000000ull, b, 65), -EINVAL);

	/* text patched behind the window: seen only once the window is forgotten */
	assert_int_equal(ksym_kcore__read(kc, 0xffffffff81000030ull, b, 1), 0);
	fd = open(path, O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, "\xcc", 1, 4096 + 0x40), 1);
	close(fd);
	assert_int_equal(ksym_kcore__read(kc, 0xffffffff81000040ull, b, 1), 0);
	assert_int_equal(b[0], 0x40);
	ksym_kcore__forget(kc);
	assert_int_equal(ksym_kcore__read(kc, 0xffffffff81000040ull, b, 1), 0);
	assert_int_equal(b[0], 0xcc);
	ksym_kcore__close(kc);

	/* a segment the file does not hold all of: an error, not short data */
	assert_int_equal(truncate(path, 4096 + 8192 + 50), 0);
	kc = ksym_kcore__open(path);
	assert_non_null(kc);
	assert_int_equal(ksym_kcore__read(kc, 0xffffffffc0000000ull + 40, b, 16), -EIO);
	ksym_kcore__close(kc);

	/* not ELF, no loads: refused */
	assert_int_equal(truncate(path, 0), 0);
	fd = open(path, O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "not an ELF core file, not at all, no", 36), 36);
	close(fd);
	assert_null(ksym_kcore__open(path));
	assert_int_equal(errno, ENOEXEC);
	unlink(path);
	assert_null(ksym_kcore__open(path));
	assert_int_equal(errno, ENOENT);
}

/* Sizes: to the next higher address in the same module; a run at one address shares it. */
static void test_sizes(void **state)
{
	static const struct {
		const char *name;
		uint32_t size;
	} want[] = { { "a", 0x10 },  { "a2", 0x10 }, { "b", 0x20 }, { "last", 0 },
		     { "m1", 0x100 }, { "m1b", 0x100 }, { "m2", 0 }, { "n1", 0 } };
	struct ksym_table *t;
	struct ksym k;
	size_t i;

	(void)state;
	t = tbl(KSYM_FMT_KALLSYMS,
		"ffffffff81000000 T a\n"
		"ffffffff81000000 T a2\n"
		"ffffffff81000010 T b\n"
		"ffffffff81000030 T last\n"
		"ffffffffc0000000 t m1\t[m]\n"
		"ffffffffc0000000 t m1b\t[m]\n"
		"ffffffffc0000100 t m2\t[m]\n"
		"ffffffffc0000100 t n1\t[n]\n");
	assert_non_null(t);
	assert_int_equal(ksym_table__cnt(t), 8);
	for (i = 0; i < 8; i++) {
		assert_int_equal(ksym_table__at(t, i, &k), 0);
		assert_string_equal(k.name, want[i].name);
		assert_int_equal(k.size, want[i].size);
	}
	ksym_table__free(t);
}

/* Module names are interned by hash: 65,535 of them, each found again; one more is refused. */
static void test_many_modules(void **state)
{
	const size_t lim = 65535;
	size_t cap = (lim + 1) * 48, len = 0, i;
	char *text = malloc(cap), q[32];
	struct ksym_table *t;
	struct ksym k;

	(void)state;
	assert_non_null(text);
	for (i = 0; i < lim; i++)
		len += snprintf(text + len, cap - len, "ffffffffc%07zx t s%zu\t[m%zu]\n", i * 16,
				i, i);
	t = tbl(KSYM_FMT_KALLSYMS, text);
	assert_non_null(t);
	assert_int_equal(ksym_table__cnt(t), lim);
	for (i = 0; i < lim; i += 97) {
		assert_int_equal(ksym_table__at(t, i, &k), 0);
		snprintf(q, sizeof(q), "m%zu", i);
		assert_string_equal(k.module, q);
		snprintf(q, sizeof(q), "m%zu:s%zu", i, i);
		assert_int_equal(ksym_table__find(t, q, NULL, &k, 1), 1);
		snprintf(q, sizeof(q), "m%zu:s%zu", i + 1, i);
		assert_int_equal(ksym_table__find(t, q, NULL, &k, 1), 0);
	}
	ksym_table__free(t);
	snprintf(text + len, cap - len, "ffffffffd0000000 t s\t[one_more]\n");
	assert_null(tbl(KSYM_FMT_KALLSYMS, text));
	assert_int_equal(errno, E2BIG);
	free(text);
}

static void test_malformed(void **state)
{
	char long_name[600];
	struct ksym_table *t;
	struct ksym k[1];
	char *text;

	(void)state;
	/* every kind of garbage is counted, never turned into a symbol */
	t = tbl(KSYM_FMT_KALLSYMS,
		"ffffffff81000000 T good1\n"
		"zzzz T bad_addr\n"
		"ffffffff81000010\n"
		"ffffffff81000020 T\n"
		"ffffffff81000030 TT bad_type\n"
		"ffffffff810000401 T too_many_digits_17\n"
		"ffffffff81000050 T name [unterminated\n"
		"ffffffff81000060 T name extra\n"
		"\n"
		"ffffffff81000070 T good2\r\n"
		"ffffffff81000080 T truncated_last");
	assert_non_null(t);
	assert_int_equal(ksym_table__cnt(t), 3);
	assert_int_equal(st.malformed, 7);
	assert_int_equal(st.bad_line[0], 2);
	assert_int_equal(st.bad_line[3], 5);
	assert_int_equal(st.lines, 11);
	assert_int_equal(ksym_table__find(t, "good2", NULL, k, 1), 1);	/* CRLF */
	assert_int_equal(ksym_table__find(t, "truncated_last", NULL, k, 1), 1);
	ksym_table__free(t);

	/* 511-char names are the kernel's limit; 512 is malformed */
	memset(long_name, 'x', sizeof(long_name));
	assert_true(asprintf(&text, "ffffffff81000000 T %.*s\nffffffff81000010 T %.*s\n", 511,
			     long_name, 512, long_name) > 0);
	t = tbl(KSYM_FMT_KALLSYMS, text);
	free(text);
	assert_non_null(t);
	assert_int_equal(ksym_table__cnt(t), 1);
	assert_int_equal(st.malformed, 1);
	ksym_table__free(t);

	/* found by fuzzing: a NUL inside a name or module cuts it short */
	{
		static const char nul_text[] = "ffffffff81000000 T a\0b\nffffffff81000010 t c\t[m\0d]\n"
					       "ffffffff81000020 T ok\n";
		char *buf = malloc(sizeof(nul_text));

		memcpy(buf, nul_text, sizeof(nul_text));
		t = ksym_table__parse(KSYM_FMT_KALLSYMS, buf, sizeof(nul_text) - 1, NULL);
		assert_non_null(t);
		assert_int_equal(ksym_table__cnt(t), 1);
		ksym_table__free(t);
	}
	/* a ':' in a name is literal once the module is given explicitly */
	t = tbl(KSYM_FMT_KALLSYMS, "ffffffff81000000 T odd:name\n");
	assert_non_null(t);
	assert_int_equal(ksym_table__find(t, "odd:name", "", k, 1), 1);
	assert_int_equal(ksym_table__find(t, "odd:name", NULL, k, 1), 0);	/* module "odd" */
	ksym_table__free(t);

	/* empty input is an empty table, not an error */
	t = tbl(KSYM_FMT_KALLSYMS, "");
	assert_non_null(t);
	assert_int_equal(ksym_table__cnt(t), 0);
	ksym_table__free(t);
}

static void test_all_zero(void **state)
{
	struct ksym_table *t;

	(void)state;
	/* what /proc/kallsyms shows an unprivileged reader */
	t = tbl(KSYM_FMT_KALLSYMS,
		"0000000000000000 T _stext\n"
		"0000000000000000 T vfs_read\n");
	assert_null(t);
	assert_int_equal(errno, EPERM);
	assert_true(st.all_zero);
}

static void test_funcs_formats(void **state)
{
	struct ksym_table *t;
	struct ksym k[2];

	(void)state;
	t = tbl(KSYM_FMT_FUNCS_ADDRS,
		"ffffffff81000114 vfs_read\n"
		"ffffffffc0327014 netfs_cache_read_terminated [netfs]\n");
	assert_non_null(t);
	assert_int_equal(ksym_table__cnt(t), 2);
	assert_int_equal(ksym_table__find(t, "netfs:netfs_cache_read_terminated", NULL, k, 2), 1);
	assert_true(k[0].flags & KSYM_F_TRACEABLE);
	assert_false(k[0].flags & KSYM_F_UNRESOLVED);
	ksym_table__free(t);

	/* 6.1 lists placeholders for records it could not name */
	t = tbl(KSYM_FMT_FUNCS,
		"vfs_read\n"
		"__ftrace_invalid_address___64\n"
		"netfs_cache_read_terminated [netfs]\n");
	assert_non_null(t);
	assert_int_equal(ksym_table__cnt(t), 2);
	assert_int_equal(st.skipped, 1);
	assert_int_equal(ksym_table__find(t, "vfs_read", NULL, k, 2), 1);
	assert_true(k[0].flags & KSYM_F_UNRESOLVED);
	ksym_table__free(t);
}

static void test_resolve_join(void **state)
{
	struct ksym_table *f, *k;
	struct ksym s[4];

	(void)state;
	k = tbl(KSYM_FMT_KALLSYMS,
		"ffffffff81000100 t dup\n"
		"ffffffff81000200 d dup\n"	/* data: never a function */
		"ffffffff81000300 t dup\n"
		"ffffffff81000400 T vfs_read\n"
		"ffffffffc0000100 t dup\t[mod]\n");
	f = tbl(KSYM_FMT_FUNCS,
		"dup\n"
		"vfs_read\n"
		"dup\n"
		"dup [mod]\n"
		"dup\n"			/* a third vmlinux dup has no counterpart */
		"gone\n");
	assert_non_null(k);
	assert_non_null(f);
	assert_int_equal(ksym_table__resolve(f, k), 2);
	/* the k-th duplicate takes the k-th text symbol, in address order */
	assert_int_equal(ksym_table__find(f, "dup", "", s, 4), 3);
	/* the unresolved one last: one answer is the function that is there */
	assert_int_equal(s[0].addr, 0xffffffff81000100ull);
	assert_int_equal(s[1].addr, 0xffffffff81000300ull);
	assert_true(s[2].flags & KSYM_F_UNRESOLVED);
	assert_int_equal(ksym_table__find(f, "mod:dup", NULL, s, 4), 1);
	assert_int_equal(s[0].addr, 0xffffffffc0000100ull);
	assert_int_equal(ksym_table__find(f, "vfs_read", NULL, s, 4), 1);
	assert_int_equal(s[0].type, 'T');
	ksym_table__free(f);
	ksym_table__free(k);

	/* a name listed 1,000 times: each takes its counterpart, once per group */
	{
		size_t cap = 1000 * 32, lk = 0, lf = 0, i;
		char *tk = malloc(cap), *tf = malloc(cap);
		struct ksym many[64];

		assert_non_null(tk);
		assert_non_null(tf);
		for (i = 0; i < 1000; i++) {
			lk += snprintf(tk + lk, cap - lk, "ffffffff8%07zx t same\n", (1000 - i) * 16);
			lf += snprintf(tf + lf, cap - lf, "same\n");
		}
		k = tbl(KSYM_FMT_KALLSYMS, tk);
		f = tbl(KSYM_FMT_FUNCS, tf);
		assert_non_null(k);
		assert_non_null(f);
		assert_int_equal(ksym_table__resolve(f, k), 0);
		for (i = 0; i < 1000; i++) {
			assert_int_equal(ksym_table__at(f, i, &many[0]), 0);
			assert_int_equal(many[0].addr, 0xffffffff80000000ull + (i + 1) * 16);
		}
		/* all counted, the lowest 64 given */
		assert_int_equal(ksym_table__find(f, "same", NULL, many, 64), 1000);
		assert_int_equal(many[63].addr, 0xffffffff80000000ull + 64 * 16);
		ksym_table__free(f);
		ksym_table__free(k);
		free(tk);
		free(tf);
	}
}

static void test_glob(void **state)
{
	(void)state;
	assert_true(ksym_glob_match("vfs_*", "vfs_read"));
	assert_true(ksym_glob_match("vfs_*", "vfs_"));
	assert_false(ksym_glob_match("vfs_*", "vfs"));
	assert_true(ksym_glob_match("*read*", "vfs_readv"));
	assert_true(ksym_glob_match("*", ""));
	assert_true(ksym_glob_match("?fs_read", "vfs_read"));
	assert_false(ksym_glob_match("?fs_read", "fs_read"));
	assert_true(ksym_glob_match("vfs_[rw]*", "vfs_write"));
	assert_false(ksym_glob_match("vfs_[!rw]*", "vfs_write"));
	assert_true(ksym_glob_match("vfs_[^rw]*", "vfs_open"));
	assert_true(ksym_glob_match("tcp_v[0-9]_*", "tcp_v4_rcv"));
	assert_false(ksym_glob_match("tcp_v[0-3]_*", "tcp_v4_rcv"));
	assert_true(ksym_glob_match("a[]]b", "a]b"));
	assert_true(ksym_glob_match("a[b", "a[b"));	/* unterminated: literal */
	assert_true(ksym_glob_match("*a*b*c", "xaxxbxxbc"));
	assert_false(ksym_glob_match("*a*b*c", "xaxxbxxb"));
	assert_true(ksym_glob_match("**x", "x"));
	assert_true(ksym_glob_is_literal("vfs_read"));
	assert_false(ksym_glob_is_literal("vfs_re?d"));
	assert_true(ksym_glob_is_name("vfs_read"));
	assert_false(ksym_glob_is_name("vfs_*"));
	assert_false(ksym_glob_is_name("ext4:ext4_sync_fs"));	/* a module's: not any module's */
	assert_false(ksym_glob_is_name(":vfs_read"));
	assert_true(ksym_glob_is_name("__x64_sys_read.cold"));
}

struct count_ctx {
	int n;
	const char *stop_at;
};

static int count_fn(const struct ksym *s, void *ctx)
{
	struct count_ctx *c = ctx;

	c->n++;
	return c->stop_at && !strcmp(s->name, c->stop_at) ? 42 : 0;
}

static void test_match(void **state)
{
	struct count_ctx c = {};
	struct ksym_table *t;

	(void)state;
	t = tbl(KSYM_FMT_FUNCS_ADDRS,
		"ffffffff81000100 vfs_read\n"
		"ffffffff81000200 vfs_write\n"
		"ffffffff81000300 do_sys_open\n"
		"ffffffffc0000100 mod_fn [mod]\n");
	assert_non_null(t);
	assert_int_equal(ksym_table__match(t, "vfs_*", count_fn, &c), 0);
	assert_int_equal(c.n, 2);
	c = (struct count_ctx){};
	assert_int_equal(ksym_table__match(t, "mod:*", count_fn, &c), 0);
	assert_int_equal(c.n, 1);
	c = (struct count_ctx){};
	assert_int_equal(ksym_table__match(t, ":*", count_fn, &c), 0);
	assert_int_equal(c.n, 3);	/* empty module: vmlinux */
	c = (struct count_ctx){ .stop_at = "vfs_read" };
	assert_int_equal(ksym_table__match(t, "*", count_fn, &c), 42);
	assert_int_equal(c.n, 1);
	ksym_table__free(t);
}

/* A table of what some patterns can match: kept by name prefix, the rest skipped. */
static void test_prefixes(void **state)
{
	static const char *const pre[] = { "vfs_", "v9fs_set" };
	struct ksym_parse_opts o = { .sz = sizeof(o), .stats = &st, .text_only = true,
				     .prefixes = pre, .prefix_cnt = 2 };
	const char *text = "ffffffff81000000 T _stext\n"
			   "ffffffff81000110 T vfs_read\n"
			   "ffffffff81000200 D vfs_data\n"
			   "ffffffff81000300 t vfs\n"
			   "81000400 t vfs_short_address\n"
			   "ffffffff81000500 t do_vfs_thing\n"
			   "ffffffffc0001000 t v9fs_kill_super\t[9p]\n"
			   "ffffffffc0001040 T v9fs_set_super\t[9p]\n"
			   "ffffffffc0001080 T vfs_bad line\n";
	struct ksym_table *t;
	struct ksym k[4];

	(void)state;
	t = tbl_opts(KSYM_FMT_KALLSYMS, text, &o);
	assert_non_null(t);
	/* vfs_read, vfs_short_address (the general path), v9fs_set_super */
	assert_int_equal(ksym_table__cnt(t), 3);
	assert_int_equal(ksym_table__find(t, "vfs_read", NULL, k, 4), 1);
	assert_int_equal(ksym_table__find(t, "vfs_short_address", NULL, k, 4), 1);
	assert_int_equal(ksym_table__find(t, "v9fs_set_super", NULL, k, 4), 1);
	assert_string_equal(k[0].module, "9p");
	assert_int_equal(ksym_table__find(t, "do_vfs_thing", NULL, k, 4), 0);
	assert_int_equal(ksym_table__find(t, "vfs_data", NULL, k, 4), 0);
	/* a line the prefixes keep is still checked in full */
	assert_int_equal(st.malformed, 1);
	ksym_table__free(t);
}

/*
 * Names of every length around the eight-byte steps of the name scan, with
 * bytes on both sides of its "below '!'" test: control bytes that separate
 * nothing and high bytes stay in the name; tab, space and CR end it.
 */
static void scan_name(char *name, size_t len, size_t tl)
{
	size_t i;

	/* the first byte tells the four lines of a length apart */
	for (i = 0; i < len; i++)
		name[i] = 'a' + (i + tl) % 26;
	if (len > 2)
		name[1 + len / 2 % (len - 1)] = len % 2 ? '\x01' : '\xff';
	name[len] = '\0';
}

static void test_name_scan(void **state)
{
	static const char *const tails[] = { "\n", "\t[mod]\n", " \n", "\r\n" };
	char text[8192], name[64];
	size_t len, off = 0, tl;
	struct ksym_table *t;
	struct ksym k;

	(void)state;
	for (len = 1; len <= 40; len++) {
		for (tl = 0; tl < 4; tl++) {
			scan_name(name, len, tl);
			off += snprintf(text + off, sizeof(text) - off, "ffffffff81%06zx T %s%s",
					len * 16 + tl, name, tails[tl]);
		}
	}
	assert_int_equal(strlen(text), off);
	t = tbl(KSYM_FMT_KALLSYMS, text);
	assert_non_null(t);
	assert_int_equal(st.malformed, 0);
	assert_int_equal(ksym_table__cnt(t), 160);
	for (len = 1; len <= 40; len++) {
		for (tl = 0; tl < 4; tl++) {
			scan_name(name, len, tl);
			assert_int_equal(ksym_table__find(t, name, tl == 1 ? "mod" : "", &k, 1), 1);
			assert_int_equal(k.addr, 0xffffffff81000000ull + len * 16 + tl);
		}
	}
	ksym_table__free(t);
}

/* Exact names kept while parsing: "mod:name" keeps every name, duplicates all kept. */
static void test_names(void **state)
{
	static const char *const names[] = { "vfs_read", "9p:v9fs_set_super", "missing", "dup" };
	static const char *const pre[] = { "ext4_" };
	struct ksym_parse_opts o = { .sz = sizeof(o), .stats = &st, .names = names,
				     .name_cnt = 4 };
	const char *text = "ffffffff81000000 T _stext\n"
			   "ffffffff81000110 T vfs_read\n"
			   "ffffffff81000120 T vfs_readv\n"
			   "ffffffff81000130 T vfs_rea\n"
			   "ffffffff81000200 t dup\n"
			   "ffffffff81000300 t dup\n"
			   "ffffffff81000400 t ext4_sync\n"
			   "ffffffffc0001000 t dup\t[9p]\n"
			   "ffffffffc0001040 T v9fs_set_super\t[9p]\n"
			   "ffffffffc0001080 T v9fs_set_super\t[other]\n";
	struct ksym_table *t;
	struct ksym k[4];

	(void)state;
	t = tbl_opts(KSYM_FMT_KALLSYMS, text, &o);
	assert_non_null(t);
	/* vfs_read, dup x3, v9fs_set_super x2: not its prefix, not its extension */
	assert_int_equal(ksym_table__cnt(t), 6);
	assert_int_equal(ksym_table__find(t, "vfs_read", NULL, k, 4), 1);
	assert_int_equal(ksym_table__find(t, "vfs_readv", NULL, k, 4), 0);
	assert_int_equal(ksym_table__find(t, "vfs_rea", NULL, k, 4), 0);
	assert_int_equal(ksym_table__find(t, "dup", NULL, k, 4), 3);
	assert_int_equal(ksym_table__find(t, "9p:v9fs_set_super", NULL, k, 4), 1);
	assert_int_equal(ksym_table__find(t, "ext4_sync", NULL, k, 4), 0);
	ksym_table__free(t);
	/* with prefixes: either keeps a line */
	o.prefixes = pre;
	o.prefix_cnt = 1;
	t = tbl_opts(KSYM_FMT_KALLSYMS, text, &o);
	assert_non_null(t);
	assert_int_equal(ksym_table__cnt(t), 7);
	assert_int_equal(ksym_table__find(t, "ext4_sync", NULL, k, 4), 1);
	ksym_table__free(t);
}

/*
 * Kernel-formatted lines take a one-scan path (the address eight digits at a
 * time); any other line the general one. The same line with a CR before its
 * '\n' takes the general path: each byte at each address position, at the
 * type and in the name, with and without a module, must come out the same.
 */
static void test_fast_lines(void **state)
{
	static const char *const tails[] = { "", "\t[mod]", "\t[m]x]", "\t[]" };
	struct ksym_parse_stats sa, sb;
	size_t pos, tl;
	int c;

	(void)state;
	for (tl = 0; tl < 4; tl++) {
		for (pos = 0; pos < 24; pos++) {
			for (c = 1; c < 256; c++) {
				char line[64], a[80], b[80];
				struct ksym_parse_opts o = { .sz = sizeof(o) };
				struct ksym_table *ta, *tb;
				struct ksym ka, kb;

				if (c == '\n' || c == '\r')
					continue;
				snprintf(line, sizeof(line), "ffffffff8a0bCDef T nm_x%s", tails[tl]);
				line[pos] = c;
				snprintf(a, sizeof(a), "%s\n", line);
				snprintf(b, sizeof(b), "%s\r\n", line);
				o.stats = &sa;
				ta = ksym_table__parse(KSYM_FMT_KALLSYMS, strdup(a), strlen(a), &o);
				o.stats = &sb;
				tb = ksym_table__parse(KSYM_FMT_KALLSYMS, strdup(b), strlen(b), &o);
				assert_true(!ta == !tb);
				assert_int_equal(sa.malformed, sb.malformed);
				if (!ta)
					continue;
				assert_int_equal(ksym_table__cnt(ta), ksym_table__cnt(tb));
				if (ksym_table__cnt(ta)) {
					assert_int_equal(ksym_table__at(ta, 0, &ka), 0);
					assert_int_equal(ksym_table__at(tb, 0, &kb), 0);
					assert_int_equal(ka.addr, kb.addr);
					assert_int_equal(ka.type, kb.type);
					assert_string_equal(ka.name, kb.name);
					assert_true(ka.module == kb.module ||
						    !strcmp(ka.module, kb.module));
				}
				ksym_table__free(ta);
				ksym_table__free(tb);
			}
		}
	}
	/* and what the fast path reads is right */
	{
		const char *text = "ffffffff8a0bCDef T a\n0123456789abcdef t b\t[mod]\n";
		struct ksym_table *t = tbl(KSYM_FMT_KALLSYMS, text);
		struct ksym k;

		assert_non_null(t);
		assert_int_equal(ksym_table__find(t, "a", NULL, &k, 1), 1);
		assert_int_equal(k.addr, 0xffffffff8a0bcdefull);
		assert_int_equal(ksym_table__find(t, "b", NULL, &k, 1), 1);
		assert_int_equal(k.addr, 0x0123456789abcdefull);
		assert_string_equal(k.module, "mod");
		ksym_table__free(t);
	}
}

/*
 * Inputs are bounded: a file that never ends (a device) fails with EFBIG once
 * KSYM_INPUT_MAX is read, by either loader, and a line past KSYM_LINE_MAX is
 * one malformed line, not a carry that grows with it (the line ends too: its
 * neighbours parse).
 */
static void test_bounds(void **state)
{
	char path[] = "/tmp/ksym-bounds.XXXXXX", *buf;
	struct ksym_parse_stats st = {};
	struct ksym_parse_opts o = { .sz = sizeof(o), .stats = &st };
	struct ksym_table *t;
	size_t len, i;
	FILE *f;
	int fd;

	(void)state;
	errno = 0;
	assert_null(ksym_table__load(KSYM_FMT_KALLSYMS, "/dev/zero", NULL));
	assert_int_equal(errno, EFBIG);
	assert_int_equal(ksym__read_file("/dev/zero", &buf, &len), -EFBIG);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	fputs("ffffffff81000000 T first\n", f);
	for (i = 0; i < 3 * KSYM_LINE_MAX + 123; i++)
		fputc('y', f);
	fputs("\nffffffff81000010 T second\n", f);
	for (i = 0; i < 5 * KSYM_LINE_MAX; i++)
		fputc('z', f);	/* an unterminated last line, too long as well */
	assert_int_equal(fclose(f), 0);
	t = ksym_table__load(KSYM_FMT_KALLSYMS, path, &o);
	assert_non_null(t);
	assert_int_equal(ksym_table__cnt(t), 2);
	assert_int_equal(st.malformed, 2);
	assert_int_equal(st.bad_line[0], 2);
	assert_int_equal(st.bad_line[1], 4);
	ksym_table__free(t);
	/* a signal's flag stops a load, an endless one too, at the next piece */
	{
		static volatile sig_atomic_t stop = 1;

		o.stop = &stop;
		errno = 0;
		assert_null(ksym_table__load(KSYM_FMT_KALLSYMS, path, &o));
		assert_int_equal(errno, EINTR);
		assert_null(ksym_table__load(KSYM_FMT_KALLSYMS, "/dev/zero", &o));
		assert_int_equal(errno, EINTR);
	}
	unlink(path);
}

/* A load of path, through a pipe when fifo, with o. */
static struct ksym_table *load_via(const char *path, bool fifo, struct ksym_parse_opts *o)
{
	return fifo ? load_piped(KSYM_FMT_KALLSYMS, path, o) :
		      ksym_table__load(KSYM_FMT_KALLSYMS, path, o);
}

/*
 * A filtered load reads through a small ring (one piece of it at a time when
 * read here, 64 KiB pieces from a second thread for a pipe), a whole one reads
 * into one range and keeps the names in place: each must give what parsing the
 * bytes in memory gives, lines split between pieces, a line longer than a
 * piece, line numbers of malformed lines and an unterminated last line too.
 */
static void test_pieces(void **state)
{
	static const char *const pre[] = { "pre_" };
	char path[] = "/tmp/ksym-pieces.XXXXXX", *buf, *big;
	const char **names = calloc(4097, sizeof(*names));
	struct ksym_parse_stats s_ref, s_got;
	size_t len, i, n = 0, k, kind;
	struct ksym a;
	FILE *f;
	int fd;

	(void)state;
	assert_non_null(names);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	for (i = 0, big = NULL; i < 90000; i++) {
		if (!big && ftell(f) > (2 << 20) - 100000) {
			/* ~200 KiB of one line, across the first 2 MiB read */
			big = malloc(200000);
			assert_non_null(big);
			memset(big, 'x', 199999);
			big[199999] = '\0';
			fprintf(f, "ffffffff81000000 T %s\n", big);
			free(big);
			big = path;
		}
		if (i % 1000 == 7)
			fprintf(f, "garbage line %zu\n", i);
		if (i % 1500 == 3)
			fprintf(f, "\n");
		fprintf(f, "ffffffff%08zx %c %s%zu%s%s\n", 0x81000000 + 16 * i,
			i % 3 ? 'T' : 'd', i % 5 ? "sym_" : "pre_", i,
			i >= 80000 ? (i % 2 ? "\t[mod_a]" : "\t[mod_b]") : "",
			i % 700 == 1 ? "\r" : "");
		if (i % 17 == 0 && n < 4096) {
			char *nm;

			assert_true(asprintf(&nm, "%s%s%zu", i % 51 ? "" : "mod_a:",
					     i % 5 ? "sym_" : "pre_", i) > 0);
			names[n++] = nm;
		}
	}
	fprintf(f, "ffffffffc0000000 T sym_last");	/* no '\n' */
	names[n++] = "sym_last";
	assert_int_equal(fclose(f), 0);
	assert_int_equal(ksym__read_file(path, &buf, &len), 0);
	assert_true(big && len > (2u << 20) + 300000);

	/* kind 0: names; 1: names and a prefix; 2: everything */
	for (kind = 0; kind < 3; kind++) {
		struct ksym_parse_opts o = { .sz = sizeof(o), .index = true, .stats = &s_ref };
		struct ksym_table *ref, *got;
		char *copy = malloc(len + 1);

		if (kind < 2) {
			o.names = names;
			o.name_cnt = n;
		}
		if (kind == 1) {
			o.prefixes = pre;
			o.prefix_cnt = 1;
		}
		assert_non_null(copy);
		memcpy(copy, buf, len + 1);
		ref = ksym_table__parse(KSYM_FMT_KALLSYMS, copy, len, &o);
		assert_non_null(ref);
		/* the 200 KiB line is malformed, filtered or not: past KSYM_LINE_MAX */
		assert_int_equal(s_ref.malformed, 91);
		for (k = 0; k < 2; k++) {
			o.stats = &s_got;
			got = load_via(path, k, &o);
			o.stats = &s_ref;
			assert_non_null(got);
			assert_int_equal(s_got.lines, s_ref.lines);
			assert_int_equal(s_got.symbols, s_ref.symbols);
			assert_int_equal(s_got.skipped, s_ref.skipped);
			assert_int_equal(s_got.malformed, s_ref.malformed);
			assert_memory_equal(s_got.bad_line, s_ref.bad_line, sizeof(s_ref.bad_line));
			assert_same_table(ref, got, names, n);
			assert_int_equal(ksym_table__find(got, "sym_last", NULL, &a, 1), 1);
			ksym_table__batch_end(got);
			ksym_table__free(got);
		}
		ksym_table__batch_end(ref);
		ksym_table__free(ref);
	}
	for (i = 0; i < n - 1; i++)
		free((char *)names[i]);
	free(names);
	free(buf);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kallsyms_basic),
		cmocka_unit_test(test_duplicates_and_batch),
		cmocka_unit_test(test_addr_lookup),
		cmocka_unit_test(test_sort_moves_indexed),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_all_zero),
		cmocka_unit_test(test_funcs_formats),
		cmocka_unit_test(test_resolve_join),
		cmocka_unit_test(test_glob),
		cmocka_unit_test(test_match),
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_kcore_read),
		cmocka_unit_test(test_kcore_sites),
		cmocka_unit_test(test_many_modules),
		cmocka_unit_test(test_prefixes),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_pieces),
		cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_fast_lines),
		cmocka_unit_test(test_name_scan),
	};

	return cmocka_run_group_tests_name("ksym", tests, NULL, NULL);
}
