// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The attach engine's run: the program loaded, the links made for the
 * targets (links.c makes each), the counters read, the links closed. The
 * patterns are resolved in userspace (resolve.c), so that with the ksym
 * resolver the kernel only sees addresses. The classic-kprobe fallback
 * (kprobes.c), the floor (floor.c), the kernel's features (kernel.c), its
 * refusals (errors.c) and what each resolver is (resolvers.c) have files of
 * their own.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <ksym/ksym.h>

#include "clock.h"
#include "engine.h"
#include "kernel.h"
#include "tmulti18.h"
#include "ksymattach.skel.h"
#include "ksymattach_session.skel.h"

struct kattach *kattach__new(const struct kattach_opts *opts)
{
	struct kattach *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	memcpy(&a->opts, opts, opts->sz < sizeof(a->opts) ? opts->sz : sizeof(a->opts));
	a->opts.sz = sizeof(a->opts);
	/* the resolver indexes resolvers[] */
	if ((unsigned int)a->opts.resolver > KATTACH_RES_FLOOR) {
		free(a);
		errno = EINVAL;
		return NULL;
	}
	a->confirmed = -1;
	a->floor_prog = -1;
	a->hp.prog_fd = a->hp.map_fd = a->hp.armed_fd = -1;
	a->prog_fd = -1;
	return a;
}

void kattach__free(struct kattach *a)
{
	if (!a)
		return;
	kattach__detach(a);
	ksym_db__free(a->db);
	ksym_db__free(a->db2);
	free(a->targets);
	free(a->stats);
	free(a->addrs);
	free(a->names);
	free(a);
}

uint64_t kattach__phase_ns(const struct kattach *a, enum kattach_phase ph)
{
	return ph < KATTACH_PH_CNT ? a->phase_ns[ph] : 0;
}

uint64_t kattach__stall_ns(const struct kattach *a)
{
	return a->phase_ns[KATTACH_PH_READ] + a->phase_ns[KATTACH_PH_PARSE] +
	       a->phase_ns[KATTACH_PH_INDEX] + a->phase_ns[KATTACH_PH_MATCH] +
	       a->phase_ns[KATTACH_PH_LOAD] + a->phase_ns[KATTACH_PH_ATTACH];
}

enum kattach_mode kattach__mode(const struct kattach *a) { return a->opts.mode; }
size_t kattach__target_cnt(const struct kattach *a) { return a->target_cnt; }
const struct kattach_target *kattach__targets(const struct kattach *a) { return a->targets; }
size_t kattach__attached_cnt(const struct kattach *a) { return a->attached; }
uint64_t kattach__prep_ns(const struct kattach *a) { return a->prep_ns; }
ssize_t kattach__confirmed_cnt(const struct kattach *a) { return a->confirmed; }
bool kattach__fell_back(const struct kattach *a) { return a->fell_back; }

const char *kattach__excluded_reason(const struct kattach_target *t)
{
	if (t->why)
		return t->why;
	switch (t->excluded_errno) {
	case EINVAL:
	case ENOENT:	/* (Linux 7.x's fprobe) */
		return "refused by the kernel (not an ftrace location)";
	case EPERM:
		return "in the kprobe blacklist";
	case ENODEV:
		return "its module was unloaded";
	case EADDRNOTAVAIL:
		return "by name, ambiguous (the kernel takes a kprobe's name only when one "
		       "function has it)";
	case ESRCH:
		return "by name, not found by the kernel (no function of that name is an ftrace "
		       "location in its lookup)";
	default:
		return strerror(t->excluded_errno);
	}
}
size_t kattach__excluded_cnt(const struct kattach *a) { return a->excluded; }
size_t kattach__link_cnt_total(const struct kattach *a) { return a->links_made; }
enum kattach_resolver kattach__resolver(const struct kattach *a) { return a->opts.resolver; }

