// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>

#include "compare.h"
#include "lookups.h"
#include "stats.h"
#include "tmulti18.h"

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
	/*
	 * What the kernel or libbpf refused in this row's first run, which ends
	 * the row, not the comparison: one refusal of the same functions is what
	 * a user of that resolver gets too. Empty: the row ran.
	 */
	char refused[320];
	/* A row this mode has not: why (the row is not run). */
	const char *absent;
	/*
	 * The functions whose names the kernel's lookup refused in the first run
	 * of a row that hands it names (the kernel's; libbpf's, given names): a
	 * link of names fails whole for one. Left out of the row's timed runs, as
	 * addresses to skip, and named.
	 */
	uint64_t *skip;
	size_t skip_cnt;
	char left_out[320];
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

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

/* Whether name is one of list's, "a, b, c". */
static bool listed(const char *list, const char *name)
{
	size_t n = strlen(name);
	const char *p;

	for (p = strstr(list, name); p; p = strstr(p + 1, name))
		if ((p == list || p[-1] == ' ') && (p[n] == ',' || !p[n]))
			return true;
	return false;
}

/*
 * What the kernel refused by name in a's run: r's skip list (the caller's own
 * skips and these, sorted) and their names. True where there were any.
 */
static bool note_left_out(const struct compare_opts *o, struct row *r, const struct kattach *a)
{
	const struct kattach_target *t = kattach__targets(a);
	size_t n = kattach__target_cnt(a), i, k = 0, len = 0, shown = 0;
	uint64_t *v;

	/* (tracing_multi: the kernel refuses a link of ids whole, and libbpf 1.8 is given
	 * only what it can find) */
	if ((r->resolver != KATTACH_RES_KERNEL && r->resolver != KATTACH_RES_LIBBPF) || r->skip ||
	    !kattach__excluded_cnt(a) || kattach__mode_is_tracing(o->attach->mode))
		return false;
	v = malloc((o->attach->skip_cnt + kattach__excluded_cnt(a)) * sizeof(*v));
	if (!v)
		return false;	/* (then timed with its refusals) */
	for (i = 0; i < o->attach->skip_cnt; i++)
		v[k++] = o->attach->skip_addrs[i];
	for (i = 0; i < n; i++) {
		if (!(t[i].flags & KATTACH_F_EXCLUDED))
			continue;
		v[k++] = t[i].addr;
		/* a name once, though the kernel refused it for each of its functions */
		if (listed(r->left_out, t[i].name))
			continue;
		if (len < sizeof(r->left_out) - 40)
			len += snprintf(r->left_out + len, sizeof(r->left_out) - len, "%s%s",
					shown++ ? ", " : "", t[i].name);
	}
	if (len >= sizeof(r->left_out) - 40)
		snprintf(r->left_out + len, sizeof(r->left_out) - len, ", ...");
	qsort(v, k, sizeof(*v), cmp_u64);
	r->skip = v;
	r->skip_cnt = k;
	return true;
}

/*
 * A detached link's sites are freed after the kernel's grace periods; a row
 * that attaches and detaches within them waits for the row before it (a 6.12
 * guest, 100 functions: the rows after a quick attach detached in 113 ms, the
 * others in 62-69). A pause between rows makes each row's times its own.
 */
#define SETTLE_MS 250

static void settle(void)
{
	struct timespec ts = { .tv_sec = SETTLE_MS / 1000, .tv_nsec = SETTLE_MS % 1000 * 1000000L };

	nanosleep(&ts, NULL);	/* (a signal cuts it short: the loop checks stop) */
}

/*
 * One full resolve, attach, detach by one row's resolver; round -1: a warm-up.
 * *again: the kernel refused names, now left out: run the round again.
 */
