// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The attach engine. Names are resolved here, in userspace, through the ksym
 * layer; the kernel only ever sees addresses, so it does no symbol lookup.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "attach.h"
#include "clock.h"
#include "ksym.h"
#include "ksymattach.skel.h"

struct kattach {
	struct kattach_opts opts;
	struct ksym_db *db;
	struct ksym_table *funcs;	/* traceable functions, with addresses (db's) */
	struct kattach_target *targets;
	size_t target_cnt;
	unsigned long *addrs;
	struct ksymattach_bpf *skel;
	struct bpf_link *link;
	size_t attached;
	const char *source;
	uint64_t phase_ns[KATTACH_PH_CNT];
	char err[320];
};

static int fail(struct kattach *a, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(a->err, sizeof(a->err), fmt, ap);
	va_end(ap);
	return err < 0 ? err : -err;
}

struct kattach *kattach__new(const struct kattach_opts *opts)
{
	struct kattach *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	memcpy(&a->opts, opts, opts->sz < sizeof(a->opts) ? opts->sz : sizeof(a->opts));
	a->opts.sz = sizeof(a->opts);
	return a;
}

void kattach__free(struct kattach *a)
{
	if (!a)
		return;
	kattach__detach(a);
	ksym_db__free(a->db);
	free(a->targets);
	free(a->addrs);
	free(a);
}

static const char *const phase_names[KATTACH_PH_CNT] = {
	[KATTACH_PH_READ] = "read",	[KATTACH_PH_PARSE] = "parse",
	[KATTACH_PH_INDEX] = "index",	[KATTACH_PH_MATCH] = "match",
	[KATTACH_PH_LOAD] = "load",	[KATTACH_PH_ATTACH] = "attach",
	[KATTACH_PH_DETACH] = "detach",
};

const char *kattach__phase_name(enum kattach_phase ph)
{
	return ph < KATTACH_PH_CNT ? phase_names[ph] : "?";
}

const char *kattach__mode_name(enum kattach_mode mode)
{
	return mode == KATTACH_SESSION ? "session" : "multi";
}

uint64_t kattach__phase_ns(const struct kattach *a, enum kattach_phase ph)
{
	return ph < KATTACH_PH_CNT ? a->phase_ns[ph] : 0;
}

enum kattach_mode kattach__mode(const struct kattach *a) { return a->opts.mode; }
size_t kattach__target_cnt(const struct kattach *a) { return a->target_cnt; }
const struct kattach_target *kattach__targets(const struct kattach *a) { return a->targets; }
size_t kattach__attached_cnt(const struct kattach *a) { return a->attached; }
const char *kattach__source(const struct kattach *a) { return a->source ? a->source : "none"; }
const char *kattach__errmsg(const struct kattach *a) { return a->err; }
bool kattach__traceability_known(const struct kattach *a)
{
	return a->db && ksym_db__traceability_known(a->db);
}
bool kattach__from_cache(const struct kattach *a)
{
	return a->db && ksym_db__from_cache(a->db, KSYM_DB_FUNCS);
}

/* The traceable functions, with addresses, from the lookup layer. */
static int load_funcs(struct kattach *a)
{
	const struct kattach_opts *o = &a->opts;
	struct ksym_db_opts dbo = { .sz = sizeof(dbo) };
	int err, ph;

	if (o->sources)
		memcpy(&dbo, o->sources, o->sources->sz < sizeof(dbo) ? o->sources->sz : sizeof(dbo));
	dbo.sz = sizeof(dbo);
	/* the blacklist only matters to a listing (and classic kprobes) */
	dbo.need = KSYM_DB_FUNCS | (o->list_only ? KSYM_DB_BLACKLIST : 0);
	dbo.allow_unknown_traceability = o->list_only;
	a->db = ksym_db__new(&dbo);
	if (!a->db)
		return fail(a, ENOMEM, "out of memory");
	err = ksym_db__load(a->db);
	for (ph = 0; ph < KSYM_PH_CNT; ph++)
		a->phase_ns[ph] += ksym_db__phase_ns(a->db, ph);
	if (err)
		return fail(a, err, "%s", ksym_db__errmsg(a->db));
	a->funcs = ksym_db__funcs(a->db);
	a->source = ksym_db__funcs_source(a->db);
	return 0;
}

