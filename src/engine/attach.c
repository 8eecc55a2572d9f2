// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The attach engine. Names are resolved here, in userspace, through the ksym
 * layer; the kernel only ever sees addresses, so it does no symbol lookup.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/perf_event.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <ksym/ksym.h>

#include "attach.h"
#include "clock.h"
#include "halve.h"
#include "hitprog.h"
#include "ksymattach.skel.h"
#include "ksymattach_session.skel.h"

struct kattach {
	struct kattach_opts opts;
	struct ksym_db *db;
	struct ksym_db *db2;		/* a re-resolution's (reresolve runs once) */
	struct ksym_table *funcs;	/* traceable functions, with addresses (db's) */
	struct kattach_target *targets;
	size_t target_cnt;
	struct ksa_stat *stats;	/* the targets' counters, made by the first collect */
	unsigned long *addrs;
	/*
	 * The program: the hit counter loaded by hand (kprobe.multi, classic
	 * kprobes), or a libbpf object: kprobe.session's, or the one libbpf
	 * attaches by pattern (the libbpf resolver).
	 */
	struct hitprog hp;
	struct ksymattach_bpf *skel;
	struct ksymattach_session_bpf *sskel;
	int prog_fd;			/* whichever it is */
	int *links;			/* link fds */
	size_t link_cnt;		/* alive now */
	size_t links_made;		/* for the report, after detach too */
	const char **names;	/* by_name: distinct names, per link */
	/* links of names: the kernel resolver, or libbpf given names, not globs */
	bool by_name;
	size_t attached;
	const char *source;
	uint64_t phase_ns[KATTACH_PH_CNT];
	uint64_t prep_ns;	/* libbpf mode: our own resolution, outside the phases */
	ssize_t confirmed;	/* targets the kernel lists in its links; -1: not told */
	size_t links_cap;
	size_t excluded;
	bool fell_back;
	struct bpf_program *kprobe_prog;	/* LIBBPF, classic kprobes: the object's */
	struct bpf_link **blinks;	/* LIBBPF, classic kprobes: libbpf's own links */
	size_t blink_cnt;
	int floor_prog;		/* FLOOR: the raw program's fd, its links' below (-1: none) */
	int *floor_links;
	size_t floor_link_cnt;
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
	a->confirmed = -1;
	a->floor_prog = -1;
	a->hp.prog_fd = a->hp.map_fd = -1;
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

static const char *const phase_names[KATTACH_PH_CNT] = {
	[KATTACH_PH_READ] = "read",	[KATTACH_PH_PARSE] = "parse",
	[KATTACH_PH_INDEX] = "index",	[KATTACH_PH_MATCH] = "match",
	[KATTACH_PH_LOAD] = "load",	[KATTACH_PH_ATTACH] = "attach",
	[KATTACH_PH_CACHE] = "cache",	[KATTACH_PH_DETACH] = "detach",
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

const char *kattach__resolver_name(enum kattach_resolver r)
{
	return r == KATTACH_RES_LIBBPF ? "libbpf" : r == KATTACH_RES_KERNEL ? "kernel" :
	       r == KATTACH_RES_FLOOR ? "floor" : "ksym";
}
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

/* The traceable functions, with addresses, from the lookup layer. */
static int load_funcs(struct kattach *a, bool no_build_cache)
{
	const struct kattach_opts *o = &a->opts;
	struct ksym_db_opts dbo = { .sz = sizeof(dbo) };
	int err, ph;

	if (o->sources)
		memcpy(&dbo, o->sources, o->sources->sz < sizeof(dbo) ? o->sources->sz : sizeof(dbo));
	dbo.sz = sizeof(dbo);
	/* the blacklist only matters to a listing (classic kprobes load it later) */
	dbo.need = KSYM_DB_FUNCS | (o->list_only ? KSYM_DB_BLACKLIST : 0);
	dbo.allow_unknown_traceability = o->list_only;
	dbo.patterns = o->patterns;
	dbo.pattern_cnt = o->pattern_cnt;
	dbo.stop = o->stop;
	dbo.no_build_cache |= no_build_cache;
	a->db = ksym_db__new(&dbo);
	if (!a->db)
		return fail(a, ENOMEM, "out of memory");
	err = ksym_db__load(a->db);
	/* read, parse, index: the same phases here */
	for (ph = 0; ph <= KSYM_PH_INDEX; ph++)
		a->phase_ns[ph] += ksym_db__phase_ns(a->db, ph);
	if (err)
		return fail(a, err, "%s", ksym_db__errmsg(a->db));
	a->funcs = ksym_db__funcs(a->db);
	a->source = ksym_db__funcs_source(a->db);
	return 0;
}

/*
 * A match, before it is a target: a tenth of a target's size (which carries
 * its counters), so that sorting the whole kernel's 48,000 matches by address
 * moves 1.5 MB, not 16.
 */
struct pick {
	uint64_t addr;
	const char *name;
	const char *module;
	unsigned int flags;
};

struct collect_ctx {
	struct kattach *a;
	struct pick *picks;
	size_t cnt, cap;
	size_t matched;		/* left out by excludes or skip_addrs */
};

/* A glob as -p takes it: "mod:glob" for a module's functions, ":glob" for vmlinux's. */
static bool pattern_matches(const char *p, const char *name, const char *module)
{
	const char *colon = strchr(p, ':');

	if (colon) {
		size_t len = colon - p;

		if (len ? !module || strlen(module) != len || strncmp(p, module, len) : !!module)
			return false;
		p = colon + 1;
	}
	return ksym_glob_match(p, name);
}

static bool excluded_by_glob(const struct kattach *a, const struct ksym *sym)
{
	size_t i;

	for (i = 0; i < a->opts.exclude_cnt; i++)
		if (pattern_matches(a->opts.excludes[i], sym->name, sym->module))
			return true;
	return false;
}

/* Attached elsewhere already (opts.skip_addrs, sorted). */
static bool skipped_addr(const struct kattach *a, uint64_t loc)
{
	const uint64_t *v = a->opts.skip_addrs;
	size_t lo = 0, hi = a->opts.skip_cnt;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid] < loc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < a->opts.skip_cnt && v[lo] == loc;
}

static int add_target(const struct ksym *sym, void *ctx)
{
	struct collect_ctx *c = ctx;
	struct kattach *a = c->a;

	uint64_t loc = sym->addr;
	int tr;

	if (sym->flags & KSYM_F_UNRESOLVED)
		return 0;
	if (a->opts.stop && *a->opts.stop)
		return fail(a, EINTR, "interrupted while resolving");
	/* matched, but no target: it does not count as a match either */
	if (excluded_by_glob(a, sym)) {
		c->matched++;
		return 0;
	}
	/* where ftrace attaches; a kallsyms candidate without a call site is no function
	 * the kernel can trace, so no match */
	tr = ksym_db__ftrace_loc(a->db, sym, &loc);
	if (tr == 0 || tr == -ESTALE)
		return tr;	/* -ESTALE: the build cache was wrong, resolve again */
	if (tr < 0 && tr != -ENODATA)
		return fail(a, tr, "cannot check %s in the kernel text: %s", sym->name,
			    strerror(-tr));
	if (skipped_addr(a, loc)) {
		c->matched++;
		return 0;
	}
	if (c->cnt == c->cap) {
		size_t ncap = c->cap ? c->cap * 2 : 256;
		struct pick *n = realloc(c->picks, ncap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		c->picks = n;
		c->cap = ncap;
	}
	c->picks[c->cnt++] = (struct pick){
		.addr = loc, .name = sym->name, .module = sym->module,
		.flags = (sym->flags & KSYM_F_AMBIGUOUS) | (tr > 0 ? KSYM_F_TRACEABLE : 0) |
			 (ksym_db__blacklisted(a->db, sym->addr) ? KSYM_F_BLACKLISTED : 0),
	};
	return 0;
}

/* By address: the first member of a pick and of a target alike. */
static int addr_cmp(const void *x, const void *y)
{
	const uint64_t *a = x, *b = y;

	return *a < *b ? -1 : *a > *b;
}
_Static_assert(offsetof(struct pick, addr) == 0 && offsetof(struct kattach_target, addr) == 0,
	       "addr_cmp() sorts by the first member");

#define BATCH_MIN_NAMES 16

static bool have_kprobes(void);
static bool kernel_has_multi(void);
static int no_multi(struct kattach *a, int err);
static const char *release(void);

/*
 * Whether this kernel can probe a function at all: a kprobe PMU (classic
 * kprobes), or fprobe (kprobe.multi), which its own symbols tell. Asked first,
 * so that a kernel without either says so, not whichever file fails next.
 */
/* Whether the running kernel has text symbol name: 1, 0, or -1 where it cannot tell. */
static int kernel_symbol(const char *name)
{
	struct ksym_parse_opts po = { .sz = sizeof(po), .names = &name, .name_cnt = 1,
				      .text_only = true };
	struct ksym_table *t = ksym_table__load(KSYM_FMT_KALLSYMS, "/proc/kallsyms", &po);
	int has = t ? ksym_table__cnt(t) > 0 : -1;

	ksym_table__free(t);
	return has;
}

static bool kernel_can_probe(void)
{
	static int known = -1;	/* the kernel's, once per process: resolve and attach ask */

	if (known < 0 && have_kprobes())
		known = 1;
	/* cannot tell: let the attach say what fails */
	if (known < 0)
		known = kernel_symbol("register_fprobe") != 0;
	return known;
}

/*
 * No bpf() at all: ENOSYS. Whether the kernel lacks it (CONFIG_BPF_SYSCALL off)
 * or something in between refuses it so (a seccomp filter), its symbols say.
 * 0: bpf() is there.
 */
static int no_bpf(struct kattach *a)
{
	static int enosys = -1;	/* once a process: resolve and attach ask */

	if (enosys < 0)
		enosys = syscall(__NR_bpf, -1, NULL, 0) < 0 && errno == ENOSYS;
	if (!enosys)
		return 0;
	/*
	 * kernel/bpf/syscall.c's, which only a kernel with the system call has
	 * (not __x64_sys_bpf: without it the kernel has a weak stub of that name;
	 * not __sys_bpf: Linux 5.14 made it)
	 */
	if (kernel_symbol("bpf_prog_put") > 0)
		return fail(a, ENOSYS, "the bpf() system call fails with ENOSYS, though kernel %s "
				       "has it: something refuses it so (a seccomp filter?)",
			    release());
	return fail(a, ENOSYS, "kernel %s has no BPF (no bpf() system call: CONFIG_BPF_SYSCALL "
			       "off): nothing can be attached here", release());
}

static int no_probes(struct kattach *a)
{
	return fail(a, EOPNOTSUPP, "kernel %s has no kprobes at all (no kprobe PMU, no fprobe: "
				   "CONFIG_KPROBES and CONFIG_FPROBE are off): nothing can be "
				   "attached here", release());
}

static bool live_sources(const struct kattach *a)
{
	const struct ksym_db_opts *s = a->opts.sources;

	return !s || !(s->kallsyms_path || s->system_map_path || s->vmlinux_path ||
		       s->funcs_path || s->funcs_addrs_path);
}

/* Every pattern's traceable functions into c->picks. */
static int collect(struct kattach *a, struct collect_ctx *c)
{
	bool batch;
	size_t i, j;
	int err = 0;

	/* past the measured break-even (bench: tens of lookups), index the names */
	for (i = j = 0; i < a->opts.pattern_cnt; i++)
		j += ksym_glob_is_literal(a->opts.patterns[i]);
	batch = j >= BATCH_MIN_NAMES && !ksym_table__batch_begin(a->funcs);
	for (i = 0; i < a->opts.pattern_cnt && !err; i++) {
		const char *p = a->opts.patterns[i];
		size_t before = c->cnt, left_out = c->matched;

		/* an exact name is one index lookup, not a pass over every function */
		if (ksym_glob_is_literal(p)) {
			struct ksym sym[64];
			int n = ksym_table__find(a->funcs, p, NULL, sym, 64);

			for (j = 0; j < (size_t)n && j < 64 && !err; j++)
				err = add_target(&sym[j], c);
		} else {
			err = ksym_table__match(a->funcs, p, add_target, c);
		}
		if (!err && c->cnt == before && !a->opts.allow_empty)
			err = c->matched > left_out
				? fail(a, ENOENT, "every function '%s' matches is excluded", p)
				: fail(a, ENOENT, "no traceable function matches '%s' (in %s)", p,
				       kattach__source(a));
	}
	if (batch)
		ksym_table__batch_end(a->funcs);
	return err;
}

/* The targets, one per pick, their counters zeroed. */
static int targets_from(struct kattach *a, const struct pick *p, size_t n)
{
	size_t i;

	/* (a second resolve: the counters were sized for the first targets) */
	free(a->targets);
	free(a->stats);
	a->stats = NULL;
	a->targets = calloc(n ? n : 1, sizeof(*a->targets));
	if (!a->targets)
		return fail(a, ENOMEM, "out of memory");
	for (i = 0; i < n; i++) {
		a->targets[i].addr = p[i].addr;
		a->targets[i].name = p[i].name;
		a->targets[i].module = p[i].module;
		a->targets[i].flags = p[i].flags;
	}
	a->target_cnt = n;
	return 0;
}

int kattach__resolve(struct kattach *a)
{
	struct collect_ctx c = { .a = a };
	uint64_t t0;
	size_t i, j;
	int err = 0;

	if (!a->opts.pattern_cnt)
		return fail(a, EINVAL, "no pattern given (-p GLOB)");
	/* the live kernel's files would fail for want of what it lacks: say that */
	if (!a->opts.list_only && live_sources(a) && !kernel_can_probe())
		return no_probes(a);
	if (!a->opts.list_only && live_sources(a) && (err = no_bpf(a)))
		return err;
	err = load_funcs(a, false);
	if (err)
		return err;

	t0 = now_ns();
	err = collect(a, &c);
	if (err == -ESTALE && ksym_db__from_build_cache(a->db)) {
		/* the build cache was wrong about this kernel (its file is gone): cold */
		free(c.picks);
		c = (struct collect_ctx){ .a = a };
		ksym_db__free(a->db);
		a->db = NULL;
		a->phase_ns[KATTACH_PH_MATCH] += now_ns() - t0;
		err = load_funcs(a, true);
		if (err)
			return err;
		t0 = now_ns();
		err = collect(a, &c);
	}
	if (err) {
		free(c.picks);
		a->phase_ns[KATTACH_PH_MATCH] += now_ns() - t0;
		return err < 0 && !a->err[0] ? fail(a, err, "%s", strerror(-err)) : err;
	}
	/* One target per address: overlapping patterns and aliases collapse. */
	if (c.cnt > 1)	/* (none: picks may be NULL) */
		qsort(c.picks, c.cnt, sizeof(*c.picks), addr_cmp);
	for (i = j = 0; i < c.cnt; i++)
		if (!j || c.picks[j - 1].addr != c.picks[i].addr)
			c.picks[j++] = c.picks[i];
	err = targets_from(a, c.picks, j);
	free(c.picks);
	a->phase_ns[KATTACH_PH_MATCH] += now_ns() - t0;
	if (err)
		return err;
	/*
	 * libbpf resolves inside its attach call: ours only serves the report;
	 * the floor's addresses are known in advance
	 */
	if (a->opts.resolver == KATTACH_RES_LIBBPF || a->opts.resolver == KATTACH_RES_FLOOR) {
		for (i = KATTACH_PH_READ; i <= KATTACH_PH_MATCH; i++) {
			a->prep_ns += a->phase_ns[i];
			a->phase_ns[i] = 0;
		}
	}
	return 0;
}

static const char *release(void)
{
	static struct utsname u;

	if (!u.release[0])
		uname(&u);
	return u.release;
}

static int attach_error(struct kattach *a, int err, size_t cnt)
{
	const char *lockdown;

	switch (-err) {
	case EPERM:
	case EACCES:
		/* name what is missing: under a unit's bounding set, it is that one */
		if (!ksym__capable(CAP_BPF) || !ksym__capable(CAP_PERFMON))
			return fail(a, err, "not permitted to load or attach BPF programs: %s%s%s "
				    "missing (needs CAP_BPF and CAP_PERFMON)",
				    ksym__capable(CAP_BPF) ? "" : "CAP_BPF",
				    !ksym__capable(CAP_BPF) && !ksym__capable(CAP_PERFMON) ? " and " : "",
				    ksym__capable(CAP_PERFMON) ? "" : "CAP_PERFMON");
		if (geteuid())
			return fail(a, err, "not permitted to attach: run as root "
					    "(needs CAP_BPF and CAP_PERFMON)");
		lockdown = ksym__lockdown();
		/* it allows kprobe.multi and kprobe.session, not classic kprobes */
		if (lockdown && !strcmp(lockdown, "confidentiality") && a->fell_back)
			return fail(a, err, "kernel lockdown=confidentiality refuses classic "
				    "kprobes (kprobe.multi it allows, where the kernel has it)");
		if (lockdown)
			return fail(a, err, "not permitted to attach, even with CAP_BPF and "
				    "CAP_PERFMON, under kernel lockdown=%s: a security policy?",
				    lockdown);
		return fail(a, err, "not permitted to attach, even with CAP_BPF and CAP_PERFMON "
				    "(kernel lockdown or a security policy?)");
	case EOPNOTSUPP:
	case 524:	/* ENOTSUPP, kernel-internal */
		return fail(a, err, "kernel %s has no kprobe.multi (Linux >= 5.18 built with "
				    "CONFIG_FPROBE has it)", release());
	case E2BIG:
		return fail(a, err, "too many targets for one link (%zu)", cnt);
	case ENOMEM:
		/* with addresses, a kprobe.multi link has been halved down to this */
		if (a->fell_back)
			return fail(a, err, "the kernel is out of memory: it refused a kprobe after "
				    "%zu were made (a memory cgroup's limit, MemoryMax=, or a node "
				    "short of memory)", a->links_made);
		return fail(a, err, "the kernel is out of memory: it refused a link of %zu "
			    "function%s after %zu link%s were made (a memory cgroup's limit, "
			    "MemoryMax=, or a node short of memory)", cnt, cnt == 1 ? "" : "s",
			    a->links_made, a->links_made == 1 ? "" : "s");
	case ESRCH:
		return fail(a, err, "the kernel found no traceable function of one of %zu names",
			    cnt);
	case EMFILE:
	case ENFILE: {
		struct rlimit rl = {};

		/* every link, program and map is a file descriptor */
		getrlimit(RLIMIT_NOFILE, &rl);
		return fail(a, err, "out of file descriptors after %zu links (%s, open files "
			    "limit %llu): raise it (ulimit -n, LimitNOFILE=)%s", a->links_made,
			    err == -EMFILE ? "this process" : "the whole system",
			    (unsigned long long)rl.rlim_cur,
			    a->fell_back ? "" : " or put more functions in a link (--batch)");
	}
	default:
		return fail(a, err, "cannot attach %s to %zu function%s: %s",
			    a->fell_back ? "a classic kprobe" : kattach__mode_name(a->opts.mode),
			    cnt, cnt == 1 ? "" : "s", strerror(-err));
	}
}

/* A program the kernel did not load; log: the verifier's last line, or empty. */
static int load_error(struct kattach *a, int err, const char *log)
{
	if ((err == -EPERM || err == -EACCES) && !log[0])
		return attach_error(a, err, a->target_cnt);
	/* libbpf's loads give up after as many tries as ours */
	if (err == -EAGAIN)
		return fail(a, err, "cannot load the BPF program: the kernel's verifier was "
			    "interrupted %d times in a row (signals)", HITPROG_LOAD_TRIES);
	if (log[0])
		return fail(a, err, "cannot load the BPF program: %s (verifier: %s)",
			    strerror(-err), log);
	return fail(a, err, "cannot load the BPF program: %s (-v shows the verifier log)",
		    strerror(-err));
}

/*
 * kprobe.session's program did not load: a kernel without its kfuncs
 * (before Linux 6.10) says so in its symbols. Asked only then, as the
 * question costs a walk of the kernel's table.
 */
static int session_missing(struct kattach *a)
{
	if (a->opts.mode != KATTACH_SESSION || kernel_symbol("bpf_session_cookie") != 0)
		return 0;
	return fail(a, EOPNOTSUPP, "kprobe.session needs Linux >= 6.10: kernel %s has none "
		    "(no bpf_session_cookie kfunc)", release());
}

static int name_cmp(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* The names of targets t[0, n), each once, sorted, into v: their count. */
static size_t unique_names(const char **v, const struct kattach_target *t, size_t n)
{
	size_t i, k;

	for (i = 0; i < n; i++)
		v[i] = t[i].name;
	qsort(v, n, sizeof(*v), name_cmp);
	for (i = k = n ? 1 : 0; i < n; i++)
		if (strcmp(v[i], v[k - 1]))
			v[k++] = v[i];
	return k;
}

/*
 * One link over targets [i, i + n), handed over as the resolver wants: its fd,
 * or a negative errno.
 */
static int attach_one(struct kattach *a, struct bpf_program *prog, size_t i, size_t n,
		      size_t *cnt)
{
	enum bpf_attach_type type = a->opts.mode == KATTACH_SESSION ? BPF_TRACE_KPROBE_SESSION
								     : BPF_TRACE_KPROBE_MULTI;
	LIBBPF_OPTS(bpf_kprobe_multi_opts, mo);
	LIBBPF_OPTS(bpf_link_create_opts, lo);
	struct bpf_link *l;
	const char *pattern;
	int fd;

	*cnt = n;
	switch (a->opts.resolver) {
	case KATTACH_RES_KSYM:
	case KATTACH_RES_FLOOR:	/* (attach_floor() links it by hand) */
		lo.kprobe_multi.addrs = a->addrs + i;
		lo.kprobe_multi.cnt = n;
		break;
	case KATTACH_RES_KERNEL:
		/* names [i, i + n) of the targets' distinct names (attach_all()) */
		lo.kprobe_multi.syms = a->names + i;
		lo.kprobe_multi.cnt = n;
		break;
	case KATTACH_RES_LIBBPF:
		mo.session = a->opts.mode == KATTACH_SESSION;
		if (a->by_name) {
			/* names: libbpf hands them to the kernel, which resolves them */
			mo.syms = a->names + i;
			mo.cnt = n;
			l = bpf_program__attach_kprobe_multi_opts(prog, NULL, &mo);
		} else {
			/* libbpf resolves a pattern itself, re-reading the kernel's list */
			pattern = a->opts.link_batch ? a->targets[i].name : a->opts.patterns[i];
			*cnt = 1;
			l = bpf_program__attach_kprobe_multi_opts(prog, pattern, &mo);
		}
		if (!l)
			return -errno;
		/* its fd kept, the wrapper gone: every link is an fd here */
		fd = bpf_link__fd(l);
		bpf_link__disconnect(l);
		bpf_link__destroy(l);
		return fd;
	}
	fd = bpf_link_create(a->prog_fd, 0, type, &lo);
	return fd < 0 ? -errno : fd;
}

static struct kattach_target *target_of(struct kattach *a, uint64_t ip);

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
		struct bpf_link_info info = {};
		__u32 len = sizeof(info);

		info.kprobe_multi.addrs = (__u64)(unsigned long)addrs;
		info.kprobe_multi.count = cap;
		if (bpf_link_get_info_by_fd(a->links[i], &info, &len) ||
		    info.type != BPF_LINK_TYPE_KPROBE_MULTI || !info.kprobe_multi.count) {
			known = false;
			break;
		}
		for (j = 0; j < info.kprobe_multi.count && j < cap; j++) {
			struct kattach_target *t = target_of(a, addrs[j]);

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

static int push_link(struct kattach *a, int fd)
{
	if (a->link_cnt == a->links_cap) {
		size_t ncap = a->links_cap ? a->links_cap * 2 : 16;
		int *n = realloc(a->links, ncap * sizeof(*n));

		if (!n) {
			close(fd);
			return -ENOMEM;
		}
		a->links = n;
		a->links_cap = ncap;
	}
	a->links[a->link_cnt++] = fd;
	a->links_made++;
	return 0;
}

static void exclude(struct kattach *a, struct kattach_target *t, int err)
{
	t->flags |= KATTACH_F_EXCLUDED;
	t->excluded_errno = err;
	a->excluded++;
}

/*
 * How the kernel refuses a link for one of its addresses that is no ftrace
 * location (a jump label's NOP at a function's start looks like one):
 * EINVAL, or ENOENT from Linux 7.x's fprobe (seen on 7.3 for `-p '*'`).
 */
static bool refuses_address(int err)
{
	return err == -EINVAL || err == -ENOENT;
}

static void exclude_name(struct kattach *a, const char *name, int err);

/* How the kernel refuses one name of a link: none of its functions is traceable to it. */
static bool refuses(const struct kattach *a, int err)
{
	return refuses_address(err) || (a->by_name && err == -ESRCH);
}

/*
 * halve__links()' ops over the targets (the kernel resolver: names [i, i + n),
 * each name once in all): the resolvers' links through attach_one(), or the
 * floor's, made by hand.
 */
struct range_ctx {
	struct kattach *a;
	struct bpf_program *prog;
	enum bpf_attach_type type;
	bool floor;
};

static int range_link(void *ctx, size_t i, size_t n, size_t *cnt)
{
	struct range_ctx *rc = ctx;
	struct kattach *a = rc->a;
	int fd;

	if (rc->floor) {
		LIBBPF_OPTS(bpf_link_create_opts, lo, .kprobe_multi.addrs = a->addrs + i,
			    .kprobe_multi.cnt = n);

		*cnt = n;
		fd = bpf_link_create(a->floor_prog, 0, rc->type, &lo);
		fd = fd < 0 ? -errno : fd;
	} else {
		fd = attach_one(a, rc->prog, i, n, cnt);
	}
	return fd < 0 ? no_multi(a, fd) : fd;
}

static int range_keep(void *ctx, int fd)
{
	struct range_ctx *rc = ctx;
	struct kattach *a = rc->a;

	if (!rc->floor)
		return push_link(a, fd);
	a->floor_links[a->floor_link_cnt++] = fd;	/* (one slot per target) */
	a->links_made++;
	return 0;
}

static bool range_refuses(void *ctx, int err)
{
	struct range_ctx *rc = ctx;

	return rc->floor ? refuses_address(err) : refuses(rc->a, err);
}

static void range_leave_out(void *ctx, size_t i, int err)
{
	struct range_ctx *rc = ctx;

	if (rc->a->by_name && !rc->floor)
		exclude_name(rc->a, rc->a->names[i], err);
	else
		exclude(rc->a, &rc->a->targets[i], err);
}

static const struct halve_ops range_ops = {
	.link = range_link,
	.keep = range_keep,
	.refuses = range_refuses,
	.leave_out = range_leave_out,
};

/*
 * Targets [i, i + n) in links halved around what the kernel refuses: a
 * resolver's that hands over addresses or names (not libbpf's globs, which
 * it resolves itself), or the floor's (prog NULL).
 */
static int attach_range(struct kattach *a, struct bpf_program *prog, size_t i, size_t n)
{
	struct range_ctx rc = {
		.a = a, .prog = prog, .floor = a->opts.resolver == KATTACH_RES_FLOOR,
		.type = a->opts.mode == KATTACH_SESSION ? BPF_TRACE_KPROBE_SESSION
							: BPF_TRACE_KPROBE_MULTI,
	};
	struct halve_opts ho = {
		.sz = sizeof(ho), .ctx = &rc, .stop = a->opts.stop,
		.no_halving = !rc.floor && a->opts.resolver != KATTACH_RES_KSYM && !a->by_name,
	};
	size_t cnt = n;
	int err = halve__links(&range_ops, &ho, i, n, &cnt);

	return err && err != -EINTR ? attach_error(a, err, cnt) : err;
}

/* The perf kprobe PMU: without it there are no kprobes to fall back on. */
static bool have_kprobes(void)
{
	return !access("/sys/bus/event_source/devices/kprobe/type", F_OK);
}

/*
 * Debian's kernels add kernel.perf_event_paranoid=3 (their default), under
 * which perf_event_open(), and so every classic kprobe, needs CAP_SYS_ADMIN:
 * CAP_PERFMON is not enough there.
 */
static bool kprobes_need_admin(void)
{
	int level = 0;
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");

	if (f) {
		if (fscanf(f, "%d", &level) != 1)
			level = 0;
		fclose(f);
	}
	return level > 2 && !ksym__capable(CAP_SYS_ADMIN);
}

/* The perf kprobe PMU's type (sysfs), or a negative errno. */
static int kprobe_pmu(void)
{
	FILE *f = fopen("/sys/bus/event_source/devices/kprobe/type", "re");
	int type = -1;

	if (!f)
		return -errno;
	if (fscanf(f, "%d", &type) != 1)
		type = -EINVAL;
	fclose(f);
	return type;
}

/*
 * Whether the kernel links a program to a perf event (BPF_PERF_EVENT, Linux
 * >= 5.15); before, the event takes the program by ioctl and its fd is the
 * link. -1: not asked yet.
 */
static int perf_links = -1;

/*
 * A classic kprobe at addr (or at name, where given) with the program linked
 * to it: the link's fd, or -errno; *at_link: the kprobe was made, the link was
 * refused (not the address's fault).
 */
static int kprobe_link(struct kattach *a, int pmu, uint64_t addr, const char *name,
		       bool *at_link)
{
	struct perf_event_attr pa = { .size = sizeof(pa), .type = pmu, .config2 = addr };
	int pfd, fd, err;

	/* by name: the kernel resolves it (kallsyms_lookup_name), offset 0 */
	if (name) {
		pa.config1 = (uint64_t)(unsigned long)name;
		pa.config2 = 0;
	}

	*at_link = false;
	/* no name, the address as the offset: as libbpf asks for a kprobe by address */
	pfd = syscall(__NR_perf_event_open, &pa, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	if (pfd < 0)
		return -errno;
	if (perf_links) {
		fd = bpf_link_create(a->prog_fd, pfd, BPF_PERF_EVENT, NULL);
		err = fd < 0 ? -errno : 0;
		/* no such attach type (asked once): the event takes the program */
		if (perf_links < 0 && err == -EINVAL && !ioctl(pfd, PERF_EVENT_IOC_SET_BPF, a->prog_fd)) {
			perf_links = 0;
			goto enable;
		}
		if (!err)
			perf_links = 1;
		*at_link = fd < 0;
		close(pfd);	/* the link holds the event */
		return fd < 0 ? err : fd;
	}
	if (ioctl(pfd, PERF_EVENT_IOC_SET_BPF, a->prog_fd))
		goto refused;
enable:
	/* the event is the link: closing it detaches the program */
	if (!ioctl(pfd, PERF_EVENT_IOC_ENABLE, 0))
		return pfd;
refused:
	err = -errno;
	*at_link = true;
	close(pfd);
	return err;
}

/* The resolvers that hand the kernel names: one classic kprobe per name. */
static bool kprobes_by_name(const struct kattach *a)
{
	return a->opts.resolver == KATTACH_RES_KERNEL || a->opts.resolver == KATTACH_RES_LIBBPF;
}

/* The targets' names, each once, sorted, in a->names: their count, or -ENOMEM. */
static ssize_t distinct_names(struct kattach *a)
{
	free(a->names);
	a->names = malloc(a->target_cnt * sizeof(*a->names));
	if (!a->names)
		return -ENOMEM;
	return unique_names(a->names, a->targets, a->target_cnt);
}

/* Every target of that name left out, as the kernel refused the name. */
static void exclude_name(struct kattach *a, const char *name, int err)
{
	size_t i;

	for (i = 0; i < a->target_cnt; i++)
		if (!strcmp(a->targets[i].name, name))
			exclude(a, &a->targets[i], err);
}

/*
 * "r0 = 0; exit", loaded by hand (no object, no BTF, no map): the floor's
 * program, for links of type (0: classic kprobes). Its fd or -errno.
 */
static int empty_prog(enum bpf_attach_type type)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, po, .expected_attach_type = type);

	return bpf_prog_load(BPF_PROG_TYPE_KPROBE, "ksa_floor", "GPL", insns, 2, &po);
}

/*
 * bpf_get_func_ip() in a classic kprobe's program came with Linux 5.15:
 * before, the counter keys on the IP the kprobe saved.
 */
static bool kprobes_have_func_ip(void)
{
	static int known = -1;	/* once a process: --compare loads every round */

	/* an error (no permission) says nothing: the load will */
	if (known < 0)
		known = libbpf_probe_bpf_helper(BPF_PROG_TYPE_KPROBE, BPF_FUNC_get_func_ip, NULL) != 0;
	return known;
}

/*
 * The program classic kprobes are linked to, for the resolver: the counter
 * (by hand), libbpf's object (its kprobe program, libbpf attaching it by
 * name), or the floor's empty program.
 */
static int load_kprobe_prog(struct kattach *a, char *log, size_t log_len)
{
	bool func_ip = kprobes_have_func_ip();
	int err;

	/* a kprobe.multi program cannot serve: loaded again, for kprobes */
	hitprog__close(&a->hp);
	ksymattach_bpf__destroy(a->skel);
	a->skel = NULL;
	if (a->floor_prog >= 0)
		close(a->floor_prog);
	a->floor_prog = a->prog_fd = -1;
	switch (a->opts.resolver) {
	case KATTACH_RES_FLOOR:
		a->floor_prog = empty_prog(0);
		if (a->floor_prog < 0)
			return a->floor_prog;
		a->prog_fd = a->floor_prog;
		return 0;
	case KATTACH_RES_LIBBPF:
		a->skel = ksymattach_bpf__open();
		if (!a->skel)
			return -errno;
		a->skel->rodata->self_tgid = getpid();
		bpf_map__set_max_entries(a->skel->maps.stats, a->target_cnt + 16);
		a->kprobe_prog = func_ip ? a->skel->progs.ksa_kprobe : a->skel->progs.ksa_kprobe_regs;
		bpf_program__set_autoload(a->skel->progs.ksa_multi, false);
		bpf_program__set_autoload(func_ip ? a->skel->progs.ksa_kprobe_regs
						  : a->skel->progs.ksa_kprobe, false);
		err = ksymattach_bpf__load(a->skel);
		if (!err)
			a->prog_fd = bpf_program__fd(a->kprobe_prog);
		return err;
	default:
		err = hitprog__load(&a->hp, 0, func_ip ? HITPROG_KEY_FUNC_IP : HITPROG_KEY_REGS,
				    a->target_cnt + 16, getpid(), log, log_len);
		a->prog_fd = a->hp.prog_fd;
		return err;
	}
}

/* libbpf's classic kprobe on name, kept as libbpf's link: 0 or -errno. */
static int libbpf_kprobe(struct kattach *a, const char *name)
{
	LIBBPF_OPTS(bpf_kprobe_opts, ko);
	struct bpf_link *l;

	if (a->blink_cnt == a->target_cnt)
		return -E2BIG;
	l = bpf_program__attach_kprobe_opts(a->kprobe_prog, name, &ko);
	if (!l)
		return -errno;
	a->blinks[a->blink_cnt++] = l;
	a->links_made++;
	return 0;
}

/* By address, kprobes may not go to the kprobe blacklist's functions: left out. */
static int blacklist(struct kattach *a)
{
	uint64_t t0 = now_ns();
	size_t i;
	int err;

	if (kprobes_by_name(a) || !a->db)
		return 0;
	err = ksym_db__load_more(a->db, KSYM_DB_BLACKLIST);
	a->phase_ns[KATTACH_PH_READ] += now_ns() - t0;
	if (err)
		return fail(a, err, "%s", ksym_db__errmsg(a->db));
	for (i = 0; i < a->target_cnt; i++)
		if (ksym_db__blacklisted(a->db, a->targets[i].addr))
			a->targets[i].flags |= KSYM_F_BLACKLISTED;
	return 0;
}

/*
 * want file descriptors: the soft limit raised towards the hard one, as a
 * shell's or a unit's 1024 is below a few hundred classic kprobes (libbpf's
 * cost two each). Past the hard limit the EMFILE line says which to raise.
 */
static void more_fds(size_t want)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur >= want)
		return;
	rl.rlim_cur = rl.rlim_max != RLIM_INFINITY && rl.rlim_max < want ? rl.rlim_max : want;
	setrlimit(RLIMIT_NOFILE, &rl);
}

/*
 * One classic kprobe per function through the perf kprobe PMU: by address,
 * or, for the resolvers that hand over names, one per name, which the kernel
 * resolves (libbpf's own call for the libbpf resolver).
 */
static int attach_kprobes(struct kattach *a)
{
	bool by_name = kprobes_by_name(a), at_link;
	char log[256] = "";
	uint64_t t0 = now_ns();
	ssize_t n = a->target_cnt;
	int err, pmu, fd;
	size_t i;

	if (!have_kprobes())
		return fail(a, EOPNOTSUPP, "kernel %s has no kprobes (no perf kprobe PMU: "
					   "CONFIG_KPROBES off?)", release());
	if (a->target_cnt > KATTACH_KPROBE_MAX)
		return fail(a, E2BIG, "%zu functions exceed the classic-kprobe fallback's cap of %d: "
				      "narrow the patterns", a->target_cnt, KATTACH_KPROBE_MAX);
	pmu = kprobe_pmu();
	if (pmu < 0)
		return fail(a, pmu, "cannot read the perf kprobe PMU's type: %s", strerror(-pmu));
	err = load_kprobe_prog(a, log, sizeof(log));
	a->phase_ns[KATTACH_PH_LOAD] += now_ns() - t0;
	if (err)
		return load_error(a, err, log);
	a->fell_back = true;
	err = blacklist(a);
	if (err)
		return err;
	t0 = now_ns();
	if (by_name && (n = distinct_names(a)) < 0)
		return fail(a, ENOMEM, "out of memory");
	more_fds(16 + (a->opts.resolver == KATTACH_RES_LIBBPF ? 2 : 1) * (size_t)n);
	if (a->opts.resolver == KATTACH_RES_LIBBPF && !a->blinks &&
	    !(a->blinks = calloc(a->target_cnt, sizeof(*a->blinks))))
		return fail(a, ENOMEM, "out of memory");
	for (i = 0; i < (size_t)n && !err; i++) {
		/* by name, i counts names: the target's address is not used */
		const char *name = by_name ? a->names[i] : NULL;

		if (a->opts.stop && *a->opts.stop) {
			err = -EINTR;
			break;
		}
		/* kprobes may not go there at all */
		if (!by_name && a->targets[i].flags & KSYM_F_BLACKLISTED) {
			exclude(a, &a->targets[i], EPERM);
			continue;
		}
		if (a->opts.resolver == KATTACH_RES_LIBBPF) {
			/* libbpf does not say which call refused: taken as the name's */
			fd = libbpf_kprobe(a, name);
			at_link = false;
		} else {
			fd = kprobe_link(a, pmu, a->targets[i].addr, name, &at_link);
		}
		/* by name, a name several functions have is refused (EADDRNOTAVAIL) */
		if (!at_link && (fd == -EINVAL || fd == -EILSEQ || fd == -ENOENT ||
				 (by_name && fd == -EADDRNOTAVAIL))) {
			if (by_name)
				exclude_name(a, name, -fd);
			else
				exclude(a, &a->targets[i], -fd);
			continue;
		}
		if ((fd == -EACCES || fd == -EPERM) && kprobes_need_admin())
			err = fail(a, -fd, "classic kprobes refused: kernel.perf_event_paranoid=3 "
				   "(a Debian kernel's) allows perf_event_open only with CAP_SYS_ADMIN, "
				   "which is missing");
		else if (a->opts.resolver == KATTACH_RES_LIBBPF)
			err = fd < 0 ? attach_error(a, fd, 1) : 0;
		else
			err = fd >= 0 ? push_link(a, fd) : attach_error(a, fd, 1);
	}
	a->phase_ns[KATTACH_PH_ATTACH] += now_ns() - t0;
	if (err == -EINTR)
		return fail(a, EINTR, "interrupted while attaching");
	if (err == -ENOMEM && !a->err[0])
		return fail(a, ENOMEM, "out of memory");
	if (!err && a->excluded == a->target_cnt)
		err = fail(a, EINVAL, "the kernel refused every one of %zu kprobe%s", (size_t)n,
			   n == 1 ? "" : "s");
	/* by name, one kprobe a name, whichever function the kernel took */
	if (!err)
		a->attached = by_name ? a->link_cnt + a->blink_cnt : a->target_cnt - a->excluded;
	return err;
}

static void warn(const struct kattach *a, const char *fmt, ...)
{
	char msg[320];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (a->opts.sources && a->opts.sources->warn)
		a->opts.sources->warn(msg);
	else
		fprintf(stderr, "warning: %s\n", msg);
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
			 refuses_address(-a->targets[i].excluded_errno);
	if (!again || a->opts.resolver != KATTACH_RES_KSYM ||
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
		    !refuses_address(-t->excluded_errno))
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
		t->flags &= ~KATTACH_F_EXCLUDED;
		a->excluded--;
		moved++;
		err = attach_range(a, prog, i, 1);
	}
	/* in address order again: hits and confirmations find a target by its address */
	if (moved) {
		qsort(a->targets, a->target_cnt, sizeof(*a->targets), addr_cmp);
		for (i = 0; i < a->target_cnt; i++)
			a->addrs[i] = a->targets[i].addr;
	}
	/* the targets' names point into the first tables: both stay until free */
	a->db2 = db;
	return err;
}