const char *kattach__source(const struct kattach *a) { return a->source ? a->source : "none"; }
const char *kattach__errmsg(const struct kattach *a) { return a->err; }
bool kattach__traceability_known(const struct kattach *a)
{
	return a->db && ksym_db__traceability_known(a->db);
}
bool kattach__blacklist_known(const struct kattach *a)
{
	return a->db && ksym_db__blacklist_known(a->db);
}

bool kattach__from_build_cache(const struct kattach *a)
{
	return a->db && ksym_db__from_build_cache(a->db);
}

bool kattach__from_cache(const struct kattach *a)
{
	return a->db && ksym_db__from_cache(a->db, KSYM_DB_FUNCS);
}


/*
 * Ask the kernel which addresses each link really holds (Linux >= 6.6 tells):
 * what counts as attached is what the kernel says, whoever resolved the names.
 */
static void confirm(struct kattach *a)
{
	size_t i, total = 0, cap = a->target_cnt + 16;
	__u64 *addrs = calloc(cap, sizeof(*addrs));
	bool known = addrs != NULL;
	__u32 j;

	for (i = 0; known && i < a->link_cnt; i++) {
		union {
			struct bpf_link_info info;
			struct tm_link_info tm;
		} u = {};
		__u32 len = sizeof(u), cnt;

		if (kattach__mode_is_tracing(a->opts.mode)) {
			u.tm.addrs = (__u64)(unsigned long)addrs;
			u.tm.count = cap;
		} else {
			u.info.kprobe_multi.addrs = (__u64)(unsigned long)addrs;
			u.info.kprobe_multi.count = cap;
		}
		if (bpf_link_get_info_by_fd(a->links[i], &u.info, &len)) {
			known = false;
			break;
		}
		cnt = u.info.type == BPF_LINK_TYPE_KPROBE_MULTI ? u.info.kprobe_multi.count :
		      u.info.type == KSA_LINK_TYPE_TRACING_MULTI ? u.tm.count : 0;
		if (!cnt) {
			known = false;
			break;
		}
		for (j = 0; j < cnt && j < cap; j++) {
			struct kattach_target *t = ka_target_of(a, addrs[j]);

			if (t && !(t->flags & KATTACH_F_CONFIRMED)) {
				t->flags |= KATTACH_F_CONFIRMED;
				total++;
			}
		}
	}
	free(addrs);
	if (known)
		a->confirmed = total;
}

/*
 * Module functions the kernel refused may belong to a module unloaded (or
 * reloaded elsewhere) since resolving: read the live lists once more, attach
 * those that moved, and report those gone as such. Explicit files are taken
 * as they are.
 */
static int reresolve(struct kattach *a, struct bpf_program *prog)
{
	struct ksym_db_opts dbo = { .sz = sizeof(dbo) };
	struct ksym_table *funcs;
	struct ksym_db *db;
	size_t i, again = 0, moved = 0;
	int err = 0;

	for (i = 0; i < a->target_cnt; i++)
		again += (a->targets[i].flags & KATTACH_F_EXCLUDED) && a->targets[i].module &&
			 ka_refuses_address(-a->targets[i].excluded_errno);
	if (!again || !ka_resolver(a)->reresolves ||
	    (a->opts.sources && (a->opts.sources->funcs_path || a->opts.sources->funcs_addrs_path)))
		return 0;
	if (a->opts.sources)
		memcpy(&dbo, a->opts.sources, sizeof(dbo));
	dbo.sz = sizeof(dbo);
	dbo.need = KSYM_DB_FUNCS;
	dbo.no_cache = true;
	db = ksym_db__new(&dbo);
	if (!db || ksym_db__load(db)) {
		ksym_db__free(db);
		return 0;	/* keep the first answer: they stay excluded */
	}
	funcs = ksym_db__funcs(db);
	for (i = 0; i < a->target_cnt && !err; i++) {
		struct kattach_target *t = &a->targets[i];
		char full[600];
		struct ksym now;

		if (!(t->flags & KATTACH_F_EXCLUDED) || !t->module ||
		    !ka_refuses_address(-t->excluded_errno))
			continue;
		snprintf(full, sizeof(full), "%s:%s", t->module, t->name);
		if (ksym_table__find(funcs, full, NULL, &now, 1) < 1) {
			t->excluded_errno = ENODEV;	/* its module is gone */
			continue;
		}
		if (ksym_db__ftrace_loc(db, &now, &now.addr) == 0)
			continue;	/* no longer traceable there */
		if (now.addr == t->addr)
			continue;	/* refused where it still is: a real refusal */
		/* reloaded elsewhere: the new address, one more try */
		t->addr = a->addrs[i] = now.addr;
		t->entry = 0;	/* (its site alone: one function, a rare case) */
		t->flags &= ~KATTACH_F_EXCLUDED;
		a->excluded--;
		moved++;
		err = ka_attach_range(a, prog, i, 1);
	}
	/* in address order again: hits and confirmations find a target by its address */
	if (moved) {
		qsort(a->targets, a->target_cnt, sizeof(*a->targets), ka_addr_cmp);
		ka_hand_over(a, a->hand);
	}
	/* the targets' names point into the first tables: both stay until free */
	a->db2 = db;
	return err;
}

