// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The build cache (cache/build.c): a table stored as offsets for one boot's
 * layout, rebased onto another's, must answer every query as a table parsed
 * from that boot's addresses does; a file that is not exactly what was stored
 * must not load. The layouts are made up here: ksym_build__export/import read
 * the running kernel's, and are not tested.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <linux/btf.h>
#include <sys/mman.h>

#include <ksym/ksym.h>
#include "ksym_internal.h"
#include "ksym_build.h"
#include "helpers.h"

static char dir[] = "/tmp/ksym-build-test.XXXXXX";

/* One function: its offset from its base (_text, or its module's text). */
struct spec {
	uint64_t off;
	const char *name;
	const char *mod;	/* NULL: vmlinux */
};

/*
 * Out of order, duplicates in a group and across groups, two names at one
 * address, a function at its module's base, a module above another's offsets.
 */
static const struct spec specs[] = {
	{ 0x200000, "schedule", NULL },
	{ 0x1000, "do_one_initcall", NULL },
	{ 0x1100, "dup", NULL },
	{ 0x1100, "dup_alias", NULL },
	{ 0x2000, "vfs_read", NULL },
	{ 0x2040, "vfs_write", NULL },
	{ 0x3000, "dup", NULL },
	{ 0x10, "v9fs_init", "9p" },
	{ 0x40, "dup", "9p" },
	{ 0x80, "p9_foo", "9p" },
	{ 0x80, "p9_foo_alias", "9p" },
	{ 0xc0, "cleanup_module", "9p" },
	{ 0x0, "ext4_fill_super", "ext4" },
	{ 0x100, "dup", "ext4" },
	{ 0x200, "cleanup_module", "ext4" },
	{ 0x300, "ext4_read", "ext4" },
	{ 0x1000, "dup", "xfs" },
	{ 0x20, "xfs_read", "xfs" },
	{ 0x30, "cleanup_module", "xfs" },
};
#define SPEC_N (sizeof(specs) / sizeof(specs[0]))

#define TEXT_A 0xffffffff81000000ull
#define ID_A 0x11
#define ID_OTHER 0x77

/*
 * A: the storing boot. B: every base elsewhere, the modules in A's order.
 * C: the modules in another order (the copy path). The 9p/ext4/xfs IDs are
 * the same in every layout unless a test changes one.
 */
static struct ksym_layout_mod mods_a[3], mods_b[3], mods_c[3];
static struct ksym_layout la, lb, lc;

static void set_id(uint8_t *id, uint8_t seed, size_t len)
{
	size_t i;

	memset(id, 0, KSYM_BUILD_ID_MAX);
	for (i = 0; i < len; i++)
		id[i] = seed + 0x3b * i;
}

static struct ksym_layout_mod mod_of(const char *name, uint8_t seed, uint64_t base)
{
	struct ksym_layout_mod m = { .id_len = KSYM_BUILD_ID_MAX, .base = base };

	snprintf(m.name, sizeof(m.name), "%s", name);
	set_id(m.id, seed, m.id_len);
	return m;
}

static struct ksym_layout layout_of(uint8_t seed, uint64_t text, struct ksym_layout_mod *mods,
				    size_t n)
{
	struct ksym_layout l = { .id_len = KSYM_BUILD_ID_MAX, .text = text, .mods = mods,
				 .mod_cnt = n };

	set_id(l.id, seed, l.id_len);
	return l;
}

static void make_layouts(void)
{
	mods_a[0] = mod_of("9p", 0x90, 0xffffffffc0001000ull);
	mods_a[1] = mod_of("ext4", 0xe4, 0xffffffffc0100000ull);
	mods_a[2] = mod_of("xfs", 0xf5, 0xffffffffc0200000ull);
	la = layout_of(ID_A, TEXT_A, mods_a, 3);
	/* listed in another order than by base: only the bases' order counts */
	mods_b[0] = mod_of("xfs", 0xf5, 0xffffffffc0f00000ull);
	mods_b[1] = mod_of("9p", 0x90, 0xffffffffc0a00000ull);
	mods_b[2] = mod_of("ext4", 0xe4, 0xffffffffc0b10000ull);
	lb = layout_of(ID_A, 0xffffffff9a200000ull, mods_b, 3);
	/* by base: xfs, 9p, ext4, where A has 9p, ext4, xfs */
	mods_c[0] = mod_of("9p", 0x90, 0xffffffffc0600000ull);
	mods_c[1] = mod_of("ext4", 0xe4, 0xffffffffc0800000ull);
	mods_c[2] = mod_of("xfs", 0xf5, 0xffffffffc0400000ull);
	lc = layout_of(ID_A, 0xffffffff8c400000ull, mods_c, 3);
}

static const struct ksym_layout_mod *find_mod(const struct ksym_layout *l, const char *name)
{
	size_t i;

	for (i = 0; i < l->mod_cnt; i++)
		if (!strcmp(l->mods[i].name, name))
			return &l->mods[i];
	return NULL;
}

/*
 * The functions at l's addresses, as available_filter_functions_addrs lists
 * them; a module only where l has it with A's build of it (what a rebase
 * onto l resolves).
 */
static char *text_of(const struct ksym_layout *l, const struct spec *s, size_t n, size_t *len)
{
	size_t cap = 64 + n * 128, off = 0, i;
	char *buf = malloc(cap);

	assert_non_null(buf);
	buf[0] = '\0';
	for (i = 0; i < n; i++) {
		const struct ksym_layout_mod *m = s[i].mod ? find_mod(l, s[i].mod) : NULL;
		const struct ksym_layout_mod *ma = s[i].mod ? find_mod(&la, s[i].mod) : NULL;

		if (s[i].mod && (!m || !ma || m->id_len != ma->id_len ||
				 memcmp(m->id, ma->id, m->id_len)))
			continue;
		off += snprintf(buf + off, cap - off, "%016llx %s%s%s%s\n",
				(unsigned long long)((m ? m->base : l->text) + s[i].off), s[i].name,
				m ? " [" : "", m ? m->name : "", m ? "]" : "");
	}
	*len = off;
	return buf;
}

static struct ksym_table *parse_text(char *buf, size_t len)
{
	struct ksym_table *t = ksym_table__parse(KSYM_FMT_FUNCS_ADDRS, buf, len, NULL);

	assert_non_null(t);
	return t;
}

/* The reference: the functions parsed from l's addresses, the normal way. */
static struct ksym_table *ref_of(const struct ksym_layout *l)
{
	size_t len;
	char *buf = text_of(l, specs, SPEC_N, &len);

	return parse_text(buf, len);
}

static char *path_of(const char *name)
{
	static char p[2][512];
	static int n;

	n ^= 1;
	snprintf(p[n], sizeof(p[n]), "%s/%s", dir, name);
	return p[n];
}

static char *build_path(const struct ksym_layout *l)
{
	char name[64];

	ksym_build__name(l, name, sizeof(name));
	return path_of(name);
}

static const uint64_t no_anchors[KSYM_ANCHOR_CNT];

/* The modules the last load did not know, as it names them. */
static char unknown_names[160];

static struct ksym_table *build_load(const char *from, struct ksym_layout *l,
				     uint64_t *anchors, size_t *unknown)
{
	memset(unknown_names, 'x', sizeof(unknown_names));
	return ksym_build__load(from, l, anchors, unknown, unknown_names, sizeof(unknown_names));
}

/* A's table stored for A (with anchors a, or none). */
static void store_a(const uint64_t *a)
{
	struct ksym_table *t = ref_of(&la);

	assert_int_equal(ksym_build__store(dir, &la, t, a ? a : no_anchors, "test"), 0);
	ksym_table__free(t);
}

/* ---- comparing a loaded table with its reference ---- */