/* The kernel's link limit is 1 << 20 targets (MAX_KPROBE_MULTI_CNT). */
#define MULTI_MAX (1u << 20)

/*
 * The floor: "r0 = 0; exit" loaded by hand, then links by address, in the
 * layout asked for. What is left of a stall with nothing to resolve and
 * nothing to prepare.
 */
static int attach_floor(struct kattach *a)
{
	enum bpf_attach_type type = a->opts.mode == KATTACH_SESSION ? BPF_TRACE_KPROBE_SESSION
								     : BPF_TRACE_KPROBE_MULTI;
	size_t i, step = a->opts.link_batch ? a->opts.link_batch : a->target_cnt;
	uint64_t t0 = now_ns();
	int err = 0;

	if (step > MULTI_MAX)
		step = MULTI_MAX;
	a->floor_prog = empty_prog(type);
	a->phase_ns[KATTACH_PH_LOAD] += now_ns() - t0;
	if (a->floor_prog < 0)
		return attach_error(a, a->floor_prog, a->target_cnt);
	a->addrs = malloc(a->target_cnt * sizeof(*a->addrs));
	/* a refused address halves its link: at most one link per target */
	a->floor_links = calloc(a->target_cnt, sizeof(*a->floor_links));
	if (!a->addrs || !a->floor_links)
		return fail(a, ENOMEM, "out of memory");
	for (i = 0; i < a->target_cnt; i++)
		a->addrs[i] = a->targets[i].addr;
	t0 = now_ns();
	for (i = 0; i < a->target_cnt && !err; i += step)
		err = attach_range(a, NULL, i, a->target_cnt - i < step ? a->target_cnt - i : step);
	a->phase_ns[KATTACH_PH_ATTACH] += now_ns() - t0;
	if (err == -EINTR)
		return fail(a, EINTR, "interrupted while attaching");
	if (!err)
		a->attached = a->target_cnt - a->excluded;
	return err;
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
	} else if (a->opts.resolver == KATTACH_RES_LIBBPF) {
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
	       a->sskel ? bpf_map__fd(a->sskel->maps.stats) :
	       a->skel ? bpf_map__fd(a->skel->maps.stats) : -1;
}