struct collect_ctx {
	struct kattach *a;
	size_t cap;
};

static int add_target(const struct ksym *sym, void *ctx)
{
	struct collect_ctx *c = ctx;
	struct kattach *a = c->a;

	if (sym->flags & KSYM_F_UNRESOLVED)
		return 0;
	if (a->target_cnt == c->cap) {
		size_t ncap = c->cap ? c->cap * 2 : 256;
		struct kattach_target *n = realloc(a->targets, ncap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		a->targets = n;
		c->cap = ncap;
	}
	a->targets[a->target_cnt++] = (struct kattach_target){
		.addr = sym->addr, .name = sym->name, .module = sym->module,
		.flags = (sym->flags & (KSYM_F_TRACEABLE | KSYM_F_AMBIGUOUS)) |
			 (ksym_db__blacklisted(a->db, sym->addr) ? KSYM_F_BLACKLISTED : 0),
	};
	return 0;
}

static int target_cmp(const void *x, const void *y)
{
	const struct kattach_target *a = x, *b = y;

	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

int kattach__resolve(struct kattach *a)
{
	struct collect_ctx c = { .a = a };
	uint64_t t0;
	size_t i, j;
	int err = 0;

	if (!a->opts.pattern_cnt)
		return fail(a, EINVAL, "no pattern given (-p GLOB)");
	err = load_funcs(a);
	if (err)
		return err;

	t0 = now_ns();
	for (i = 0; i < a->opts.pattern_cnt && !err; i++) {
		const char *p = a->opts.patterns[i];
		size_t before = a->target_cnt;

		if (strchr(p, ':') && ksym_glob_is_literal(p)) {
			struct ksym sym[8];
			int n = ksym_table__find(a->funcs, p, NULL, sym, 8);

			for (j = 0; j < (size_t)n && j < 8 && !err; j++)
				err = add_target(&sym[j], &c);
		} else {
			err = ksym_table__match(a->funcs, p, add_target, &c);
		}
		if (!err && a->target_cnt == before)
			err = fail(a, ENOENT, "no traceable function matches '%s' (in %s)", p,
				   kattach__source(a));
	}
	if (err) {
		a->phase_ns[KATTACH_PH_MATCH] += now_ns() - t0;
		return err < 0 && !a->err[0] ? fail(a, err, "%s", strerror(-err)) : err;
	}
	/* One target per address: overlapping patterns and aliases collapse. */
	qsort(a->targets, a->target_cnt, sizeof(*a->targets), target_cmp);
	for (i = j = 0; i < a->target_cnt; i++)
		if (!j || a->targets[j - 1].addr != a->targets[i].addr)
			a->targets[j++] = a->targets[i];
	a->target_cnt = j;
	a->phase_ns[KATTACH_PH_MATCH] += now_ns() - t0;
	return 0;
}

static const char *release(void)
{
	static struct utsname u;

	if (!u.release[0])
		uname(&u);
	return u.release;
}

static int attach_error(struct kattach *a, int err)
{
	switch (-err) {
	case EPERM:
	case EACCES:
		return fail(a, err, "not permitted to attach: run as root "
				    "(needs CAP_BPF and CAP_PERFMON)");
	case EOPNOTSUPP:
	case 524:	/* ENOTSUPP, kernel-internal */
		return fail(a, err, "kernel %s has no kprobe.multi support "
				    "(built without CONFIG_FPROBE)", release());
	case E2BIG:
		return fail(a, err, "too many targets for one link (%zu)", a->target_cnt);
	default:
		return fail(a, err, "cannot attach %s to %zu functions: %s",
			    kattach__mode_name(a->opts.mode), a->target_cnt, strerror(-err));
	}
}

int kattach__attach(struct kattach *a)
{
	LIBBPF_OPTS(bpf_kprobe_multi_opts, mo);
	struct bpf_program *prog;
	uint64_t t0 = now_ns();
	size_t i;
	int err;

	if (!a->target_cnt)
		return fail(a, EINVAL, "nothing to attach");
	a->skel = ksymattach_bpf__open();
	if (!a->skel)
		return fail(a, errno, "cannot open the BPF object: %s", strerror(errno));
	prog = a->opts.mode == KATTACH_SESSION ? a->skel->progs.ksa_session
					       : a->skel->progs.ksa_multi;
	bpf_program__set_autoload(a->skel->progs.ksa_multi, prog == a->skel->progs.ksa_multi);
	bpf_program__set_autoload(a->skel->progs.ksa_session, prog == a->skel->progs.ksa_session);
	bpf_program__set_autoload(a->skel->progs.ksa_kprobe, false);
	/* every attached function may need a slot; a little slack for IP aliases */
	bpf_map__set_max_entries(a->skel->maps.stats, a->target_cnt + 16);
	err = ksymattach_bpf__load(a->skel);
	a->phase_ns[KATTACH_PH_LOAD] += now_ns() - t0;
	if (err) {
		if (err == -EPERM || err == -EACCES)
			return attach_error(a, err);
		return fail(a, err, "cannot load the BPF program: %s (-v shows the verifier log)",
			    strerror(-err));
	}

	a->addrs = malloc(a->target_cnt * sizeof(*a->addrs));
	if (!a->addrs)
		return fail(a, ENOMEM, "out of memory");
	for (i = 0; i < a->target_cnt; i++)
		a->addrs[i] = a->targets[i].addr;
	mo.addrs = a->addrs;
	mo.cnt = a->target_cnt;
	mo.session = a->opts.mode == KATTACH_SESSION;
	t0 = now_ns();
	a->link = bpf_program__attach_kprobe_multi_opts(prog, NULL, &mo);
	a->phase_ns[KATTACH_PH_ATTACH] += now_ns() - t0;
	if (!a->link)
		return attach_error(a, -errno);
	a->attached = a->target_cnt;
	return 0;
}

/*
 * The kernel reports the function's entry IP; a target is the ftrace location,
 * which with IBT sits past the 4-byte ENDBR64. So an IP belongs to the target at
 * it or just above it, else to the target below it.
 */
#define ENTRY_SLACK 16

static struct kattach_target *target_of(struct kattach *a, uint64_t ip)
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

int kattach__collect(struct kattach *a)
{
	int ncpu = libbpf_num_possible_cpus(), fd, err, c, s;
	struct ksa_stat *vals;
	__u64 key, *prev = NULL;
	size_t i;

	if (!a->skel)
		return fail(a, EINVAL, "not attached");
	if (ncpu < 0)
		return fail(a, ncpu, "cannot count CPUs");
	vals = calloc(ncpu, sizeof(*vals));
	if (!vals)
		return fail(a, ENOMEM, "out of memory");
	for (i = 0; i < a->target_cnt; i++)
		memset(&a->targets[i].stat, 0, sizeof(a->targets[i].stat));
	fd = bpf_map__fd(a->skel->maps.stats);
	while (!(err = bpf_map_get_next_key(fd, prev, &key))) {
		struct kattach_target *t;

		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, vals))
			continue;
		t = target_of(a, key);
		if (!t)
			continue;
		for (c = 0; c < ncpu; c++) {
			t->stat.calls += vals[c].calls;
			t->stat.returns += vals[c].returns;
			t->stat.lat_sum_ns += vals[c].lat_sum_ns;
			for (s = 0; s < KSA_LAT_SLOTS; s++)
				t->stat.lat_log2[s] += vals[c].lat_log2[s];
		}
	}
	free(vals);
	return err == -ENOENT ? 0 : fail(a, err, "cannot read counters: %s", strerror(-err));
}

int kattach__detach(struct kattach *a)
{
	uint64_t t0 = now_ns();

	if (!a->link && !a->skel)
		return 0;
	bpf_link__destroy(a->link);
	a->link = NULL;
	ksymattach_bpf__destroy(a->skel);
	a->skel = NULL;
	a->phase_ns[KATTACH_PH_DETACH] += now_ns() - t0;
	return 0;
}
