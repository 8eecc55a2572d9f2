// SPDX-License-Identifier: GPL-2.0-only
/*
 * check: the kernel's own kernel/kallsyms.c, compiled in userspace against
 * shim/, linked with the tables the kernel's own scripts/kallsyms wrote from
 * a real symbol list, asked for every symbol by name and by address; and the
 * model (kmodel/) built from the same list at the same layout, which must
 * give the same answers from the same bytes.
 *
 *	check [--marker-shift K] [--sub-shift K] [--tree-levels N] [--dup]
 *	      [--bench] LIST NAME
 *
 * LIST is the list scripts/kallsyms read (kallsyms format, vmlinux only).
 * Prints TAP lines named NAME; exits 1 when any fails. --bench times one
 * round of the kernel's code and the model's instead: one line, ns a lookup.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ksym/ksym.h>

#include "clock.h"
#include "kmodel.h"

#define KSYM_NAME_LEN 512	/* the kernel's, as shim/ has it */

/* kernel/kallsyms.c, and the tables the .S of scripts/kallsyms defines */
unsigned long kallsyms_lookup_name(const char *name);
int kallsyms_on_each_match_symbol(int (*fn)(void *, unsigned long), const char *name,
				  void *data);
int kallsyms_on_each_symbol(int (*fn)(void *, const char *, unsigned long), void *data);
const char *kallsyms_lookup(unsigned long addr, unsigned long *symbolsize,
			    unsigned long *offset, char **modname, char *namebuf);
extern const unsigned int kallsyms_num_syms;
extern const unsigned char kallsyms_names[];
extern const unsigned int kallsyms_markers[];
extern const unsigned char kallsyms_seqs_of_names[];
extern const char kallsyms_token_table[];
extern const uint16_t kallsyms_token_index[];
/* only the variants that have them define these */
extern const uint16_t kallsyms_sub_markers[] __attribute__((weak));
extern const unsigned char kallsyms_top_tree[] __attribute__((weak));

/* What the image would be: _text is here, the rest at their distance from it. */
char _text[16] __attribute__((aligned(16)));
unsigned long shim_stext, shim_etext, shim_sinittext, shim_einittext, shim_end;

struct sym {
	uint64_t addr;
	char *name;
	size_t in;	/* input order */
};

static struct sym *syms;
static size_t nsyms;
static uint64_t real_text;
static int failed;
static int testno;

static void ok(bool pass, const char *what, const char *name)
{
	printf("%sok %d - %s: %s\n", pass ? "" : "not ", ++testno, name, what);
	failed |= !pass;
}

static unsigned long here(uint64_t real)
{
	return (unsigned long)_text + (real - real_text);
}

static int by_name(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->in < y->in ? -1 : x->in > y->in;
}