/*
 * kprobe.multi at all. A link of more functions than one may hold is E2BIG
 * where the kernel has it (EFAULT where it tries to read them all first), and
 * is refused before any is read; EOPNOTSUPP where the kernel was built
 * without CONFIG_FPROBE, EINVAL where it does not know the attach type
 * (before Linux 5.18). Asked before libbpf is given a pattern, which it
 * resolves in full before the kernel can say no, and where a first link
 * fails as a whole.
 */
static bool kernel_has_multi(void)
{
	static const unsigned long addr;
	LIBBPF_OPTS(bpf_link_create_opts, lo, .kprobe_multi.addrs = &addr,
		    .kprobe_multi.cnt = MULTI_MAX + 1);
	static int known = -1;	/* once a process: --compare asks every round */
	int prog, fd;

	if (known < 0) {
		prog = empty_prog(BPF_TRACE_KPROBE_MULTI);
		if (prog < 0)
			return true;	/* cannot tell: the attach says */
		fd = bpf_link_create(prog, 0, BPF_TRACE_KPROBE_MULTI, &lo);
		known = fd >= 0 || errno == E2BIG || errno == EFAULT;
		if (fd >= 0)
			close(fd);
		close(prog);
	}
	return known;
}

/*
 * A first link refused as a whole with EINVAL, as a refused address makes
 * it: on a kernel without the attach type, that is no kprobe.multi at all.
 */
