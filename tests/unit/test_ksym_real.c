// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Every query cross-checked against a naive reference (sscanf per line, linear
 * scans) on real symbol tables: the VM kernels' captured files and the live
 * /proc/kallsyms. Files come from KSYM_DATA (decompressed fixtures).
 */
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

struct ref {
	uint64_t addr;
	char name[512];
	char mod[64];
	char type;
};

struct ref_table {
	struct ref *v;
	size_t n;
};

/* The naive reference: nothing shared with the code under test. */
static int ref_load(const char *path, bool kallsyms, struct ref_table *rt)
{
	FILE *f = fopen(path, "r");
	char line[1024];
	size_t cap = 0;

	if (!f)
		return -errno;
	rt->n = 0;
	rt->v = NULL;
	while (fgets(line, sizeof(line), f)) {
		struct ref r = {};
		int n;

		if (rt->n == cap) {
			cap = cap ? cap * 2 : 4096;
			rt->v = realloc(rt->v, cap * sizeof(*rt->v));
			assert_non_null(rt->v);
		}
		if (kallsyms)
			n = sscanf(line, "%lx %c %511s [%63[^]]]", &r.addr, &r.type, r.name, r.mod);
		else
			n = sscanf(line, "%lx %511s [%63[^]]]", &r.addr, r.name, r.mod) + 1;
		if (n < 3)
			continue;
		rt->v[rt->n++] = r;
	}
	fclose(f);
	return 0;
}

static bool same_mod(const char *ref_mod, const char *mod)
{
	return mod ? !strcmp(ref_mod, mod) : !ref_mod[0];
}

static int ref_cmp(const void *a, const void *b)
{
	const struct ref *x = a, *y = b;
	int c = strcmp(x->mod, y->mod);

	if (!c)
		c = strcmp(x->name, y->name);
	return c ? c : x->addr < y->addr ? -1 : x->addr > y->addr;
}

struct iter_ctx {
	const struct ksym *prev;
	struct ksym last;
	size_t n;
};

/* Every name no smaller than the one before; equal names in address order. */
static int iter_check(const struct ksym *s, void *ctx)
{
	struct iter_ctx *ic = ctx;

	if (ic->prev) {
		int c = strcmp(ic->last.name, s->name);

		if (c > 0 || (c == 0 && ic->last.addr > s->addr))
			fail_msg("name order broken at %s after %s", s->name, ic->last.name);
	}
	ic->last = *s;
	ic->prev = &ic->last;
	ic->n++;
	return 0;
}

/*
 * The cache's resolve section against the reference (rt sorted by module,
 * name, address): "mod:name" (":name" for vmlinux) is each group's lowest
 * address; plain names and misses as the table gives them. Then single flipped
 * bytes anywhere in the file: the list fails or comes back the same.
 */