static int read_list(const char *path)
{
	char line[1024], type, name[600];
	unsigned long long addr;
	size_t cap = 0;
	FILE *f = fopen(path, "r");

	if (!f) {
		fprintf(stderr, "check: %s: %s\n", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %599s", &addr, &type, name) != 3)
			continue;
		if (nsyms == cap) {
			cap = cap ? 2 * cap : 1 << 16;
			syms = realloc(syms, cap * sizeof(*syms));
			if (!syms)
				abort();
		}
		syms[nsyms] = (struct sym){ .addr = addr, .name = strdup(name), .in = nsyms };
		nsyms++;
	}
	fclose(f);
	return 0;
}

static uint64_t addr_of(const char *name)
{
	size_t i;

	for (i = 0; i < nsyms; i++)
		if (!strcmp(syms[i].name, name))
			return syms[i].addr;
	return 0;
}

/* Whether syms (sorted by name by now) has name at addr. */
static bool has_at(const char *name, uint64_t addr)
{
	size_t lo = 0, hi = nsyms;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(syms[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < nsyms && !strcmp(syms[lo].name, name); lo++)
		if (syms[lo].addr == addr)
			return true;
	return false;
}

struct matches {
	unsigned long addrs[64];
	size_t n;
};

static int collect(void *data, unsigned long addr)
{
	struct matches *m = data;

	if (m->n < 64)
		m->addrs[m->n] = addr;
	m->n++;
	return 0;
}

static int walk_count(void *data, const char *name, unsigned long addr)
{
	(*(size_t *)data)++;
	return 0;
}

/*
 * The model is asked for every MODEL_EVERY'th name and address only: its
 * bytes are the table's (check_bytes), its lookups are test_kmodel's, and the
 * kernel's code is asked for all of them.
 */
#define MODEL_EVERY 8

/* Every name: its first address, and every address of it; and its miss. */
static void check_names(struct kmodel *m, unsigned int flags, const char *tag)
{
	size_t i, j, k, n = 0, bad = 0, badmodel = 0, badmiss = 0;
	char miss[700];

	for (i = 0; i < nsyms; i = j) {
		struct matches got = { .n = 0 };
		bool sample = !(n++ % MODEL_EVERY);
		size_t first, last;
		uint64_t skipped = 0;

		for (j = i + 1; j < nsyms && !strcmp(syms[j].name, syms[i].name); j++)
			;
		if (kallsyms_lookup_name(syms[i].name) != here(syms[i].addr))
			bad++;
		kallsyms_on_each_match_symbol(collect, syms[i].name, &got);
		if (got.n != j - i) {
			bad++;
		} else {
			for (k = 0; k < got.n && k < 64; k++)
				if (got.addrs[k] != here(syms[i + k].addr))
					break;
			bad += k < got.n && k < 64;
		}
		/* the model: the same range, in the same order */
		if (!sample) {
			/* (not asked for this name) */
		} else if (kmodel__lookup_name(m, syms[i].name, flags, &first, &last, &skipped) ||
			   last - first + 1 != j - i) {
			badmodel++;
		} else {
			uint64_t a;
			char n[600];

			for (k = first; k <= last; k++)
				if (kmodel__at(m, kmodel__name_pos(m, k), &a, n, sizeof(n)) ||
				    a != syms[i + k - first].addr)
					break;
			badmodel += k <= last;
		}
		snprintf(miss, sizeof(miss), "%s~", syms[i].name);
		if (kallsyms_lookup_name(miss) ||
		    (sample && kmodel__lookup_name(m, miss, flags, &first, &last, &skipped) != -ESRCH))
			badmiss++;
	}
	if (bad)
		fprintf(stderr, "# %s: %zu lookups by name wrong\n", tag, bad);
	ok(!bad, "every name found, with all its addresses, by the kernel's code", tag);
	ok(!badmodel, "the model finds the same addresses for every 8th name", tag);
	ok(!badmiss, "a name that is not there is not found by either", tag);
}

/* Every address in the image: the kernel's answer, and the model's, agree. */
static void check_addrs(struct kmodel *m, unsigned int flags, const char *tag)
{
	size_t i, bad = 0, badmodel = 0, asked = 0;
	char buf[KSYM_NAME_LEN + 64], want[KSYM_NAME_LEN + 64], nb[KSYM_NAME_LEN];

	for (i = 0; i < nsyms; i++) {
		unsigned long a = here(syms[i].addr), size, off;
		uint64_t skipped = 0;
		char *mod;

		if (a < shim_stext || a >= shim_end)
			continue;	/* not the image's (per-CPU, absolute) */
		asked++;
		if (!kallsyms_lookup(a, &size, &off, &mod, nb) || off || !has_at(nb, syms[i].addr)) {
			bad++;
			continue;
		}
		if (i % MODEL_EVERY)
			continue;
		snprintf(buf, sizeof(buf), "%s+0x%lx/0x%lx", nb, off, size);
		if (kmodel__lookup_addr(m, syms[i].addr, flags, want, sizeof(want), &skipped)) {
			badmodel++;
		} else if (strcmp(buf, want)) {
			/* the last symbol's size is the image's end, which the model has not */
			size_t n = strlen(want);

			if ((n < 4 || strcmp(want + n - 4, "/0x0")) && badmodel++ < 3)
				fprintf(stderr, "# %s: %s against the model's %s\n", tag, buf, want);
		}
	}
	ok(!bad && asked, "every address in the image named by the kernel's code", tag);
	ok(!badmodel, "the model names every 8th address the same", tag);
}

static bool same(const void *a, const void *b, size_t n)
{
	return a && b && !memcmp(a, b, n);
}

/* The model's arrays, byte for byte, against what scripts/kallsyms wrote. */
static void check_bytes(struct kmodel *m, bool dup, unsigned int sub_shift, const char *tag)
{
	struct kmodel_arrays a;
	size_t i, badseq = 0, nsub;

	kmodel__arrays(m, &a);
	ok(a.cnt == kallsyms_num_syms, "as many symbols as the model", tag);
	if (a.cnt != kallsyms_num_syms)
		return;
	ok(same(a.names, kallsyms_names, a.names_len) &&
	   same(a.token_table, kallsyms_token_table, a.token_table_len) &&
	   same(a.token_index, kallsyms_token_index, 256 * 2),
	   "the names and tokens are the model's bytes", tag);
	ok(same(a.markers, kallsyms_markers, a.nmarkers * 4), "the markers are the model's", tag);
	/* the series' seqs have no duplicate bit: the model's is masked off */
	for (i = 0; i < 3 * a.cnt; i++)
		badseq += kallsyms_seqs_of_names[i] !=
			  (i % 3 || dup ? a.seqs[i] : (a.seqs[i] & 0x7f));
	ok(!badseq, "the name-order index is the model's", tag);
	/* (the model keeps a block more where the count is a multiple of 256) */
	nsub = (a.cnt + 255) / 256 * ((256 >> sub_shift) - 1);
	if (a.sub || kallsyms_sub_markers)
		ok(a.nsub >= nsub && same(a.sub, kallsyms_sub_markers, nsub * 2),
		   "the sub-markers are the model's", tag);
	if (a.tree || kallsyms_top_tree)
		ok(same(a.tree, kallsyms_top_tree, a.tree_len), "the top tree is the model's", tag);
}

#define BENCH_N 10000
enum { B_KHIT, B_MHIT, B_KMISS, B_MMISS, B_KADDR, B_MADDR, B_CNT };

/* One round of BENCH_N lookups of one kind: ns a lookup. */
static uint64_t bench_one(int kind, struct kmodel *m, unsigned int flags, char **names,
			  char **misses, uint64_t *addrs)
{
	char buf[KSYM_NAME_LEN + 64], nb[KSYM_NAME_LEN];
	unsigned long size, off, sink = 0;
	uint64_t t0 = now_ns(), skipped = 0;
	size_t i, first, last;
	char *mod;

	for (i = 0; i < BENCH_N; i++) {
		switch (kind) {
		case B_KHIT:
			sink += kallsyms_lookup_name(names[i]);
			break;
		case B_MHIT:
			sink += kmodel__lookup_name(m, names[i], flags, &first, &last, &skipped);
			break;
		case B_KMISS:
			sink += kallsyms_lookup_name(misses[i]);
			break;
		case B_MMISS:
			sink += kmodel__lookup_name(m, misses[i], flags, &first, &last, &skipped);
			break;
		case B_KADDR:
			sink += !!kallsyms_lookup(here(addrs[i]), &size, &off, &mod, nb);
			break;
		case B_MADDR:
			sink += kmodel__lookup_addr(m, addrs[i], flags, buf, sizeof(buf), &skipped);
			break;
		}
	}
	__asm__ volatile("" : : "r"(sink));
	return (now_ns() - t0) / BENCH_N;
}

/*
 * One round of the same names (every symbol's equally likely, drawn with a
 * fixed seed), their misses and the image's addresses, looked up by the
 * kernel's code and by the model. check.sh alternates the variants round by
 * round and takes the medians.
 */
static int bench(struct kmodel *m, unsigned int flags, const char *tag)
{
	char **names = calloc(BENCH_N, sizeof(*names)), **misses = calloc(BENCH_N, sizeof(*misses));
	uint64_t *addrs = calloc(BENCH_N, sizeof(*addrs)), seed = 42;
	struct kmodel_size sz;
	size_t i, n = 0;
	int k;

	if (!names || !misses || !addrs)
		return 1;
	while (n < BENCH_N) {
		unsigned long a;

		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		i = (seed >> 33) % nsyms;
		a = here(syms[i].addr);
		if (a < shim_stext || a >= shim_end)
			continue;
		names[n] = syms[i].name;
		addrs[n] = syms[i].addr;
		if (asprintf(&misses[n], "%s~", syms[i].name) < 0)
			return 1;
		n++;
	}
	/* name, then kernel/model: hit, miss, addr; then the bytes the layout adds */
	printf("bench %s", tag);
	for (k = 0; k < B_CNT; k++)
		printf(" %llu", (unsigned long long)bench_one(k, m, flags, names, misses, addrs));
	kmodel__size(m, &sz);
	printf(" %zu\n", sz.markers + sz.submarkers + sz.toptree);
	for (i = 0; i < BENCH_N; i++)
		free(misses[i]);
	free(names);
	free(misses);
	free(addrs);
	return 0;
}

int main(int argc, char **argv)
{
	struct kmodel_opts mo = { .sz = sizeof(mo), .marker_shift = 8 };
	unsigned int sub_shift = 8, tree_levels = 0, flags;
	bool dup = false, timed = false;
	struct ksym_table *t;
	struct kmodel *m;
	size_t walked = 0;
	const char *tag;
	int i;

	static const struct option opts[] = {
		{ "marker-shift", required_argument, NULL, 'm' },
		{ "sub-shift", required_argument, NULL, 's' },
		{ "tree-levels", required_argument, NULL, 't' },
		{ "dup", no_argument, NULL, 'd' },
		{ "bench", no_argument, NULL, 'b' },
		{}
	};
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'm':
			mo.marker_shift = atoi(optarg);
			break;
		case 's':
			sub_shift = atoi(optarg);
			break;
		case 't':
			tree_levels = atoi(optarg);
			break;
		case 'd':
			dup = true;
			break;
		case 'b':
			timed = true;
			break;
		default:
			argc = 0;	/* the usage line below */
		}
	}
	i = optind;
	if (argc - i != 2) {
		fprintf(stderr, "usage: check [--marker-shift K] [--sub-shift K] "
			"[--tree-levels N] [--dup] [--bench] LIST NAME\n");
		return 2;
	}
	tag = argv[i + 1];
	if (read_list(argv[i]))
		return 1;
	real_text = addr_of("_text");
	shim_stext = here(addr_of("_stext"));
	shim_etext = here(addr_of("_etext"));
	shim_sinittext = here(addr_of("_sinittext"));
	shim_einittext = here(addr_of("_einittext"));
	shim_end = here(addr_of("_end"));
	if (!real_text || shim_end <= shim_stext) {
		fprintf(stderr, "check: %s: no _text, _stext or _end\n", argv[i]);
		return 1;
	}

	t = ksym_table__load(KSYM_FMT_KALLSYMS, argv[i], NULL);
	m = t ? kmodel__build(t, &mo) : NULL;
	if (!m || (sub_shift < 8 && kmodel__set_submarkers(m, sub_shift)) ||
	    kmodel__set_layout(m, 0, tree_levels, 0)) {
		fprintf(stderr, "check: %s: the model cannot be built\n", argv[i]);
		return 1;
	}
	/* the lookups the layout serves: the series' compare and seq read, ours */
	flags = KMODEL_ONTHEFLY | KMODEL_UNROLLED;
	if (dup)
		flags |= KMODEL_DUPBIT;
	if (tree_levels)
		flags |= KMODEL_TOPTREE;
	if (sub_shift < 8)
		flags |= KMODEL_SUBMARK;

	qsort(syms, nsyms, sizeof(*syms), by_name);
	if (timed)
		return bench(m, flags, tag);
	kallsyms_on_each_symbol(walk_count, &walked);
	ok(walked == kallsyms_num_syms, "the whole-table walk sees every symbol", tag);
	check_bytes(m, dup, sub_shift, tag);
	check_names(m, flags, tag);
	check_addrs(m, flags, tag);
	printf("1..%d\n", testno);
	kmodel__free(m);
	ksym_table__free(t);
	return failed;
}
