// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <ksym/ksym.h>

#include "prom.h"
#include "report.h"

/* Calls, returns and the log2 histogram up to its last non-empty slot. */
static void json_latency(FILE *f, const struct ksa_stat *st)
{
	int last = KSA_LAT_SLOTS - 1, i;

	while (last >= 0 && !st->lat_log2[last])
		last--;
	fprintf(f, ",\"calls\":%" PRIu64 ",\"returns\":%" PRIu64 ",\"avg_ns\":%.0f,"
		   "\"latency_ns_log2\":[", (uint64_t)st->calls, (uint64_t)st->returns,
		st->returns ? (double)st->lat_sum_ns / st->returns : 0.0);
	for (i = 0; i <= last; i++)
		fprintf(f, "%s%" PRIu64, i ? "," : "", (uint64_t)st->lat_log2[i]);
	fputc(']', f);
}

/* libbpf-tools' log2 histogram: slot i holds [2^i, 2^(i+1)) ns. */
static void print_hist(FILE *f, const struct kattach_target *t)
{
	const struct ksa_stat *st = kattach_target__stat(t);
	int first = 0, last = KSA_LAT_SLOTS - 1, i, w;
	uint64_t max = 0;

	while (last >= 0 && !st->lat_log2[last])
		last--;
	while (first < last && !st->lat_log2[first])
		first++;
	for (i = first; i <= last; i++)
		max = st->lat_log2[i] > max ? st->lat_log2[i] : max;
	fprintf(f, "\n%s: %" PRIu64 " calls, %" PRIu64 " returns, avg %.0f ns\n", t->name,
		(uint64_t)st->calls, (uint64_t)st->returns,
		st->returns ? (double)st->lat_sum_ns / st->returns : 0.0);
	if (last < 0)
		return;
	fprintf(f, "%24s : %-10s distribution\n", "nsecs", "count");
	for (i = first; i <= last; i++) {
		char range[48];	/* two 20-digit numbers and " -> " */

		snprintf(range, sizeof(range), "%" PRIu64 " -> %" PRIu64, (uint64_t)1 << i,
			 ((uint64_t)1 << (i + 1)) - 1);
		w = max ? (int)(st->lat_log2[i] * 40 / max) : 0;
		fprintf(f, "%24s : %-10" PRIu64 " |%-40.*s|\n", range, (uint64_t)st->lat_log2[i], w,
			"****************************************");
	}
}

static int print_prom(FILE *f, const struct kattach *a, const struct report_opts *o)
{
	struct prom_view v = {
		.sz = sizeof(v),
		.version = o->version,
		.kernel = o->kernel,
		.boot_stall_s = -1,
		.top = o->top ? o->top : kattach__target_cnt(a),
	};
	struct prom_fn *fns;
	int err = prom__view_of(&v, a, &fns);

	if (!err)
		err = prom__write(f, &v);
	free(fns);
	return err;
}

