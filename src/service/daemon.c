// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ksymattach daemon: the config's functions stay attached; every interval the
 * counters go to the Prometheus file and daemon.json, each replaced whole.
 *
 * What is attached is a list of groups, each one engine run (kattach) for one
 * pattern: its own BPF object, links and counters. A reload (SIGHUP) keeps
 * every group whose pattern the new config still has, under the same global
 * settings, detaches the others and attaches only what is new: a pattern
 * added, or functions of a pattern that no group covers (a module loaded
 * since). A function goes to the first group that claims it (skip_addrs). A
 * group detached takes its counts with it, so they are carried per function
 * name: a function attached again continues where it was, and no counter of
 * a function that stays attached goes backwards.
 */
#include <errno.h>
#include <poll.h>
#include <search.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "atomic.h"
#include "clock.h"
#include "format.h"
#include "notify.h"
#include "prom.h"
#include "service.h"

struct group {
	char *pattern;
	struct kattach *a;
	uint64_t *addrs;	/* its attached targets, sorted: the next groups skip them */
	size_t addr_cnt;
	char **modules;		/* the modules its targets are in: gone ones end it */
	size_t module_cnt;
	bool keep;
};

/* A function's counts across the groups it was ever attached in. */
struct fn_state {
	char *key;		/* "module:name", ":name" for vmlinux */
	struct ksa_stat carried;	/* from groups detached since */
	struct ksa_stat live;	/* its group's, at the last collect */
	char *name, *module;	/* module NULL: vmlinux */
	unsigned long seen;	/* the view it was last attached in */
	bool series;		/* has series of its own (sticky: see pick_series) */
};

struct daemon {
	const struct service_opts *o;
	struct ksa_config *c;
	struct group *groups;
	size_t group_cnt, group_cap;
	/* fn_state by key, through glibc's hsearch (grown by rehashing) */
	struct hsearch_data fns;
	struct fn_state **fn_v;
	size_t fn_cnt, fn_cap;
	unsigned long view;
	size_t series_cnt;
	uint64_t phase_ns[KATTACH_PH_CNT];	/* the last (re)attach's, summed over groups */
	uint64_t modules_hash;
	char change[512];	/* what the last reload or rescan changed */
	struct ksym_db_opts dbo;
};

/* A table of cap slots with every key: the old one goes only once it is built. */
static int rehash(struct daemon *d, size_t cap)
{
	struct hsearch_data nt = {};
	ENTRY e, *r;
	size_t i;

	if (!hcreate_r(cap, &nt))
		return -ENOMEM;
	for (i = 0; i < d->fn_cnt; i++) {
		e.key = d->fn_v[i]->key;
		e.data = d->fn_v[i];
		if (!hsearch_r(e, ENTER, &r, &nt)) {
			hdestroy_r(&nt);
			return -ENOMEM;
		}
	}
	hdestroy_r(&d->fns);
	d->fns = nt;
	return 0;
}

static struct fn_state *fn_get(struct daemon *d, const char *name, const char *module)
{
	struct fn_state *f;
	ENTRY e, *r;
	char *key;

	if (asprintf(&key, "%s:%s", module ? module : "", name) < 0)
		return NULL;
	e.key = key;
	/* (an empty table has no size: hsearch_r would divide by it) */
	if (d->fn_cap && hsearch_r(e, FIND, &r, &d->fns)) {
		free(key);
		return r->data;
	}
	/* at most half full, as hsearch's probing likes it */
	if (d->fn_cnt + 1 > d->fn_cap / 2) {
		size_t cap = d->fn_cap ? d->fn_cap * 2 : 4096;
		struct fn_state **v = realloc(d->fn_v, cap * sizeof(*v));

		if (!v || rehash(d, cap)) {
			if (v)
				d->fn_v = v;
			free(key);
			return NULL;
		}
		d->fn_v = v;
		d->fn_cap = cap;
	}
	f = calloc(1, sizeof(*f));
	if (f) {
		f->key = key;
		f->name = strdup(name);
		f->module = module ? strdup(module) : NULL;
	}
	e.key = key;
	e.data = f;
	if (!f || !f->name || (module && !f->module) || !hsearch_r(e, ENTER, &r, &d->fns)) {
		if (f) {
			free(f->name);
			free(f->module);
		}
		free(f);
		free(key);
		return NULL;
	}
	d->fn_v[d->fn_cnt++] = f;
	return f;
}

