// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "compare.h"
#include "stats.h"

#define MAX_ROUNDS 64

/*
 * The rows: ksym without its caches, with the /run one, with the build cache
 * alone (a boot's first run of a build seen before), names to the kernel, stock
 * libbpf, and the floor: the same addresses known in advance, an empty
 * program loaded raw. Every row's stall is also given as a ratio to the
 * floor's: how far above the physical limit of attaching it is.
 */
struct row {
	const char *name;
	enum kattach_resolver resolver;
	bool no_cache;
	bool no_run_cache;	/* the build cache only: a boot's first run */
	int from_build;		/* rounds it served */
	double ph[KATTACH_PH_CNT][MAX_ROUNDS];	/* ms */
	double total[MAX_ROUNDS], user[MAX_ROUNDS], sys[MAX_ROUNDS];
	double resatt[MAX_ROUNDS];	/* resolve + attach: what the resolver adds */
	double stall[MAX_ROUNDS];	/* read ... load, attach: start to attached */
	size_t targets, links;
	bool fell_back;		/* classic kprobes: the kernel has no kprobe.multi */
};

enum { ROW_COLD, ROW_WARM, ROW_BOOT, ROW_KERNEL, ROW_LIBBPF, ROW_FLOOR, NROWS };

static struct row rows[NROWS] = {
	[ROW_COLD] = { .name = "ksym-cold", .resolver = KATTACH_RES_KSYM, .no_cache = true },
	[ROW_WARM] = { .name = "ksym-warm", .resolver = KATTACH_RES_KSYM },
	[ROW_BOOT] = { .name = "ksym-boot", .resolver = KATTACH_RES_KSYM, .no_run_cache = true },
	[ROW_KERNEL] = { .name = "kernel", .resolver = KATTACH_RES_KERNEL, .no_cache = true },
	[ROW_LIBBPF] = { .name = "libbpf", .resolver = KATTACH_RES_LIBBPF, .no_cache = true },
	[ROW_FLOOR] = { .name = "floor", .resolver = KATTACH_RES_FLOOR },
};

static double tv_ms(struct timeval tv)
{
	return tv.tv_sec * 1e3 + tv.tv_usec / 1e3;
}

struct stat3 {
	double med, min, max;
};

static struct stat3 stats(const double *v, int n)
{
	double s[MAX_ROUNDS];
	struct stat3 r;

	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), stats_cmp_double);
	r.min = s[0];
	r.max = s[n - 1];
	r.med = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
	return r;
}

/* One full resolve, attach, detach by one row's resolver; round -1: a warm-up. */
static int run_one(const struct compare_opts *o, struct row *r, int round)
{
	struct ksym_db_opts dbo = { .sz = sizeof(dbo) };
	struct kattach_opts ko = *o->attach;
	struct rusage r0, r1;
	struct kattach *a;
	int err, ph, at = round < 0 ? 0 : round;

	if (ko.sources)
		memcpy(&dbo, ko.sources, sizeof(dbo));
	dbo.no_cache = r->no_cache;
	dbo.no_run_cache = r->no_run_cache;
	ko.sources = &dbo;
	ko.resolver = r->resolver;
	getrusage(RUSAGE_SELF, &r0);
	a = kattach__new(&ko);
	if (!a)
		return -ENOMEM;
	err = kattach__resolve(a);
	if (!err)
		err = kattach__attach(a);
	kattach__detach(a);
	getrusage(RUSAGE_SELF, &r1);
	if (err) {
		fprintf(stderr, "ksymattach: compare, %s: %s\n", r->name, kattach__errmsg(a));
		kattach__free(a);
		return err;
	}
	r->total[at] = 0;
	r->resatt[at] = 0;
	for (ph = 0; ph < KATTACH_PH_CNT; ph++) {
		r->ph[ph][at] = kattach__phase_ns(a, ph) / 1e6;
		r->total[at] += r->ph[ph][at];
		if (ph <= KATTACH_PH_MATCH || ph == KATTACH_PH_ATTACH)
			r->resatt[at] += r->ph[ph][at];
	}
	r->stall[at] = kattach__stall_ns(a) / 1e6;
	r->user[at] = tv_ms(r1.ru_utime) - tv_ms(r0.ru_utime);
	r->sys[at] = tv_ms(r1.ru_stime) - tv_ms(r0.ru_stime);
	r->from_build += round >= 0 && kattach__from_build_cache(a);
	r->targets = kattach__attached_cnt(a);
	r->links = kattach__link_cnt_total(a);
	r->fell_back = kattach__fell_back(a);
	kattach__free(a);
	return 0;
}

