// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The watcher's records printed: a table a process sorted by stall (redrawn
 * in place on a terminal), JSON with one object a process, or Prometheus
 * series by comm and unit. A field the kernel cannot show is "-" or null and
 * named with its reason, never a zero.
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "kwatch.h"

static double ms(uint64_t ns)
{
	return ns / 1e6;
}

static const char *by_name(unsigned int by)
{
	switch (by) {
	case 0:
		return NULL;
	case KSW_BY_NAMES:
		return "names";
	case KSW_BY_ADDRS:
		return "addresses";
	case KSW_BY_IDS:
		return "ids";
	default:
		return "mixed";
	}
}

bool kwatch__shown(const struct ksw_proc *p, const struct kwatch_print_opts *o)
{
	return !o->min_stall_ns || ksw_proc_stall_ns(p) >= o->min_stall_ns;
}

static size_t shown_cnt(struct ksw_proc *const *v, size_t n, const struct kwatch_print_opts *o)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		k += kwatch__shown(v[i], o);
	return k;
}

static void print_text(FILE *f, struct kwatch *w, const struct kwatch_print_opts *o)
{
	const char *no_res = kwatch__unmeasured(w, KWATCH_F_RESOLVE);
	const char *no_det = kwatch__unmeasured(w, KWATCH_F_DETACH);
	struct ksw_proc **v;
	size_t i, n, running = 0;

	v = kwatch__procs(w, &n);
	if (o->screen)
		fputs("\033[H\033[2J", f);
	fprintf(f, "kernel %s: %zu processes attaching, watched %.0f s; %" PRIu64
		   " events dropped\n", o->kernel ? o->kernel : "?", shown_cnt(v, n, o), o->duration_s,
		kwatch__dropped(w));
	if (no_res)
		fprintf(f, "kernel name resolution not measured: %s\n", no_res);
	if (no_det)
		fprintf(f, "detach not measured: %s\n", no_det);
	fprintf(f, "\n%-7s %-15s %-24s %7s %-9s %5s %4s %9s %9s %9s %9s %9s %8s\n", "PID", "COMM",
		"UNIT", "FUNCS", "BY", "LINKS", "REF", "LOAD_MS", "ATTACH_MS", "KRES_MS",
		"SYMRD_MS", "STALL_MS", "CPU_MS");
	for (i = 0; i < n; i++) {
		const struct ksw_proc *p = v[i];
		const char *path, *unit, *by = by_name(p->by);
		char kres[32];

		if (!kwatch__shown(p, o))
			continue;
		kwatch__unit(w, p, &path, &unit);
		if (no_res)
			snprintf(kres, sizeof(kres), "-");
		else
			snprintf(kres, sizeof(kres), "%.1f", ms(p->stat.resolve_ns));
		fprintf(f, "%-7u %-15s %-24.24s %7" PRIu64 " %-9s %5" PRIu64 " %4" PRIu64
			   " %9.1f %9.1f %9s %9.1f %9.1f %8.1f%s\n",
			p->pid, p->comm, unit ? unit : "-", p->functions, by ? by : "-",
			ksw_proc_made(p), p->refused, ms(p->load_ns), ms(p->attach_ns), kres,
			ms(ksw_proc_read_ns(p)), ms(ksw_proc_stall_ns(p)),
			ms(ksw_proc_stall_cpu_ns(p)), p->exited ? "" : " *");
		running += !p->exited;
	}
	if (running)
		fputs("(* still running)\n", f);
	fflush(f);
}

static void json_ms(FILE *f, const char *key, uint64_t ns, bool measured)
{
	if (measured)
		fprintf(f, ",\"%s\":%.3f", key, ms(ns));
	else
		fprintf(f, ",\"%s\":null", key);
}