/* The counts a group saw go to its functions' carried counts: it is leaving. */
static void group_end(struct daemon *d, struct group *g)
{
	const struct kattach_target *t = g->a ? kattach__targets(g->a) : NULL;
	size_t i;

	if (g->a && !kattach__collect(g->a)) {
		for (i = 0; i < kattach__target_cnt(g->a); i++) {
			struct fn_state *f;

			if (t[i].flags & KATTACH_F_EXCLUDED)
				continue;
			f = fn_get(d, t[i].name, t[i].module);
			if (!f)
				continue;
			prom__stat_add(&f->carried, kattach_target__stat(&t[i]));
			memset(&f->live, 0, sizeof(f->live));
		}
	}
	kattach__free(g->a);
	for (i = 0; i < g->module_cnt; i++)
		free(g->modules[i]);
	free(g->modules);
	free(g->addrs);
	free(g->pattern);
	memset(g, 0, sizeof(*g));
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

static int cmp_str(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

/* What the groups so far have attached, sorted: the next group leaves it out. */
static uint64_t *attached_addrs(const struct daemon *d, size_t *cnt)
{
	size_t i, n = 0;
	uint64_t *v;

	for (i = 0; i < d->group_cnt; i++)
		n += d->groups[i].addr_cnt;
	v = malloc((n + 1) * sizeof(*v));
	if (!v)
		return NULL;
	for (i = 0, n = 0; i < d->group_cnt; i++) {
		memcpy(v + n, d->groups[i].addrs, d->groups[i].addr_cnt * sizeof(*v));
		n += d->groups[i].addr_cnt;
	}
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_u64);
	*cnt = n;
	return v;
}

/* A group's own record of what it holds: addresses and modules. */
static int group_index(struct group *g)
{
	const struct kattach_target *t = kattach__targets(g->a);
	size_t i, n = kattach__target_cnt(g->a), m = 0;

	g->addrs = malloc((n + 1) * sizeof(*g->addrs));
	g->modules = calloc(n + 1, sizeof(*g->modules));
	if (!g->addrs || !g->modules)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		if (t[i].flags & KATTACH_F_EXCLUDED)
			continue;
		g->addrs[g->addr_cnt++] = t[i].addr;	/* targets are in address order */
		if (t[i].module && !(g->modules[m++] = strdup(t[i].module))) {
			g->module_cnt = m - 1;	/* what group_end() frees */
			return -ENOMEM;
		}
	}
	if (m > 1)
		qsort(g->modules, m, sizeof(*g->modules), cmp_str);
	for (i = 0; i < m; i++) {
		if (g->module_cnt && !strcmp(g->modules[g->module_cnt - 1], g->modules[i])) {
			free(g->modules[i]);
			continue;
		}
		g->modules[g->module_cnt++] = g->modules[i];
	}
	return 0;
}

/*
 * Attaches what pattern matches that no group holds yet. 0 also when there
 * is nothing new; the group is then not kept.
 */
static int add_group(struct daemon *d, const char *pattern, size_t *attached)
{
	const struct ksa_config *c = d->c;
	struct kattach_opts ko = { .sz = sizeof(ko) };
	struct group g = {};
	uint64_t *skip;
	size_t skip_cnt = 0;
	int err, ph;

	skip = attached_addrs(d, &skip_cnt);
	if (!skip)
		return -ENOMEM;
	ko.patterns = &pattern;
	ko.pattern_cnt = 1;
	ko.excludes = (const char *const *)c->excludes;
	ko.exclude_cnt = c->exclude_cnt;
	ko.skip_addrs = skip;
	ko.skip_cnt = skip_cnt;
	ko.allow_empty = true;
	ko.mode = c->mode;
	ko.resolver = c->resolver;
	ko.fallback = c->fallback;
	ko.link_batch = c->link_batch;
	ko.sources = &d->dbo;
	ko.stop = d->o->stop;
	g.a = kattach__new(&ko);
	g.pattern = strdup(pattern);
	err = g.a && g.pattern ? 0 : -ENOMEM;
	if (!err)
		err = kattach__resolve(g.a);
	if (!err && kattach__target_cnt(g.a))
		err = kattach__attach(g.a);
	free(skip);
	if (!err && !kattach__attached_cnt(g.a)) {
		group_end(d, &g);	/* nothing (new) to attach: no group */
		return 0;
	}
	if (!err)
		err = group_index(&g);
	if (err) {
		service__log("%s", g.a && kattach__errmsg(g.a)[0] ? kattach__errmsg(g.a)
								 : strerror(-err));
		group_end(d, &g);
		return err;
	}
	for (ph = 0; ph < KATTACH_PH_CNT; ph++)
		d->phase_ns[ph] += kattach__phase_ns(g.a, ph);
	if (d->group_cnt == d->group_cap) {
		size_t cap = d->group_cap ? d->group_cap * 2 : 8;
		struct group *v = realloc(d->groups, cap * sizeof(*v));

		if (!v) {
			group_end(d, &g);
			return -ENOMEM;
		}
		d->groups = v;
		d->group_cap = cap;
	}
	*attached += g.addr_cnt;
	d->groups[d->group_cnt++] = g;
	return 0;
}