static void resolve_check(const char *path, struct ksym_table *t, const struct ref_table *rt)
{
	struct ksym_cache_key key = { .boot_id = "test", .release = "test", .source = "test" };
	char dir[] = "/tmp/ksym-real-res.XXXXXX", file[64], cmd[96];
	size_t i, end, n = 0, groups = 0, flips = 0, noticed = 0;
	char **q = calloc(3 * rt->n + 1, sizeof(*q));
	struct ksym *want = calloc(3 * rt->n + 1, sizeof(*want));
	struct ksym *got = calloc(3 * rt->n + 1, sizeof(*got));
	struct ksym_answers *a;
	struct stat st;
	int fd;

	assert_true(q && want && got);
	assert_non_null(mkdtemp(dir));
	assert_int_equal(ksym_cache__store(dir, "c", &key, t), 0);
	for (i = 0; i < rt->n; i = end) {
		const struct ref *r = &rt->v[i];

		for (end = i; end < rt->n && !strcmp(rt->v[end].name, r->name) &&
			      !strcmp(rt->v[end].mod, r->mod); end++)
			;
		assert_true(asprintf(&q[n++], "%s:%s", r->mod, r->name) > 0);
		groups++;
	}
	for (i = 0; i < rt->n; i += 2)
		q[n++] = strdup(rt->v[i].name);
	for (i = 0; i < rt->n; i += 7)
		assert_true(asprintf(&q[n++], "%s_x", rt->v[i].name) > 0);
	assert_int_equal(ksym_table__batch_begin(t), 0);
	ksym_table__find_many(t, (const char *const *)q, n, want);
	ksym_table__batch_end(t);
	a = ksym_cache__resolve(dir, "c", &key, (const char *const *)q, n, got);
	assert_non_null(a);
	assert_true(same_answers(want, got, n));
	/* the module-qualified ones against the reference's lowest of each group */
	for (i = 0, end = 0; i < groups; i++) {
		const struct ref *r = &rt->v[end];

		assert_non_null(got[i].name);
		assert_int_equal(got[i].addr, r->addr);
		assert_true(same_mod(r->mod, got[i].module));
		while (end < rt->n && !strcmp(rt->v[end].name, r->name) &&
		       !strcmp(rt->v[end].mod, r->mod))
			end++;
	}
	ksym_answers__free(a);

	snprintf(file, sizeof(file), "%s/c", dir);
	assert_int_equal(stat(file, &st), 0);
	srand(7);
	for (flips = 0; flips < 48; flips++) {
		off_t off = ((off_t)rand() << 16 ^ rand()) % st.st_size;
		char c;

		fd = open(file, O_RDWR);
		assert_true(fd >= 0);
		assert_int_equal(pread(fd, &c, 1, off), 1);
		c ^= 1 << (flips % 8);
		assert_int_equal(pwrite(fd, &c, 1, off), 1);
		a = ksym_cache__resolve(dir, "c", &key, (const char *const *)q, n, got);
		if (a) {
			for (i = 0; i < n; i++) {
				assert_int_equal(!got[i].name, !want[i].name);
				assert_true(!got[i].name || got[i].addr == want[i].addr);
			}
		} else {
			assert_int_equal(errno, EBADMSG);
			noticed++;
		}
		ksym_answers__free(a);
		c ^= 1 << (flips % 8);
		assert_int_equal(pwrite(fd, &c, 1, off), 1);
		close(fd);
	}
	print_message("# %s: %zu names resolved from a cache file, %zu of %zu flips noticed\n",
		      path, n, noticed, flips);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
	for (i = 0; i < n; i++)
		free(q[i]);
	free(q);
	free(want);
	free(got);
}

static int pos_cmp(const void *a, const void *b, void *arg)
{
	const struct ref *v = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	if (v[x].addr != v[y].addr)
		return v[x].addr < v[y].addr ? -1 : 1;
	return x < y ? -1 : x > y;
}

/*
 * Addresses at, inside and just below every symbol: the symbol with the
 * greatest address not above it, the first listed of those sharing that
 * address; below the first, none. Walked in address order, not searched.
 */
static void addr_check(const struct ksym_table *t, const struct ref_table *rt)
{
	uint32_t *pos = malloc(rt->n * sizeof(*pos));
	const struct ref *prev = NULL, *r;
	size_t i, k;
	struct ksym got;

	assert_non_null(pos);
	for (i = 0; i < rt->n; i++)
		pos[i] = i;
	qsort_r(pos, rt->n, sizeof(*pos), pos_cmp, rt->v);
	for (i = 0; i < rt->n; i = k) {
		uint64_t mid;

		/* r: the first listed at this address; k: the next address's first */
		r = &rt->v[pos[i]];
		for (k = i + 1; k < rt->n && rt->v[pos[k]].addr == r->addr; k++)
			;
		mid = k < rt->n ? r->addr + (rt->v[pos[k]].addr - r->addr) / 2 : r->addr + 1;
		if (r->addr && !prev) {
			assert_int_equal(ksym_table__addr(t, r->addr - 1, &got), -ENOENT);
		} else if (r->addr) {
			assert_int_equal(ksym_table__addr(t, r->addr - 1, &got), 0);
			assert_int_equal(got.addr, prev->addr);
			assert_string_equal(got.name, prev->name);
			assert_true(same_mod(prev->mod, got.module));
		}
		assert_int_equal(ksym_table__addr(t, mid, &got), 0);
		assert_int_equal(got.addr, r->addr);
		assert_string_equal(got.name, r->name);
		assert_true(same_mod(r->mod, got.module));
		prev = r;
	}
	free(pos);
}

/*
 * The table as the cache keeps it (written in address order): the same symbols
 * in the same address order, sizes and modules, and the same address answers.
 */
static void cached_check(const struct ksym_table *t, const struct ref_table *rt)
{
	struct ksym_cache_key key = { .boot_id = "test", .release = "test", .source = "test" };
	char dir[] = "/tmp/ksym-real-order.XXXXXX", file[64];
	struct ksym_table *c;

	assert_non_null(mkdtemp(dir));
	assert_int_equal(ksym_cache__store(dir, "t", &key, t), 0);
	c = ksym_cache__load(dir, "t", &key);
	assert_non_null(c);
	assert_same_table(t, c, NULL, 0);
	addr_check(c, rt);
	ksym_table__free(c);
	snprintf(file, sizeof(file), "%s/t", dir);
	unlink(file);
	rmdir(dir);
}