/* -v: the functions a link of addresses gets by their site, and why. */
static void sites_said(const struct kattach *a)
{
	size_t i, n = 0;

	if (!a->opts.sources || !a->opts.sources->verbose || ka_resolver(a)->names != KA_NAMES_NEVER ||
	    ka_resolver(a)->libbpf_links)
		return;
	for (i = 0; i < a->target_cnt; i++)
		n += !a->targets[i].entry;
	if (a->hand == KA_HAND_SITE)
		ka_warn(a, "links hold ftrace sites, which bpftool does not name: this kernel "
			"refused functions' own addresses before");
	else if (n)
		ka_warn(a, "%zu of %zu functions go to the kernel by their ftrace site, which "
			"bpftool does not name: %s lists sites only", n, a->target_cnt,
			kattach__source(a));
}

/*
 * The program the mode needs, its counters sized for the targets: the hit
 * counter by hand for kprobe.multi (two syscalls), the libbpf object for
 * kprobe.session (its kfuncs need vmlinux BTF) and for the libbpf resolver,
 * which attaches libbpf's way. *prog: the object's program, else NULL.
 */
static int load_object(struct kattach *a, struct bpf_program **prog, char *log, size_t log_len)
{
	/* every attached function may need a slot; a little slack for IP aliases */
	size_t slots = a->target_cnt + 16;
	int err;

	*prog = NULL;
	if (a->opts.mode == KATTACH_SESSION) {
		a->sskel = ksymattach_session_bpf__open();
		if (!a->sskel)
			return -errno;
		*prog = a->sskel->progs.ksa_session;
		a->sskel->rodata->self_tgid = getpid();
		bpf_map__set_max_entries(a->sskel->maps.stats, slots);
		err = ksymattach_session_bpf__load(a->sskel);
	} else if (ka_resolver(a)->libbpf_links) {
		a->skel = ksymattach_bpf__open();
		if (!a->skel)
			return -errno;
		*prog = a->skel->progs.ksa_multi;
		a->skel->rodata->self_tgid = getpid();
		bpf_map__set_max_entries(a->skel->maps.stats, slots);
		bpf_program__set_autoload(a->skel->progs.ksa_kprobe, false);
		bpf_program__set_autoload(a->skel->progs.ksa_kprobe_regs, false);
		err = ksymattach_bpf__load(a->skel);
	} else {
		err = hitprog__load(&a->hp, BPF_TRACE_KPROBE_MULTI, HITPROG_KEY_FUNC_IP, slots,
				    getpid(), log, log_len);
		a->prog_fd = a->hp.prog_fd;
		return err;
	}
	if (!err)
		a->prog_fd = bpf_program__fd(*prog);
	return err;
}