static bool has_pattern(const struct ksa_config *c, const char *p)
{
	size_t i;

	for (i = 0; i < c->pattern_cnt; i++)
		if (!strcmp(c->patterns[i], p))
			return true;
	return false;
}

static bool same_str_lists(char **a, size_t na, char **b, size_t nb)
{
	size_t i;

	if (na != nb)
		return false;
	for (i = 0; i < na; i++)
		if (strcmp(a[i], b[i]))
			return false;
	return true;
}

/* Whether groups attached under old stay right under new. */
static bool same_settings(const struct ksa_config *old, const struct ksa_config *new)
{
	return old->mode == new->mode && old->resolver == new->resolver &&
	       old->fallback == new->fallback && old->link_batch == new->link_batch &&
	       old->cache == new->cache &&
	       same_str_lists(old->excludes, old->exclude_cnt, new->excludes, new->exclude_cnt);
}

/* Loaded modules, as /proc/modules lists them: a hash of their names. */
static uint64_t modules_hash(char ***names, size_t *cnt)
{
	uint64_t h = 1469598103934665603ull;
	char *line = NULL, **v = NULL;
	size_t n = 0, cap = 0;
	FILE *f = fopen("/proc/modules", "re");

	if (!f)
		return 0;
	/* (a line of a module many use is long: read whole, not in pieces) */
	while (getline(&line, &cap, f) > 0) {
		size_t len = strcspn(line, " \n"), i;

		for (i = 0; i < len; i++)
			h = (h ^ (unsigned char)line[i]) * 1099511628211ull;
		h = (h ^ '\n') * 1099511628211ull;
		if (names) {
			char **nv = realloc(v, (n + 1) * sizeof(*v));

			if (!nv)
				break;
			v = nv;
			v[n] = strndup(line, len);
			if (v[n])
				n++;
		}
	}
	free(line);
	fclose(f);
	if (names) {
		if (n > 1)
			qsort(v, n, sizeof(*v), cmp_str);
		*names = v;
		*cnt = n;
	}
	return h;
}

static void free_names(char **v, size_t n)
{
	while (n)
		free(v[--n]);
	free(v);
}

/* Whether every module g has functions in is still loaded. */
static bool modules_present(const struct group *g, char **loaded, size_t cnt)
{
	size_t i;

	for (i = 0; i < g->module_cnt; i++)
		if (!bsearch(&g->modules[i], loaded, cnt, sizeof(*loaded), cmp_str))
			return false;
	return true;
}

/*
 * Brings the groups to what config c asks for: keeps what still holds, ends
 * the rest, attaches what is missing. On success c becomes the daemon's (the
 * old one is freed); on failure the old one stays the daemon's and c is the
 * caller's, with whatever could be attached of it attached.
 */
