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
#define LEVELS 10	/* TOPTREE: 1023 nodes, 4 KiB */

struct variant {
	const char *name;
	unsigned int shift;
	unsigned int flags;
	bool ours;
	/* results */
	double hit_ns, miss_ns, addr_ns;
	double hit_skips, miss_skips;
	long extra;		/* bytes over the baseline's .rodata */
};

static struct variant variants[] = {
	{ "baseline: 256:1, expand + strcmp", 8, 0 },
	{ "+ compare on compressed tokens", 8, KMODEL_ONTHEFLY },
	{ "+ 16:1 markers", 4, KMODEL_ONTHEFLY },
	{ "+ unrolled seq read (the series)", 4, KMODEL_ONTHEFLY | KMODEL_UNROLLED },
	{ "v4: transient batch offsets", 8, KMODEL_BATCH | KMODEL_ONTHEFLY | KMODEL_UNROLLED },
	{ "ours: dup bit, 256:1", 8, KMODEL_DUPBIT | KMODEL_ONTHEFLY | KMODEL_UNROLLED, true },
	{ "ours: dup bit + near-marker, 256:1", 8, KMODEL_DUPBIT | KMODEL_NEARMARK |
	  KMODEL_ONTHEFLY | KMODEL_UNROLLED, true },
	{ "ours: dup bit + top-tree, 256:1", 8, KMODEL_DUPBIT | KMODEL_TOPTREE | KMODEL_ONTHEFLY |
	  KMODEL_UNROLLED, true },
	{ "ours: all three, 256:1", 8, KMODEL_DUPBIT | KMODEL_NEARMARK | KMODEL_TOPTREE |
	  KMODEL_ONTHEFLY | KMODEL_UNROLLED, true },
	{ "ours: all three, 128:1", 7, KMODEL_DUPBIT | KMODEL_NEARMARK | KMODEL_TOPTREE |
	  KMODEL_ONTHEFLY | KMODEL_UNROLLED, true },
	{ "ours: all three, 64:1", 6, KMODEL_DUPBIT | KMODEL_NEARMARK | KMODEL_TOPTREE |
	  KMODEL_ONTHEFLY | KMODEL_UNROLLED, true },
	{ "ours: dup bit, 16:1", 4, KMODEL_DUPBIT | KMODEL_ONTHEFLY | KMODEL_UNROLLED, true },
};
#define NVAR (sizeof(variants) / sizeof(variants[0]))

struct work {
	char (*hits)[512];
	char (*misses)[540];
	uint64_t *addrs;
	size_t n;
};

static long rodata(const struct kmodel *m)
{
	struct kmodel_size s;

	kmodel__size(m, &s);
	return s.names + s.markers + s.seqs + s.token_table + s.token_index + s.offsets +
	       s.toptree;
}

/* Medians over rounds of one variant's hits, misses and address lookups. */
static void measure(struct kmodel *m, struct variant *v, const struct work *w, int rounds)
{
	double hit[ROUNDS_MAX], miss[ROUNDS_MAX], addr[ROUNDS_MAX];
	uint64_t skip_hit = 0, skip_miss = 0, skip_addr = 0;
	char text[640];
	size_t i, f, l;
	int r;

	for (r = 0; r < rounds; r++) {
		uint64_t t0 = now_ns();

		skip_hit = skip_miss = skip_addr = 0;
		for (i = 0; i < w->n; i++)
			kmodel__lookup_name(m, w->hits[i], v->flags, &f, &l, &skip_hit);
		hit[r] = (double)(now_ns() - t0) / w->n;
		t0 = now_ns();
		for (i = 0; i < w->n; i++)
			kmodel__lookup_name(m, w->misses[i], v->flags, &f, &l, &skip_miss);
		miss[r] = (double)(now_ns() - t0) / w->n;
		t0 = now_ns();
		for (i = 0; i < w->n; i++)
			kmodel__lookup_addr(m, w->addrs[i], v->flags, text, sizeof(text), &skip_addr);
		addr[r] = (double)(now_ns() - t0) / w->n;
	}
	v->hit_ns = stats_median(hit, rounds);
	v->miss_ns = stats_median(miss, rounds);
	v->addr_ns = stats_median(addr, rounds);
	v->hit_skips = (double)skip_hit / w->n;
	v->miss_skips = (double)skip_miss / w->n;
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
	uint64_t seed = 0x9e3779b97f4a7c15ull, t0, addr;
	double walk_ns, batch_ms, sweep_ns[9], sweep_skips[9];
	long base, sweep_extra[9];
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
	w.n = lookups;
	w.hits = calloc(lookups, sizeof(*w.hits));
	w.misses = calloc(lookups, sizeof(*w.misses));
	w.addrs = calloc(lookups, sizeof(*w.addrs));
	if (!w.hits || !w.misses || !w.addrs)
		goto out;
	for (i = 0; i < lookups; i++) {
		seed ^= seed << 13;
		seed ^= seed >> 7;
		seed ^= seed << 17;
		kmodel__at(m, seed % n, &addr, w.hits[i], sizeof(w.hits[i]));
		snprintf(w.misses[i], sizeof(w.misses[i]), "%s.kmodel_miss", w.hits[i]);
		w.addrs[i] = addr + (seed >> 40) % 64;
	}
	kmodel__set_markers(m, 8);
	base = rodata(m);
	if (!json)
		printf("kernel model of %s: %zu vmlinux symbols, built in %.0f ms; %zu lookups, "
		       "medians of %d rounds\n\n", path, n, (now_ns() - t0) / 1e6, lookups, rounds);

	for (i = 0; i < NVAR; i++) {
		struct variant *v = &variants[i];

		kmodel__set_markers(m, v->shift);
		kmodel__set_layout(m, v->flags & KMODEL_NEARMARK ? WINDOW : 0,
				   v->flags & KMODEL_TOPTREE ? LEVELS : 0);
		if (v->flags & KMODEL_BATCH)
			kmodel__batch_begin(m);
		measure(m, v, &w, rounds);
		if (v->flags & KMODEL_BATCH)
			kmodel__batch_end(m);
		v->extra = rodata(m) - base;
	}
	/* the batch index: build cost, and how many lookups pay for it against 16:1 */
	kmodel__set_markers(m, 8);
	kmodel__set_layout(m, 0, 0);
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
	for (k = 0; k <= 8; k++) {
		struct variant v = { .flags = KMODEL_ONTHEFLY | KMODEL_UNROLLED };

		kmodel__set_markers(m, k);
		measure(m, &v, &w, rounds);
		sweep_ns[k] = v.hit_ns;
		sweep_skips[k] = v.hit_skips;
		sweep_extra[k] = rodata(m) - base;
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
		for (k = 0; k <= 8; k++)
			printf("%s{\"k\":%d,\"hit_ns\":%.1f,\"hit_skipped\":%.2f,\"extra_bytes\":%ld}",
			       k ? "," : "", k, sweep_ns[k], sweep_skips[k], sweep_extra[k]);
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
		       variants[0].hit_ns / variants[3].hit_ns, variants[0].miss_ns / variants[3].miss_ns);
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
		printf("\ndensity sweep (series lookup: on-the-fly compare, unrolled seq):\n"
		       "%4s %10s %10s %9s\n", "k", "hit ns", "hit skips", "+bytes");
		for (k = 0; k <= 8; k++)
			printf("%4d %10.0f %10.1f %9ld\n", k, sweep_ns[k], sweep_skips[k], sweep_extra[k]);
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
