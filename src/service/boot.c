// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ksymattach boot: the attach stall of this boot, measured once. The first
 * run of a boot finds no /run cache, so what it measures is the stall every
 * agent's first start on the node pays: cold on a build's first boot, from the
 * build cache on its later ones; it leaves the /run cache warm for them.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "atomic.h"
#include "prom.h"
#include "report.h"
#include "service.h"

struct boot_report {
	const struct kattach *a;
	const struct service_opts *o;
	double stall_s, started_s;
};

static int fill_json(FILE *f, void *ctx)
{
	const struct boot_report *r = ctx;
	struct report_opts ro = {
		.sz = sizeof(ro),
		.format = REPORT_JSON,
		.kernel = r->o->kernel,
		.version = r->o->version,
	};

	fputs("{\"boot_id\":", f);
	report__json_str(f, service__boot_id());
	fputs(",\"version\":", f);
	report__json_str(f, r->o->version);
	fprintf(f, ",\"time\":%.3f,\"stall_us\":%.1f,\"run\":", r->started_s, r->stall_s * 1e6);
	report__print(f, r->a, &ro);	/* ends in a newline */
	fputs("}\n", f);
	return ferror(f) ? -EIO : 0;
}

struct prom_ctx {
	const struct kattach *a;
	const struct service_opts *o;
	const struct ksa_config *c;
	double stall_s;
};

static int fill_prom(FILE *f, void *ctx)
{
	const struct prom_ctx *p = ctx;
	struct prom_view v = {
		.sz = sizeof(v),
		.version = p->o->version,
		.kernel = p->o->kernel,
		.boot_stall_s = p->stall_s,
		.stall_threshold_s = p->c->stall_threshold_s,
		.updated_s = service__unix_now(),
		.top = p->c->top,
	};
	struct prom_fn *fns;
	int err = prom__view_of(&v, p->a, &fns);

	if (!err)
		err = prom__write(f, &v);
	free(fns);
	return err;
}

static int write_outputs(const struct service_opts *o, const struct ksa_config *c,
			 const struct kattach *a, double stall_s, double started_s)
{
	struct boot_report r = { a, o, stall_s, started_s };
	struct prom_ctx p = { a, o, c, stall_s };
	char path[4096], latest[4096];
	int err;

	if (mkdir(c->json_dir, 0755) && errno != EEXIST) {
		err = -errno;
		service__log("cannot create %s: %s", c->json_dir, strerror(-err));
		return err;
	}
	snprintf(path, sizeof(path), "%s/boot-%s.json", c->json_dir, service__boot_id());
	snprintf(latest, sizeof(latest), "%s/latest.json", c->json_dir);
	err = atomic__write(path, 0644, fill_json, &r);
	if (err || (err = atomic__write(latest, 0644, fill_json, &r))) {
		service__log("cannot write %s: %s", access(path, F_OK) ? path : latest,
			     strerror(-err));
		return err;
	}
	service__prune_reports(c->json_dir, "boot-", c->reports_kept, path);
	if (c->prom_file) {
		err = atomic__write(c->prom_file, 0644, fill_prom, &p);
		if (err) {
			service__log("cannot write %s: %s", c->prom_file, strerror(-err));
			return err;
		}
	}
	return 0;
}

int service__boot(const struct service_opts *o)
{
	struct ksym_db_opts dbo = *o->sources;
	struct kattach_opts ko = { .sz = sizeof(ko) };
	struct ksa_config *c;
	struct kattach *a;
	double started = service__unix_now(), stall;
	int err;

	if (service__load_config(o, &c))
		return KSA_EX_CONFIG;
	dbo.sz = sizeof(dbo);
	dbo.no_cache = dbo.no_cache || !c->cache;
	/* another node's cache of this build: this boot's first run is warm too */
	if (!dbo.no_cache)
		service__import_build_caches(o);
	ko.patterns = (const char *const *)c->patterns;
	ko.pattern_cnt = c->pattern_cnt;
	ko.excludes = (const char *const *)c->excludes;
	ko.exclude_cnt = c->exclude_cnt;
	ko.mode = c->mode;
	ko.resolver = c->resolver;
	ko.fallback = c->fallback;
	ko.link_batch = c->link_batch;
	ko.sources = &dbo;
	ko.stop = o->stop;
	/* a pattern of a module udev has not loaded yet is no reason to measure nothing */
	ko.allow_empty = true;
	a = kattach__new(&ko);
	if (!a) {
		service__log("out of memory");
		ksa_config__free(c);
		return 1;
	}
	err = kattach__resolve(a);
	if (!err && !*o->stop)
		err = kattach__attach(a);
	if (!err && !*o->stop && c->duration_s > 0) {
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		service__sleep_until(o->stop, NULL, ts.tv_sec * 1000000000ull + ts.tv_nsec +
					       (uint64_t)(c->duration_s * 1e9));
	}
	if (!err && !kattach__attached_cnt(a))
		err = -ENOENT;	/* every pattern of a module not loaded (yet) */
	if (!err)
		err = kattach__collect(a);
	kattach__detach(a);
	if (err || *o->stop) {
		if (err == -ENOENT && !kattach__errmsg(a)[0])
			service__log("nothing to attach: no traceable function matches the config's "
				     "patterns");
		else if (err)
			service__log("%s", kattach__errmsg(a));
		kattach__free(a);
		ksa_config__free(c);
		return *o->stop ? 128 + *o->stop : 1;
	}
	stall = kattach__stall_ns(a) / 1e9;
	err = write_outputs(o, c, a, stall, started);
	service__record_boot_stall(o, stall);
	/* the journal's line: what a fleet engineer greps for */
	printf("boot %s: %zu functions attached in %zu link%s (%s%s), attach stall %.1f ms "
	       "(read %.1f, load %.1f, attach %.1f), symbols from %s%s; %zu excluded; "
	       "report %s/boot-%s.json\n",
	       service__boot_id(), kattach__attached_cnt(a), kattach__link_cnt_total(a),
	       kattach__link_cnt_total(a) == 1 ? "" : "s",
	       kattach__fell_back(a) ? "classic kprobes" :
	       kattach__mode(a) == KATTACH_SESSION ? "kprobe.session" : "kprobe.multi",
	       kattach__fell_back(a) ? ", no kprobe.multi on this kernel" : "",
	       stall * 1e3, kattach__phase_ns(a, KATTACH_PH_READ) / 1e6,
	       kattach__phase_ns(a, KATTACH_PH_LOAD) / 1e6,
	       kattach__phase_ns(a, KATTACH_PH_ATTACH) / 1e6, kattach__source(a),
	       kattach__from_cache(a) ? " (cached)" : "", kattach__excluded_cnt(a), c->json_dir,
	       service__boot_id());
	fflush(stdout);
	kattach__free(a);
	ksa_config__free(c);
	return err ? 1 : 0;
}