static bool same_sym(const struct ksym *a, const struct ksym *b)
{
	return a->addr == b->addr && a->size == b->size && a->type == b->type &&
	       a->flags == b->flags && !strcmp(a->name, b->name) &&
	       (a->module == b->module || (a->module && b->module && !strcmp(a->module, b->module)));
}

static bool why(const char *what, const char *q, const struct ksym *a, const struct ksym *b)
{
	print_error("%s %s: got %s [%s] %llx/%llx %x, want %s [%s] %llx/%llx %x\n", what,
		    q ? q : "", a ? a->name : "-", a && a->module ? a->module : "",
		    a ? (unsigned long long)a->addr : 0, a ? (unsigned long long)a->size : 0,
		    a ? a->flags : 0, b ? b->name : "-", b && b->module ? b->module : "",
		    b ? (unsigned long long)b->addr : 0, b ? (unsigned long long)b->size : 0,
		    b ? b->flags : 0);
	return false;
}

/* What find gives in t, its module's unresolved entries (address 0, first) left out. */
static int find_resolved(const struct ksym_table *t, const char *q, const char *mod,
			 struct ksym *out, size_t max)
{
	int n = ksym_table__find(t, q, mod, out, max), k = 0, i;

	if (n < 0)
		return n;
	if ((size_t)n > max)
		return -E2BIG;	/* more than the tests ever look for */
	for (i = 0; i < n; i++)
		if (!(out[i].flags & KSYM_F_UNRESOLVED))
			out[k++] = out[i];
	return k;
}

#define MAXHIT 16

static int sym_cmp(const void *x, const void *y)
{
	const struct ksym *a = x, *b = y;
	int c;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	c = strcmp(a->name, b->name);
	return c ? c : strcmp(a->module ? a->module : "", b->module ? b->module : "");
}

/*
 * find gives got what it gives ref: the same symbols (of several with the name,
 * compared as sets: which comes first is test_find_order's), the same count.
 */
static bool same_find(const struct ksym_table *got, const struct ksym_table *ref, const char *q,
		      const char *mod)
{
	struct ksym a[MAXHIT], b[MAXHIT];
	int na = find_resolved(got, q, mod, a, MAXHIT), nb = ksym_table__find(ref, q, mod, b, MAXHIT);
	int i;

	if (na != nb)
		return why("find count", q, NULL, NULL);
	qsort(a, na, sizeof(a[0]), sym_cmp);
	qsort(b, nb, sizeof(b[0]), sym_cmp);
	for (i = 0; i < na; i++)
		if (!same_sym(&a[i], &b[i]))
			return why("find", q, &a[i], &b[i]);
	return true;
}

/* The same, in the order find gives them (the lowest-addressed first), and alone. */
static bool same_find_order(const struct ksym_table *got, const struct ksym_table *ref,
			    const char *q)
{
	struct ksym a[MAXHIT], b[MAXHIT];
	int na = ksym_table__find(got, q, NULL, a, MAXHIT), nb = ksym_table__find(ref, q, NULL, b, MAXHIT);
	int i;

	if (na != nb)
		return why("find count", q, NULL, NULL);
	for (i = 0; i < na && i < MAXHIT; i++)
		if (!same_sym(&a[i], &b[i]))
			return why("find order", q, &a[i], &b[i]);
	if (nb > 0 && (ksym_table__find(got, q, NULL, a, 1) != nb || !same_sym(&a[0], &b[0])))
		return why("find first", q, &a[0], &b[0]);
	return true;
}

struct hits {
	struct ksym s[64];
	size_t n;
};

static int collect(const struct ksym *s, void *ctx)
{
	struct hits *h = ctx;

	if (s->flags & KSYM_F_UNRESOLVED)
		return 0;
	if (h->n == 64)
		return -E2BIG;
	h->s[h->n++] = *s;
	return 0;
}

static bool same_match(const struct ksym_table *got, const struct ksym_table *ref, const char *g)
{
	struct hits a = { .n = 0 }, b = { .n = 0 };
	size_t i;

	if (ksym_table__match(got, g, collect, &a) || ksym_table__match(ref, g, collect, &b))
		return why("match failed", g, NULL, NULL);
	if (a.n != b.n)
		return why("match count", g, NULL, NULL);
	for (i = 0; i < a.n; i++)
		if (!same_sym(&a.s[i], &b.s[i]))
			return why("match", g, &a.s[i], &b.s[i]);
	return true;
}

static bool same_addr(const struct ksym_table *got, const struct ksym_table *ref, uint64_t addr)
{
	struct ksym a, b;
	int ra = ksym_table__addr(got, addr, &a), rb = ksym_table__addr(ref, addr, &b);
	char q[32];

	snprintf(q, sizeof(q), "%llx", (unsigned long long)addr);
	if (ra != rb)
		return why("addr rc", q, ra ? NULL : &a, rb ? NULL : &b);
	if (!ra && (!same_sym(&a, &b) || (a.flags & KSYM_F_UNRESOLVED)))
		return why("addr", q, &a, &b);
	return true;
}

static const char *const misses[] = {
	"nope", "9p:vfs_read", "nfs:dup", ":cleanup_module", "dup_", "", "xfs:", ":", "du",
};
static const char *const globs[] = {
	"*", "vfs_*", "9p:*", ":dup*", "*_read", "dup", "ext4:cleanup_?odule", "xfs:*", ":*",
	"*[_]alias", "nfs:*", "*:*",
};
static const char *const mod_args[] = { "", "9p", "ext4", "xfs", "nfs" };

/*
 * got answers as ref does, every query: its first unres entries unresolved
 * (address 0, a module the rebase did not know), the rest ref's, entry for
 * entry. False (with a message) at the first difference.
 */
static bool rebased_as(const struct ksym_table *got, const struct ksym_table *ref, size_t unres)
{
	/* names of one symbol each (or none): which of several is test_find_order's */
	static const char *const many[] = { "vfs_read", "9p:dup", "nope", "xfs:cleanup_module",
					    "ext4_fill_super", "dup_alias", "p9_foo_alias" };
	size_t n = ksym_table__cnt(ref), i, j;
	struct ksym a, b, fa[7], fb[7];
	uint64_t prev = 0;
	char q[160];

	if (ksym_table__cnt(got) != n + unres)
		return why("count", NULL, NULL, NULL);
	for (i = 0; i < n + unres; i++) {
		if (ksym_table__at(got, i, &a))
			return why("at", NULL, NULL, NULL);
		if (a.addr < prev)
			return why("at: not in address order", NULL, &a, NULL);
		prev = a.addr;
		if (i < unres) {
			if (!(a.flags & KSYM_F_UNRESOLVED) || a.addr || !a.module)
				return why("unresolved", NULL, &a, NULL);
			continue;
		}
		assert_int_equal(ksym_table__at(ref, i - unres, &b), 0);
		if (!same_sym(&a, &b))
			return why("at", NULL, &a, &b);
	}
	if (ksym_table__at(got, n + unres, &a) != -ERANGE)
		return why("at past the end", NULL, NULL, NULL);
	for (i = 0; i < n; i++) {
		assert_int_equal(ksym_table__at(ref, i, &b), 0);
		if (!same_find(got, ref, b.name, NULL))
			return false;
		snprintf(q, sizeof(q), "%s:%s", b.module ? b.module : "", b.name);
		if (!same_find(got, ref, q, NULL))
			return false;
		for (j = 0; j < sizeof(mod_args) / sizeof(mod_args[0]); j++)
			if (!same_find(got, ref, b.name, mod_args[j]))
				return false;
		/* at, inside, below, at the end of each */
		if (!same_addr(got, ref, b.addr) || !same_addr(got, ref, b.addr + 1) ||
		    !same_addr(got, ref, b.addr - 1) || !same_addr(got, ref, b.addr + b.size) ||
		    (b.size && !same_addr(got, ref, b.addr + b.size - 1)))
			return false;
	}
	for (i = 0; i < sizeof(misses) / sizeof(misses[0]); i++)
		if (!same_find(got, ref, misses[i], NULL))
			return false;
	for (i = 0; i < sizeof(globs) / sizeof(globs[0]); i++)
		if (!same_match(got, ref, globs[i]))
			return false;
	if (!same_addr(got, ref, 0) || !same_addr(got, ref, 1) || !same_addr(got, ref, UINT64_MAX) ||
	    !same_addr(got, ref, TEXT_A) || !same_addr(got, ref, 0xffffffffc0000000ull))
		return false;
	if (!unres) {
		/* a list at once, and inside a batch */
		if (ksym_table__batch_begin((struct ksym_table *)got) ||
		    ksym_table__batch_begin((struct ksym_table *)ref))
			return why("batch", NULL, NULL, NULL);
		ksym_table__find_many(got, many, 7, fa);
		ksym_table__find_many(ref, many, 7, fb);
		ksym_table__batch_end((struct ksym_table *)got);
		ksym_table__batch_end((struct ksym_table *)ref);
		if (!same_answers(fb, fa, 7))
			return why("find_many", NULL, NULL, NULL);
	}
	return true;
}