/* The counters of whichever program is loaded; -1: none. */
static int stats_fd(const struct kattach *a)
{
	return a->hp.map_fd >= 0 ? a->hp.map_fd :
	       a->fskel_cnt ? ka_fsession_stats_fd(a) :
	       a->sskel ? bpf_map__fd(a->sskel->maps.stats) :
	       a->skel ? bpf_map__fd(a->skel->maps.stats) : -1;
}

/*
 * Patterns that are all plain names (no glob, no module): what an agent with a
 * list of functions hands libbpf as its syms, not as one glob per name.
 */
static bool plain_names(const struct kattach *a)
{
	size_t i;

	for (i = 0; i < a->opts.pattern_cnt; i++)
		if (!ksym_glob_is_name(a->opts.patterns[i]))
			return false;
	return true;
}

static int attach_all(struct kattach *a)
{
	const struct ka_resolver *rs = ka_resolver(a);
	struct bpf_program *prog = NULL;
	size_t i, step, units;
	bool per_pattern;
	ssize_t total;
	uint64_t t0 = now_ns();
	char log[256] = "";
	int err;

	if (!a->target_cnt)
		return a->opts.allow_empty ? 0 : ka_fail(a, EINVAL, "nothing to attach");
	a->by_name = rs->names == KA_NAMES_ALWAYS ||
		     (rs->names == KA_NAMES_IF_PLAIN && plain_names(a));
	/* (trampolines on ftrace's sites: no kprobes needed) */
	if (kattach__mode_is_tracing(a->opts.mode))
		return ka_no_bpf(a) ?: ka_attach_tracing(a);
	if (!kernel_can_probe())
		return ka_no_probes(a);
	err = ka_no_bpf(a);
	if (err)
		return err;
	if (rs->libbpf_links && a->opts.link_batch > 1)
		return ka_fail(a, EINVAL, "libbpf takes one pattern per link: --batch does not apply");
	if (a->opts.fallback == KATTACH_FALLBACK_KPROBE) {
		if (a->opts.mode == KATTACH_SESSION)
			return ka_fail(a, EINVAL, "classic kprobes have no kprobe.session");
		return ka_attach_kprobes(a);
	}
	if (rs->empty_program) {
		err = ka_attach_floor(a);
		return ka_can_fall_back(a, err, a->floor_link_cnt) ? ka_fall_back(a) : err;
	}
	if (rs->libbpf_links && ka_can_fall_back(a, -EOPNOTSUPP, 0) &&
	    !kernel_has_multi())
		return ka_fall_back(a);
	/* (that question was ours, not libbpf's: not in its load) */
	t0 = now_ns();
	err = load_object(a, &prog, log, sizeof(log));
	a->phase_ns[KATTACH_PH_LOAD] += now_ns() - t0;
	/* a kernel without kprobe.multi may refuse the program before any link */
	if (err && a->opts.mode == KATTACH_MULTI && !kernel_has_multi()) {
		if (ka_can_fall_back(a, -EOPNOTSUPP, 0))
			return ka_fall_back(a);
		return ka_attach_error(a, -EOPNOTSUPP, a->target_cnt);
	}
	if (err)
		return ka_session_missing(a) ?: ka_load_error(a, err, log);

	a->addrs = malloc(a->target_cnt * sizeof(*a->addrs));
	if (!a->addrs)
		return ka_fail(a, ENOMEM, "out of memory");
	ka_hand_over(a, ka_kernel_hand());
	sites_said(a);
	/*
	 * The kernel takes each name once, and only its first traceable instance:
	 * links of names are over the distinct names, so that halving a link, or
	 * a link per name, never hands it a name twice.
	 */
	total = a->by_name ? ka_distinct_names(a) : (ssize_t)a->target_cnt;
	if (total < 0)
		return ka_fail(a, ENOMEM, "out of memory");
	/* link units: libbpf's one-link layout is one link per glob */
	step = a->opts.link_batch ? a->opts.link_batch : (size_t)total;
	if (step > MULTI_MAX)
		step = MULTI_MAX;
	per_pattern = rs->libbpf_links && !a->by_name && !a->opts.link_batch;
	units = per_pattern ? a->opts.pattern_cnt : ((size_t)total + step - 1) / step;

	t0 = now_ns();
	for (i = 0; i < units && !err; i++) {
		size_t first = per_pattern ? i : i * step;
		size_t n = per_pattern ? 1 : (size_t)total - first < step ? (size_t)total - first : step;

		err = ka_attach_range(a, prog, first, n);
	}
	a->phase_ns[KATTACH_PH_ATTACH] += now_ns() - t0;
	if (ka_can_fall_back(a, err, a->link_cnt))
		return ka_fall_back(a);
	if (!err)
		err = reresolve(a, prog);
	if (err == -EINTR)
		return ka_fail(a, EINTR, "interrupted while attaching");
	if (err)
		return err;
	if (a->excluded == a->target_cnt)
		return ka_fail(a, EINVAL, "the kernel refused all %zu functions", a->target_cnt);
	return ka_attached(a);
}

