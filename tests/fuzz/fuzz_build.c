// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target for the build cache loader. The input is a build cache
 * file; the harness fixes its magic, version, entry size and build ID and
 * recomputes both checksums, so mutations reach the structural checks and the
 * rebase behind them (a checksum would stop almost every mutation at the
 * door). It is written as the cache of a fixed build, 0600 in a private
 * directory, and loaded for three layouts of that build: every base moved
 * (used where it is mapped), the modules in another order (copied and moved by
 * group), and a module gone, one of another build and one unknown (entries
 * left unresolved). Whatever loads must answer consistently.
 *
 * The seeds in corpus/build are ksym_build__store()'s files for the layout
 * here; to write them again:
 *   FUZZ_BUILD_SEEDS=tests/fuzz/corpus/build build/fuzz/fuzz_build
 */
#include "../../lib/ksym/cache/build.c"

/*
 * A file the loader takes is root's own, checked for bounds only (as the /run
 * cache is): its answers must be consistent where they can be, never crash.
 * One an import would take (ksym_build__valid(): each slot and chain holds its
 * entries' names, nothing unresolved) must give every name its own answers.
 * -DFUZZ_BUILD_STRICT=1 asks that of every file (it finds forged indexes).
 */
#ifndef FUZZ_BUILD_STRICT
#define FUZZ_BUILD_STRICT 0
#endif

static char dir[] = "/tmp/ksym-fuzz-build.XXXXXX";
static const char *made;
static char file[64];

/* A: the file's build, as stored. */
static struct ksym_layout_mod mods_a[3], mods_b[3], mods_c[3], mods_d[3];
static struct ksym_layout la, lb, lc, ld;

static struct ksym_layout_mod mod_of(const char *name, uint8_t seed, uint64_t base)
{
	struct ksym_layout_mod m = { .id_len = KSYM_BUILD_ID_MAX, .base = base };
	size_t i;

	snprintf(m.name, sizeof(m.name), "%s", name);
	for (i = 0; i < m.id_len; i++)
		m.id[i] = seed + 0x3b * i;
	return m;
}

static struct ksym_layout layout_of(uint64_t text, struct ksym_layout_mod *mods, size_t n)
{
	struct ksym_layout l = { .id_len = KSYM_BUILD_ID_MAX, .text = text, .mods = mods,
				 .mod_cnt = n };
	size_t i;

	for (i = 0; i < l.id_len; i++)
		l.id[i] = 0x11 + 0x3b * i;
	return l;
}

static void make_layouts(void)
{
	mods_a[0] = mod_of("9p", 0x90, 0xffffffffc0001000ull);
	mods_a[1] = mod_of("ext4", 0xe4, 0xffffffffc0100000ull);
	mods_a[2] = mod_of("xfs", 0xf5, 0xffffffffc0200000ull);
	la = layout_of(0xffffffff81000000ull, mods_a, 3);
	/* every base elsewhere, the order A's */
	mods_b[0] = mod_of("9p", 0x90, 0xffffffffc0a00000ull);
	mods_b[1] = mod_of("ext4", 0xe4, 0xffffffffc0b10000ull);
	mods_b[2] = mod_of("xfs", 0xf5, 0xffffffffc0f00000ull);
	lb = layout_of(0xffffffff9a200000ull, mods_b, 3);
	/* by base xfs, 9p, ext4 */
	mods_c[0] = mod_of("9p", 0x90, 0xffffffffc0600000ull);
	mods_c[1] = mod_of("ext4", 0xe4, 0xffffffffc0800000ull);
	mods_c[2] = mod_of("xfs", 0xf5, 0xffffffffc0400000ull);
	lc = layout_of(0xffffffff8c400000ull, mods_c, 3);
	/* ext4 gone, xfs another build, nfs not in the file */
	mods_d[0] = mod_of("xfs", 0xf6, 0xffffffffc0300000ull);
	mods_d[1] = mod_of("nfs", 0x33, 0xffffffffc0500000ull);
	mods_d[2] = mod_of("9p", 0x90, 0xffffffffc0700000ull);
	ld = layout_of(0xffffffff82000000ull, mods_d, 3);
}

static const struct ksym_layout_mod *mod_named(const struct ksym_layout *l, const char *name)
{
	size_t i;

	for (i = 0; i < l->mod_cnt; i++)
		if (!strcmp(l->mods[i].name, name))
			return &l->mods[i];
	return NULL;
}

static void write_file(const char *path, const char *buf, size_t size)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd < 0)
		abort();
	while (size) {
		ssize_t n = write(fd, buf, size);

		if (n <= 0)
			abort();
		buf += n;
		size -= n;
	}
	close(fd);
}