/* Exact lookups (batch and scan), address lookups, a glob: all against the reference. */
/*
 * name -> every instance in the module, in address order, for each (module,
 * name) group of the reference (sorted by ref_cmp). Returns the groups checked.
 */
static size_t names_check(const struct ksym_table *t, const struct ref_table *rt)
{
	struct ksym got[64];
	uint64_t want[64];
	size_t i, j, end, checked = 0;

	for (i = 0; i < rt->n; i = end) {
		const struct ref *r = &rt->v[i];
		size_t nwant = 0;
		int n;

		for (end = i; end < rt->n && !strcmp(rt->v[end].name, r->name) &&
			      !strcmp(rt->v[end].mod, r->mod); end++)
			if (nwant < 64)
				want[nwant++] = rt->v[end].addr;
		n = ksym_table__find(t, r->name, r->mod[0] ? r->mod : "", got, 64);
		assert_int_equal(n, end - i);
		for (j = 0; j < nwant; j++) {
			assert_int_equal(got[j].addr, want[j]);
			assert_true(same_mod(r->mod, got[j].module));
			assert_string_equal(got[j].name, r->name);
		}
		checked++;
	}
	return checked;
}

static void cross_check(const char *path, enum ksym_format fmt, size_t scan_sample)
{
	struct ksym_table *t;
	struct ref_table rt = {};
	struct ksym got[64];
	size_t i, j, checked, unsorted = 0;

	if (access(path, R_OK)) {
		print_message("# %s: not readable here\n", path);
		skip();
	}
	assert_int_equal(ref_load(path, fmt == KSYM_FMT_KALLSYMS, &rt), 0);
	t = ksym_table__load(fmt, path, NULL);
	if (!t && errno == EPERM) {
		free(rt.v);
		print_message("# %s: addresses hidden (kptr_restrict)\n", path);
		skip();
	}
	assert_non_null(t);
	assert_int_equal(ksym_table__cnt(t), rt.n);
	assert_int_equal(ksym_table__batch_begin(t), 0);
	/* address -> a symbol at exactly that address, for every symbol */
	for (i = 0; i < rt.n; i++) {
		assert_int_equal(ksym_table__addr(t, rt.v[i].addr, &got[0]), 0);
		assert_int_equal(got[0].addr, rt.v[i].addr);
	}
	addr_check(t, &rt);
	cached_check(t, &rt);
	/* file order, before the reference is sorted: how many entries must move */
	for (i = 1; i < rt.n; i++)
		unsorted += rt.v[i].addr < rt.v[i - 1].addr;
	qsort(rt.v, rt.n, sizeof(*rt.v), ref_cmp);
	checked = names_check(t, &rt);
	ksym_table__batch_end(t);
	/*
	 * The index built while parsing names entries in file order; finishing
	 * moves the unsorted ones into address order and renames them in it.
	 */
	if (fmt == KSYM_FMT_KALLSYMS) {
		struct ksym_parse_opts o = { .sz = sizeof(o), .index = true };
		struct ksym_table *ti = ksym_table__load(fmt, path, &o);

		assert_non_null(ti);
		assert_int_equal(ksym_table__batch_begin(ti), 0);
		assert_int_equal(names_check(ti, &rt), checked);
		assert_same_table(t, ti, NULL, 0);
		ksym_table__batch_end(ti);
		ksym_table__free(ti);
	}
	resolve_check(path, t, &rt);

	/* the scan path (no batch) agrees with the index on a sample */
	for (i = 0; i < rt.n; i += rt.n / scan_sample + 1) {
		struct ksym a[8], b[8];
		int na, nb;

		na = ksym_table__find(t, rt.v[i].name, NULL, a, 8);
		assert_int_equal(ksym_table__batch_begin(t), 0);
		nb = ksym_table__find(t, rt.v[i].name, NULL, b, 8);
		ksym_table__batch_end(t);
		assert_int_equal(na, nb);
		for (j = 0; j < (size_t)na && j < 8; j++)
			assert_int_equal(a[j].addr, b[j].addr);
	}
	/* name order: the same sequence as the reference sorted by (module, name) */
	{
		struct iter_ctx ic = { .prev = NULL, .n = 0 };

		assert_int_equal(ksym_table__iter_names(t, iter_check, &ic), 0);
		assert_int_equal(ic.n, rt.n);
	}
	print_message("# %s: %zu symbols, %zu names checked, %zu out of address order\n", path,
		      rt.n, checked, unsorted);
	free(rt.v);
	ksym_table__free(t);
}