static struct ksym_table *load(struct ksym_layout *l, size_t *unknown)
{
	uint64_t a[KSYM_ANCHOR_CNT];
	size_t u = 12345;
	struct ksym_table *t = build_load(dir, l, a, unknown ? unknown : &u);

	return t;
}

/* ---- the tests ---- */

/* Stored for A, loaded for B: every address moves by its own base's shift. */
static void test_rebase_same_order(void **state)
{
	struct ksym_table *ref_b = ref_of(&lb), *ref_a = ref_of(&la), *t, *c;
	struct ksym_cache_key k = { .boot_id = "b", .release = "r", .source = "s" };
	struct ksym s, r;
	size_t unknown = 99, i;
	struct stat st;

	(void)state;
	store_a(NULL);
	assert_int_equal(stat(build_path(&la), &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(st.st_mode & 0777, 0600);
	t = load(&lb, &unknown);
	assert_non_null(t);
	assert_int_equal(unknown, 0);
	assert_string_equal(unknown_names, "");
	/* the modules in the file's order: used where it is mapped */
	assert_true(t->mod_base && !t->order);
	assert_true(rebased_as(t, ref_b, 0));
	/* each address is the old one moved by its base's shift */
	for (i = 0; i < ksym_table__cnt(t); i++) {
		uint64_t from, to;

		assert_int_equal(ksym_table__at(t, i, &s), 0);
		assert_int_equal(ksym_table__at(ref_a, i, &r), 0);
		from = r.module ? find_mod(&la, r.module)->base : la.text;
		to = r.module ? find_mod(&lb, r.module)->base : lb.text;
		assert_int_equal(s.addr, r.addr - from + to);
		assert_string_equal(s.name, r.name);
	}
	/* the /run cache of a rebased table holds this boot's addresses */
	assert_int_equal(ksym_cache__store(dir, "run", &k, t), 0);
	c = ksym_cache__load(dir, "run", &k);
	assert_non_null(c);
	assert_true(rebased_as(c, ref_b, 0));
	ksym_table__free(c);
	ksym_table__free(t);
	/* and loaded for A itself */
	t = load(&la, &unknown);
	assert_non_null(t);
	assert_non_null(t->mod_base);
	assert_true(rebased_as(t, ref_a, 0));
	ksym_table__free(t);
	ksym_table__free(ref_a);
	ksym_table__free(ref_b);
}

/* The modules in another order: the groups are moved, the answers the same. */
static void test_rebase_swapped(void **state)
{
	struct ksym_table *ref = ref_of(&lc), *t;
	struct ksym_layout_mod m[3];
	struct ksym_layout l;
	size_t unknown = 99;

	(void)state;
	store_a(NULL);
	t = load(&lc, &unknown);
	assert_non_null(t);
	assert_int_equal(unknown, 0);
	assert_string_equal(unknown_names, "");
	/* used where it is mapped, through an order of positions */
	assert_true(t->mod_base && t->order);
	assert_true(rebased_as(t, ref, 0));
	ksym_table__free(t);
	ksym_table__free(ref);
	/* vmlinux above the modules, as arm64 places them: vmlinux's group last */
	memcpy(m, mods_b, sizeof(m));
	l = lb;
	l.mods = m;
	l.text = 0xffffffffc2000000ull;
	ref = ref_of(&l);
	t = load(&l, &unknown);
	assert_non_null(t);
	assert_true(t->mod_base && t->order);
	assert_true(rebased_as(t, ref, 0));
	ksym_table__free(t);
	ksym_table__free(ref);
	/* between two modules: the same */
	l.text = 0xffffffffc0c00000ull;	/* between ext4 and xfs */
	ref = ref_of(&l);
	t = load(&l, &unknown);
	assert_non_null(t);
	assert_true(rebased_as(t, ref, 0));
	ksym_table__free(t);
	ksym_table__free(ref);
	/* overlapping a module: refused rather than answered out of order */
	l.text = m[0].base - 0x100;
	t = load(&l, &unknown);
	assert_null(t);
	assert_int_equal(errno, ESTALE);
	/* two modules overlapping: the same */
	m[1].base = m[2].base + 0x10;
	l.text = lb.text;
	t = load(&l, &unknown);
	assert_null(t);
	assert_int_equal(errno, ESTALE);
}

/*
 * A module the layout lacks, or has another build of: its entries stay, at 0
 * and unresolved, and no address finds them; *unknown counts the layout's
 * modules that the file lacks.
 */
static void test_missing_module(void **state)
{
	struct ksym_layout_mod m[4];
	struct ksym_layout l = lb;
	struct ksym_table *ref, *t;
	struct ksym s;
	uint64_t a[KSYM_ANCHOR_CNT];
	size_t unknown = 99, i, n;

	(void)state;
	store_a(NULL);
	/* 9p as in B, ext4 gone, xfs another build, nfs not in the file */
	m[0] = mods_b[1];
	m[1] = mods_b[0];
	m[1].id[3] ^= 1;
	m[2] = mod_of("nfs", 0x33, 0xffffffffc3000000ull);
	l.mods = m;
	l.mod_cnt = 3;
	ref = ref_of(&l);
	t = load(&l, &unknown);
	assert_non_null(t);
	assert_int_equal(unknown, 2);	/* nfs, and xfs of another build */
	assert_string_equal(unknown_names, "xfs, nfs");
	assert_true(t->mod_base && t->order);
	n = 0;
	for (i = 0; i < SPEC_N; i++)
		n += specs[i].mod && strcmp(specs[i].mod, "9p");
	assert_true(rebased_as(t, ref, n));
	for (i = 0; i < n; i++) {
		assert_int_equal(ksym_table__at(t, i, &s), 0);
		assert_true(!strcmp(s.module, "ext4") || !strcmp(s.module, "xfs"));
	}
	/* found by name, unresolved; never by address */
	assert_int_equal(ksym_table__find(t, "ext4:ext4_read", NULL, &s, 1), 1);
	assert_true(s.flags & KSYM_F_UNRESOLVED);
	assert_int_equal(s.addr, 0);
	for (i = 0; i < SPEC_N; i++) {
		uint64_t a = specs[i].off + (specs[i].mod ? find_mod(&lb, specs[i].mod)->base : lb.text);

		if (!ksym_table__addr(t, a, &s))
			assert_false(s.flags & KSYM_F_UNRESOLVED);
	}
	assert_int_equal(ksym_table__addr(t, 0, &s), -ENOENT);
	ksym_table__free(t);
	ksym_table__free(ref);

	/* a module without a build ID now is not the file's either */
	memcpy(m, mods_b, sizeof(mods_b));
	m[2].id_len = 0;
	l.mod_cnt = 3;
	ref = ref_of(&l);
	t = load(&l, &unknown);
	assert_non_null(t);
	assert_int_equal(unknown, 1);
	assert_string_equal(unknown_names, "ext4");
	assert_true(rebased_as(t, ref, 4));
	ksym_table__free(t);
	ksym_table__free(ref);

	/* every module of the file and one more: in place, one unknown */
	memcpy(m, mods_b, sizeof(mods_b));
	m[3] = mod_of("nfs", 0x33, 0xffffffffc3000000ull);
	l.mod_cnt = 4;
	ref = ref_of(&l);
	t = load(&l, &unknown);
	assert_non_null(t);
	assert_int_equal(unknown, 1);
	assert_string_equal(unknown_names, "nfs");
	assert_non_null(t->mod_base);
	assert_true(rebased_as(t, ref, 0));
	ksym_table__free(t);
	/* no room for the names: none written */
	t = ksym_build__load(dir, &l, a, &unknown, NULL, 0);
	assert_non_null(t);
	assert_int_equal(unknown, 1);
	ksym_table__free(t);
	ksym_table__free(ref);

	/* no module at all now: vmlinux only, every module's entries unresolved */
	l.mod_cnt = 0;
	ref = ref_of(&l);
	t = load(&l, &unknown);
	assert_non_null(t);
	assert_int_equal(unknown, 0);
	assert_string_equal(unknown_names, "");
	assert_true(rebased_as(t, ref, 12));
	ksym_table__free(t);
	ksym_table__free(ref);
}

/* Anchors are offsets from _text in the file: rebased by the text base; 0 stays 0. */
static void test_anchors(void **state)
{
	uint64_t a[KSYM_ANCHOR_CNT] = {
		[KSYM_ANCHOR_STEXT] = TEXT_A + 0x1000,
		[KSYM_ANCHOR_ETEXT] = TEXT_A + 0x1200000,
		[KSYM_ANCHOR_SINITTEXT] = 0,
		[KSYM_ANCHOR_EINITTEXT] = TEXT_A + 0x3400000,
		[KSYM_ANCHOR_FTRACE_CALLER] = TEXT_A + 0x5000,
		[KSYM_ANCHOR_FTRACE_REGS_CALLER] = TEXT_A + 0x5100,
	}, got[KSYM_ANCHOR_CNT];
	struct ksym_layout *ls[] = { &la, &lb, &lc };
	struct ksym_table *t;
	size_t unknown, i, j;

	(void)state;
	store_a(a);
	for (j = 0; j < 3; j++) {
		memset(got, 0xa5, sizeof(got));
		t = build_load(dir, ls[j], got, &unknown);
		assert_non_null(t);
		for (i = 0; i < KSYM_ANCHOR_CNT; i++)
			assert_int_equal(got[i], a[i] ? a[i] - TEXT_A + ls[j]->text : 0);
		ksym_table__free(t);
	}
	/* none known: all 0 */
	store_a(NULL);
	memset(got, 0xa5, sizeof(got));
	t = build_load(dir, &lb, got, &unknown);
	assert_non_null(t);
	for (i = 0; i < KSYM_ANCHOR_CNT; i++)
		assert_int_equal(got[i], 0);
	ksym_table__free(t);
}

/*
 * _stext is _text on x86-64 (vmlinux.lds.S sets both at the start of .text):
 * an anchor at offset 0 is a known one.
 */
static void test_anchor_at_text(void **state)
{
	uint64_t a[KSYM_ANCHOR_CNT] = { [KSYM_ANCHOR_STEXT] = TEXT_A,
					[KSYM_ANCHOR_ETEXT] = TEXT_A + 0x1200000 };
	uint64_t got[KSYM_ANCHOR_CNT];
	struct ksym_table *t;
	size_t unknown;

	(void)state;
	store_a(a);
	t = build_load(dir, &lb, got, &unknown);
	assert_non_null(t);
	ksym_table__free(t);
	assert_int_equal(got[KSYM_ANCHOR_ETEXT], lb.text + 0x1200000);
	assert_int_equal(got[KSYM_ANCHOR_STEXT], lb.text);
}

/*
 * Of several functions of one name, find gives the lowest-addressed first: in
 * a table used in place, by address, not by offset from its own base.
 */
static void test_find_order(void **state)
{
	static const char *const names[] = { "dup", "cleanup_module", "vfs_read", "9p:dup",
					     ":dup" };
	struct ksym_layout *ls[] = { &lc, &la, &lb };	/* copied first */
	struct ksym want[5], got[5];
	bool bad = false;
	struct ksym_table *ref, *t;
	size_t i, j;

	(void)state;
	store_a(NULL);
	for (j = 0; j < 3; j++) {
		ref = ref_of(ls[j]);
		t = load(ls[j], NULL);
		assert_non_null(t);
		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			bad |= !same_find_order(t, ref, names[i]);
		assert_int_equal(ksym_table__batch_begin(t), 0);
		assert_int_equal(ksym_table__batch_begin(ref), 0);
		assert_int_equal(ksym_table__find_many(t, names, 5, got), 5);
		assert_int_equal(ksym_table__find_many(ref, names, 5, want), 5);
		bad |= !same_answers(want, got, 5);
		ksym_table__batch_end(t);
		ksym_table__batch_end(ref);
		ksym_table__free(t);
		ksym_table__free(ref);
		assert_false(bad);
	}
}

/* The file's name and the build ID inside it: another build's file is stale. */
static void test_stale(void **state)
{
	struct ksym_layout other = la, none = la, short_id = la;
	uint64_t a[KSYM_ANCHOR_CNT];
	struct ksym_table *t, *got;
	char name[64], small[10];
	size_t unknown;

	(void)state;
	ksym_build__name(&la, name, sizeof(name));
	assert_string_equal(name, "build-114c87c2fd3873aee9245f9ad5104b86c1fc3772");
	ksym_build__name(&la, small, sizeof(small));
	assert_string_equal(small, "build-11");
	short_id.id_len = 8;
	ksym_build__name(&short_id, name, sizeof(name));
	assert_string_equal(name, "build-114c87c2fd3873ae");
	/* none yet */
	assert_null(build_load(dir, &short_id, a, &unknown));
	assert_int_equal(errno, ENOENT);
	/* another build's file under this build's name */
	set_id(other.id, ID_OTHER, other.id_len);
	t = ref_of(&la);
	assert_int_equal(ksym_build__store(dir, &other, t, no_anchors, "test"), 0);
	assert_int_equal(rename(build_path(&other), build_path(&la)), 0);
	assert_null(build_load(dir, &la, a, &unknown));
	assert_int_equal(errno, ESTALE);
	/* the same ID's first 8 bytes are another build's too */
	assert_int_equal(ksym_build__store(dir, &la, t, no_anchors, "test"), 0);
	assert_int_equal(rename(build_path(&la), build_path(&short_id)), 0);
	assert_null(build_load(dir, &short_id, a, &unknown));
	assert_int_equal(errno, ESTALE);
	/* a short ID round-trips */
	assert_int_equal(ksym_build__store(dir, &short_id, t, no_anchors, "test"), 0);
	got = build_load(dir, &short_id, a, &unknown);
	assert_non_null(got);
	ksym_table__free(got);
	/* a kernel without a build ID has no build cache */
	none.id_len = 0;
	assert_int_equal(ksym_build__store(dir, &none, t, no_anchors, "test"), -ENODATA);
	assert_null(build_load(dir, &none, a, &unknown));
	assert_int_equal(errno, ENODATA);
	ksym_table__free(t);
}

static void set_size(const char *path, off_t size)
{
	assert_int_equal(truncate(path, size), 0);
}

/* Cut short or grown: never loaded. */
static void test_truncated(void **state)
{
	static const double cut[] = { 0.1, 0.25, 0.5, 0.75, 0.9 };
	uint64_t a[KSYM_ANCHOR_CNT];
	struct stat st;
	size_t unknown, i;
	off_t lens[16], n = 0;
	char *p;

	(void)state;
	store_a(NULL);
	p = build_path(&la);
	assert_int_equal(stat(p, &st), 0);
	lens[n++] = 0;
	lens[n++] = 1;
	lens[n++] = 8;
	lens[n++] = 64;
	for (i = 0; i < sizeof(cut) / sizeof(cut[0]); i++)
		lens[n++] = st.st_size * cut[i];
	lens[n++] = st.st_size - 8;
	lens[n++] = st.st_size - 1;
	lens[n++] = st.st_size + 1;
	lens[n++] = st.st_size + 8;
	lens[n++] = st.st_size + 4096;
	for (i = 0; i < (size_t)n; i++) {
		store_a(NULL);
		set_size(p, lens[i]);
		assert_null(build_load(dir, &lb, a, &unknown));
		assert_int_equal(errno, EBADMSG);
		assert_null(build_load(dir, &lc, a, &unknown));
		assert_int_equal(errno, EBADMSG);
	}
}

/*
 * A flipped bit at every byte (each bit position in turn): not loaded, or (it
 * never should be) answering exactly as the file before it did, for a rebase
 * in place and one that copies.
 */
static void test_flipped(void **state)
{
	struct ksym_table *ref_b = ref_of(&lb), *ref_c = ref_of(&lc), *t;
	uint64_t a[KSYM_ANCHOR_CNT];
	size_t unknown, refused = 0;
	struct stat st;
	off_t off;
	char c, *p;
	int fd;

	(void)state;
	store_a(NULL);
	p = build_path(&la);
	assert_int_equal(stat(p, &st), 0);
	fd = open(p, O_RDWR);
	assert_true(fd >= 0);
	for (off = 0; off < st.st_size; off++) {
		struct ksym_layout *l = off & 1 ? &lc : &lb;

		assert_int_equal(pread(fd, &c, 1, off), 1);
		c ^= 1 << (off % 8);
		assert_int_equal(pwrite(fd, &c, 1, off), 1);
		t = build_load(dir, l, a, &unknown);
		if (t) {
			print_error("a flip at %lld loaded\n", (long long)off);
			assert_true(rebased_as(t, l == &lb ? ref_b : ref_c, 0));
			ksym_table__free(t);
		} else {
			assert_true(errno == EBADMSG || errno == ESTALE);
			refused++;
		}
		c ^= 1 << (off % 8);
		assert_int_equal(pwrite(fd, &c, 1, off), 1);
	}
	close(fd);
	assert_int_equal(refused, st.st_size);
	/* restored: good again */
	t = build_load(dir, &lb, a, &unknown);
	assert_non_null(t);
	assert_true(rebased_as(t, ref_b, 0));
	ksym_table__free(t);
	ksym_table__free(ref_b);
	ksym_table__free(ref_c);
}

/* What is not a private regular file of ours is not read; an open directory not written. */
static void test_unsafe_files(void **state)
{
	struct ksym_table *t = ref_of(&la), *got;
	char sub[300], name[64], target[300], *p;
	uint64_t a[KSYM_ANCHOR_CNT];
	size_t unknown;

	(void)state;
	ksym_build__name(&la, name, sizeof(name));
	p = build_path(&la);
	/* readable by others */
	store_a(NULL);
	assert_int_equal(chmod(p, 0644), 0);
	assert_null(build_load(dir, &la, a, &unknown));
	assert_int_equal(errno, EPERM);
	assert_int_equal(chmod(p, 0640), 0);
	assert_null(build_load(dir, &la, a, &unknown));
	assert_int_equal(errno, EPERM);
	/* a symlink to a valid file (O_NOFOLLOW) */
	store_a(NULL);
	snprintf(target, sizeof(target), "%s/real", dir);
	assert_int_equal(rename(p, target), 0);
	assert_int_equal(symlink(target, p), 0);
	assert_null(build_load(dir, &la, a, &unknown));
	assert_int_equal(errno, EPERM);
	assert_int_equal(unlink(p), 0);
	assert_int_equal(unlink(target), 0);
	/* not a regular file */
	assert_int_equal(mkdir(p, 0700), 0);
	assert_null(build_load(dir, &la, a, &unknown));
	assert_int_equal(errno, EPERM);
	assert_int_equal(rmdir(p), 0);
	/* owned by someone else */
	store_a(NULL);
	if (geteuid() == 0) {
		assert_int_equal(chown(p, 65534, 65534), 0);
		assert_null(build_load(dir, &la, a, &unknown));
		assert_int_equal(errno, EPERM);
		assert_int_equal(chown(p, 0, 0), 0);
	}
	got = build_load(dir, &la, a, &unknown);
	assert_non_null(got);
	ksym_table__free(got);

	/* a directory others may write to, or someone else's, is not written to */
	snprintf(sub, sizeof(sub), "%s/sub", dir);
	assert_int_equal(ksym_build__store(sub, &la, t, no_anchors, "test"), 0);	/* made */
	assert_int_equal(chmod(sub, 0777), 0);
	assert_int_equal(ksym_build__store(sub, &la, t, no_anchors, "test"), -EPERM);
	assert_int_equal(chmod(sub, 0757), 0);
	assert_int_equal(ksym_build__store(sub, &la, t, no_anchors, "test"), -EPERM);
	assert_int_equal(chmod(sub, 0700), 0);
	if (geteuid() == 0) {
		assert_int_equal(chown(sub, 65534, 65534), 0);
		assert_int_equal(ksym_build__store(sub, &la, t, no_anchors, "test"), -EPERM);
		assert_int_equal(chown(sub, 0, 0), 0);
	}
	/* a symlink to a good directory is not the directory */
	snprintf(target, sizeof(target), "%s/sublink", dir);
	assert_int_equal(symlink(sub, target), 0);
	assert_int_equal(ksym_build__store(target, &la, t, no_anchors, "test"), -EPERM);
	/* a file where the directory should be */
	snprintf(target, sizeof(target), "%s/subfile", dir);
	assert_int_equal(close(open(target, O_CREAT | O_WRONLY, 0600)), 0);
	assert_true(ksym_build__store(target, &la, t, no_anchors, "test") < 0);
	ksym_table__free(t);
}

static void touch(const char *name, time_t mtime)
{
	struct timespec ts[2] = { { .tv_sec = mtime }, { .tv_sec = mtime } };
	char *p = path_of(name);
	int fd = open(p, O_CREAT | O_WRONLY | O_TRUNC, 0600);

	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(utimensat(AT_FDCWD, p, ts, 0), 0);
}

static bool exists(const char *name)
{
	struct stat st;

	return !lstat(path_of(name), &st);
}

/* The newest build caches stay, the one just written among them; nothing else goes. */
static void test_prune(void **state)
{
	char pdir[300], cmd[64];
	const char *keep_all[] = { "other", "buildx", ".build-02.tmp", "build-dir", "build-link",
				   "Build-01" };
	size_t i;

	(void)state;
	/* a directory of its own: the others' files are not the test's */
	snprintf(pdir, sizeof(pdir), "%s/prune", dir);
	assert_int_equal(mkdir(pdir, 0700), 0);
	for (i = 1; i <= 6; i++) {
		char n[32];

		snprintf(n, sizeof(n), "prune/build-%02zu", i);
		touch(n, 1000000 + i * 1000);
	}
	touch("prune/build-keep", 1000);	/* oldest, but the one just written */
	touch("prune/other", 10);
	touch("prune/buildx", 10);
	touch("prune/.build-01.tmp", 10);	/* a writer's temporary left hours ago */
	touch("prune/.build-02.tmp", time(NULL));	/* one being written now */
	touch("prune/Build-01", 10);
	assert_int_equal(mkdir(path_of("prune/build-dir"), 0700), 0);
	assert_int_equal(symlink("build-01", path_of("prune/build-link")), 0);

	ksym_build__prune(pdir, "build-keep", 3);
	assert_false(exists("prune/.build-01.tmp"));
	assert_true(exists("prune/build-keep"));
	assert_true(exists("prune/build-06"));
	assert_true(exists("prune/build-05"));
	for (i = 1; i <= 4; i++) {
		char n[32];

		snprintf(n, sizeof(n), "prune/build-%02zu", i);
		assert_false(exists(n));
	}
	for (i = 0; i < sizeof(keep_all) / sizeof(keep_all[0]); i++) {
		snprintf(cmd, sizeof(cmd), "prune/%s", keep_all[i]);
		assert_true(exists(cmd));
	}
	/* fewer than kept: nothing goes */
	ksym_build__prune(pdir, "build-keep", 3);
	assert_true(exists("prune/build-05") && exists("prune/build-06"));
	/* keep 1: the one written only */
	ksym_build__prune(pdir, "build-keep", 1);
	assert_true(exists("prune/build-keep"));
	assert_false(exists("prune/build-06") || exists("prune/build-05"));
	for (i = 0; i < sizeof(keep_all) / sizeof(keep_all[0]); i++) {
		snprintf(cmd, sizeof(cmd), "prune/%s", keep_all[i]);
		assert_true(exists(cmd));
	}
	/* no directory: nothing to do */
	ksym_build__prune(path_of("prune/none"), "build-keep", 1);
}

/*
 * A pattern set's file: a build cache's build cache with only what they
 * match goes with its build; the newest KSYM_MATCH_CACHE_KEEP of the rest stay.
 */
static void test_prune_matches(void **state)
{
	char pdir[300], n[64];
	size_t i;

	(void)state;
	snprintf(pdir, sizeof(pdir), "%s/prunem", dir);
	assert_int_equal(mkdir(pdir, 0700), 0);
	for (i = 1; i <= 4; i++) {
		snprintf(n, sizeof(n), "prunem/build-%02zu", i);
		touch(n, 1000000 + i * 1000);
		snprintf(n, sizeof(n), "prunem/match-%02zu-00aa", i);
		touch(n, 1000000 + i * 1000);
	}
	touch("prunem/build-keep", 1000);
	for (i = 0; i < KSYM_MATCH_CACHE_KEEP + 2; i++) {
		snprintf(n, sizeof(n), "prunem/match-keep-%04zx", i);
		touch(n, 2000000 + i * 1000);	/* the newest of all */
	}
	touch("prunem/.match-keep-1.tmp", 10);	/* a writer's temporary left hours ago */
	touch("prunem/match", 10);		/* no pattern set's */
	ksym_build__prune(pdir, "build-keep", 3);
	/* builds 01 and 02 are gone: their pattern sets too */
	assert_false(exists("prunem/build-01") || exists("prunem/build-02"));
	assert_false(exists("prunem/match-01-00aa") || exists("prunem/match-02-00aa"));
	assert_false(exists("prunem/.match-keep-1.tmp"));
	assert_true(exists("prunem/match"));
	/* of the rest, the newest KSYM_MATCH_CACHE_KEEP: those of build-keep */
	for (i = 0; i < KSYM_MATCH_CACHE_KEEP + 2; i++) {
		snprintf(n, sizeof(n), "prunem/match-keep-%04zx", i);
		assert_int_equal(exists(n), i >= 2);
	}
	assert_false(exists("prunem/match-03-00aa") || exists("prunem/match-04-00aa"));
	assert_true(exists("prunem/build-03") && exists("prunem/build-04"));
}

/* /run's pattern sets: the newest few stay, to the nanosecond; nothing else goes. */
static void test_prune_newest(void **state)
{
	char pdir[300], n[64];
	size_t i;

	(void)state;
	snprintf(pdir, sizeof(pdir), "%s/prunen", dir);
	assert_int_equal(mkdir(pdir, 0700), 0);
	for (i = 0; i < 5; i++) {
		struct timespec ts[2] = { { .tv_sec = 5000, .tv_nsec = i * 1000 },
					  { .tv_sec = 5000, .tv_nsec = i * 1000 } };

		snprintf(n, sizeof(n), "prunen/funcs-%zu", i);
		touch(n, 5000);
		assert_int_equal(utimensat(AT_FDCWD, path_of(n), ts, 0), 0);
	}
	touch("prunen/funcs", 1);	/* the whole table: no set */
	assert_int_equal(mkdir(path_of("prunen/funcs-dir"), 0700), 0);
	ksym_prune_newest(pdir, "funcs-", 3);
	for (i = 0; i < 5; i++) {
		snprintf(n, sizeof(n), "prunen/funcs-%zu", i);
		assert_int_equal(exists(n), i >= 2);	/* in one second, by nanoseconds */
	}
	assert_true(exists("prunen/funcs") && exists("prunen/funcs-dir"));
	ksym_prune_newest(path_of("prunen/none"), "funcs-", 1);	/* no directory: nothing */
}

static int collect_sym(const struct ksym *s, void *ctx)
{
	struct { struct ksym v[64]; size_t n; } *c = ctx;

	assert_true(c->n < 64);
	c->v[c->n++] = *s;
	return 0;
}

static int sym_addr_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr ? 1 : strcmp(x->name, y->name);
}

/*
 * What a few patterns match, from a file used through an order of positions
 * (the modules in another order): kept as a table of its own, stored under a
 * pattern set's name and loaded back onto another boot, it answers as the
 * whole file does.
 */
static void test_select_store(void **state)
{
	static const char *const pats[] = { "dup", "9p:*", "*read", "xfs:nothing*" };
	struct { struct ksym v[64]; size_t n; } want = { .n = 0 }, got = { .n = 0 };
	struct ksym_table *t, *sub, *back, *whole_b;
	uint8_t marks[8] = { 0 };
	size_t i, unknown = 9;
	uint64_t a[KSYM_ANCHOR_CNT];

	(void)state;
	store_a(NULL);
	t = load(&lc, &unknown);
	assert_non_null(t);
	assert_non_null(t->order);
	assert_true(ksym_table__cnt(t) <= 64);
	for (i = 0; i < 4; i++)
		assert_int_equal(ksym_table__mark(t, pats[i], marks), 0);
	sub = ksym_table__select(t, marks);
	assert_non_null(sub);
	/* the union of what each matches, once each, in address order */
	for (i = 0; i < ksym_table__cnt(t); i++) {
		struct ksym s;
		size_t j;

		ksym_table__at(t, i, &s);
		for (j = 0; j < 4; j++) {
			struct { struct ksym v[64]; size_t n; } one = { .n = 0 };
			size_t k;

			ksym_table__match(t, pats[j], collect_sym, &one);
			for (k = 0; k < one.n; k++)
				if (one.v[k].addr == s.addr && !strcmp(one.v[k].name, s.name))
					break;
			if (k < one.n)
				break;
		}
		if (j < 4)
			want.v[want.n++] = s;
	}
	assert_true(want.n >= 6);
	assert_int_equal(ksym_table__cnt(sub), want.n);
	assert_int_equal(sub->mod_cnt, t->mod_cnt);
	for (i = 0; i < want.n; i++) {
		struct ksym s;

		ksym_table__at(sub, i, &s);
		assert_true(same_sym(&s, &want.v[i]) || why("select", NULL, &s, &want.v[i]));
	}
	/* indexed: a name is found */
	assert_int_equal(ksym_table__find(sub, "p9_foo_alias", NULL, &(struct ksym){}, 1), 1);
	assert_int_equal(ksym_table__find(sub, "schedule", NULL, &(struct ksym){}, 1), 0);
	/* stored as a pattern set's file, loaded onto B: B's addresses of the same */
	assert_int_equal(ksym_build__store_as(dir, "match-a-1", &lc, sub, no_anchors, "test"), 0);
	back = ksym_build__load_as(dir, "match-a-1", &lb, a, &unknown, NULL, 0);
	assert_non_null(back);
	assert_int_equal(unknown, 0);
	whole_b = load(&lb, NULL);
	assert_non_null(whole_b);
	for (i = 0; i < 4; i++) {
		ksym_table__match(whole_b, pats[i], collect_sym, &got);
	}
	qsort(got.v, got.n, sizeof(*got.v), sym_addr_cmp);
	for (i = 1, want.n = got.n ? 1 : 0; i < got.n; i++)
		if (sym_addr_cmp(&got.v[i], &got.v[want.n - 1]))
			got.v[want.n++] = got.v[i];
	assert_int_equal(ksym_table__cnt(back), want.n);
	for (i = 0; i < want.n; i++) {
		struct ksym s;

		ksym_table__at(back, i, &s);
		assert_true(same_sym(&s, &got.v[i]) || why("stored", NULL, &s, &got.v[i]));
	}
	/* the whole file is still the whole file */
	assert_true(ksym_table__cnt(whole_b) > ksym_table__cnt(back));
	assert_int_equal(unlink(path_of("match-a-1")), 0);
	ksym_table__free(whole_b);
	ksym_table__free(back);
	ksym_table__free(sub);
	ksym_table__free(t);
}

/* ksym_build__store() in a child: 0, its error, or -1000 - the signal it died of. */
static int store_in_child(const struct ksym_layout *l, const struct ksym_table *t)
{
	int status, sig;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		/* cmocka's handlers would carry on with the tests in here */
		for (sig = 1; sig < 32; sig++)
			signal(sig, SIG_DFL);
		_exit(-ksym_build__store(dir, l, t, no_anchors, "test"));
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (WIFSIGNALED(status))
		return -1000 - WTERMSIG(status);
	/* an ASan report exits 1: EPERM is never what this store gives */
	return WEXITSTATUS(status) == 1 ? -1000 : -WEXITSTATUS(status);
}

/*
 * Only what a later boot can rebase is stored: an entry below its base or
 * without an address is left out, not kept unresolved.
 */
static void test_store_leaves_out(void **state)
{
	struct ksym_table *ref, *t, *got;
	size_t len, unknown;
	char *buf, *txt;
	struct ksym s;

	(void)state;
	txt = text_of(&la, specs, SPEC_N, &len);
	buf = malloc(len + 512);
	assert_non_null(buf);
	memcpy(buf, txt, len);
	len += sprintf(buf + len, "ffffffffc0000ff0 below_9p [9p]\n"
			       "ffffffff80fff000 below_text\n");
	t = parse_text(buf, len);
	ref = parse_text(txt, strlen(txt));
	assert_int_equal(ksym_build__store(dir, &la, t, no_anchors, "test"), 0);
	got = load(&la, &unknown);
	assert_non_null(got);
	assert_int_equal(unknown, 0);
	assert_string_equal(unknown_names, "");
	assert_true(rebased_as(got, ref, 0));
	assert_int_equal(ksym_table__find(got, "below_9p", NULL, &s, 1), 0);
	assert_int_equal(ksym_table__find(got, "below_text", NULL, &s, 1), 0);
	ksym_table__free(got);
	ksym_table__free(t);
	ksym_table__free(ref);

	/* a function list without addresses: nothing to store */
	buf = strdup("vfs_read\np9_foo [9p]\n");
	assert_non_null(buf);
	t = ksym_table__parse(KSYM_FMT_FUNCS, buf, strlen(buf), NULL);
	assert_non_null(t);
	assert_int_equal(ksym_build__store(dir, &la, t, no_anchors, "test"), -ENODATA);
	ksym_table__free(t);
}

/*
 * A module of the table that is not loaded now (or has no build ID) is left
 * out of the file: a later boot cannot rebase it.
 */
static void test_store_unknown_module(void **state)
{
	struct ksym_layout_mod m[4];
	struct ksym_layout l = la;
	struct ksym_table *ref, *t, *got;
	size_t len, unknown;
	char *buf, *txt;
	struct ksym s;
	int err;

	(void)state;
	memcpy(m, mods_a, sizeof(mods_a));
	m[3] = mod_of("noid", 0x44, 0xffffffffc0300000ull);
	m[3].id_len = 0;
	l.mods = m;
	l.mod_cnt = 4;
	txt = text_of(&la, specs, SPEC_N, &len);
	buf = malloc(len + 512);
	assert_non_null(buf);
	memcpy(buf, txt, len);
	len += sprintf(buf + len, "ffffffffc0400010 nfs_fn [nfs]\n"
			       "ffffffffc0300010 noid_fn [noid]\n");
	t = parse_text(buf, len);
	ref = parse_text(txt, strlen(txt));
	/* a loaded module without a build ID: no file (it would lack its functions) */
	err = store_in_child(&l, t);
	assert_int_equal(err, -EAGAIN);
	l.mod_cnt = 3;
	err = store_in_child(&l, t);
	assert_int_equal(err, 0);
	l.mod_cnt = 4;
	got = load(&l, &unknown);
	assert_non_null(got);
	assert_int_equal(unknown, 1);	/* noid: never cached */
	assert_string_equal(unknown_names, "noid");
	assert_true(rebased_as(got, ref, 0));
	assert_int_equal(ksym_table__find(got, "nfs_fn", NULL, &s, 1), 0);
	assert_int_equal(ksym_table__find(got, "noid_fn", NULL, &s, 1), 0);
	ksym_table__free(got);
	ksym_table__free(t);
	ksym_table__free(ref);
}

/*
 * A module loaded with a build ID but without a traceable function is still
 * the file's: a later boot that loads it knows it (none unknown).
 */
static void test_store_empty_module(void **state)
{
	struct ksym_table *ref = ref_of(&la), *t;
	struct ksym_layout_mod m[4];
	struct ksym_layout l = la;
	size_t unknown = 99;

	(void)state;
	memcpy(m, mods_a, sizeof(mods_a));
	m[3] = mod_of("empty", 0x55, 0xffffffffc0300000ull);
	l.mods = m;
	l.mod_cnt = 4;
	assert_int_equal(ksym_build__store(dir, &l, ref, no_anchors, "test"), 0);
	t = load(&l, &unknown);
	assert_non_null(t);
	assert_int_equal(unknown, 0);
	assert_string_equal(unknown_names, "");
	assert_non_null(t->mod_base);
	assert_true(rebased_as(t, ref, 0));
	ksym_table__free(t);
	/* not loaded now: nothing of it to leave unresolved */
	t = load(&la, &unknown);
	assert_non_null(t);
	assert_int_equal(unknown, 0);
	assert_true(rebased_as(t, ref, 0));
	ksym_table__free(t);
	ksym_table__free(ref);
}

/*
 * A module the file does not know, read live, joined to the rebased table
 * (ksym_table__merge): the result answers as the table of all of them does,
 * where the file is used in place (B) and where it is copied (C).
 */
static void test_merge_live(void **state)
{
	static const char extra_txt[] = "ffffffffc0d00040 dup [newmod]\n"
					"ffffffffc0d00010 nm_read [newmod]\n"
					"ffffffffc0d00080 cleanup_module [newmod]\n";
	struct ksym_layout *ls[] = { &lb, &lc };
	struct ksym_layout_mod m[4];
	struct ksym_table *t, *extra, *all, *ref;
	size_t len, unknown, j;
	char *txt, *buf;
	struct ksym s;

	(void)state;
	store_a(NULL);
	for (j = 0; j < 2; j++) {
		struct ksym_layout l = *ls[j];

		memcpy(m, l.mods, 3 * sizeof(*m));
		m[3] = mod_of("newmod", 0x66, 0xffffffffc0d00000ull);
		l.mods = m;
		l.mod_cnt = 4;
		t = load(&l, &unknown);
		assert_non_null(t);
		assert_int_equal(unknown, 1);
		assert_false(m[3].in_file);
		assert_true(m[0].in_file && m[1].in_file && m[2].in_file);
		buf = strdup(extra_txt);
		extra = parse_text(buf, strlen(buf));
		all = ksym_table__merge(t, extra);
		assert_non_null(all);
		assert_int_equal(ksym_table__cnt(all), ksym_table__cnt(t) + ksym_table__cnt(extra));
		txt = text_of(ls[j], specs, SPEC_N, &len);
		buf = malloc(len + sizeof(extra_txt));
		assert_non_null(buf);
		memcpy(buf, txt, len);
		memcpy(buf + len, extra_txt, sizeof(extra_txt));
		free(txt);
		ref = parse_text(buf, strlen(buf));
		assert_true(rebased_as(all, ref, 0));
		assert_int_equal(ksym_table__find(all, "nm_read", "newmod", &s, 1), 1);
		assert_int_equal(s.addr, 0xffffffffc0d00010ull);
		ksym_table__free(ref);
		ksym_table__free(all);
		ksym_table__free(extra);
		ksym_table__free(t);
	}
}

/*
 * The BTF scanner on a small file written here: a function and two structs
 * (one with bitfield offsets), the names sought after the strings of others,
 * a field sought that the struct lacks.
 */
static void test_btf_scan(void **state)
{
	static const char str[] = "\0int\0bpf_iter_ksym\0kallsym_iter\0pos\0value\0type\0name"
				  "\0module_name\0exported\0module\0kallsyms\0state";
	static const char *const iter_f[] = { "pos", "value", "type", "name", "module_name",
					      "exported" };
	static const char *const mod_f[] = { "name", "kallsyms", "state", "refcnt" };
	struct {
		struct btf_header h;
		uint32_t t_int[4];
		uint32_t t_proto[3];
		uint32_t t_func[3];
		uint32_t t_iter[3 + 6 * 3];
		uint32_t t_mod[3 + 3 * 3];
		char str[sizeof(str)];
	} __attribute__((packed)) b = {
		.h = { .magic = BTF_MAGIC, .version = 1, .hdr_len = sizeof(b.h),
		       .type_len = offsetof(typeof(b), str) - sizeof(b.h), .str_off =
		       offsetof(typeof(b), str) - sizeof(b.h), .str_len = sizeof(str) },
		.t_int = { 1, BTF_KIND_INT << 24, 4, 32 },
		.t_proto = { 0, BTF_KIND_FUNC_PROTO << 24, 0 },
		.t_func = { 5, BTF_KIND_FUNC << 24, 2 },
		.t_iter = { 19, BTF_KIND_STRUCT << 24 | 6, 1024, 32, 1, 0, 36, 1, 64, 42, 1, 352,
			    47, 1, 360, 52, 1, 4456, 64, 1, 4992 },
		.t_mod = { 73, 1u << 31 | BTF_KIND_STRUCT << 24 | 3, 900, 89, 1, 0, 47, 1, 24 * 8,
			   80, 1, 96 * 8 },
	};
	int off_iter[6], off_mod[4], fd;
	struct ksym_btf_struct s[2] = {
		{ .name = "kallsym_iter", .fields = iter_f, .field_cnt = 6, .off = off_iter },
		{ .name = "module", .fields = mod_f, .field_cnt = 4, .off = off_mod },
	};
	uint32_t id;

	(void)state;
	memcpy(b.str, str, sizeof(str));
	fd = memfd_create("btf", 0);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, &b, sizeof(b)), sizeof(b));
	assert_int_equal(ksym_btf__scan_fd(fd, "bpf_iter_ksym", &id, s, 2), 0);
	assert_int_equal(id, 3);
	assert_true(s[0].found && s[1].found);
	assert_int_equal(s[0].size, 1024);
	assert_int_equal(off_iter[0], 0);
	assert_int_equal(off_iter[1], 8);
	assert_int_equal(off_iter[2], 44);
	assert_int_equal(off_iter[3], 45);
	assert_int_equal(off_iter[4], 557);
	assert_int_equal(off_iter[5], 624);
	assert_int_equal(off_mod[0], 24);
	assert_int_equal(off_mod[1], 96);
	assert_int_equal(off_mod[2], 0);
	assert_int_equal(off_mod[3], -1);
	/* a function it does not have; a file cut inside its types */
	assert_int_equal(ksym_btf__scan_fd(fd, "bpf_iter_task", &id, s, 2), 0);
	assert_int_equal(id, 0);
	assert_int_equal(ftruncate(fd, sizeof(b.h) + 20), 0);
	assert_int_equal(ksym_btf__scan_fd(fd, "bpf_iter_ksym", &id, s, 2), -EBADMSG);
	close(fd);
}