static int apply(struct daemon *d, struct ksa_config *c, const char *why)
{
	bool same = d->c && same_settings(d->c, c);
	size_t i, j, kept = 0, ended = 0, added = 0, ended_fns = 0, gone = 0, loaded_cnt = 0;
	struct ksa_config *old;
	char **loaded = NULL;
	int err = 0;

	d->modules_hash = modules_hash(&loaded, &loaded_cnt);
	for (i = 0; i < d->group_cnt; i++) {
		struct group *g = &d->groups[i];
		bool present = modules_present(g, loaded, loaded_cnt);

		g->keep = same && has_pattern(c, g->pattern) && present;
		gone += !present;
	}
	free_names(loaded, loaded_cnt);
	for (i = j = 0; i < d->group_cnt; i++) {
		if (d->groups[i].keep) {
			d->groups[j++] = d->groups[i];
			kept++;
			continue;
		}
		ended_fns += d->groups[i].addr_cnt;
		ended++;
		group_end(d, &d->groups[i]);
	}
	d->group_cnt = j;
	old = d->c;
	d->c = c;
	d->dbo = *d->o->sources;
	d->dbo.sz = sizeof(d->dbo);
	d->dbo.no_cache = d->dbo.no_cache || !c->cache;
	memset(d->phase_ns, 0, sizeof(d->phase_ns));
	/* every pattern, even after one failed: as much attached as can be */
	for (i = 0; i < c->pattern_cnt && !*d->o->stop; i++) {
		int e = add_group(d, c->patterns[i], &added);

		err = err ? err : e;
		/* a long apply must not look hung to systemd */
		notify__send("WATCHDOG=1");
	}
	if (!kept && !ended)
		snprintf(d->change, sizeof(d->change), "%s: %zu functions attached in %zu group%s%s",
			 why, added, d->group_cnt, d->group_cnt == 1 ? "" : "s",
			 err ? ", some patterns failed to attach (journal)" : "");
	else
		snprintf(d->change, sizeof(d->change), "%s: %zu group%s kept, %zu ended (%zu "
			 "functions detached%s), %zu functions attached anew%s", why, kept,
			 kept == 1 ? "" : "s", ended, ended_fns, gone ? ", modules unloaded" : "",
			 added, err ? ", some patterns failed to attach (journal)" : "");
	if (err) {
		d->c = old;	/* the caller's to free, or to apply again */
		return err;
	}
	if (old != c)
		ksa_config__free(old);
	return 0;
}

/*
 * Series of their own go to functions that have calls, busiest first, and
 * stay theirs while attached: the set changes only when a function leaves,
 * so that the summed "other" counter does not swing back and forth.
 */
static void pick_series(struct daemon *d, size_t top)
{
	struct fn_state **cand;
	size_t i, n = 0;

	for (i = 0; i < d->fn_cnt; i++) {
		struct fn_state *f = d->fn_v[i];

		if (f->series && f->seen != d->view) {
			f->series = false;	/* detached: its place is free */
			d->series_cnt--;
		}
	}
	/* top lowered by a reload: the quietest give their series up */
	while (d->series_cnt > top) {
		struct fn_state *low = NULL;

		for (i = 0; i < d->fn_cnt; i++) {
			struct fn_state *f = d->fn_v[i];

			if (f->series && (!low || f->carried.calls + f->live.calls <
					  low->carried.calls + low->live.calls))
				low = f;
		}
		low->series = false;
		d->series_cnt--;
	}
	if (d->series_cnt >= top)
		return;
	cand = malloc((d->fn_cnt + 1) * sizeof(*cand));
	if (!cand)
		return;
	for (i = 0; i < d->fn_cnt; i++) {
		struct fn_state *f = d->fn_v[i];

		if (!f->series && f->seen == d->view && f->carried.calls + f->live.calls)
			cand[n++] = f;
	}
	for (i = 0; i < n && d->series_cnt < top; i++) {
		struct fn_state *t;
		size_t j, best = i;

		/* a partial selection: top is small next to the functions */
		for (j = i + 1; j < n; j++)
			if (cand[j]->carried.calls + cand[j]->live.calls >
			    cand[best]->carried.calls + cand[best]->live.calls)
				best = j;
		t = cand[i];
		cand[i] = cand[best];
		cand[best] = t;
		cand[i]->series = true;
		d->series_cnt++;
	}
	free(cand);
}

struct view {
	struct daemon *d;
	struct prom_fn *fns;	/* the attached ones, then those detached since */
	size_t fn_cnt, fn_attached, attached, matched, excluded, links;
	bool fallback;
	double now;
};