static void print_json_proc(FILE *f, struct kwatch *w, const struct ksw_proc *p)
{
	bool res = !kwatch__unmeasured(w, KWATCH_F_RESOLVE);
	bool det = !kwatch__unmeasured(w, KWATCH_F_DETACH);
	const char *path, *unit;
	bool first = true;
	int k;

	kwatch__unit(w, p, &path, &unit);
	fprintf(f, "{\"pid\":%u,\"start_ns\":%" PRIu64 ",\"comm\":", p->pid, p->start_time);
	report__json_str(f, p->comm);
	fputs(",\"unit\":", f);
	report__json_str(f, unit);
	fputs(",\"cgroup\":", f);
	report__json_str(f, path);
	fprintf(f, ",\"exited\":%s,\"functions\":%" PRIu64 ",\"by\":", p->exited ? "true" : "false",
		p->functions);
	report__json_str(f, by_name(p->by));
	fprintf(f, ",\"links\":%" PRIu64 ",\"by_kind\":{", ksw_proc_made(p));
	for (k = 0; k < KSW_K_NR; k++) {
		if (!p->made[k])
			continue;
		fprintf(f, "%s\"%s\":%" PRIu64, first ? "" : ",", ksw_kind_name(k), p->made[k]);
		first = false;
	}
	fprintf(f, "},\"refused\":%" PRIu64 ",\"errno\":", p->refused);
	if (p->last_errno)
		fprintf(f, "%d", p->last_errno);
	else
		fputs("null", f);
	fprintf(f, ",\"progs\":%" PRIu64, p->progs);
	json_ms(f, "load_ms", p->load_ns, true);
	json_ms(f, "attach_ms", p->attach_ns, true);
	json_ms(f, "kernel_resolve_ms", p->stat.resolve_ns, res);
	if (res)
		fprintf(f, ",\"kernel_resolve_calls\":%" PRIu64, (uint64_t)p->stat.resolve_calls);
	else
		fputs(",\"kernel_resolve_calls\":null", f);
	fprintf(f, ",\"symbol_files\":%" PRIu64 ",\"symbol_bytes\":%" PRIu64, ksw_proc_files(p),
		ksw_proc_read_bytes(p));
	json_ms(f, "symbol_read_ms", ksw_proc_read_ns(p), true);
	fputs(",\"symbol_reads\":{", f);
	first = true;
	for (k = KSW_F_NONE + 1; k < KSW_F_NR; k++) {
		if (!p->files_opened[k] && !p->stat.reads[k])
			continue;
		fprintf(f, "%s\"%s\":{\"opens\":%" PRIu64 ",\"bytes\":%" PRIu64 ",\"ms\":%.3f}",
			first ? "" : ",", ksw_file_name(k), (uint64_t)p->files_opened[k],
			(uint64_t)p->stat.read_bytes[k], ms(p->stat.read_ns[k]));
		first = false;
	}
	fputc('}', f);
	json_ms(f, "stall_ms", ksw_proc_stall_ns(p), true);
	json_ms(f, "cpu_ms", ksw_proc_stall_cpu_ns(p), true);
	fprintf(f, ",\"bursts\":%" PRIu64, p->bursts + (p->in_burst && p->cur.link_end));
	if (det)
		fprintf(f, ",\"links_freed\":%" PRIu64, (uint64_t)p->stat.links_freed);
	else
		fputs(",\"links_freed\":null", f);
	json_ms(f, "detach_ms", p->stat.free_ns, det);
	fputc('}', f);
}

static void print_json(FILE *f, struct kwatch *w, const struct kwatch_print_opts *o)
{
	const char *why;
	struct ksw_proc **v;
	size_t i, n, k;

	v = kwatch__procs(w, &n);
	fputs("{\"kernel\":", f);
	report__json_str(f, o->kernel);
	fprintf(f, ",\"duration_s\":%.3f,\"setup_ms\":%.3f,\"dropped_events\":%" PRIu64
		   ",\"evicted\":%" PRIu64 ",\"kernel_resolve_hooks\":",
		o->duration_s, ms(kwatch__setup_ns(w)), kwatch__dropped(w), kwatch__evicted(w));
	report__json_str(f, kwatch__resolve_hooks(w));
	fputs(",\"unmeasured\":{", f);
	why = kwatch__unmeasured(w, KWATCH_F_RESOLVE);
	if (why) {
		fputs("\"kernel_resolve\":", f);
		report__json_str(f, why);
	}
	if (kwatch__unmeasured(w, KWATCH_F_DETACH)) {
		fputs(why ? ",\"detach\":" : "\"detach\":", f);
		report__json_str(f, kwatch__unmeasured(w, KWATCH_F_DETACH));
	}
	/* a process a line: a script can take one with grep */
	fputs("},\"processes\":[", f);
	for (i = 0, k = 0; i < n; i++) {
		if (!kwatch__shown(v[i], o))
			continue;
		fputs(k++ ? ",\n" : "\n", f);
		print_json_proc(f, w, v[i]);
	}
	fputs("\n]}\n", f);
	fflush(f);
}