/* What the blocks under the phases measure, per row and round. */
enum measure {
	M_RESATT,	/* read + parse + index + match + attach */
	M_STALL,	/* and load: start to attached */
};

static const double *measure_of(const struct row *r, enum measure m)
{
	return m == M_STALL ? r->stall : r->resatt;
}

/* One measure for every row, median [min-max], then its ratios to libbpf and the floor. */
static void print_block(const char *title, enum measure m, int n)
{
	double lib = stats(measure_of(&rows[ROW_LIBBPF], m), n).med;
	double flo = stats(measure_of(&rows[ROW_FLOOR], m), n).med;
	size_t i;

	printf("\n\n%-8s", title);
	for (i = 0; i < NROWS; i++) {
		struct stat3 s = stats(measure_of(&rows[i], m), n);
		char cell[64];

		snprintf(cell, sizeof(cell), "%.1f [%.1f-%.1f]", s.med, s.min, s.max);
		printf(" %26s", cell);
	}
	printf("\n%-8s", "/libbpf");
	for (i = 0; i < NROWS; i++)
		printf(" %25.3fx", stats(measure_of(&rows[i], m), n).med / lib);
	printf("\n%-8s", "/floor");
	for (i = 0; i < NROWS; i++)
		printf(" %25.2fx", stats(measure_of(&rows[i], m), n).med / flo);
}

static void print_text(const struct compare_opts *o, int n)
{
	struct stat3 lib = stats(rows[ROW_LIBBPF].total, n), s;
	size_t i;
	int ph;

	printf("compare on %s: %zu functions, %zu link%s each, %s%s, %d rounds\n"
	       "milliseconds, median [min-max]; libbpf resolves inside its attach call;\n"
	       "res+att = read+parse+index+match+attach, what a resolver adds; stall = res+att\n"
	       "+load, start to attached; floor: the addresses known, an empty program loaded raw\n\n",
	       o->kernel ? o->kernel : "(symbols from a file)", rows[ROW_COLD].targets,
	       rows[ROW_COLD].links, rows[ROW_COLD].links == 1 ? "" : "s",
	       rows[ROW_COLD].fell_back ? "classic kprobes (no kprobe.multi; kernel and libbpf "
					  "by name, the kernel resolving each)" : "kprobe.",
	       rows[ROW_COLD].fell_back ? "" : kattach__mode_name(o->attach->mode), n);
	printf("%-8s", "PHASE");
	for (i = 0; i < NROWS; i++)
		printf(" %26s", rows[i].name);
	printf("\n");
	for (ph = 0; ph <= KATTACH_PH_CNT; ph++) {
		printf("%-8s", ph < KATTACH_PH_CNT ? kattach__phase_name(ph) : "total");
		for (i = 0; i < NROWS; i++) {
			char cell[64];

			s = stats(ph < KATTACH_PH_CNT ? rows[i].ph[ph] : rows[i].total, n);
			snprintf(cell, sizeof(cell), "%.1f [%.1f-%.1f]", s.med, s.min, s.max);
			printf(" %26s", cell);
		}
		printf("\n");
	}
	printf("%-8s", "user");
	for (i = 0; i < NROWS; i++)
		printf(" %26.1f", stats(rows[i].user, n).med);
	printf("\n%-8s", "system");
	for (i = 0; i < NROWS; i++)
		printf(" %26.1f", stats(rows[i].sys, n).med);
	printf("\n%-8s", "/libbpf");
	for (i = 0; i < NROWS; i++)
		printf(" %25.3fx", stats(rows[i].total, n).med / lib.med);
	/* what a resolver adds: its own phases plus the attach call; and the whole stall */
	print_block("res+att", M_RESATT, n);
	print_block("stall", M_STALL, n);
	/* the kernel's name lookup: the attach phase over ksym's, per name */
	printf("\n\nkernel-side name resolution: %+.1f us per name (attach, kernel vs ksym-cold)\n",
	       (stats(rows[ROW_KERNEL].ph[KATTACH_PH_ATTACH], n).med -
		stats(rows[ROW_COLD].ph[KATTACH_PH_ATTACH], n).med) * 1e3 / rows[ROW_COLD].targets);
}