static int fill_prom(FILE *f, void *ctx)
{
	const struct view *w = ctx;
	const struct daemon *d = w->d;
	struct prom_view v = {
		.sz = sizeof(v),
		.version = d->o->version,
		.kernel = d->o->kernel,
		.mode = kattach__mode_name(d->c->mode),
		.resolver = kattach__resolver_name(d->c->resolver),
		.source = d->group_cnt ? kattach__source(d->groups[0].a) : "none",
		.session = d->c->mode == KATTACH_SESSION,
		.fallback = w->fallback,
		.matched = w->matched,
		.attached = w->attached,
		.excluded = w->excluded,
		.links = w->links,
		.boot_stall_s = service__boot_stall(d->o),
		.stall_threshold_s = d->c->stall_threshold_s,
		.updated_s = w->now,
		.interval_s = d->c->interval_s,
		.fns = w->fns,
		.fn_cnt = w->fn_cnt,
		.top = PROM_TOP_MARKED,
	};

	memcpy(v.phase_ns, d->phase_ns, sizeof(v.phase_ns));
	return prom__write(f, &v);
}

static int fill_json(FILE *f, void *ctx)
{
	const struct view *w = ctx;
	const struct daemon *d = w->d;
	size_t i;

	fputs("{\"version\":", f);
	report__json_str(f, d->o->version);
	fputs(",\"kernel\":", f);
	report__json_str(f, d->o->kernel);
	fprintf(f, ",\"updated\":%.3f,\"mode\":\"%s\",\"attached\":%zu,\"links\":%zu,"
		   "\"fallback\":%s,\"last_change\":", w->now, kattach__mode_name(d->c->mode),
		w->attached, w->links, w->fallback ? "true" : "false");
	report__json_str(f, d->change);
	fputs(",\"groups\":[", f);
	for (i = 0; i < d->group_cnt; i++) {
		fputs(i ? ",{\"pattern\":" : "{\"pattern\":", f);
		report__json_str(f, d->groups[i].pattern);
		fprintf(f, ",\"functions\":%zu,\"links\":%zu}", d->groups[i].addr_cnt,
			kattach__link_cnt_total(d->groups[i].a));
	}
	fputs("],\"functions\":[", f);
	for (i = 0; i < w->fn_attached; i++) {
		fputs(i ? ",{\"name\":" : "{\"name\":", f);
		report__json_str(f, w->fns[i].name);
		fputs(",\"module\":", f);
		report__json_str(f, w->fns[i].module);
		fprintf(f, ",\"calls\":%llu}", (unsigned long long)w->fns[i].stat.calls);
	}
	fputs("]}\n", f);
	return ferror(f) ? -EIO : 0;
}

/* Counters now, into the outputs. */
static int report(struct daemon *d)
{
	struct view w = { .d = d, .now = service__unix_now() };
	char path[4096];
	size_t i, j, k = 0;
	int err;

	/* all or nothing: a view without a group's counters would show them drop */
	for (i = 0; i < d->group_cnt; i++) {
		err = kattach__collect(d->groups[i].a);
		if (err) {
			service__log("%s; outputs not rewritten this interval",
				     kattach__errmsg(d->groups[i].a));
			return err;
		}
	}
	d->view++;
	for (i = 0; i < d->group_cnt; i++) {
		struct kattach *a = d->groups[i].a;
		const struct kattach_target *t = kattach__targets(a);

		w.matched += kattach__target_cnt(a);
		w.attached += kattach__attached_cnt(a);
		w.excluded += kattach__excluded_cnt(a);
		w.links += kattach__link_cnt_total(a);
		w.fallback |= kattach__fell_back(a);
		for (j = 0; j < kattach__target_cnt(a); j++) {
			struct fn_state *f;

			if (t[j].flags & KATTACH_F_EXCLUDED)
				continue;
			f = fn_get(d, t[j].name, t[j].module);
			if (!f)
				return -ENOMEM;
			/* same-named statics are one function here: their counts add up */
			if (f->seen != d->view) {
				f->live = *kattach_target__stat(&t[j]);
				f->seen = d->view;
			} else {
				prom__stat_add(&f->live, kattach_target__stat(&t[j]));
			}
		}
	}
	pick_series(d, d->c->top);
	w.fns = calloc(d->fn_cnt + 1, sizeof(*w.fns));
	if (!w.fns)
		return -ENOMEM;
	/*
	 * Attached functions first (the JSON lists them), then those detached
	 * since: their carried counts stay in the summed counters, which so
	 * never go back when a reload lets functions go.
	 */
	for (j = 0; j < 2; j++) {
		for (i = 0; i < d->fn_cnt; i++) {
			struct fn_state *f = d->fn_v[i];
			bool attached = f->seen == d->view;

			if (attached != !j || (!attached && !f->carried.calls))
				continue;
			w.fns[k] = (struct prom_fn){ f->name, f->module, f->carried,
						     attached && f->series };
			if (attached)
				prom__stat_add(&w.fns[k].stat, &f->live);
			k++;
		}
		if (!j)
			w.fn_attached = k;
	}
	w.fn_cnt = k;
	/* each output on its own: one that cannot be written does not stop the other */
	if (d->c->prom_file && (err = atomic__write(d->c->prom_file, 0644, fill_prom, &w)))
		service__log("cannot write %s: %s", d->c->prom_file, strerror(-err));
	snprintf(path, sizeof(path), "%s/daemon.json", d->c->json_dir);
	if ((err = atomic__write(path, 0644, fill_json, &w)))
		service__log("cannot write %s: %s", path, strerror(-err));
	free(w.fns);
	notify__sendf("STATUS=%zu functions attached in %zu links (%zu groups); %s", w.attached,
		      w.links, d->group_cnt, d->change);
	return 0;
}