/* Prometheus: one series per comm and unit, the processes of each summed (the
 * stall: the longest), so a fleet's series stay few whatever its pids. */
struct group {
	const char *comm, *unit;
	uint64_t procs, functions, links, refused, stall_ns, resolve_ns, read_ns;
};

static int group_cmp(const void *a, const void *b)
{
	const struct group *x = a, *y = b;
	int c = strcmp(x->comm, y->comm);

	return c ? c : strcmp(x->unit, y->unit);
}

/* One series' line: name{comm,unit} and the value, in seconds where it is ns. */
static void prom_row(FILE *f, const char *name, const char *comm, const char *unit, uint64_t v,
		     bool seconds)
{
	fprintf(f, "%s{comm=\"", name);
	report__prom_label(f, comm);
	fputs("\",unit=\"", f);
	report__prom_label(f, unit);
	if (seconds)
		fprintf(f, "\"} %.9g\n", v / 1e9);
	else
		fprintf(f, "\"} %" PRIu64 "\n", v);
}

static void prom_series(FILE *f, const char *name, const char *type, const char *help,
			const struct group *g, size_t n, size_t off, bool seconds)
{
	size_t i;

	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
	for (i = 0; i < n; i++)
		prom_row(f, name, g[i].comm, g[i].unit,
			 *(const uint64_t *)((const char *)&g[i] + off), seconds);
}

static void print_prom(FILE *f, struct kwatch *w, const struct kwatch_print_opts *o)
{
	struct ksw_proc **v;
	struct group *g;
	size_t i, j, n, ng = 0;

	v = kwatch__procs(w, &n);
	g = calloc(n ? n : 1, sizeof(*g));
	if (!g)
		return;
	for (i = 0; i < n; i++) {
		const char *path, *unit;

		if (!kwatch__shown(v[i], o))
			continue;
		kwatch__unit(w, v[i], &path, &unit);
		unit = unit ? unit : "";
		for (j = 0; j < ng; j++)
			if (!strcmp(g[j].comm, v[i]->comm) && !strcmp(g[j].unit, unit))
				break;
		if (j == ng)
			g[ng++] = (struct group){ .comm = v[i]->comm, .unit = unit };
		g[j].procs++;
		g[j].functions += v[i]->functions;
		g[j].links += ksw_proc_made(v[i]);
		g[j].refused += v[i]->refused;
		g[j].resolve_ns += v[i]->stat.resolve_ns;
		g[j].read_ns += ksw_proc_read_ns(v[i]);
		if (ksw_proc_stall_ns(v[i]) > g[j].stall_ns)
			g[j].stall_ns = ksw_proc_stall_ns(v[i]);
	}
	qsort(g, ng, sizeof(*g), group_cmp);
#define SERIES(name, help, field, secs) \
	prom_series(f, name, "gauge", help, g, ng, offsetof(struct group, field), secs)
	SERIES("ksymattach_watch_processes", "Processes seen attaching, by comm and unit.", procs,
	       false);
	SERIES("ksymattach_watch_attach_stall_seconds",
	       "The longest attach stall of a process of this comm and unit.", stall_ns, true);
	SERIES("ksymattach_watch_functions", "Kernel functions their links and probes target.",
	       functions, false);
	SERIES("ksymattach_watch_links", "Links and probes they made.", links, false);
	SERIES("ksymattach_watch_refused", "Loads, links and probes the kernel refused them.",
	       refused, false);
	SERIES("ksymattach_watch_symbol_read_seconds",
	       "Time in their reads of the kernel's symbol files.", read_ns, true);
	if (!kwatch__unmeasured(w, KWATCH_F_RESOLVE))
		SERIES("ksymattach_watch_kernel_resolve_seconds",
		       "Time the kernel spent resolving names for them.", resolve_ns, true);
#undef SERIES
	fprintf(f, "# HELP ksymattach_watch_dropped_events Events the watcher had no room for.\n"
		   "# TYPE ksymattach_watch_dropped_events gauge\n"
		   "ksymattach_watch_dropped_events %" PRIu64 "\n", kwatch__dropped(w));
	if (o->stall_threshold_s > 0)
		fprintf(f, "# HELP ksymattach_watch_stall_threshold_seconds An agent's attach stall "
			   "the alert rule fires at.\n"
			   "# TYPE ksymattach_watch_stall_threshold_seconds gauge\n"
			   "ksymattach_watch_stall_threshold_seconds %.9g\n", o->stall_threshold_s);
	free(g);
	fflush(f);
}

