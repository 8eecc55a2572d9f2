// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * bench --kernel-model: the kallsyms lookup series' variants, and two layouts of
 * our own, on a real symbol table rebuilt as the kernel would. Records skipped
 * are counted exactly (the same on any machine); times are medians of rounds.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "clock.h"
#include "stats.h"
#include "kmodel.h"

#define ROUNDS_MAX 64
#define WINDOW 16	/* NEARMARK: probes considered each side of mid */
/*
 * TOPTREE and KEYTREE: the levels above ranges of about 128 names, where the
 * last probes' walks begin: log2(symbols), rounded, - 7 (10 for 93-185k).
 */
static unsigned int tree_levels(size_t cnt)
{
	unsigned int lg = 0;

	while ((uint64_t)cnt * cnt >= 1ull << (2 * lg + 1))
		lg++;
	return lg > 8 ? lg - 7 : 1;
}

#define SERIES (KMODEL_ONTHEFLY | KMODEL_UNROLLED)
#define DUP (SERIES | KMODEL_DUPBIT)

struct variant {
	const char *name;
	unsigned int shift;	/* u32 markers every 2^shift */
	unsigned int sub;	/* SUBMARK: u16 every 2^sub (8: none) */
	unsigned int flags;
	bool ours;
	/* results */
	double hit_ns, miss_ns, addr_ns;
	double hit_skips, miss_skips;
	long extra;		/* bytes over the baseline's .rodata */
	double hit[ROUNDS_MAX], miss[ROUNDS_MAX], addr[ROUNDS_MAX];
};

/* Indices the summary lines use. */
enum { V_BASE, V_ONTHEFLY, V_16, V_SERIES, V_BATCH };

static struct variant variants[] = {
	{ "baseline: 256:1, expand + strcmp", 8, 8, 0 },
	{ "+ compare on compressed tokens", 8, 8, KMODEL_ONTHEFLY },
	{ "+ 16:1 markers", 4, 8, KMODEL_ONTHEFLY },
	{ "+ unrolled seq read (the series)", 4, 8, SERIES },
	{ "v4: transient batch offsets", 8, 8, KMODEL_BATCH | SERIES },
	{ "ours: dup bit, 256:1", 8, 8, DUP, true },
	{ "ours: u16 sub-markers 16:1", 8, 4, SERIES | KMODEL_SUBMARK, true },
	{ "ours: dup + u16 16:1", 8, 4, DUP | KMODEL_SUBMARK, true },
	{ "ours: dup + top-tree + u16 32:1", 8, 5, DUP | KMODEL_TOPTREE | KMODEL_SUBMARK, true },
	{ "ours: dup + key-tree + u16 32:1", 8, 5, DUP | KMODEL_KEYTREE | KMODEL_SUBMARK, true },
	{ "ours: dup + top-tree + u16 64:1", 8, 6, DUP | KMODEL_TOPTREE | KMODEL_SUBMARK, true },
	{ "ours: dup + key-tree + u16 64:1", 8, 6, DUP | KMODEL_KEYTREE | KMODEL_SUBMARK, true },
	{ "ours: dup + top-tree + near, 64:1", 6, 8, DUP | KMODEL_TOPTREE | KMODEL_NEARMARK, true },
	{ "ours: dup + top-tree + near, 256:1", 8, 8, DUP | KMODEL_TOPTREE | KMODEL_NEARMARK, true },
	{ "ours: the series + prefetch", 4, 8, SERIES | KMODEL_PREFETCH, true },
};
#define NVAR (sizeof(variants) / sizeof(variants[0]))

/*
 * Working sets: names drawn from a fixed random set of this many (0: the
 * whole table). Small sets keep their probes' data cached, as a table that
 * fits the caches would; the series' machine had one.
 */
static const size_t pools[] = { 16, 256, 4096, 0 };
#define NPOOL (sizeof(pools) / sizeof(pools[0]))

struct work {
	char (*hits)[512];
	char (*misses)[540];
	uint64_t *addrs;
	size_t n;
};

/*
 * Lookups of names drawn at random, from the whole table (pool 0) or from a
 * fixed random set of pool names: how much of the table the cache holds is
 * what decides the speedups below.
 */