/* struct module's layout goes with the file: read back as stored, or unknown. */
static void test_mod_btf(void **state)
{
	struct ksym_table *ref = ref_of(&la), *t;
	struct ksym_layout l = la, b = lb;
	size_t unknown, i;

	(void)state;
	l.mod_btf_known = true;
	for (i = 0; i < KSYM_MOD_OFF_CNT; i++)
		l.mod_btf.off[i] = 24 + 8 * i;
	assert_int_equal(ksym_build__store(dir, &l, ref, no_anchors, "test"), 0);
	t = load(&b, &unknown);
	assert_non_null(t);
	assert_true(b.mod_btf_known);
	for (i = 0; i < KSYM_MOD_OFF_CNT; i++)
		assert_int_equal(b.mod_btf.off[i], 24 + 8 * i);
	ksym_table__free(t);
	l.mod_btf_known = false;
	assert_int_equal(ksym_build__store(dir, &l, ref, no_anchors, "test"), 0);
	t = load(&b, &unknown);
	assert_non_null(t);
	assert_false(b.mod_btf_known);
	ksym_table__free(t);
	ksym_table__free(ref);
}

static int setup(void **state)
{
	(void)state;
	make_layouts();
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
		cmocka_unit_test(test_rebase_same_order),
		cmocka_unit_test(test_rebase_swapped),
		cmocka_unit_test(test_missing_module),
		cmocka_unit_test(test_anchors),
		cmocka_unit_test(test_anchor_at_text),
		cmocka_unit_test(test_find_order),
		cmocka_unit_test(test_stale),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_flipped),
		cmocka_unit_test(test_unsafe_files),
		cmocka_unit_test(test_prune),
		cmocka_unit_test(test_prune_matches),
		cmocka_unit_test(test_prune_newest),
		cmocka_unit_test(test_select_store),
		cmocka_unit_test(test_store_leaves_out),
		cmocka_unit_test(test_store_unknown_module),
		cmocka_unit_test(test_store_empty_module),
		cmocka_unit_test(test_merge_live),
		cmocka_unit_test(test_mod_btf),
		cmocka_unit_test(test_btf_scan),
	};

	return cmocka_run_group_tests_name("ksym-build", tests, setup, teardown);
}
