// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ksymattach boot-watch (ksymattach-watch.service): the watcher of src/watch/
 * from early in the boot for the config's watch_window. systemd is told READY
 * once the probes are on, so that every unit ordered after this one is seen
 * from its first call. Then the record: json_dir/watch-BOOTID.json and
 * latest-watch.json, the Prometheus file beside prom_file
 * (ksymattach-watch.prom: its series are not the boot measurement's), and a
 * journal line a process. With watch_totals it then keeps watching, and
 * rewrites the Prometheus file every interval: the boot record's series as
 * they were at the window's end, and running totals since the boot.
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "atomic.h"
#include "kwatch.h"
#include "notify.h"
#include "service.h"

#define POLL_MS 250

/* "DIR/NAME.prom" -> "DIR/ksymattach-watch.prom" */
static void prom_path(char *buf, size_t sz, const char *prom_file)
{
	const char *slash = strrchr(prom_file, '/');

	snprintf(buf, sz, "%.*s/ksymattach-watch.prom", (int)(slash - prom_file), prom_file);
}

struct out {
	struct kwatch *w;
	struct kwatch_print_opts po;
	char *boot_prom;	/* the boot record's series, once its window ended */
	bool totals;		/* the running totals after them */
};

static int fill(FILE *f, void *ctx)
{
	struct out *o = ctx;

	if (o->po.format == REPORT_PROM && o->boot_prom) {
		fputs(o->boot_prom, f);
		if (o->totals)
			return kwatch__print_totals(f, o->w);
	} else {
		kwatch__print(f, o->w, &o->po);
	}
	return ferror(f) ? -EIO : 0;
}

/* The boot record's series, kept as text: later processes are not the boot's. */
static int keep_boot_prom(struct out *o)
{
	size_t n;
	FILE *f = open_memstream(&o->boot_prom, &n);

	if (!f)
		return -errno;
	o->po.format = REPORT_PROM;
	kwatch__print(f, o->w, &o->po);
	if (fclose(f) || !o->boot_prom) {
		free(o->boot_prom);
		o->boot_prom = NULL;
		return -ENOMEM;
	}
	return 0;
}

static int write_prom(const struct ksa_config *c, struct out *o)
{
	char prom[4096];
	int err;

	prom_path(prom, sizeof(prom), c->prom_file);
	o->po.format = REPORT_PROM;
	err = atomic__write(prom, 0644, fill, o);
	if (err)
		service__log("cannot write %s: %s", prom, strerror(-err));
	return err;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static int write_outputs(const struct ksa_config *c, struct out *o)
{
	char path[4096], latest[4096];
	int err;

	if (mkdir(c->json_dir, 0755) && errno != EEXIST) {
		err = -errno;
		service__log("cannot create %s: %s", c->json_dir, strerror(-err));
		return err;
	}
	snprintf(path, sizeof(path), "%s/watch-%s.json", c->json_dir, service__boot_id());
	snprintf(latest, sizeof(latest), "%s/latest-watch.json", c->json_dir);
	o->po.format = REPORT_JSON;
	err = atomic__write(path, 0644, fill, o);
	if (err || (err = atomic__write(latest, 0644, fill, o))) {
		service__log("cannot write %s: %s", access(path, F_OK) ? path : latest,
			     strerror(-err));
		return err;
	}
	service__prune_reports(c->json_dir, "watch-", c->reports_kept, path);
	if (!c->prom_file)
		return 0;
	err = keep_boot_prom(o);
	if (err) {
		service__log("cannot keep the boot's series: %s", strerror(-err));
		return err;
	}
	return write_prom(c, o);
}

/* After the window: running totals every interval, until told to stop. */
static int keep_watching(const struct ksa_config *c, struct out *o, const volatile sig_atomic_t *stop)
{
	/* the window's end wrote the file: the first rewrite is an interval on */
	uint64_t next = mono_ns() + (uint64_t)(c->interval_s * 1e9);
	int e = 0;

	notify__sendf("STATUS=boot record written; exporting running totals every %.0f s",
		      c->interval_s);
	while (!*stop) {
		e = kwatch__poll(o->w, POLL_MS);
		if (e) {
			service__log("watch: cannot read the ring buffer: %s", strerror(-e));
			break;
		}
		if (mono_ns() < next)
			continue;
		next = mono_ns() + (uint64_t)(c->interval_s * 1e9);
		e = write_prom(c, o);
		if (e)
			break;
	}
	notify__send("STOPPING=1");
	return e ? e : write_prom(c, o);
}

/* The journal: a line a process recorded, the longest stall first. */
static void log_records(struct kwatch *w, const struct kwatch_print_opts *po)
{
	struct ksw_proc **v;
	size_t i, n, shown = 0;

	v = kwatch__procs(w, &n);
	for (i = 0; i < n; i++) {
		const struct ksw_proc *p = v[i];
		const char *path, *unit;
		char kres[48] = "not measured";

		if (!kwatch__shown(p, po))
			continue;
		shown++;
		kwatch__unit(w, p, &path, &unit);
		if (!kwatch__unmeasured(w, KWATCH_F_RESOLVE))
			snprintf(kres, sizeof(kres), "%.1f ms", p->stat.resolve_ns / 1e6);
		printf("watch: %s[%u] (%s): attach stall %.1f ms, %llu functions in %llu links "
		       "and probes, %llu refused; the kernel's name resolution %s, symbol files "
		       "%.1f ms\n",
		       p->comm, p->pid, unit ? unit : "no unit", ksw_proc_stall_ns(p) / 1e6,
		       (unsigned long long)p->functions, (unsigned long long)ksw_proc_made(p),
		       (unsigned long long)p->refused, kres, ksw_proc_read_ns(p) / 1e6);
	}
	printf("watch %s: %zu processes attaching in the first %.0f s of the boot; report "
	       "watch-%s.json\n", service__boot_id(), shown, po->duration_s, service__boot_id());
	fflush(stdout);
}

int service__boot_watch(const struct service_opts *o)
{
	struct kwatch_opts wo = { .sz = sizeof(wo) };
	struct out out = { .po = { .sz = sizeof(out.po), .kernel = o->kernel } };
	uint64_t t0, deadline;
	struct ksa_config *c;
	char err[256];
	int e;

	if (service__load_config(o, &c))
		return KSA_EX_CONFIG;
	e = kwatch__open(&wo, &out.w, err, sizeof(err));
	if (e) {
		service__log("watch: %s", err);
		ksa_config__free(c);
		return 1;
	}
	t0 = mono_ns();
	deadline = t0 + (uint64_t)(c->watch_window_s * 1e9);
	notify__sendf("READY=1\nSTATUS=watching every process's attach for %.0f s",
		      c->watch_window_s);
	while (!*o->stop && mono_ns() < deadline) {
		e = kwatch__poll(out.w, POLL_MS);
		if (e) {
			service__log("watch: cannot read the ring buffer: %s", strerror(-e));
			break;
		}
	}
	kwatch__refresh(out.w);
	out.po.duration_s = (mono_ns() - t0) / 1e9;
	out.po.min_stall_ns = (uint64_t)(c->watch_min_stall_s * 1e9);
	out.po.stall_threshold_s = c->watch_stall_threshold_s;
	out.totals = c->watch_totals && c->prom_file;
	if (!out.totals)
		notify__send("STOPPING=1");
	if (!e)
		e = write_outputs(c, &out);
	if (!e)
		log_records(out.w, &out.po);
	if (!e && out.totals)
		e = keep_watching(c, &out, o->stop);
	free(out.boot_prom);
	kwatch__free(out.w);
	ksa_config__free(c);
	return e ? 1 : 0;
}
