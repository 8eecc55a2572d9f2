// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * kattach__resolve(): the patterns' traceable functions from the lookup
 * layer, each at its ftrace site, as the engine's targets in address order.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <ksym/ksym.h>

#include "engine.h"
#include "clock.h"
#include "kernel.h"

/* The traceable functions, with addresses, from the lookup layer. */
static int load_funcs(struct kattach *a)
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
	a->db = ksym_db__new(&dbo);
	if (!a->db)
		return ka_fail(a, ENOMEM, "out of memory");
	err = ksym_db__load(a->db);
	/* read, parse, index: the same phases here */
	for (ph = 0; ph <= KSYM_PH_INDEX; ph++)
		a->phase_ns[ph] += ksym_db__phase_ns(a->db, ph);
	if (err)
		return ka_fail(a, err, "%s", ksym_db__errmsg(a->db));
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
	uint64_t entry;
	const char *name;
	const char *module;
	unsigned int flags;
	/* tracing_multi: its BTF id, or why a link leaves it out (NULL: in) */
	uint32_t btf_id;
	const char *btf_why;
};

struct collect_ctx {
	struct kattach *a;
	struct pick *picks;
	size_t cnt, cap;
	/* per pattern: the picks it made, the matches excludes or skip_addrs left out */
	size_t *picked, *left_out;
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

/* A match kept as a target, its last pick; NULL: left out, or out of memory (*err). */
static struct pick *pick(struct collect_ctx *c, const struct ksym_site *s, int *err)
{
	const struct ksym *sym = &s->sym;
	struct kattach *a = c->a;