/*
 * The seeds: a table of A's with modules, duplicates and two names at one
 * address; vmlinux's functions alone (the modules' groups empty); and those
 * for a boot without modules.
 */
static void write_seeds(const char *to)
{
	static const char full[] =
		"ffffffff81200000 schedule\n"
		"ffffffff81001000 do_one_initcall\n"
		"ffffffff81001100 dup\n"
		"ffffffff81001100 dup_alias\n"
		"ffffffff81002000 vfs_read\n"
		"ffffffff81003000 dup\n"
		"ffffffffc0001010 v9fs_init [9p]\n"
		"ffffffffc0001040 dup [9p]\n"
		"ffffffffc00010c0 cleanup_module [9p]\n"
		"ffffffffc0100000 ext4_fill_super [ext4]\n"
		"ffffffffc0100100 dup [ext4]\n"
		"ffffffffc0100200 cleanup_module [ext4]\n"
		"ffffffffc0201000 dup [xfs]\n"
		"ffffffffc0200020 xfs_read [xfs]\n"
		"ffffffffc0200030 cleanup_module [xfs]\n";
	static const char vm[] = "ffffffff81001000 do_one_initcall\n"
				 "ffffffff81002000 vfs_read\n"
				 "ffffffff81002040 vfs_write\n";
	const char *texts[] = { full, vm, vm }, *names[] = { "seed", "vmlinux", "nomods" };
	struct ksym_layout bare = la;
	uint64_t anchors[KSYM_ANCHOR_CNT] = {
		[KSYM_ANCHOR_STEXT] = 0xffffffff81000100ull,
		[KSYM_ANCHOR_ETEXT] = 0xffffffff82000000ull,
		[KSYM_ANCHOR_FTRACE_CALLER] = 0xffffffff81005000ull,
	};
	char from[600], path[600];
	size_t i;

	bare.mod_cnt = 0;
	for (i = 0; i < 3; i++) {
		struct ksym_table *t = ksym_table__parse(KSYM_FMT_FUNCS_ADDRS, strdup(texts[i]),
							 strlen(texts[i]), NULL);

		/* the last for a boot without modules: no group at all */
		if (!t || ksym_build__store(to, i < 2 ? &la : &bare, t, anchors, "fuzz seed"))
			abort();
		snprintf(from, sizeof(from), "%s/%s", to, file);
		snprintf(path, sizeof(path), "%s/%s", to, names[i]);
		if (rename(from, path))
			abort();
		ksym_table__free(t);
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *seeds = getenv("FUZZ_BUILD_SEEDS");

	(void)argc;
	(void)argv;
	make_layouts();
	ksym_build__name(&la, file, sizeof(file));
	if (seeds) {
		write_seeds(seeds);
		exit(0);
	}
	return 0;
}

/* the runs' directory goes when the fuzzer exits */
static void __attribute__((destructor)) cleanup(void)
{
	char path[128];

	if (!made)
		return;
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	unlink(path);
	rmdir(dir);
}

/* The input as A's build cache, header fixed and sums recomputed. */
static bool importable;

static void write_input(const uint8_t *data, size_t size)
{
	char path[128], *buf = malloc(size ? size : 1);
	struct build_hdr h;

	if (!buf)
		abort();
	memcpy(buf, data, size);
	if (size >= sizeof(h)) {
		memcpy(&h, buf, sizeof(h));
		memcpy(h.magic, BUILD_MAGIC, 8);
		h.version = BUILD_VERSION;
		h.ent_size = sizeof(struct ksym_ent);
		memcpy(h.id, la.id, KSYM_BUILD_ID_MAX);
		h.id_len = la.id_len;
		h.payload_sum = ksym_sum64(buf + sizeof(h), size - sizeof(h));
		h.hdr_sum = ksym_build_hdr_sum(&h);
		memcpy(buf, &h, sizeof(h));
	}
	/* what an import would take: then every answer must hold its name too */
	importable = size >= sizeof(h) && ksym_build__valid(buf, size);
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	write_file(path, buf, size);
	free(buf);
}

static bool same_mod(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static int count(const struct ksym *s, void *ctx)
{
	(void)s;
	++*(uint64_t *)ctx;
	return 0;
}

/* Every answer of t, loaded for l, agrees with every other. */
static void walk(const struct ksym_table *t, const struct ksym_layout *l, size_t unknown)
{
	static const char *const many[] = { "vfs_read", "dup", "9p:dup", ":dup", "nope", "" };
	struct ksym s, hit[4], out[6];
	size_t n = ksym_table__cnt(t), i;
	bool stray = false, strict;
	uint64_t prev = 0;
	int k, j;

	if (unknown > l->mod_cnt)
		abort();
	/* an entry flagged unresolved in the file, kept at its address (reported) */
	for (i = 0; i < n; i++)
		if (!ksym_table__at(t, i, &s) && (s.flags & KSYM_F_UNRESOLVED) && s.addr)
			stray = true;
	strict = FUZZ_BUILD_STRICT || importable || !stray;
	for (i = 0; i < n; i++) {
		if (ksym_table__at(t, i, &s) || !s.name)
			abort();
		/* address order, the unresolved first at 0 */
		if (s.addr < prev)
			abort();
		prev = s.addr;
		if (s.flags & KSYM_F_UNRESOLVED) {
			if (strict && (s.addr || !s.module))
				abort();
		} else if (s.module && !mod_named(l, s.module)) {
			abort();	/* resolved in a module this boot has not */
		}
		/* an address finds a symbol there, never an unresolved one */
		k = ksym_table__addr(t, s.addr, &hit[0]);
		if (strict && !(s.flags & KSYM_F_UNRESOLVED) && (k || hit[0].addr != s.addr))
			abort();
		if (strict && !k && (hit[0].flags & KSYM_F_UNRESOLVED))
			abort();
		if (!ksym_table__addr(t, s.addr + 1, &hit[0]) &&
		    ((strict && (hit[0].flags & KSYM_F_UNRESOLVED)) || hit[0].addr > s.addr + 1))
			abort();
		/*
		 * The name finds that name, in that module, lowest address first
		 * (unresolved entries last).
		 * (It may find nothing: the index is not checked against each
		 * name's hash. A module named "" is not asked for: "" is vmlinux.)
		 */
		k = s.module && !*s.module ? 0 :
		    ksym_table__find(t, s.name, s.module ? s.module : "", hit, 4);
		if (k < 0)
			abort();
		for (j = 0; j < k && j < 4; j++) {
			if (!same_mod(hit[j].module, s.module))
				abort();
			if ((FUZZ_BUILD_STRICT || importable) && strcmp(hit[j].name, s.name))
				abort();
			/* in address order, the unresolved ones last */
			if (j && !(hit[j].flags & KSYM_F_UNRESOLVED) &&
			    ((hit[j - 1].flags & KSYM_F_UNRESOLVED) || hit[j].addr < hit[j - 1].addr))
				abort();
		}
		if (!strchr(s.name, ':')) {
			k = ksym_table__find(t, s.name, NULL, hit, 4);
			if (k < 0)
				abort();
			for (j = 0; (FUZZ_BUILD_STRICT || importable) && j < k && j < 4; j++)
				if (strcmp(hit[j].name, s.name))
					abort();
		}
	}
	if (ksym_table__at(t, n, &s) != -ERANGE)
		abort();
	/* every symbol matches "*", once, in address order */
	prev = 0;
	if (ksym_table__match(t, "*", count, &prev) || prev != n)
		abort();
	if (ksym_table__batch_begin((struct ksym_table *)t))
		return;
	ksym_table__find_many(t, many, 6, out);
	for (j = 0; j < 6; j++) {
		const char *q = strchr(many[j], ':');

		if ((FUZZ_BUILD_STRICT || importable) && out[j].name && strcmp(out[j].name, q ? q + 1 : many[j]))
			abort();
	}
	ksym_table__batch_end((struct ksym_table *)t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ksym_layout *ls[] = { &lb, &lc, &ld };
	uint64_t anchors[KSYM_ANCHOR_CNT];
	struct ksym_table *t;
	size_t i, unknown;
	char names[160];

	/* once: mkdtemp's own random name may well start with an 'X' */
	if (!made && !(made = mkdtemp(dir)))
		abort();
	write_input(data, size);
	for (i = 0; i < sizeof(ls) / sizeof(ls[0]); i++) {
		unknown = SIZE_MAX;
		memset(names, 'x', sizeof(names));
		t = ksym_build__load(dir, ls[i], anchors, &unknown, names, sizeof(names));
		if (!t) {
			if (errno != EBADMSG && errno != ESTALE && errno != ENOMEM)
				abort();
			continue;
		}
		/* the unknown modules named, the first at least (names here are short) */
		if (!memchr(names, 0, sizeof(names)) || !unknown != !names[0])
			abort();
		walk(t, ls[i], unknown);
		ksym_table__free(t);
	}
	return 0;
}