static char *data_path(const char *series, const char *file)
{
	static char buf[4][512];
	static int slot;
	const char *dir = getenv("KSYM_DATA");

	slot = (slot + 1) % 4;
	snprintf(buf[slot], sizeof(buf[slot]), "%s/%s/%s", dir ? dir : "build/data", series,
		 file);
	return buf[slot];
}

static void test_612_kallsyms(void **s)
{
	(void)s;
	cross_check(data_path("6.12", "kallsyms"), KSYM_FMT_KALLSYMS, 200);
}

static void test_612_funcs_addrs(void **s)
{
	(void)s;
	cross_check(data_path("6.12", "available_filter_functions_addrs"), KSYM_FMT_FUNCS_ADDRS,
		    200);
}

static void test_61_kallsyms(void **s)
{
	(void)s;
	cross_check(data_path("6.1", "kallsyms"), KSYM_FMT_KALLSYMS, 200);
}

static void test_live_kallsyms(void **s)
{
	(void)s;
	cross_check("/proc/kallsyms", KSYM_FMT_KALLSYMS, 200);
}

/*
 * The i-th symbol at or after *i that is no BPF program's (they come and go)
 * nor a trampoline's (the kernel's table in memory has none).
 */
static bool next_non_bpf(const struct ksym_table *t, size_t *i, struct ksym *out)
{
	for (; *i < ksym_table__cnt(t); ++*i) {
		ksym_table__at(t, *i, out);
		if (!out->module ||
		    (strcmp(out->module, "bpf") && strncmp(out->module, "__builtin__", 11)))
			return true;
	}
	return false;
}

/*
 * A live source's table is /proc/kallsyms' symbol for symbol, whole and filtered
 * (where this host lets root read it: the ksym iterator, or the kernel's table
 * through /proc/kcore).
 */
static void source_equals_kallsyms(struct ksym_table *(*load)(const struct ksym_parse_opts *),
				   const char *what, const struct ksym_parse_opts *o)
{
	struct ksym_table *it, *ka;
	struct ksym a, b;
	size_t i = 0, j = 0, n = 0;

	it = load(o);
	if (!it) {
		int err = errno;

		/* only a host without the source may pass it by; any other error fails */
		if (err != ENOENT && err != EOPNOTSUPP && err != EPERM && err != EACCES)
			fail_msg("%s: %s", what, strerror(err));
		print_message("# no %s here: %s\n", what, strerror(err));
		/* (cmocka's TAP prints a skip as "not ok", which prove counts failed) */
		if (load == ksym_table__load_kmem)
			return;
		skip();
	}
	ka = ksym_table__load(KSYM_FMT_KALLSYMS, "/proc/kallsyms", o);
	assert_non_null(ka);
	for (;; i++, j++, n++) {
		bool more_a = next_non_bpf(it, &i, &a), more_b = next_non_bpf(ka, &j, &b);

		assert_int_equal(more_a, more_b);
		if (!more_a)
			break;
		assert_int_equal(a.addr, b.addr);
		assert_int_equal(a.type, b.type);
		assert_string_equal(a.name, b.name);
		assert_string_equal(a.module ? a.module : "", b.module ? b.module : "");
	}
	print_message("# %s: %zu symbols as /proc/kallsyms%s\n", what, n,
		      o && o->prefixes ? " (filtered)" : "");
	assert_true(n > (o && o->prefixes ? 10 : 10000));
	ksym_table__free(it);
	ksym_table__free(ka);
}

static void test_live_iter(void **s)
{
	static const char *const prefixes[] = { "vfs_", "e", "__x64_sys_" };
	static const char *const names[] = { "schedule", "ext4:ext4_fill_super", "kfree" };
	struct ksym_parse_opts o = { .sz = sizeof(o), .text_only = true, .prefixes = prefixes,
				     .prefix_cnt = 3, .names = names, .name_cnt = 3 };

	(void)s;
	source_equals_kallsyms(ksym_table__load_iter, "ksym iterator", NULL);
	source_equals_kallsyms(ksym_table__load_iter, "ksym iterator", &o);
}

/*
 * The kernel's table read from its memory: text symbols only. A host without
 * /proc/kcore or without the table in its VMCOREINFO (this project's) passes
 * it by, saying so; any other error fails. The VM tests compare it there.
 */
static void test_live_kmem(void **s)
{
	static const char *const prefixes[] = { "vfs_", "e", "__x64_sys_" };
	static const char *const names[] = { "schedule", "ext4:ext4_fill_super", "kfree" };
	struct ksym_parse_opts o = { .sz = sizeof(o), .text_only = true };

	(void)s;
	source_equals_kallsyms(ksym_table__load_kmem, "kernel table in memory", &o);
	o.prefixes = prefixes;
	o.prefix_cnt = 3;
	o.names = names;
	o.name_cnt = 3;
	source_equals_kallsyms(ksym_table__load_kmem, "kernel table in memory", &o);
}