	*err = 0;
	/* matched, but no target: it does not count as a match either */
	if (excluded_by_glob(a, sym)) {
		c->left_out[s->pattern]++;
		return NULL;
	}
	/* a kallsyms candidate without a call site is no function the kernel can trace */
	if (!s->site)
		return NULL;
	if (skipped_addr(a, s->loc)) {
		c->left_out[s->pattern]++;
		return NULL;
	}
	if (c->cnt == c->cap) {
		size_t ncap = c->cap ? c->cap * 2 : 256;
		struct pick *n = realloc(c->picks, ncap * sizeof(*n));

		if (!n) {
			*err = -ENOMEM;
			return NULL;
		}
		c->picks = n;
		c->cap = ncap;
	}
	c->picks[c->cnt++] = (struct pick){
		.addr = s->loc, .entry = s->entry, .name = sym->name, .module = sym->module,
		.flags = (sym->flags & KSYM_F_AMBIGUOUS) | (s->site > 0 ? KSYM_F_TRACEABLE : 0) |
			 (ksym_db__blacklisted(a->db, sym->addr) ? KSYM_F_BLACKLISTED : 0),
	};
	c->picked[s->pattern]++;
	return &c->picks[c->cnt - 1];
}

static int add_target(const struct ksym_site *s, void *ctx)
{
	int err;

	pick(ctx, s, &err);
	return err;
}

/* tracing_multi: the same, with each function's BTF id and verdict, from one walk */
static int add_btf_target(const struct ksym_btf_func *f, void *ctx)
{
	int err;
	struct pick *p = pick(ctx, &f->site, &err);

	if (!p)
		return err;
	p->btf_id = f->id;
	/* (SAME: another match of the same function is in the link) */
	p->btf_why = f->verdict == KSYM_BTF_OK || f->verdict == KSYM_BTF_SAME ? NULL : f->why;
	if (f->verdict == KSYM_BTF_OTHER || f->verdict == KSYM_BTF_AMBIGUOUS)
		p->flags |= KATTACH_F_BTF_OTHER;
	return 0;
}

/* By address: the first member of a pick and of a target alike. */
int ka_addr_cmp(const void *x, const void *y)
{
	const uint64_t *a = x, *b = y;

	return *a < *b ? -1 : *a > *b;
}
_Static_assert(offsetof(struct pick, addr) == 0 && offsetof(struct kattach_target, addr) == 0,
	       "ka_addr_cmp() sorts by the first member");

static bool live_sources(const struct kattach *a)
{
	const struct ksym_db_opts *s = a->opts.sources;

	return !s || !(s->kallsyms_path || s->system_map_path || s->vmlinux_path ||
		       s->funcs_path || s->funcs_addrs_path);
}

/*
 * Every pattern's traceable functions into c->picks. The library deals with a
 * build cache found wrong: FUNCS may be another table afterwards.
 */
static int collect(struct kattach *a, struct collect_ctx *c)
{
	const char *msg;
	size_t i, n = a->opts.pattern_cnt;
	int err;

	c->picked = calloc(n, sizeof(*c->picked));
	c->left_out = calloc(n, sizeof(*c->left_out));
	if (!c->picked || !c->left_out)
		return ka_fail(a, ENOMEM, "out of memory");
	if (kattach__mode_is_tracing(a->opts.mode))
		err = ksym_db__each_btf(a->db, a->opts.mode == KATTACH_FENTRY ? 0 : KSYM_BTF_RETURN,
					add_btf_target, c);
	else
		err = ksym_db__each_match(a->db, add_target, c);
	a->funcs = ksym_db__funcs(a->db);
	a->source = ksym_db__funcs_source(a->db);
	msg = ksym_db__errmsg(a->db);
	if (err && !a->err[0])
		return ka_fail(a, err, "%s", msg[0] ? msg : strerror(-err));
	for (i = 0; i < n && !err; i++) {
		if (c->picked[i] || a->opts.allow_empty)
			continue;
		err = c->left_out[i]
			? ka_fail(a, ENOENT, "every function '%s' matches is excluded",
				  a->opts.patterns[i])
			: ka_fail(a, ENOENT, "no traceable function matches '%s' (in %s)",
				  a->opts.patterns[i], kattach__source(a));
	}
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
		return ka_fail(a, ENOMEM, "out of memory");
	for (i = 0; i < n; i++) {
		a->targets[i].addr = p[i].addr;
		a->targets[i].entry = p[i].entry;
		a->targets[i].name = p[i].name;
		a->targets[i].module = p[i].module;
		a->targets[i].flags = p[i].flags;
		a->targets[i].btf_id = p[i].btf_id;
		a->targets[i].why = p[i].btf_why;
	}
	a->target_cnt = n;
	return 0;
}

int kattach__resolve(struct kattach *a)
{
	struct collect_ctx c = { .a = a };
	uint64_t t0, loaded[KSYM_PH_INDEX + 1];
	size_t i, j;
	int err = 0, ph;

	if (!a->opts.pattern_cnt)
		return ka_fail(a, EINVAL, "no pattern given (-p GLOB)");
	/* the live kernel's files would fail for want of what it lacks: say that */
	if (!a->opts.list_only && live_sources(a) && kattach__mode_is_tracing(a->opts.mode) &&
	    (err = ka_no_tracing_multi(a)))
		return err;
	if (!a->opts.list_only && live_sources(a) && !kattach__mode_is_tracing(a->opts.mode) &&
	    !kernel_can_probe())
		return ka_no_probes(a);
	if (!a->opts.list_only && live_sources(a) && (err = ka_no_bpf(a)))
		return err;
	err = load_funcs(a);
	if (err)
		return err;

	/* a load again, cold, inside the walk is the load's time, not the match's */
	for (ph = 0; ph <= KSYM_PH_INDEX; ph++)
		loaded[ph] = ksym_db__phase_ns(a->db, ph);
	t0 = now_ns();
	err = collect(a, &c);
	for (ph = 0; ph <= KSYM_PH_INDEX; ph++) {
		uint64_t again = ksym_db__phase_ns(a->db, ph) - loaded[ph];

		a->phase_ns[ph] += again;
		t0 += again;
	}
	free(c.picked);
	free(c.left_out);
	if (err) {
		free(c.picks);
		a->phase_ns[KATTACH_PH_MATCH] += now_ns() - t0;
		return err;
	}
	/* One target per address: overlapping patterns and aliases collapse. */
	if (c.cnt > 1)	/* (none: picks may be NULL) */
		qsort(c.picks, c.cnt, sizeof(*c.picks), ka_addr_cmp);
	for (i = j = 0; i < c.cnt; i++) {
		if (!j || c.picks[j - 1].addr != c.picks[i].addr)
			c.picks[j++] = c.picks[i];
		/* a function of two names is in a tracing_multi link by either's id */
		else if (c.picks[j - 1].btf_why && !c.picks[i].btf_why)
			c.picks[j - 1] = c.picks[i];
	}
	err = targets_from(a, c.picks, j);
	free(c.picks);
	a->phase_ns[KATTACH_PH_MATCH] += now_ns() - t0;
	if (err)
		return err;
	/*
	 * libbpf resolves inside its attach call: ours only serves the report;
	 * the floor's addresses are known in advance
	 */
	if (ka_resolver(a)->prep_outside) {
		for (i = KATTACH_PH_READ; i <= KATTACH_PH_MATCH; i++) {
			a->prep_ns += a->phase_ns[i];
			a->phase_ns[i] = 0;
		}
	}
	return 0;
}