static void daemon_free(struct daemon *d)
{
	size_t i;

	for (i = 0; i < d->group_cnt; i++)
		group_end(d, &d->groups[i]);
	free(d->groups);
	for (i = 0; i < d->fn_cnt; i++) {
		free(d->fn_v[i]->key);
		free(d->fn_v[i]->name);
		free(d->fn_v[i]->module);
		free(d->fn_v[i]);
	}
	free(d->fn_v);
	hdestroy_r(&d->fns);
	ksa_config__free(d->c);
}

int service__daemon(const struct service_opts *o)
{
	volatile sig_atomic_t *reload = (volatile sig_atomic_t *)o->reload;
	struct daemon d = { .o = o };
	uint64_t wd_ns = notify__watchdog_usec() * 1000, next, next_wd;
	struct ksa_config *c;
	int err;

	if (service__load_config(o, &c))
		return KSA_EX_CONFIG;
	err = apply(&d, c, "start");
	if (err)
		ksa_config__free(c);	/* not the daemon's: apply failed */
	if (!err && !*o->stop && !d.group_cnt) {
		service__log("nothing to attach: no traceable function matches the config's "
			     "patterns");
		err = -ENOENT;
	}
	if (err || *o->stop) {
		notify__send("STOPPING=1");
		daemon_free(&d);
		return *o->stop ? 0 : 1;
	}
	service__log("%s", d.change);
	report(&d);
	notify__send("READY=1");
	next = now_ns() + (uint64_t)(d.c->interval_s * 1e9);
	next_wd = wd_ns ? now_ns() + wd_ns / 2 : UINT64_MAX;
	while (!*o->stop) {
		service__sleep_until(o->stop, o->reload, next < next_wd ? next : next_wd);
		if (*o->stop)
			break;
		if (wd_ns && now_ns() >= next_wd) {
			notify__send("WATCHDOG=1");
			next_wd = now_ns() + wd_ns / 2;
		}
		if (*reload) {
			*reload = 0;
			notify__sendf("RELOADING=1\nMONOTONIC_USEC=%llu",
				      (unsigned long long)(now_ns() / 1000));
			if (service__load_config(o, &c)) {
				service__log("reload: keeping the running config");
				snprintf(d.change, sizeof(d.change), "reload refused: the config "
					 "has errors (journal); the running config is kept");
			} else if (apply(&d, c, "reload")) {
				/* back to what ran before: its groups attached again */
				service__log("%s; going back to the running config", d.change);
				ksa_config__free(c);
				if (apply(&d, d.c, "reload failed, running config restored")) {
					service__log("%s: cannot restore the running config", d.change);
					break;
				}
				service__log("%s", d.change);
			} else {
				service__log("%s", d.change);
			}
			report(&d);
			notify__send("READY=1");
			next = now_ns() + (uint64_t)(d.c->interval_s * 1e9);
			continue;
		}
		if (now_ns() < next)
			continue;
		/* a module loaded or unloaded: its functions may come or go */
		if (modules_hash(NULL, NULL) != d.modules_hash) {
			apply(&d, d.c, "modules changed");
			service__log("%s", d.change);
		}
		report(&d);
		next += (uint64_t)(d.c->interval_s * 1e9);
		if (next < now_ns())
			next = now_ns() + (uint64_t)(d.c->interval_s * 1e9);
	}
	notify__send("STOPPING=1");
	report(&d);
	daemon_free(&d);
	service__log("stopped: everything detached");
	return 0;
}