static int no_multi(struct kattach *a, int err)
{
	return err == -EINVAL && !a->links_made && !kernel_has_multi() ? -EOPNOTSUPP : err;
}

/* The kernel has no kprobe.multi (EOPNOTSUPP: no CONFIG_FPROBE), nothing is attached yet. */
static bool can_fall_back(const struct kattach *a, int err, size_t links)
{
	return (err == -EOPNOTSUPP || err == -524) && a->opts.mode == KATTACH_MULTI &&
	       a->opts.fallback == KATTACH_FALLBACK_AUTO && !links && have_kprobes();
}

static int fall_back(struct kattach *a)
{
	/* once a process: --compare and the daemon attach again and again */
	static bool warned;

	/* over the cap: attach_kprobes() says so, with no warning before it */
	if (!warned && a->target_cnt <= KATTACH_KPROBE_MAX) {
		warn(a, "kernel %s has no kprobe.multi; attaching classic kprobes to %zu "
			"function%s instead (--no-fallback refuses)", release(), a->target_cnt,
			a->target_cnt == 1 ? "" : "s");
		warned = true;
	}
	a->err[0] = '\0';
	return attach_kprobes(a);
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
	struct bpf_program *prog = NULL;
	size_t i, step, units;
	ssize_t total;
	uint64_t t0 = now_ns();
	char log[256] = "";
	int err;

	if (!a->target_cnt)
		return a->opts.allow_empty ? 0 : fail(a, EINVAL, "nothing to attach");
	if (!kernel_can_probe())
		return no_probes(a);
	err = no_bpf(a);
	if (err)
		return err;
	if (a->opts.resolver == KATTACH_RES_LIBBPF && a->opts.link_batch > 1)
		return fail(a, EINVAL, "libbpf takes one pattern per link: --batch does not apply");
	if (a->opts.fallback == KATTACH_FALLBACK_KPROBE) {
		if (a->opts.mode == KATTACH_SESSION)
			return fail(a, EINVAL, "classic kprobes have no kprobe.session");
		return attach_kprobes(a);
	}
	if (a->opts.resolver == KATTACH_RES_FLOOR) {
		err = attach_floor(a);
		return can_fall_back(a, err, a->floor_link_cnt) ? fall_back(a) : err;
	}
	if (a->opts.resolver == KATTACH_RES_LIBBPF && can_fall_back(a, -EOPNOTSUPP, 0) &&
	    !kernel_has_multi())
		return fall_back(a);
	/* (that question was ours, not libbpf's: not in its load) */
	t0 = now_ns();
	err = load_object(a, &prog, log, sizeof(log));
	a->phase_ns[KATTACH_PH_LOAD] += now_ns() - t0;
	/* a kernel without kprobe.multi may refuse the program before any link */
	if (err && a->opts.mode == KATTACH_MULTI && !kernel_has_multi()) {
		if (can_fall_back(a, -EOPNOTSUPP, 0))
			return fall_back(a);
		return attach_error(a, -EOPNOTSUPP, a->target_cnt);
	}
	if (err)
		return session_missing(a) ?: load_error(a, err, log);

	a->addrs = malloc(a->target_cnt * sizeof(*a->addrs));
	if (!a->addrs)
		return fail(a, ENOMEM, "out of memory");
	for (i = 0; i < a->target_cnt; i++)
		a->addrs[i] = a->targets[i].addr;
	/*
	 * The kernel takes each name once, and only its first traceable instance:
	 * links of names are over the distinct names, so that halving a link, or
	 * a link per name, never hands it a name twice.
	 */
	a->by_name = a->opts.resolver == KATTACH_RES_KERNEL ||
		     (a->opts.resolver == KATTACH_RES_LIBBPF && plain_names(a));
	total = a->by_name ? distinct_names(a) : (ssize_t)a->target_cnt;
	if (total < 0)
		return fail(a, ENOMEM, "out of memory");
	/* link units: libbpf's one-link layout is one link per glob */
	step = a->opts.link_batch ? a->opts.link_batch : (size_t)total;
	if (step > MULTI_MAX)
		step = MULTI_MAX;
	units = a->opts.resolver == KATTACH_RES_LIBBPF && !a->by_name && !a->opts.link_batch
			? a->opts.pattern_cnt : ((size_t)total + step - 1) / step;

	t0 = now_ns();
	for (i = 0; i < units && !err; i++) {
		bool per_pattern = a->opts.resolver == KATTACH_RES_LIBBPF && !a->by_name &&
				   !a->opts.link_batch;
		size_t first = per_pattern ? i : i * step;
		size_t n = per_pattern ? 1 : (size_t)total - first < step ? (size_t)total - first : step;

		err = attach_range(a, prog, first, n);
	}
	a->phase_ns[KATTACH_PH_ATTACH] += now_ns() - t0;
	if (can_fall_back(a, err, a->link_cnt))
		return fall_back(a);
	if (!err)
		err = reresolve(a, prog);
	if (err == -EINTR)
		return fail(a, EINTR, "interrupted while attaching");
	if (err)
		return err;
	if (a->excluded == a->target_cnt)
		return fail(a, EINVAL, "the kernel refused all %zu functions", a->target_cnt);
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
		return fail(a, EINVAL, "not attached");
	if (ncpu < 0)
		return fail(a, ncpu, "cannot count CPUs");
	if (!a->stats)
		a->stats = malloc((a->target_cnt ? a->target_cnt : 1) * sizeof(*a->stats));
	vals = calloc(ncpu, sizeof(*vals));
	if (!vals || !a->stats) {
		free(vals);
		return fail(a, ENOMEM, "out of memory");
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
		t = target_of(a, key);
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
	return err == -ENOENT ? 0 : fail(a, err, "cannot read counters: %s", strerror(-err));
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
	if (!a->link_cnt && !a->skel && !a->sskel && a->hp.map_fd < 0) {
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
	hitprog__close(&a->hp);
	a->skel = NULL;
	a->sskel = NULL;
	a->prog_fd = -1;
	a->phase_ns[KATTACH_PH_DETACH] += now_ns() - t0;
	return 0;
}