static void print_json(const struct compare_opts *o, int n)
{
	struct stat3 lib = stats(rows[ROW_LIBBPF].total, n), s;
	double lib_stall = stats(rows[ROW_LIBBPF].stall, n).med;
	double floor_stall = stats(rows[ROW_FLOOR].stall, n).med;
	size_t i;
	int ph;

	printf("{\"kernel\":");
	report__json_str(stdout, o->kernel);
	printf(",\"mode\":\"%s\",\"fallback\":%s,\"matched\":%zu,\"links\":%zu,\"rounds\":%d,"
	       "\"compare\":[", kattach__mode_name(o->attach->mode),
	       rows[ROW_COLD].fell_back ? "true" : "false", rows[ROW_COLD].targets,
	       rows[ROW_COLD].links, n);
	for (i = 0; i < NROWS; i++) {
		printf("%s{\"resolver\":\"%s\",\"phases_ms\":{", i ? "," : "", rows[i].name);
		for (ph = 0; ph < KATTACH_PH_CNT; ph++) {
			s = stats(rows[i].ph[ph], n);
			printf("%s\"%s\":{\"median\":%.3f,\"min\":%.3f,\"max\":%.3f}", ph ? "," : "",
			       kattach__phase_name(ph), s.med, s.min, s.max);
		}
		s = stats(rows[i].total, n);
		printf("},\"total_ms\":{\"median\":%.3f,\"min\":%.3f,\"max\":%.3f},"
		       "\"user_ms\":%.3f,\"system_ms\":%.3f,\"ratio_to_libbpf\":%.4f,"
		       "\"resolve_attach_ms\":%.3f,\"resolve_attach_ratio_to_libbpf\":%.4f,"
		       "\"stall_ms\":%.3f,\"stall_ratio_to_libbpf\":%.4f,\"stall_ratio_to_floor\":%.4f}",
		       s.med, s.min, s.max, stats(rows[i].user, n).med, stats(rows[i].sys, n).med,
		       s.med / lib.med, stats(rows[i].resatt, n).med,
		       stats(rows[i].resatt, n).med / stats(rows[ROW_LIBBPF].resatt, n).med,
		       stats(rows[i].stall, n).med, stats(rows[i].stall, n).med / lib_stall,
		       stats(rows[i].stall, n).med / floor_stall);
	}
	printf("],\"kernel_extra_us_per_name\":%.3f}\n",
	       (stats(rows[ROW_KERNEL].ph[KATTACH_PH_ATTACH], n).med -
		stats(rows[ROW_COLD].ph[KATTACH_PH_ATTACH], n).med) * 1e3 / rows[ROW_COLD].targets);
}

int compare__run(const struct compare_opts *o)
{
	int n = o->rounds > 0 && o->rounds <= MAX_ROUNDS ? o->rounds : 5, round;
	size_t i;

	if (o->attach->resolver != KATTACH_RES_KSYM) {
		fprintf(stderr, "ksymattach: --compare runs every resolver: drop -r\n");
		return 64;
	}
	if (o->attach->link_batch > 1) {
		fprintf(stderr, "ksymattach: --compare: libbpf takes a pattern or a name per link, "
				"so --batch N cannot be compared: one link or --link-per-func\n");
		return 64;
	}
	/* warm the caches once, so "ksym-warm" and "ksym-boot" are from their first round */
	for (round = -1; round < n; round++) {
		for (i = 0; i < NROWS; i++) {
			if (round < 0 && i != ROW_WARM && i != ROW_BOOT)
				continue;
			/* each run detached already: a signal just ends the comparison */
			if (o->attach->stop && *o->attach->stop)
				return 128 + *o->attach->stop;
			if (run_one(o, &rows[i], round < 0 ? -1 : round))
				return o->attach->stop && *o->attach->stop ? 128 + *o->attach->stop : 1;
		}
	}
	/* a row that says "boot" must have been one: no build cache here is worth a word */
	if (rows[ROW_BOOT].from_build != n)
		fprintf(stderr, "ksymattach: compare: ksym-boot came from the build cache in %d of "
				"%d rounds (the others read the kernel's symbols)\n",
			rows[ROW_BOOT].from_build, n);
	if (o->format == REPORT_JSON)
		print_json(o, n);
	else
		print_text(o, n);
	return 0;
}