static void total_series(FILE *f, const char *name, const char *help, const struct ksw_total *r,
			 size_t n, size_t off, bool seconds)
{
	size_t i;

	fprintf(f, "# HELP %s %s\n# TYPE %s counter\n", name, help, name);
	for (i = 0; i < n; i++)
		prom_row(f, name, r[i].comm, r[i].unit,
			 *(const uint64_t *)((const char *)&r[i].sums + off), seconds);
}

int kwatch__print_totals(FILE *f, struct kwatch *w)
{
	struct ksw_totals *t = kwatch__totals(w);
	const struct ksw_total *r;
	size_t n;

	if (!t)
		return -ENOMEM;
	r = ksw_totals__rows(t, &n);
#define TOTAL(name, help, field, secs) \
	total_series(f, name, help, r, n, offsetof(struct ksw_sums, field), secs)
	TOTAL("ksymattach_watch_processes_total",
	      "Processes seen attaching since the watch began, by comm and unit.", procs, false);
	TOTAL("ksymattach_watch_attaches_total",
	      "Their attaches: bursts of attach calls that made a link or probe.", attaches, false);
	TOTAL("ksymattach_watch_attach_stall_seconds_total",
	      "Those attaches' stalls, summed.", stall_ns, true);
	TOTAL("ksymattach_watch_functions_total",
	      "Kernel functions their links and probes targeted.", functions, false);
	TOTAL("ksymattach_watch_links_total", "Links and probes they made.", links, false);
	TOTAL("ksymattach_watch_refused_total", "Loads, links and probes the kernel refused them.",
	      refused, false);
	TOTAL("ksymattach_watch_programs_total", "BPF programs they loaded.", progs, false);
	TOTAL("ksymattach_watch_symbol_read_seconds_total",
	      "Time in their reads of the kernel's symbol files.", read_ns, true);
	if (!kwatch__unmeasured(w, KWATCH_F_RESOLVE))
		TOTAL("ksymattach_watch_kernel_resolve_seconds_total",
		      "Time the kernel spent resolving names for them.", resolve_ns, true);
#undef TOTAL
	fprintf(f, "# HELP ksymattach_watch_dropped_events_total Events the watcher had no room "
		   "for.\n# TYPE ksymattach_watch_dropped_events_total counter\n"
		   "ksymattach_watch_dropped_events_total %" PRIu64 "\n", kwatch__dropped(w));
	ksw_totals__free(t);
	fflush(f);
	return ferror(f) ? -EIO : 0;
}

void kwatch__print(FILE *f, struct kwatch *w, const struct kwatch_print_opts *o)
{
	switch (o->format) {
	case REPORT_JSON:
		print_json(f, w, o);
		break;
	case REPORT_PROM:
		print_prom(f, w, o);
		break;
	default:
		print_text(f, w, o);
		break;
	}
}
