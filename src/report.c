// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ksym.h"
#include "report.h"

void report__json_str(FILE *f, const char *s)
{
	if (!s) {
		fputs("null", f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* Hits descending, then address: the busiest functions first. */
static int by_hits(const void *x, const void *y)
{
	const struct kattach_target *a = *(const struct kattach_target *const *)x;
	const struct kattach_target *b = *(const struct kattach_target *const *)y;

	if (a->stat.calls != b->stat.calls)
		return a->stat.calls > b->stat.calls ? -1 : 1;
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
	size_t n = kattach__target_cnt(a), i;
	int ph;

	fputs("{\"kernel\":", f);
	report__json_str(f, o->kernel);
	fprintf(f, ",\"mode\":\"%s\",\"resolver\":\"ksym\",\"source\":",
		o->list_only ? "list" : kattach__mode_name(kattach__mode(a)));
	report__json_str(f, kattach__source(a));
	fprintf(f, ",\"cached\":%s,\"matched\":%zu,\"attached\":%zu,\"phases_us\":{",
		kattach__from_cache(a) ? "true" : "false", n, kattach__attached_cnt(a));
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
				v[i]->flags & KSYM_F_BLACKLISTED ? "true" : "false");
		} else {
			fprintf(f, ",\"hits\":%" PRIu64, (uint64_t)v[i]->stat.calls);
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
	fprintf(f, "kernel %s: %zu functions matched, %zu attached (kprobe.%s, by address)\n",
		o->kernel, n, kattach__attached_cnt(a), kattach__mode_name(kattach__mode(a)));
	fprintf(f, "symbols from %s\n\n%-8s %12s\n", kattach__source(a), "PHASE", "TIME(us)");
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
			(uint64_t)v[i]->stat.calls);
	if (shown < n)
		fprintf(f, "... %zu more (-o json lists all)\n", n - shown);
}

void report__print(FILE *f, const struct kattach *a, const struct report_opts *o)
{
	const struct kattach_target **v = sorted(a, !o->list_only);

	if (!v)
		return;
	if (o->format == REPORT_JSON)
		print_json(f, a, o, v);
	else
		print_text(f, a, o, v);
	free(v);
}
