// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The watcher's BPF side: loaded from its skeleton with the hooks the running
 * kernel has (a kallsyms lookup its BTF lacks is left unloaded; one it refuses
 * to attach is named), attached program by program, and drained through the
 * ring buffer into the table of processes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "kwatch.h"
#include "layout.h"
#include "trampolines.h"
#include "units.h"
#include "watch.skel.h"

#define GAP_DEFAULT_S 5.0
#define MAX_PROCS_DEFAULT 4096
#define WHY_MAX 160

struct kwatch {
	struct watch_bpf *skel;
	struct ring_buffer *rb;
	struct bpf_link **links;
	size_t nlinks;
	struct ksw_layout layout;
	struct ksw_procs *procs;
	struct ksw_units *units;
	char why[KWATCH_F_NR][WHY_MAX];	/* "" when measured */
	char hooks[256];
	uint64_t lost;			/* events the table had no memory for */
	uint64_t setup_ns;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static int on_event(void *ctx, void *data, size_t len)
{
	struct kwatch *w = ctx;
	struct ksw_action a;

	if (len < sizeof(struct ksw_event))
		return 0;
	const struct ksw_event *e = data;
	struct ksw_proc *p;

	ksw_decode(data, &w->layout, &a);
	if (ksw_procs__add(w->procs, data, &a))
		w->lost++;
	/* named now, while its cgroup lives: a unit's goes with its last process */
	p = ksw_procs__find(w->procs, e->tgid);
	if (p && !p->cg_path && a.act != KSW_ACT_NONE)
		ksw_units__name(w->units, p->cgroup, now_ns(), &p->cg_path, &p->unit);
	return 0;
}

static int keep_link(struct kwatch *w, struct bpf_link *l)
{
	struct bpf_link **v = realloc(w->links, (w->nlinks + 1) * sizeof(*v));

	if (!v) {
		bpf_link__destroy(l);
		return -ENOMEM;
	}
	w->links = v;
	w->links[w->nlinks++] = l;
	return 0;
}

/* fentry and fexit of one function go on together or not at all: an entry
 * counted without its exit would leave the thread's depth raised for good. */
static int attach_pair(struct kwatch *w, struct bpf_program *enter, struct bpf_program *exit,
		       int *errp)
{
	struct bpf_link *a, *b;

	a = bpf_program__attach(enter);
	if (!a) {
		*errp = -errno;
		return -1;
	}
	b = bpf_program__attach(exit);
	if (!b) {
		*errp = -errno;
		bpf_link__destroy(a);
		return -1;
	}
	if (keep_link(w, a) || keep_link(w, b)) {
		*errp = -ENOMEM;
		return -1;
	}
	return 0;
}

static struct bpf_program *exit_of(struct kwatch *w, const char *target)
{
	struct bpf_program *p;