static int make_work(const struct kmodel *m, struct work *w, size_t lookups, size_t pool)
{
	uint64_t seed = 0x9e3779b97f4a7c15ull, addr;
	size_t i, n = kmodel__cnt(m), *set = NULL;

	free(w->hits);
	free(w->misses);
	free(w->addrs);
	w->n = lookups;
	w->hits = calloc(lookups, sizeof(*w->hits));
	w->misses = calloc(lookups, sizeof(*w->misses));
	w->addrs = calloc(lookups, sizeof(*w->addrs));
	if (pool)
		set = calloc(pool, sizeof(*set));
	if (!w->hits || !w->misses || !w->addrs || (pool && !set)) {
		free(set);
		return -ENOMEM;
	}
	for (i = 0; i < pool + lookups; i++) {
		size_t pos;

		seed ^= seed << 13;
		seed ^= seed >> 7;
		seed ^= seed << 17;
		if (i < pool) {
			set[i] = seed % n;
			continue;
		}
		pos = pool ? set[seed % pool] : seed % n;
		kmodel__at(m, pos, &addr, w->hits[i - pool], sizeof(w->hits[i - pool]));
		snprintf(w->misses[i - pool], sizeof(w->misses[i - pool]), "%s.kmodel_miss",
			 w->hits[i - pool]);
		w->addrs[i - pool] = addr + (seed >> 40) % 64;
	}
	free(set);
	return 0;
}

static long rodata(const struct kmodel *m)
{
	struct kmodel_size s;

	kmodel__size(m, &s);
	return s.names + s.markers + s.submarkers + s.seqs + s.token_table + s.token_index +
	       s.offsets + s.toptree + s.keytree;
}

static int apply(struct kmodel *m, const struct variant *v)
{
	int err;

	err = kmodel__set_markers(m, v->shift);
	if (!err)
		err = kmodel__set_submarkers(m, v->sub);
	if (!err)
		err = kmodel__set_layout(m, v->flags & KMODEL_NEARMARK ? WINDOW : 0,
					 v->flags & KMODEL_TOPTREE ? tree_levels(kmodel__cnt(m)) : 0,
					 v->flags & KMODEL_KEYTREE ? tree_levels(kmodel__cnt(m)) : 0);
	if (!err && (v->flags & KMODEL_BATCH))
		err = kmodel__batch_begin(m);
	return err;
}

/* One round of a variant's hits, misses and address lookups. */
static void measure(struct kmodel *m, struct variant *v, const struct work *w, int r)
{
	uint64_t skip_hit = 0, skip_miss = 0, skip_addr = 0, t0;
	char text[640];
	size_t i, f, l;

	t0 = now_ns();
	for (i = 0; i < w->n; i++)
		kmodel__lookup_name(m, w->hits[i], v->flags, &f, &l, &skip_hit);
	v->hit[r] = (double)(now_ns() - t0) / w->n;
	t0 = now_ns();
	for (i = 0; i < w->n; i++)
		kmodel__lookup_name(m, w->misses[i], v->flags, &f, &l, &skip_miss);
	v->miss[r] = (double)(now_ns() - t0) / w->n;
	t0 = now_ns();
	for (i = 0; i < w->n; i++)
		kmodel__lookup_addr(m, w->addrs[i], v->flags, text, sizeof(text), &skip_addr);
	v->addr[r] = (double)(now_ns() - t0) / w->n;
	v->hit_skips = (double)skip_hit / w->n;
	v->miss_skips = (double)skip_miss / w->n;
}

/*
 * Rounds go across the variants (round 1 of each, then round 2...): this
 * machine's speed drifts within a run, and a variant measured all at once would
 * carry its own phase of the drift into the comparison.
 */
static int measure_all(struct kmodel *m, struct variant *vs, size_t nv, const struct work *w,
		       int rounds, long base)
{
	size_t i;
	int r, err;

	for (r = 0; r < rounds; r++) {
		for (i = 0; i < nv; i++) {
			err = apply(m, &vs[i]);
			if (err)
				return err;
			measure(m, &vs[i], w, r);
			if (vs[i].flags & KMODEL_BATCH)
				kmodel__batch_end(m);
			vs[i].extra = rodata(m) - base;
		}
	}
	for (i = 0; i < nv; i++) {
		vs[i].hit_ns = stats_median(vs[i].hit, rounds);
		vs[i].miss_ns = stats_median(vs[i].miss, rounds);
		vs[i].addr_ns = stats_median(vs[i].addr, rounds);
	}
	return 0;
}