int ka_attached(struct kattach *a)
{
	int err = ka_arm(a);

	if (err)
		return err;
	a->attached = a->target_cnt - a->excluded;
	confirm(a);
	return 0;
}

int kattach__attach(struct kattach *a)
{
	int err = attach_all(a);

	/* the symbol cache for the next run, now that the stall is over */
	if (!err && a->db) {
		ksym_db__flush(a->db);
		a->phase_ns[KATTACH_PH_CACHE] += ksym_db__phase_ns(a->db, KSYM_PH_STORE);
	}
	return err;
}

/*
 * The kernel reports the function's entry IP; a target is the ftrace location,
 * which with IBT sits past the 4-byte ENDBR64. So an IP belongs to the target at
 * it or just above it, else to the target below it.
 */
#define ENTRY_SLACK 16

struct kattach_target *ka_target_of(struct kattach *a, uint64_t ip)
{
	size_t lo = 0, hi = a->target_cnt;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (a->targets[mid].addr < ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < a->target_cnt && a->targets[lo].addr - ip <= ENTRY_SLACK)
		return &a->targets[lo];
	return lo ? &a->targets[lo - 1] : NULL;
}

const struct ksa_stat *kattach_target__stat(const struct kattach_target *t)
{
	static const struct ksa_stat none;

	return t->stat ? t->stat : &none;
}

int kattach__collect(struct kattach *a)
{
	int ncpu = libbpf_num_possible_cpus(), fd, err, c, s;
	struct ksa_stat *vals;
	__u64 key, *prev = NULL;
	size_t i;

	if (stats_fd(a) < 0)
		return ka_fail(a, EINVAL, "not attached");
	if (ncpu < 0)
		return ka_fail(a, ncpu, "cannot count CPUs");
	if (!a->stats)
		a->stats = malloc((a->target_cnt ? a->target_cnt : 1) * sizeof(*a->stats));
	vals = calloc(ncpu, sizeof(*vals));
	if (!vals || !a->stats) {
		free(vals);
		return ka_fail(a, ENOMEM, "out of memory");
	}
	memset(a->stats, 0, a->target_cnt * sizeof(*a->stats));
	for (i = 0; i < a->target_cnt; i++)
		a->targets[i].stat = &a->stats[i];
	fd = stats_fd(a);
	while (!(err = bpf_map_get_next_key(fd, prev, &key))) {
		struct kattach_target *t;

		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, vals))
			continue;
		t = ka_target_of(a, key);
		if (!t)
			continue;
		if (fd == a->hp.map_fd) {
			/* the hand-made counter's value: calls, one for all CPUs */
			t->stat->calls += vals[0].calls;
			continue;
		}
		for (c = 0; c < ncpu; c++) {
			t->stat->calls += vals[c].calls;
			t->stat->returns += vals[c].returns;
			t->stat->lat_sum_ns += vals[c].lat_sum_ns;
			for (s = 0; s < KSA_LAT_SLOTS; s++)
				t->stat->lat_log2[s] += vals[c].lat_log2[s];
		}
	}
	free(vals);
	return err == -ENOENT ? 0 : ka_fail(a, err, "cannot read counters: %s", strerror(-err));
}