static int run_one(const struct compare_opts *o, struct row *r, int round, bool *again)
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
	if (r->skip) {
		ko.skip_addrs = r->skip;
		ko.skip_cnt = r->skip_cnt;
		/* a name given alone may have nothing left: no error in this row */
		ko.allow_empty = true;
	}
	*again = false;
	getrusage(RUSAGE_SELF, &r0);
	a = kattach__new(&ko);
	if (!a)
		return -ENOMEM;
	err = kattach__resolve(a);
	if (!err)
		err = kattach__attach(a);
	kattach__detach(a);
	getrusage(RUSAGE_SELF, &r1);
	/* ksym's own rows must run; another resolver's refusal is its row's result */
	if (err && err != -EINTR && r->resolver != KATTACH_RES_KSYM) {
		snprintf(r->refused, sizeof(r->refused), "%s", kattach__errmsg(a));
		kattach__free(a);
		return 0;
	}
	if (err) {
		fprintf(stderr, "ksymattach: compare, %s: %s\n", r->name, kattach__errmsg(a));
		kattach__free(a);
		return err;
	}
	if (note_left_out(o, r, a)) {
		*again = true;
		kattach__free(a);
		return 0;
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

/* A row's median of v, NAN where the row was refused. */
static double med(const struct row *r, const double *v, int n)
{
	return r->refused[0] || r->absent ? NAN : stats(v, n).med;
}

/* A cell: median [min-max], or the row's refusal. */
static void print_cell(const struct row *r, const double *v, int n)
{
	struct stat3 s = stats(v, n);
	char cell[64];

	if (r->refused[0])
		snprintf(cell, sizeof(cell), "refused");
	else if (r->absent)
		snprintf(cell, sizeof(cell), "-");
	else
		snprintf(cell, sizeof(cell), "%.1f [%.1f-%.1f]", s.med, s.min, s.max);
	printf(" %26s", cell);
}

/* A number, "-" where it is none (a refused row's). */
static void print_num(double x)
{
	if (isnan(x))
		printf(" %26s", "-");
	else
		printf(" %26.1f", x);
}

/* A ratio, "-" where either side was refused. */
static void print_ratio(double x, double of, int decimals)
{
	if (isnan(x) || isnan(of))
		printf(" %26s", "-");
	else
		printf(" %25.*fx", decimals, x / of);
}

/* One measure for every row, median [min-max], then its ratios to libbpf and the floor. */
static void print_block(const char *title, enum measure m, int n)
{
	double lib = med(&rows[ROW_LIBBPF], measure_of(&rows[ROW_LIBBPF], m), n);
	double flo = med(&rows[ROW_FLOOR], measure_of(&rows[ROW_FLOOR], m), n);
	size_t i;

	printf("\n\n%-8s", title);
	for (i = 0; i < NROWS; i++)
		print_cell(&rows[i], measure_of(&rows[i], m), n);
	printf("\n%-8s", "/libbpf");
	for (i = 0; i < NROWS; i++)
		print_ratio(med(&rows[i], measure_of(&rows[i], m), n), lib, 3);
	printf("\n%-8s", "/floor");
	for (i = 0; i < NROWS; i++)
		print_ratio(med(&rows[i], measure_of(&rows[i], m), n), flo, 2);
}

/* The kernel's name lookup: the kernel row's attach phase over ksym's, per name. */
static double kernel_us_per_name(int n)
{
	if (rows[ROW_KERNEL].absent)
		return NAN;
	return (med(&rows[ROW_KERNEL], rows[ROW_KERNEL].ph[KATTACH_PH_ATTACH], n) -
		med(&rows[ROW_COLD], rows[ROW_COLD].ph[KATTACH_PH_ATTACH], n)) * 1e3 /
	       rows[ROW_COLD].targets;
}

/*
 * The kernel's own name lookups in the floor's attach, from one more run of
 * the floor with the meter on (lookups.h): the meter's trampolines add to the
 * lookups and the attach alike, so this run is not among the floor's rounds.
 */
static struct {
	bool measured;
	char why[200];		/* not measured: why */
	char hooks[256];
	uint64_t ns, calls;
	double attach_ms;
} lookups;

static void measure_lookups(const struct compare_opts *o)
{
	struct kattach_opts ko = *o->attach;
	struct compare_opts co = *o;
	struct kattach_lookups *m;
	/* (static: a row is some kB of samples) */
	static struct row r;
	bool again;
	int err;

	if (rows[ROW_FLOOR].refused[0])
		return;
	err = kattach_lookups__open(&m, lookups.why, sizeof(lookups.why));
	if (err)
		return;
	snprintf(lookups.hooks, sizeof(lookups.hooks), "%s", kattach_lookups__hooks(m));
	r = rows[ROW_FLOOR];
	ko.lookups = m;
	co.attach = &ko;
	settle();
	err = run_one(&co, &r, 0, &again);
	if (!err && !r.refused[0]) {
		kattach_lookups__read(m, &lookups.ns, &lookups.calls);
		lookups.attach_ms = r.ph[KATTACH_PH_ATTACH][0];
		lookups.measured = true;
	} else {
		snprintf(lookups.why, sizeof(lookups.why), "the floor's run with the meter failed");
	}
	kattach_lookups__free(m);
}

/* What the rows attach with, in words. */
static void link_kind(const struct compare_opts *o, char *buf, size_t sz)
{
	enum kattach_mode mode = o->attach->mode;

	if (rows[ROW_COLD].fell_back)
		snprintf(buf, sz, "classic kprobes (no kprobe.multi; kernel and libbpf by name, "
			 "the kernel resolving each)");
	else if (kattach__mode_is_tracing(mode))
		snprintf(buf, sz, "%s.multi by BTF id (libbpf %s, linked for its row)",
			 kattach__mode_name(mode), tmulti18__version());
	else
		snprintf(buf, sz, "kprobe.%s", kattach__mode_name(mode));
}

static void print_lookups(void)
{
	if (rows[ROW_FLOOR].refused[0])
		return;
	if (!lookups.measured) {
		printf("the kernel's own name lookups: not measured: %s\n", lookups.why);
		return;
	}
	printf("the kernel's own name lookups in the floor's attach: %llu lookups, %.1f ms of its "
	       "%.1f ms (%.0f%%), %.2f us each\n(one more run of the floor, timed by fentry/fexit "
	       "on %s, whose trampolines add to both)\n",
	       (unsigned long long)lookups.calls, lookups.ns / 1e6, lookups.attach_ms,
	       lookups.attach_ms > 0 ? 100 * lookups.ns / 1e6 / lookups.attach_ms : 0,
	       lookups.calls ? lookups.ns / 1e3 / lookups.calls : 0, lookups.hooks);
}

static void print_text(const struct compare_opts *o, int n)
{
	double lib = med(&rows[ROW_LIBBPF], rows[ROW_LIBBPF].total, n);
	bool tracing = kattach__mode_is_tracing(o->attach->mode);
	char kind[160];
	size_t i;
	int ph;

	link_kind(o, kind, sizeof(kind));
	printf("compare on %s: %zu function%s, %zu link%s each, %s, %d round%s\n"
	       "milliseconds, median [min-max]; libbpf resolves inside its attach call;\n"
	       "res+att = read+parse+index+match+attach, what a resolver adds; stall = res+att\n"
	       "+load, start to attached; floor: the %s known, an empty program loaded raw\n\n",
	       o->kernel ? o->kernel : "(symbols from a file)", rows[ROW_COLD].targets,
	       rows[ROW_COLD].targets == 1 ? "" : "s", rows[ROW_COLD].links,
	       rows[ROW_COLD].links == 1 ? "" : "s", kind, n, n == 1 ? "" : "s",
	       tracing ? "BTF ids" : "addresses");
	printf("%-8s", "PHASE");
	for (i = 0; i < NROWS; i++)
		printf(" %26s", rows[i].name);
	printf("\n");
	for (ph = 0; ph <= KATTACH_PH_CNT; ph++) {
		printf("%-8s", ph < KATTACH_PH_CNT ? kattach__phase_name(ph) : "total");
		for (i = 0; i < NROWS; i++)
			print_cell(&rows[i], ph < KATTACH_PH_CNT ? rows[i].ph[ph] : rows[i].total, n);
		printf("\n");
	}
	printf("%-8s", "user");
	for (i = 0; i < NROWS; i++)
		print_num(med(&rows[i], rows[i].user, n));
	printf("\n%-8s", "system");
	for (i = 0; i < NROWS; i++)
		print_num(med(&rows[i], rows[i].sys, n));
	printf("\n%-8s", "/libbpf");
	for (i = 0; i < NROWS; i++)
		print_ratio(med(&rows[i], rows[i].total, n), lib, 3);
	/* what a resolver adds: its own phases plus the attach call; and the whole stall */
	print_block("res+att", M_RESATT, n);
	print_block("stall", M_STALL, n);
	if (!rows[ROW_KERNEL].refused[0] && !rows[ROW_KERNEL].absent)
		printf("\n\nkernel-side name resolution: %+.1f us per name (attach, kernel vs "
		       "ksym-cold)\n", kernel_us_per_name(n));
	else
		printf("\n\n");
	if (rows[ROW_KERNEL].absent)
		printf("kernel: no row: %s\n", rows[ROW_KERNEL].absent);
	if (tracing)
		print_lookups();
	for (i = 0; i < NROWS; i++)
		if (rows[i].refused[0])
			printf("%s refused: %s%s\n", rows[i].name, rows[i].refused,
			       i == ROW_LIBBPF ? " (what an agent using libbpf gets too)" :
			       i == ROW_KERNEL ? " (what an agent passing names gets too)" : "");
	for (i = 0; i < NROWS; i++) {
		size_t k = rows[i].skip_cnt - o->attach->skip_cnt;

		if (!rows[i].left_out[0])
			continue;
		printf("%s: %zu function%s left out, the row timed without %s: the kernel's name "
		       "lookup refuses %s (a link of names fails whole for one): %s\n",
		       rows[i].name, k, k == 1 ? "" : "s", k == 1 ? "it" : "them",
		       k == 1 ? "its name" : "their names", rows[i].left_out);
	}
}

/* A JSON number, null where it is none (a refused row's). */
static void json_num(const char *key, double v)
{
	if (isnan(v) || isinf(v))
		printf(",\"%s\":null", key);
	else
		printf(",\"%s\":%.4f", key, v);
}

static void print_json(const struct compare_opts *o, int n)
{
	double lib = med(&rows[ROW_LIBBPF], rows[ROW_LIBBPF].total, n);
	double lib_resatt = med(&rows[ROW_LIBBPF], rows[ROW_LIBBPF].resatt, n);
	double lib_stall = med(&rows[ROW_LIBBPF], rows[ROW_LIBBPF].stall, n);
	double floor_stall = med(&rows[ROW_FLOOR], rows[ROW_FLOOR].stall, n);
	struct stat3 s;
	size_t i;
	int ph;

	printf("{\"kernel\":");
	report__json_str(stdout, o->kernel);
	printf(",\"mode\":\"%s\",\"fallback\":%s,\"matched\":%zu,\"links\":%zu,\"rounds\":%d,"
	       "\"compare\":[", kattach__mode_name(o->attach->mode),
	       rows[ROW_COLD].fell_back ? "true" : "false", rows[ROW_COLD].targets,
	       rows[ROW_COLD].links, n);
	for (i = 0; i < NROWS; i++) {
		const struct row *r = &rows[i];

		if (r->refused[0] || r->absent) {
			printf("%s{\"resolver\":\"%s\",\"%s\":", i ? "," : "", r->name,
			       r->absent ? "absent" : "refused");
			report__json_str(stdout, r->absent ?: r->refused);
			printf("}");
			continue;
		}
		printf("%s{\"resolver\":\"%s\",\"phases_ms\":{", i ? "," : "", rows[i].name);
		for (ph = 0; ph < KATTACH_PH_CNT; ph++) {
			s = stats(rows[i].ph[ph], n);
			printf("%s\"%s\":{\"median\":%.3f,\"min\":%.3f,\"max\":%.3f}", ph ? "," : "",
			       kattach__phase_name(ph), s.med, s.min, s.max);
		}
		s = stats(r->total, n);
		printf("},\"total_ms\":{\"median\":%.3f,\"min\":%.3f,\"max\":%.3f},"
		       "\"user_ms\":%.3f,\"system_ms\":%.3f", s.med, s.min, s.max,
		       stats(r->user, n).med, stats(r->sys, n).med);
		json_num("ratio_to_libbpf", s.med / lib);
		printf(",\"resolve_attach_ms\":%.3f", stats(r->resatt, n).med);
		json_num("resolve_attach_ratio_to_libbpf", stats(r->resatt, n).med / lib_resatt);
		printf(",\"stall_ms\":%.3f", stats(r->stall, n).med);
		json_num("stall_ratio_to_libbpf", stats(r->stall, n).med / lib_stall);
		json_num("stall_ratio_to_floor", stats(r->stall, n).med / floor_stall);
		if (r->left_out[0]) {
			printf(",\"left_out\":{\"count\":%zu,\"names\":",
			       r->skip_cnt - o->attach->skip_cnt);
			report__json_str(stdout, r->left_out);
			printf("}");
		}
		printf("}");
	}
	printf("]");
	json_num("kernel_extra_us_per_name", kernel_us_per_name(n));
	if (kattach__mode_is_tracing(o->attach->mode) && !rows[ROW_FLOOR].refused[0]) {
		printf(",\"kernel_lookups\":{");
		if (lookups.measured) {
			printf("\"calls\":%llu,\"ms\":%.3f,\"floor_attach_ms\":%.3f,\"functions\":",
			       (unsigned long long)lookups.calls, lookups.ns / 1e6, lookups.attach_ms);
			report__json_str(stdout, lookups.hooks);
		} else {
			printf("\"not_measured\":");
			report__json_str(stdout, lookups.why);
		}
		printf("}");
	}
	printf("}\n");
}

/*
 * run_one() after the pause, but for the comparison's first run (ran: one
 * has run before); the re-run of a row that left names out is paused too.
 */
static int run_settled(const struct compare_opts *o, struct row *r, int round, bool *again,
		       bool *ran)
{
	if (*ran)
		settle();
	*ran = true;
	/* each run detached already: a signal just ends the comparison */
	if (o->attach->stop && *o->attach->stop)
		return -EINTR;
	return run_one(o, r, round, again);
}

int compare__run(const struct compare_opts *o)
{
	int n = o->rounds > 0 && o->rounds <= MAX_ROUNDS ? o->rounds : 5, round, err;
	bool again, ran = false;
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
	if (kattach__mode_is_tracing(o->attach->mode))
		rows[ROW_KERNEL].absent = "a tracing_multi link takes BTF ids only, and the kernel "
					  "looks up each one's name in every row";
	/* warm the caches once, so "ksym-warm" and "ksym-boot" are from their first round */
	for (round = -1; round < n; round++) {
		for (i = 0; i < NROWS; i++) {
			if ((round < 0 && i != ROW_WARM && i != ROW_BOOT) || rows[i].refused[0] ||
			    rows[i].absent)
				continue;
			err = run_settled(o, &rows[i], round < 0 ? -1 : round, &again, &ran);
			if (!err && again)
				err = run_settled(o, &rows[i], round < 0 ? -1 : round, &again, &ran);
			if (err)
				return o->attach->stop && *o->attach->stop ? 128 + *o->attach->stop : 1;
		}
	}
	/* a row that says "boot" must have been one: no build cache here is worth a word */
	if (rows[ROW_BOOT].from_build != n)
		fprintf(stderr, "ksymattach: compare: ksym-boot came from the build cache in %d of "
				"%d rounds (the others read the kernel's symbols)\n",
			rows[ROW_BOOT].from_build, n);
	if (kattach__mode_is_tracing(o->attach->mode)) {
		measure_lookups(o);
		if (o->attach->stop && *o->attach->stop)
			return 128 + *o->attach->stop;
	}
	if (o->format == REPORT_JSON)
		print_json(o, n);
	else
		print_text(o, n);
	return 0;
}