static bool dominated(const struct variant *a)
{
	size_t i;

	for (i = 0; i < NVAR; i++) {
		const struct variant *b = &variants[i];

		if (b != a && b->hit_ns <= a->hit_ns && b->extra <= a->extra &&
		    (b->hit_ns < a->hit_ns || b->extra < a->extra))
			return true;
	}
	return false;
}

int bench__kernel_model(const char *path, int rounds, size_t lookups, enum report_format format)
{
	struct ksym_table *t;
	struct kmodel *m;
	struct work w = {};
	static struct variant sweep[9], sweep16[8], ws[NPOOL][NVAR];
	uint64_t t0, addr;
	double walk_ns, batch_ms;
	long base;
	size_t i, n;
	int err = 1, k;
	bool json = format == REPORT_JSON;

	if (rounds <= 0 || rounds > ROUNDS_MAX)
		rounds = 3;
	if (!lookups)
		lookups = 10000;
	t = ksym_table__load(KSYM_FMT_KALLSYMS, path, NULL);
	if (!t) {
		fprintf(stderr, "ksymattach: cannot load %s: %s\n", path, strerror(errno));
		return 1;
	}
	t0 = now_ns();
	m = kmodel__build(t, NULL);
	if (!m) {
		fprintf(stderr, "ksymattach: cannot build the model: %s\n", strerror(errno));
		goto out;
	}
	n = kmodel__cnt(m);
	if (make_work(m, &w, lookups, 0))
		goto out;
	kmodel__set_markers(m, 8);
	base = rodata(m);
	if (!json)
		printf("kernel model of %s: %zu vmlinux symbols, built in %.0f ms; %zu lookups, "
		       "medians of %d rounds\n\n", path, n, (now_ns() - t0) / 1e6, lookups, rounds);

	if (measure_all(m, variants, NVAR, &w, rounds, base)) {
		fprintf(stderr, "ksymattach: cannot lay out the model: %s\n", strerror(ENOMEM));
		goto out;
	}
	/* the batch index: build cost, and how many lookups pay for it against 16:1 */
	kmodel__set_markers(m, 8);
	kmodel__set_layout(m, 0, 0, 0);
	t0 = now_ns();
	for (k = 0; k < rounds; k++) {
		kmodel__batch_begin(m);
		kmodel__batch_end(m);
	}
	batch_ms = (now_ns() - t0) / 1e6 / rounds;
	/* a full walk in address order: expand every record once */
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		char name[512];

		kmodel__at(m, i, &addr, name, sizeof(name));
	}
	walk_ns = (double)(now_ns() - t0) / n;
	/* the density sweep the reviewers asked for: series lookups, k = 0..8 */
	for (k = 0; k <= 8; k++)
		sweep[k] = (struct variant){ .shift = k, .sub = 8, .flags = SERIES };
	for (k = 0; k < 8; k++)
		sweep16[k] = (struct variant){ .shift = 8, .sub = k, .flags = SERIES | KMODEL_SUBMARK };
	if (measure_all(m, sweep, 9, &w, rounds, base) ||
	    measure_all(m, sweep16, 8, &w, rounds, base))
		goto out;
	/* every variant's speedup over the baseline as the working set grows */
	for (k = 0; k < (int)NPOOL; k++) {
		memcpy(ws[k], variants, sizeof(variants));
		if (make_work(m, &w, lookups, pools[k]) ||
		    measure_all(m, ws[k], NVAR, &w, rounds, base))
			goto out;
	}

	if (json) {
		printf("{\"file\":\"%s\",\"symbols\":%zu,\"lookups\":%zu,\"rounds\":%d,\"variants\":[",
		       path, n, lookups, rounds);
		for (i = 0; i < NVAR; i++) {
			const struct variant *v = &variants[i];

			printf("%s{\"name\":\"%s\",\"hit_ns\":%.1f,\"miss_ns\":%.1f,\"addr_ns\":%.1f,"
			       "\"hit_skipped\":%.2f,\"miss_skipped\":%.2f,\"extra_bytes\":%ld,"
			       "\"pareto\":%s}", i ? "," : "", v->name, v->hit_ns, v->miss_ns,
			       v->addr_ns, v->hit_skips, v->miss_skips, v->extra,
			       dominated(v) ? "false" : "true");
		}
		printf("],\"walk_ns_per_symbol\":%.1f,\"batch_build_ms\":%.3f,\"sweep\":[", walk_ns,
		       batch_ms);
		for (k = 0; k <= 8; k++) {
			printf("%s{\"k\":%d,\"hit_ns\":%.1f,\"hit_skipped\":%.2f,\"extra_bytes\":%ld",
			       k ? "," : "", k, sweep[k].hit_ns, sweep[k].hit_skips, sweep[k].extra);
			if (k < 8)
				printf(",\"u16_hit_ns\":%.1f,\"u16_extra_bytes\":%ld", sweep16[k].hit_ns,
				       sweep16[k].extra);
			printf("}");
		}
		printf("],\"working_sets\":[");
		for (k = 0; k < (int)NPOOL; k++) {
			printf("%s{\"names\":%zu,\"hit_ns\":[", k ? "," : "", pools[k] ? pools[k] : n);
			for (i = 0; i < NVAR; i++)
				printf("%s%.1f", i ? "," : "", ws[k][i].hit_ns);
			printf("]}");
		}
		printf("]}\n");
	} else {
		printf("%-36s %9s %9s %9s %10s %10s %9s %s\n", "variant", "hit ns", "miss ns",
		       "addr ns", "hit skips", "miss skips", "+bytes", "");
		for (i = 0; i < NVAR; i++) {
			const struct variant *v = &variants[i];

			printf("%-36s %9.0f %9.0f %9.0f %10.1f %10.1f %9ld %s\n", v->name, v->hit_ns,
			       v->miss_ns, v->addr_ns, v->hit_skips, v->miss_skips, v->extra,
			       dominated(v) ? "" : "pareto");
		}
		printf("\nbaseline / series speedup: %.2fx (hits), %.2fx (misses)\n",
		       variants[V_BASE].hit_ns / variants[V_SERIES].hit_ns,
		       variants[V_BASE].miss_ns / variants[V_SERIES].miss_ns);
		printf("full walk: %.0f ns per symbol; batch offsets: built in %.2f ms, %ld bytes "
		       "while open; ", walk_ns, batch_ms, (long)(n * sizeof(uint32_t)));
		/* break-even against the series' 16:1 and against the 256:1 baseline */
		for (i = 0; i < 4; i += 3) {
			double gain = variants[i].hit_ns - variants[4].hit_ns;

			if (gain > 0)
				printf("against %s pays off after %.0f lookups%s", i ? "16:1" : "256:1",
				       batch_ms * 1e6 / gain, i ? "\n" : ", ");
			else
				printf("against %s never faster here%s", i ? "16:1" : "256:1",
				       i ? "\n" : ", ");
		}
		printf("\nspeedup over the baseline (hits), names drawn from a random set of:\n%-36s",
		       "variant");
		for (k = 0; k < (int)NPOOL; k++)
			printf(" %8zu", pools[k] ? pools[k] : n);
		printf("\n");
		for (i = 0; i < NVAR; i++) {
			printf("%-36s", variants[i].name);
			for (k = 0; k < (int)NPOOL; k++)
				printf(" %7.2fx", ws[k][V_BASE].hit_ns / ws[k][i].hit_ns);
			printf("\n");
		}
		printf("\ndensity sweep (series lookup: on-the-fly compare, unrolled seq), a marker "
		       "every 2^k records,\nas the series' u32 markers or as our u16 sub-markers "
		       "between the 256:1 ones:\n"
		       "%4s %10s %10s %9s %10s %9s\n", "k", "u32 hit ns", "hit skips", "+bytes",
		       "u16 hit ns", "+bytes");
		for (k = 0; k <= 8; k++) {
			printf("%4d %10.0f %10.1f %9ld", k, sweep[k].hit_ns, sweep[k].hit_skips,
			       sweep[k].extra);
			if (k < 8)
				printf(" %10.0f %9ld", sweep16[k].hit_ns, sweep16[k].extra);
			printf("\n");
		}
	}
	err = 0;
out:
	free(w.hits);
	free(w.misses);
	free(w.addrs);
	kmodel__free(m);
	ksym_table__free(t);
	return err;
}