/*
 * Closing a classic kprobe's link unregisters its kprobe in the closing
 * thread, waiting on the kernel's grace periods: from a few threads at once
 * the waits overlap. 73 of them (`vfs_*`, 6.1 TCG guest, runs alternated):
 * 2.8-3.3 s where one after another took 5.7-6.3 s, a SIGTERM's exit as long;
 * 32 threads did no better than 8. A kprobe.multi link is one close. libbpf's
 * own links (the libbpf row's classic kprobes) are destroyed the same way.
 */
#define CLOSE_THREADS 8

struct closer {
	const int *fds;			/* link fds, or */
	struct bpf_link *const *blinks;	/* libbpf's links */
	size_t n, step;
};

static void *close_some(void *arg)
{
	const struct closer *c = arg;
	size_t i;

	for (i = 0; i < c->n; i += c->step) {
		if (c->fds)
			close(c->fds[i]);
		else
			bpf_link__destroy(c->blinks[i]);
	}
	return NULL;
}

static void close_links(const int *fds, struct bpf_link *const *blinks, size_t n)
{
	struct closer c[CLOSE_THREADS];
	pthread_t th[CLOSE_THREADS];
	bool started[CLOSE_THREADS] = { false };
	size_t k, t = n < 16 ? 1 : CLOSE_THREADS;

	for (k = 0; k < t; k++)
		c[k] = (struct closer){ .fds = fds ? fds + k : NULL, .blinks = blinks ? blinks + k : NULL,
					.n = n > k ? n - k : 0, .step = t };
	/* this thread takes stripe 0, and any stripe no thread could be made for */
	for (k = 1; k < t; k++)
		started[k] = !pthread_create(&th[k], NULL, close_some, &c[k]);
	close_some(&c[0]);
	for (k = 1; k < t; k++) {
		if (started[k])
			pthread_join(th[k], NULL);
		else
			close_some(&c[k]);
	}
}

int kattach__detach(struct kattach *a)
{
	uint64_t t0 = now_ns();

	close_links(a->floor_links, NULL, a->floor_link_cnt);
	a->floor_link_cnt = 0;
	free(a->floor_links);
	a->floor_links = NULL;
	if (a->floor_prog >= 0) {
		close(a->floor_prog);
		a->floor_prog = -1;
	}
	close_links(NULL, a->blinks, a->blink_cnt);
	a->blink_cnt = 0;
	free(a->blinks);
	a->blinks = NULL;
	if (!a->link_cnt && !a->skel && !a->sskel && !a->fskel_cnt && !a->l18 && a->hp.map_fd < 0) {
		a->phase_ns[KATTACH_PH_DETACH] += now_ns() - t0;
		return 0;
	}
	close_links(a->links, NULL, a->link_cnt);
	a->link_cnt = 0;
	free(a->links);
	a->links = NULL;
	a->links_cap = 0;
	ksymattach_bpf__destroy(a->skel);
	ksymattach_session_bpf__destroy(a->sskel);
	ka_fsession_destroy(a);
	tmulti18__free(a->l18);
	a->l18 = NULL;
	hitprog__close(&a->hp);
	a->skel = NULL;
	a->sskel = NULL;
	a->prog_fd = -1;
	a->phase_ns[KATTACH_PH_DETACH] += now_ns() - t0;
	return 0;
}