	bpf_object__for_each_program(p, w->skel->obj) {
		if (bpf_program__autoload(p) && tramp_is(p) &&
		    !strncmp(bpf_program__section_name(p), "fexit/", 6) &&
		    !strcmp(tramp_target(p), target))
			return p;
	}
	return NULL;
}

static void append(char *buf, size_t sz, const char *sep, const char *s)
{
	size_t n = strlen(buf);

	snprintf(buf + n, sz - n, "%s%s", n ? sep : "", s);
}

static int attach_all(struct kwatch *w, char *err, size_t errsz)
{
	char refused[WHY_MAX] = "";
	bool any_resolve = false, free_seen = false;
	struct bpf_program *p;
	int e;

	bpf_object__for_each_program(p, w->skel->obj) {
		struct bpf_link *l;

		if (!bpf_program__autoload(p))
			continue;
		if (tramp_is(p)) {
			bool is_free = !strcmp(tramp_target(p), "bpf_link_free");

			if (strncmp(bpf_program__section_name(p), "fentry/", 7))
				continue;	/* (the exit goes with its entry) */
			if (attach_pair(w, p, exit_of(w, tramp_target(p)), &e)) {
				if (e == -ENOMEM)
					goto nomem;
				if (is_free) {
					snprintf(w->why[KWATCH_F_DETACH], WHY_MAX,
						 "the kernel refused fentry on bpf_link_free: %s",
						 strerror(-e));
				} else {
					char one[80];

					snprintf(one, sizeof(one), "%s (%s)", tramp_target(p),
						 strerror(-e));
					append(refused, sizeof(refused), ", ", one);
				}
				continue;
			}
			if (is_free) {
				free_seen = true;
			} else {
				any_resolve = true;
				append(w->hooks, sizeof(w->hooks), ",", tramp_target(p));
			}
			continue;
		}
		l = bpf_program__attach(p);
		if (!l) {
			e = -errno;
			snprintf(err, errsz, "cannot attach to the tracepoint %s: %s%s",
				 strchr(bpf_program__section_name(p), '/') + 1, strerror(-e),
				 e == -ENOENT ? " (tracefs is not mounted, or the kernel has no "
						"syscall tracepoints: CONFIG_FTRACE_SYSCALLS)" : "");
			return e;
		}
		if (keep_link(w, l))
			goto nomem;
	}
	/* a lookup refused leaves the total short: say so rather than print it */
	if (*refused)
		snprintf(w->why[KWATCH_F_RESOLVE], WHY_MAX, "the kernel refused fentry on %s",
			 refused);
	else if (!any_resolve && !*w->why[KWATCH_F_RESOLVE])
		snprintf(w->why[KWATCH_F_RESOLVE], WHY_MAX,
			 "the kernel's BTF shows none of the kallsyms lookups");
	if (!free_seen && !*w->why[KWATCH_F_DETACH])
		snprintf(w->why[KWATCH_F_DETACH], WHY_MAX,
			 "the kernel's BTF has no bpf_link_free to hook");
	return 0;
nomem:
	snprintf(err, errsz, "out of memory");
	return -ENOMEM;
}

/* Opens and loads the object, with the kallsyms and detach hooks or without. */
static int load(struct kwatch *w, const struct btf *btf, bool trampolines, bool show_self)
{
	struct bpf_program *p;

	watch_bpf__destroy(w->skel);
	w->skel = watch_bpf__open();
	if (!w->skel)
		return -errno;
	/* the lookups this kernel lacks are no gap in what is measured */
	tramp_keep_known(w->skel->obj, btf);
	if (!trampolines)
		bpf_object__for_each_program(p, w->skel->obj)
			if (tramp_is(p))
				bpf_program__set_autoload(p, false);
	if (!show_self)
		w->skel->rodata->self_tgid = getpid();
	return watch_bpf__load(w->skel);
}

int kwatch__open(const struct kwatch_opts *opts, struct kwatch **wp, char *err, size_t errsz)
{
	uint64_t t0 = now_ns();
	struct btf *btf;
	struct kwatch *w;
	int e;

	*wp = NULL;
	w = calloc(1, sizeof(*w));
	if (!w) {
		snprintf(err, errsz, "out of memory");
		return -ENOMEM;
	}
	w->procs = ksw_procs__new((uint64_t)((opts->gap_s > 0 ? opts->gap_s : GAP_DEFAULT_S) *
					      1e9),
				  opts->max_procs ? opts->max_procs : MAX_PROCS_DEFAULT);
	w->units = ksw_units__new(opts->cgroup_root);
	if (!w->procs || !w->units) {
		snprintf(err, errsz, "out of memory");
		e = -ENOMEM;
		goto fail;
	}
	btf = btf__load_vmlinux_btf();
	if (!btf)
		snprintf(w->why[KWATCH_F_RESOLVE], WHY_MAX, "the kernel shows no BTF");
	ksw_layout_read(&w->layout, btf);
	e = load(w, btf, true, opts->show_self);
	if (e && e != -ENOMEM) {
		/* a kernel that refuses fentry (no BPF trampolines, lockdown) still
		 * has the tracepoints: the lookups and the detach go unmeasured */
		snprintf(w->why[KWATCH_F_RESOLVE], WHY_MAX,
			 "the kernel refused the fentry programs: %s", strerror(-e));
		snprintf(w->why[KWATCH_F_DETACH], WHY_MAX, "%s", w->why[KWATCH_F_RESOLVE]);
		e = load(w, btf, false, opts->show_self);
	}
	btf__free(btf);
	if (e) {
		if (e == -EPERM || e == -EACCES)
			snprintf(err, errsz, "cannot load the watcher's BPF programs: %s (watch "
					     "needs root, or CAP_BPF and CAP_PERFMON)", strerror(-e));
		else
			snprintf(err, errsz, "cannot load the watcher's BPF programs: %s "
					     "(-v shows the verifier's log)", strerror(-e));
		goto fail;
	}
	e = attach_all(w, err, errsz);
	if (e)
		goto fail;
	w->rb = ring_buffer__new(bpf_map__fd(w->skel->maps.events), on_event, w, NULL);
	if (!w->rb) {
		e = -errno;
		snprintf(err, errsz, "cannot read the watcher's ring buffer: %s", strerror(-e));
		goto fail;
	}
	w->setup_ns = now_ns() - t0;
	*wp = w;
	return 0;
fail:
	kwatch__free(w);
	return e ? e : -EINVAL;
}

int kwatch__poll(struct kwatch *w, int timeout_ms)
{
	int n = ring_buffer__poll(w->rb, timeout_ms);

	return n < 0 && n != -EINTR ? n : 0;
}

void kwatch__refresh(struct kwatch *w)
{
	int fd = bpf_map__fd(w->skel->maps.stats);
	struct ksw_proc **v;
	size_t i, n;

	/* what is already in the ring buffer first: an exit there is final */
	ring_buffer__consume(w->rb);
	v = ksw_procs__sorted(w->procs, &n);
	for (i = 0; i < n; i++) {
		struct ksw_stat s;

		if (v[i]->stat_final || v[i]->exited)
			continue;
		if (!bpf_map_lookup_elem(fd, &v[i]->pid, &s))
			v[i]->stat = s;
	}
}

struct ksw_totals *kwatch__totals(struct kwatch *w)
{
	kwatch__refresh(w);
	return ksw_procs__totals(w->procs);
}

struct ksw_proc **kwatch__procs(struct kwatch *w, size_t *cnt)
{
	return ksw_procs__sorted(w->procs, cnt);
}

void kwatch__unit(struct kwatch *w, const struct ksw_proc *p, const char **path,
		  const char **unit)
{
	if (p->cg_path) {
		*path = p->cg_path;
		*unit = p->unit;
		return;
	}
	ksw_units__name(w->units, p->cgroup, now_ns(), path, unit);
}

const char *kwatch__unmeasured(const struct kwatch *w, enum kwatch_field f)
{
	return *w->why[f] ? w->why[f] : NULL;
}

const char *kwatch__resolve_hooks(const struct kwatch *w)
{
	return w->hooks;
}

uint64_t kwatch__dropped(const struct kwatch *w)
{
	int fd = bpf_map__fd(w->skel->maps.dropped), ncpu = libbpf_num_possible_cpus(), i;
	uint64_t sum = w->lost, *v;
	uint32_t k = 0;

	if (ncpu <= 0)
		return sum;
	v = calloc(ncpu, sizeof(*v));
	if (v && !bpf_map_lookup_elem(fd, &k, v))
		for (i = 0; i < ncpu; i++)
			sum += v[i];
	free(v);
	return sum;
}

uint64_t kwatch__evicted(const struct kwatch *w)
{
	return ksw_procs__evicted(w->procs);
}

uint64_t kwatch__setup_ns(const struct kwatch *w)
{
	return w->setup_ns;
}

void kwatch__free(struct kwatch *w)
{
	size_t i;

	if (!w)
		return;
	ring_buffer__free(w->rb);
	for (i = 0; i < w->nlinks; i++)
		bpf_link__destroy(w->links[i]);
	free(w->links);
	watch_bpf__destroy(w->skel);
	ksw_procs__free(w->procs);
	ksw_units__free(w->units);
	free(w);
}
