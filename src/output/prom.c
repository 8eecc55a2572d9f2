// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "prom.h"

/*
 * Latency buckets: every second log2 slot boundary, 256 ns to 17 s. The BPF
 * side counts log2 slots, so each bound is exact; fourteen bounds keep a
 * histogram's series few.
 */
#define LAT_FIRST 8
#define LAT_LAST 34

static void label(FILE *f, const char *s)
{
	report__prom_label(f, s);
}

static void fn_labels(FILE *f, const struct prom_fn *fn)
{
	fputs("function=\"", f);
	label(f, fn->name);
	fputs("\",module=\"", f);
	label(f, fn->module);
	fputc('"', f);
}

static void header(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void gauge(FILE *f, const char *name, const char *help, double v)
{
	header(f, name, "gauge", help);
	fprintf(f, "%s %.9g\n", name, v);
}

uint64_t prom__stall_ns(const uint64_t *ph)
{
	return ph[KATTACH_PH_READ] + ph[KATTACH_PH_PARSE] + ph[KATTACH_PH_INDEX] +
	       ph[KATTACH_PH_MATCH] + ph[KATTACH_PH_LOAD] + ph[KATTACH_PH_ATTACH];
}

/* One histogram's samples; labels NULL for the one over all functions. */
static void histogram(FILE *f, const char *name, const struct prom_fn *fn,
		      const struct ksa_stat *st)
{
	uint64_t cum = 0;
	int b;

	for (b = 0; b < KSA_LAT_SLOTS; b++) {
		cum += st->lat_log2[b];
		/* slot b holds [2^b, 2^(b+1)) ns: after it, le = 2^(b+1) */
		if (b + 1 < LAT_FIRST || b + 1 > LAT_LAST || (b + 1) % 2)
			continue;
		fprintf(f, "%s_bucket{", name);
		if (fn) {
			fn_labels(f, fn);
			fputc(',', f);
		}
		fprintf(f, "le=\"%.12g\"} %" PRIu64 "\n", (double)(1ull << (b + 1)) / 1e9, cum);
	}
	fprintf(f, "%s_bucket{", name);
	if (fn) {
		fn_labels(f, fn);
		fputc(',', f);
	}
	fprintf(f, "le=\"+Inf\"} %" PRIu64 "\n%s_sum", cum, name);
	if (fn) {
		fputc('{', f);
		fn_labels(f, fn);
		fputc('}', f);
	}
	fprintf(f, " %.9f\n%s_count", st->lat_sum_ns / 1e9, name);
	if (fn) {
		fputc('{', f);
		fn_labels(f, fn);
		fputc('}', f);
	}
	fprintf(f, " %" PRIu64 "\n", cum);
}

void prom__stat_add(struct ksa_stat *sum, const struct ksa_stat *st)
{
	int b;

	sum->calls += st->calls;
	sum->returns += st->returns;
	sum->lat_sum_ns += st->lat_sum_ns;
	for (b = 0; b < KSA_LAT_SLOTS; b++)
		sum->lat_log2[b] += st->lat_log2[b];
}

/* module, then name (vmlinux's first) */
static int by_name(const void *x, const void *y)
{
	const struct prom_fn *a = x, *b = y;
	int c = strcmp(a->module ? a->module : "", b->module ? b->module : "");

	return c ? c : strcmp(a->name, b->name);
}

int prom__view_of(struct prom_view *v, const struct kattach *a, struct prom_fn **fns)
{
	const struct kattach_target *t = kattach__targets(a);
	size_t n = kattach__target_cnt(a), i, k = 0, m;
	int ph;

	*fns = calloc(n + 1, sizeof(**fns));
	if (!*fns)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		if (!(t[i].flags & KATTACH_F_EXCLUDED))
			(*fns)[k++] = (struct prom_fn){ t[i].name, t[i].module,
							 *kattach_target__stat(&t[i]) };
	/* same-named statics would repeat a label set: one series, their sum */
	if (k > 1)
		qsort(*fns, k, sizeof(**fns), by_name);
	for (i = m = 0; i < k; i++) {
		if (m && !by_name(&(*fns)[m - 1], &(*fns)[i]))
			prom__stat_add(&(*fns)[m - 1].stat, &(*fns)[i].stat);
		else
			(*fns)[m++] = (*fns)[i];
	}
	k = m;
	v->mode = kattach__mode_name(kattach__mode(a));
	v->resolver = kattach__resolver_name(kattach__resolver(a));
	v->source = kattach__source(a);
	v->session = kattach__mode_has_latency(kattach__mode(a));
	v->fallback = kattach__fell_back(a);
	v->matched = n;
	v->attached = kattach__attached_cnt(a);
	v->excluded = kattach__excluded_cnt(a);
	v->links = kattach__link_cnt_total(a);
	for (ph = 0; ph < KATTACH_PH_CNT; ph++)
		v->phase_ns[ph] = kattach__phase_ns(a, ph);
	v->fns = *fns;
	v->fn_cnt = k;
	return 0;
}

static int by_calls(const void *x, const void *y)
{
	const struct prom_fn *a = *(const struct prom_fn *const *)x;
	const struct prom_fn *b = *(const struct prom_fn *const *)y;

	/* marked ones first, when the caller marks them */
	if (a->series != b->series)
		return a->series ? -1 : 1;
	if (a->stat.calls != b->stat.calls)
		return a->stat.calls < b->stat.calls ? 1 : -1;
	/* ties in a stable order, so the series do not swap between updates */
	return by_name(a, b);
}

int prom__write(FILE *f, const struct prom_view *v)
{
	const struct prom_fn **s = calloc(v->fn_cnt + 1, sizeof(*s));
	size_t i, top = v->top < v->fn_cnt ? v->top : v->fn_cnt;
	bool marked = v->top == PROM_TOP_MARKED;
	struct ksa_stat all = {}, rest = {};
	int ph;

	if (!s)
		return -ENOMEM;
	for (i = 0, top = marked ? 0 : top; i < v->fn_cnt; i++) {
		s[i] = &v->fns[i];
		top += marked && s[i]->series;
	}
	qsort(s, v->fn_cnt, sizeof(*s), by_calls);
	for (i = 0; i < v->fn_cnt; i++) {
		prom__stat_add(&all, &s[i]->stat);
		if (i >= top)
			prom__stat_add(&rest, &s[i]->stat);
	}

	header(f, "ksymattach_build_info", "gauge",
	       "The version, kernel, mode, resolver and symbol source, as labels.");
	fputs("ksymattach_build_info{version=\"", f);
	label(f, v->version);
	fputs("\",kernel=\"", f);
	label(f, v->kernel);
	fputs("\",mode=\"", f);
	label(f, v->mode);
	fputs("\",resolver=\"", f);
	label(f, v->resolver);
	fputs("\",source=\"", f);
	label(f, v->source);
	fputs("\"} 1\n", f);
	gauge(f, "ksymattach_functions_matched", "Functions the patterns matched.", v->matched);
	gauge(f, "ksymattach_functions_attached", "Functions attached.", v->attached);
	gauge(f, "ksymattach_functions_excluded",
	      "Functions left out (refused, blacklisted, module gone).", v->excluded);
	gauge(f, "ksymattach_links", "BPF links attached.", v->links);
	gauge(f, "ksymattach_fallback_kprobes",
	      "1 when classic kprobes stood in for kprobe.multi.", v->fallback);
	header(f, "ksymattach_phase_seconds", "gauge", "Wall time of each phase of the last attach.");
	for (ph = 0; ph < KATTACH_PH_CNT; ph++) {
		fprintf(f, "ksymattach_phase_seconds{phase=\"%s\",resolver=\"", kattach__phase_name(ph));
		label(f, v->resolver);
		fprintf(f, "\"} %.9f\n", v->phase_ns[ph] / 1e9);
	}
	header(f, "ksymattach_attach_stall_seconds", "gauge",
	       "Read, parse, index, match, load and attach of the last attach.");
	fputs("ksymattach_attach_stall_seconds{resolver=\"", f);
	label(f, v->resolver);
	fprintf(f, "\"} %.9f\n", prom__stall_ns(v->phase_ns) / 1e9);
	if (v->boot_stall_s >= 0)
		gauge(f, "ksymattach_boot_attach_stall_seconds",
		      "The boot measurement's attach stall on this boot.", v->boot_stall_s);
	if (v->stall_threshold_s > 0)
		gauge(f, "ksymattach_stall_threshold_seconds",
		      "The stall the node's alert fires above (config: stall_threshold).",
		      v->stall_threshold_s);

	header(f, "ksymattach_calls_total", "counter", "Calls seen in all attached functions.");
	fprintf(f, "ksymattach_calls_total %" PRIu64 "\n", (uint64_t)all.calls);
	header(f, "ksymattach_other_calls_total", "counter",
	       "Calls seen in the functions without series of their own (beyond top).");
	fprintf(f, "ksymattach_other_calls_total %" PRIu64 "\n", (uint64_t)rest.calls);
	header(f, "ksymattach_function_calls_total", "counter",
	       "Calls seen per function, for the busiest (config: top).");
	for (i = 0; i < top; i++) {
		fputs("ksymattach_function_calls_total{", f);
		fn_labels(f, s[i]);
		fprintf(f, "} %" PRIu64 "\n", (uint64_t)s[i]->stat.calls);
	}
	if (v->session) {
		header(f, "ksymattach_latency_seconds", "histogram",
		       "Entry-to-return time over all attached functions.");
		histogram(f, "ksymattach_latency_seconds", NULL, &all);
		header(f, "ksymattach_function_latency_seconds", "histogram",
		       "Entry-to-return time per function, for the busiest.");
		for (i = 0; i < top; i++)
			histogram(f, "ksymattach_function_latency_seconds", s[i], &s[i]->stat);
	}
	if (v->updated_s > 0)
		gauge(f, "ksymattach_last_update_timestamp_seconds",
		      "When this file was written (unix time).", v->updated_s);
	if (v->interval_s > 0)
		gauge(f, "ksymattach_report_interval_seconds",
		      "How often the daemon rewrites this file (config: interval).", v->interval_s);
	free(s);
	return ferror(f) ? -EIO : 0;
}