/* Hits descending, then address: the busiest functions first. */
static int by_hits(const void *x, const void *y)
{
	const struct kattach_target *a = *(const struct kattach_target *const *)x;
	const struct kattach_target *b = *(const struct kattach_target *const *)y;

	uint64_t ca = kattach_target__stat(a)->calls, cb = kattach_target__stat(b)->calls;

	if (ca != cb)
		return ca > cb ? -1 : 1;
	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

static const struct kattach_target **sorted(const struct kattach *a, bool hits)
{
	size_t n = kattach__target_cnt(a), i;
	const struct kattach_target *t = kattach__targets(a);
	const struct kattach_target **v = malloc((n ? n : 1) * sizeof(*v));

	if (!v)
		return NULL;
	for (i = 0; i < n; i++)
		v[i] = &t[i];
	if (hits)
		qsort(v, n, sizeof(*v), by_hits);
	return v;
}

static void print_json(FILE *f, const struct kattach *a, const struct report_opts *o,
		       const struct kattach_target **v)
{
	size_t n = kattach__target_cnt(a), i, ex;
	int ph;

	fputs("{\"kernel\":", f);
	report__json_str(f, o->kernel);
	fprintf(f, ",\"mode\":\"%s\",\"resolver\":\"%s\",\"links\":%zu,\"source\":",
		o->list_only ? "list" : kattach__mode_name(kattach__mode(a)),
		kattach__resolver_name(kattach__resolver(a)), kattach__link_cnt_total(a));
	report__json_str(f, kattach__source(a));
	fprintf(f, ",\"cached\":%s,\"build_cache\":%s,\"matched\":%zu,\"attached\":%zu,",
		kattach__from_cache(a) ? "true" : "false",
		kattach__from_build_cache(a) ? "true" : "false", n, kattach__attached_cnt(a));
	if (kattach__confirmed_cnt(a) >= 0)
		fprintf(f, "\"confirmed\":%zd,", kattach__confirmed_cnt(a));
	fprintf(f, "\"fallback\":%s,\"excluded\":[", kattach__fell_back(a) ? "true" : "false");
	for (i = 0, ex = 0; i < n; i++) {
		if (!(v[i]->flags & KATTACH_F_EXCLUDED))
			continue;
		fprintf(f, "%s{\"name\":", ex++ ? "," : "");
		report__json_str(f, v[i]->name);
		fprintf(f, ",\"addr\":\"0x%" PRIx64 "\",\"reason\":", v[i]->addr);
		report__json_str(f, kattach__excluded_reason(v[i]));
		fputc('}', f);
	}
	fputs("],", f);
	/* libbpf mode: our own resolution, for the report only, outside the phases */
	if (kattach__prep_ns(a))
		fprintf(f, "\"prep_us\":%.1f,", kattach__prep_ns(a) / 1000.0);
	fputs("\"phases_us\":{", f);
	for (ph = 0; ph < KATTACH_PH_CNT; ph++)
		fprintf(f, "%s\"%s\":%.1f", ph ? "," : "", kattach__phase_name(ph),
			kattach__phase_ns(a, ph) / 1000.0);
	fputs("},\"functions\":[", f);
	for (i = 0; i < n; i++) {
		fprintf(f, "%s{\"name\":", i ? "," : "");
		report__json_str(f, v[i]->name);
		fprintf(f, ",\"addr\":\"0x%" PRIx64 "\",\"module\":", v[i]->addr);
		report__json_str(f, v[i]->module);
		if (o->list_only) {
			fprintf(f, ",\"traceable\":%s,\"blacklisted\":%s",
				!kattach__traceability_known(a) ? "null" :
				v[i]->flags & KSYM_F_TRACEABLE ? "true" : "false",
				!kattach__blacklist_known(a) ? "null" :
				v[i]->flags & KSYM_F_BLACKLISTED ? "true" : "false");
		} else {
			fprintf(f, ",\"hits\":%" PRIu64, (uint64_t)kattach_target__stat(v[i])->calls);
			if (kattach__confirmed_cnt(a) >= 0)
				fprintf(f, ",\"confirmed\":%s",
					v[i]->flags & KATTACH_F_CONFIRMED ? "true" : "false");
			if (kattach__mode_has_latency(kattach__mode(a)))
				json_latency(f, kattach_target__stat(v[i]));
		}
		fputc('}', f);
	}
	fputs("]}\n", f);
}

static void print_text(FILE *f, const struct kattach *a, const struct report_opts *o,
		       const struct kattach_target **v)
{
	size_t n = kattach__target_cnt(a), shown = n, i;
	uint64_t total = 0;
	int ph;

	if (o->addrs_only) {
		/* what kprobe_multi.addrs takes: every match, in address order */
		for (i = 0; i < n; i++)
			fprintf(f, "0x%" PRIx64 "\n", v[i]->addr);
		return;
	}
	if (o->list_only) {
		fprintf(f, "%-16s %-40s %-12s %s\n", "ADDR", "FUNCTION", "MODULE", "TRACEABLE");
		for (i = 0; i < n; i++)
			fprintf(f, "%016" PRIx64 " %-40s %-12s %s%s\n", v[i]->addr, v[i]->name,
				v[i]->module ? v[i]->module : "-",
				!kattach__traceability_known(a) ? "unknown" : "yes",
				v[i]->flags & KSYM_F_BLACKLISTED ? " (kprobe-blacklisted)" : "");
		fprintf(f, "%zu functions matched (%s%s)\n", n, kattach__source(a),
			kattach__from_cache(a) ? ", cached" : "");
		return;
	}
	fprintf(f, "kernel %s: %zu functions matched, %zu attached in %zu link%s "
		   "(%s, resolver %s)\n",
		o->kernel ? o->kernel : "(symbols from a file)", n, kattach__attached_cnt(a),
		kattach__link_cnt_total(a),
		kattach__link_cnt_total(a) == 1 ? "" : "s",
		kattach__link_kind(a), kattach__resolver_name(kattach__resolver(a)));
	fprintf(f, "symbols from %s%s\n", kattach__source(a),
		kattach__fell_back(a) ? "; classic kprobes, one per function (no kprobe.multi)" : "");
	for (i = 0; i < n; i++)
		if (v[i]->flags & KATTACH_F_EXCLUDED)
			fprintf(f, "excluded %s (%016" PRIx64 "): %s\n", v[i]->name, v[i]->addr,
				kattach__excluded_reason(v[i]));
	fprintf(f, "\n%-8s %12s\n", "PHASE", "TIME(us)");
	for (ph = 0; ph < KATTACH_PH_CNT; ph++) {
		uint64_t ns = kattach__phase_ns(a, ph);

		total += ns;
		fprintf(f, "%-8s %12.1f\n", kattach__phase_name(ph), ns / 1000.0);
	}
	fprintf(f, "%-8s %12.1f\n\n", "total", total / 1000.0);
	if (o->top && o->top < n)
		shown = o->top;
	fprintf(f, "%-40s %-18s %-12s %12s\n", "FUNCTION", "ADDR", "MODULE", "HITS");
	for (i = 0; i < shown; i++)
		fprintf(f, "%-40s %016" PRIx64 "   %-12s %12" PRIu64 "\n", v[i]->name,
			v[i]->addr, v[i]->module ? v[i]->module : "-",
			(uint64_t)kattach_target__stat(v[i])->calls);
	if (shown < n)
		fprintf(f, "... %zu more (-o json lists all)\n", n - shown);
	/* session: the latency of the busiest few */
	for (i = 0; kattach__mode_has_latency(kattach__mode(a)) && i < shown && i < 5; i++)
		if (kattach_target__stat(v[i])->calls)
			print_hist(f, v[i]);
}

void report__print(FILE *f, const struct kattach *a, const struct report_opts *o)
{
	const struct kattach_target **v = sorted(a, !o->list_only && !o->addrs_only);

	if (!v)
		return;
	if (o->format == REPORT_JSON)
		print_json(f, a, o, v);
	else if (o->format == REPORT_PROM)
		print_prom(f, a, o);
	else
		print_text(f, a, o, v);
	free(v);
}