/*
 * A file read as it is produced (here a pipe fed in odd-sized pieces, so lines
 * break across reads) is read by a second thread: the same table as the file
 * read by the caller's, with and without a name filter.
 */
static void streamed_equals_whole(const char *path, const char *const *names, size_t n)
{
	struct ksym_parse_opts o = { .sz = sizeof(o), .index = true, .names = names,
				     .name_cnt = n };
	struct ksym_table *whole, *streamed;

	whole = ksym_table__load(KSYM_FMT_KALLSYMS, path, names ? &o : NULL);
	assert_non_null(whole);
	streamed = load_piped(KSYM_FMT_KALLSYMS, path, names ? &o : NULL);
	assert_non_null(streamed);
	assert_same_table(whole, streamed, names, n);
	print_message("# %s streamed through a pipe: %zu symbols%s\n", path,
		      ksym_table__cnt(whole), names ? " (names kept)" : "");
	ksym_table__free(whole);
	ksym_table__free(streamed);
}

static void test_612_streamed(void **s)
{
	static const char *const names[] = { "vfs_read", "do_sys_open", "s_show", "nope" };

	(void)s;
	streamed_equals_whole(data_path("6.12", "kallsyms"), NULL, 0);
	streamed_equals_whole(data_path("6.12", "kallsyms"), names, 4);
}

/*
 * The join (6.1: names only) must give the same address set as the kernel's own
 * name+address list does on 6.12, where both files exist from one boot.
 */
static void test_612_join_equals_addrs(void **s)
{
	struct ksym_table *funcs, *kall, *addrs;
	struct ksym a, b, hit[64];
	size_t i, exact = 0, ibt = 0, ambiguous = 0;
	int left;

	(void)s;
	kall = ksym_table__load(KSYM_FMT_KALLSYMS, data_path("6.12", "kallsyms"), NULL);
	funcs = ksym_table__load(KSYM_FMT_FUNCS, data_path("6.12", "available_filter_functions"),
				 NULL);
	addrs = ksym_table__load(KSYM_FMT_FUNCS_ADDRS,
				 data_path("6.12", "available_filter_functions_addrs"), NULL);
	assert_non_null(kall);
	assert_non_null(funcs);
	assert_non_null(addrs);
	left = ksym_table__resolve(funcs, kall);
	assert_true(left >= 0);
	assert_int_equal(ksym_table__cnt(funcs), ksym_table__cnt(addrs));
	assert_int_equal(ksym_table__batch_begin(addrs), 0);
	for (i = 0; i < ksym_table__cnt(funcs); i++) {
		int n, j;
		bool found = false;

		ksym_table__at(funcs, i, &a);
		if (a.flags & KSYM_F_UNRESOLVED)
			continue;
		n = ksym_table__find(addrs, a.name, a.module ? a.module : "", hit, 64);
		assert_true(n >= 1);
		/* the ftrace location is the symbol, or just past its ENDBR64 */
		for (j = 0; j < n && j < 64; j++) {
			if (hit[j].addr == a.addr)
				exact++, found = true;
			else if (hit[j].addr == a.addr + 4)
				ibt++, found = true;
			if (found)
				break;
		}
		if (!found && (a.flags & KSYM_F_AMBIGUOUS)) {
			ambiguous++;
		} else if (!found) {
			b = hit[0];
			fail_msg("%s: join gave %lx, ftrace lists %lx", a.name, (long)a.addr,
				 (long)b.addr);
		}
	}
	ksym_table__batch_end(addrs);
	print_message("# 6.12 join: %zu exact, %zu at +4 (IBT), %zu ambiguous guessed wrong, "
		      "%d unresolved\n", exact, ibt, ambiguous, left);
	assert_true(left < 50);
	ksym_table__free(funcs);
	ksym_table__free(kall);
	ksym_table__free(addrs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_612_kallsyms),
		cmocka_unit_test(test_612_funcs_addrs),
		cmocka_unit_test(test_61_kallsyms),
		cmocka_unit_test(test_live_kallsyms),
		cmocka_unit_test(test_live_iter),
		cmocka_unit_test(test_live_kmem),
		cmocka_unit_test(test_612_join_equals_addrs),
		cmocka_unit_test(test_612_streamed),
	};

	return cmocka_run_group_tests_name("ksym-real", tests, NULL, NULL);
}
