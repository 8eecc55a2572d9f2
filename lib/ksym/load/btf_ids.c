// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * What the patterns match, as tracing_multi links take it: each traceable
 * function's BTF FUNC id in its object (vmlinux, or its module), and why one
 * is left out. Such a link is refused whole for one function the kernel
 * cannot attach, and the kernel finds each function again by the id's name
 * (kallsyms_lookup_name(), or the module's own symbols), so a name kallsyms
 * holds twice must find the very function the pattern matched. The answers
 * go by the walk of ksym_db__each_match(); the BTF indexes are the btf
 * part's, read once per db.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ksym_db.h"
#include "ksym_bfuncs.h"
#include "ksym_btfcache.h"

#define BTF_DIR "/sys/kernel/btf"

struct btf_obj {
	char name[64];			/* "" for vmlinux */
	struct ksym_bfuncs *f;
	int err;			/* why it could not be read (-ENOENT: no such object) */
};

struct ksym_db_btf {
	struct btf_obj *v;		/* v[0] is vmlinux */
	size_t n, cap;
	struct ksym_table *names;	/* kallsyms' text, as far as the patterns go (names_table()) */
};

void ksym_db_btf_free(struct ksym_db_btf *b)
{
	size_t i;

	if (!b)
		return;
	/* modules first: their indexes read vmlinux's */
	for (i = b->n; i-- > 0;)
		ksym_bfuncs__free(b->v[i].f);
	free(b->v);
	ksym_table__free(b->names);
	free(b);
}

/*
 * Where a trampoline must not go whatever its prototype: the kernel's own
 * deny list (btf_id_deny, kernel/bpf/verifier.c) and what its selftests keep
 * away from for recursion (is_unsafe_function(), selftests/bpf/trace_helpers.c):
 * on Debian's 7.3.4 a tracing_multi link over rcu_read_unlock_special()
 * overflowed the kernel stack.
 */
static const char *const unsafe_prefixes[] = { "rcu_", "__ftrace_invalid_address__" };
static const char *const unsafe_names[] = {
	"arch_cpu_idle", "default_idle", "bpf_dispatcher_xdp_func", "migrate_disable",
	"migrate_enable", "___migrate_enable", "rcu_read_unlock_strict", "preempt_count_add",
	"preempt_count_sub", "__rcu_read_lock", "__rcu_read_unlock", "bpf_get_numa_node_id",
};
/*
 * the kernel's noreturn_deny, in its kernels' versions (kthread_exit is in
 * some): no fexit or fsession, which would wait for a return
 */
static const char *const noreturn_names[] = {
	"__ia32_sys_exit", "__ia32_sys_exit_group", "__kunit_abort", "kunit_try_catch_throw",
	"__module_put_and_kthread_exit", "__x64_sys_exit", "__x64_sys_exit_group", "do_exit",
	"do_group_exit", "kthread_complete_and_exit", "kthread_exit", "make_task_dead",
};

static bool in_list(const char *name, const char *const *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(name, v[i]))
			return true;
	return false;
}

static bool unsafe(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(unsafe_prefixes) / sizeof(*unsafe_prefixes); i++)
		if (!strncmp(name, unsafe_prefixes[i], strlen(unsafe_prefixes[i])))
			return true;
	return in_list(name, unsafe_names, sizeof(unsafe_names) / sizeof(*unsafe_names));
}

/* The object a function is in, its BTF read at its first use; NULL: out of memory. */
static struct btf_obj *object(struct ksym_db *db, const char *module)
{
	const char *dir = db->opts.btf_dir ? db->opts.btf_dir : BTF_DIR;
	struct ksym_db_btf *b = db->btf;
	char path[4096];
	struct btf_obj *o;
	size_t i;

	if (!module)
		module = "";
	if (!b) {
		b = db->btf = calloc(1, sizeof(*b));
		if (!b)
			return NULL;
	}
	for (i = 0; i < b->n; i++)
		if (!strcmp(b->v[i].name, module))
			return &b->v[i];
	if (*module && (!b->n || b->v[0].name[0])) {
		/* vmlinux first: a module's split BTF reads its types */
		o = object(db, NULL);
		if (!o)
			return NULL;
	}
	if (strlen(module) >= sizeof(o->name))
		return NULL;
	if (b->n == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 8;
		struct btf_obj *v = realloc(b->v, cap * sizeof(*v));

		if (!v)
			return NULL;
		b->v = v;
		b->cap = cap;
	}
	o = &b->v[b->n++];
	memset(o, 0, sizeof(*o));
	strcpy(o->name, module);
	snprintf(path, sizeof(path), "%s/%s", dir, *module ? module : "vmlinux");
	if (*module && !b->v[0].f) {
		o->err = b->v[0].err;
		return o;
	}
	o->f = ksym_bfuncs__load(path, *module ? b->v[0].f : NULL);
	if (!o->f)
		o->err = -errno;
	return o;
}

/*
 * Which function the kernel finds by this name in the function's object:
 * vmlinux's kallsyms_lookup_name() takes the first of its names, in address
 * order; a module's lookup walks its own symbols, whose order is not the
 * table's, so a name a module holds twice is left out.
 */
static enum ksym_btf_verdict kernel_finds(const struct ksym_table *names,
					  struct ksym_btf_func *bf)
{
	const struct ksym_site *s = &bf->site;
	const char *mod = s->sym.module ? s->sym.module : "";
	struct ksym hits[4], at;
	uint64_t fn = s->entry;
	int n;

	n = ksym_table__find(names, s->sym.name, mod, hits, 4);
	bf->kallsyms_cnt = n > 0 ? n : 0;
	if (n <= 0)
		return KSYM_BTF_OTHER;
	if (n == 1 && !*mod)
		return KSYM_BTF_OK;
	if (*mod && n > 1)
		return KSYM_BTF_AMBIGUOUS;
	/* the function the site is in, where the source named only its site */
	if (!fn) {
		if (ksym_table__addr(names, s->loc, &at))
			return KSYM_BTF_OTHER;
		fn = at.addr;
	}
	return hits[0].addr == fn ? KSYM_BTF_OK : KSYM_BTF_OTHER;
}

static const char *const verdict_words[KSYM_BTF_VERDICT_CNT] = {
	[KSYM_BTF_OK] = "attachable by its BTF id",
	[KSYM_BTF_PROTO] = "a trampoline cannot take its prototype",
	[KSYM_BTF_NO_SITE] = "no ftrace site",
	[KSYM_BTF_NO_BTF] = "no BTF function of its name",
	[KSYM_BTF_TWICE] = "BTF holds two functions of its name",
	[KSYM_BTF_UNSAFE] = "a trampoline on it recurses or the kernel denies it",
	[KSYM_BTF_NORETURN] = "it never returns",
	[KSYM_BTF_OTHER] = "the kernel's lookup of its name finds another function",
	[KSYM_BTF_AMBIGUOUS] = "its module holds its name twice",
	[KSYM_BTF_SAME] = "its BTF id is in the link already",
	[KSYM_BTF_NO_OBJECT] = "its module has no BTF",
};

/*
 * A table with every symbol of each matched name: FUNCS, where they are
 * kallsyms' text symbols read now (as far as the patterns go, so every
 * symbol of a name matched, traceable or not), kallsyms where the load has
 * it, else kallsyms' text read now as far as the patterns go (the kernel's
 * table in memory first, as the sources read it). (A data symbol of a
 * function's name would sort above its text in kallsyms_lookup_name()'s
 * order: text symbols alone answer it.)
 */
static int names_table(struct ksym_db *db, const struct ksym_table **t)
{
	const struct ksym_db_opts *o = &db->opts;
	int err;

	if (db->tier == KSYM_TIER_LIVE &&
	    (db->origin == KSYM_ORIG_KCORE || db->origin == KSYM_ORIG_UNKNOWN)) {
		*t = db->funcs;
		return 0;
	}
	if (!db->kallsyms && !o->system_map_path && !o->vmlinux_path) {
		if (!db->btf->names) {
			err = ksym_rd_file_filtered(&db->rd, KSYM_FMT_KALLSYMS,
						    ksym_opts_kallsyms_path(o), true, true,
						    db->filter_err ? NULL : &db->filter,
						    &db->btf->names);
			if (err)
				return err;
		}
		*t = db->btf->names;
		return 0;
	}
	err = db->kallsyms ? 0 : ksym_db__load_more(db, KSYM_DB_KALLSYMS);
	*t = db->kallsyms;
	return err;
}

static void judge(struct ksym_db *db, const struct ksym_table *names, unsigned int flags,
		  struct ksym_btf_func *bf, uint32_t *proto)
{
	const char *name = bf->site.sym.name;
	struct btf_obj *o;
	enum ksym_bproto p;
	size_t n;

	bf->verdict = KSYM_BTF_NO_SITE;
	if (bf->site.site == -ENODATA) {
		bf->why = "its traceability is unknown (no list of ftrace's sites was read)";
		return;
	}
	if (bf->site.site <= 0)
		goto out;
	o = object(db, bf->site.sym.module);
	bf->verdict = KSYM_BTF_NO_OBJECT;
	if (!o || !o->f)
		goto out;
	bf->verdict = KSYM_BTF_NO_BTF;
	n = ksym_bfuncs__find(o->f, name, &bf->id);
	if (!n)
		goto out;
	/* static functions of one name and two prototypes: which one is this? */
	bf->verdict = KSYM_BTF_TWICE;
	if (n > 1)
		goto out;
	p = ksym_bfuncs__proto(o->f, bf->id, flags & KSYM_BTF_RETURN);
	*proto = p;
	bf->verdict = KSYM_BTF_PROTO;
	if (p != KSYM_BPROTO_OK) {
		bf->why = ksym_bproto__str(p);
		return;
	}
	bf->verdict = KSYM_BTF_UNSAFE;
	if (unsafe(name))
		goto out;
	bf->verdict = KSYM_BTF_NORETURN;
	if (flags & KSYM_BTF_RETURN &&
	    in_list(name, noreturn_names, sizeof(noreturn_names) / sizeof(*noreturn_names)))
		goto out;
	bf->verdict = kernel_finds(names, bf);
out:
	bf->why = verdict_words[bf->verdict];
}

struct bwalk {
	struct ksym_db *db;
	const struct ksym_table *names;	/* kallsyms' symbols of the matched names */
	unsigned int flags;
	struct ksym_btf_func *v;
	struct ksym_btf_rec *recs;	/* v's answers as /run keeps them */
	size_t n, cap;
	/* this boot's answers for these patterns (/run), sorted by site; NULL: none */
	struct ksym_btf_rec *kept;
	size_t kept_n;
	bool missed;			/* a match they do not answer: judged, and kept anew */
	bool from_build;		/* they are the build cache's: /run has none yet */
};

/* The answer /run keeps for a match at loc, if it is a whole one. */
static const struct ksym_btf_rec *kept_answer(const struct bwalk *w, uint64_t loc)
{
	struct ksym_btf_rec key = { .loc = loc };
	const struct ksym_btf_rec *r;

	if (!w->kept)
		return NULL;
	r = bsearch(&key, w->kept, w->kept_n, sizeof(*w->kept), ksym_btf_rec_cmp);
	if (!r || r->verdict >= KSYM_BTF_VERDICT_CNT || r->proto >= KSYM_BPROTO_CNT)
		return NULL;
	return r;
}

static int take(const struct ksym_site *s, void *ctx)
{
	struct bwalk *w = ctx;
	const struct ksym_btf_rec *r;
	struct ksym_btf_func *bf;
	int err;

	/* (here, not before the walk: a build cache found wrong on the way reloads the db) */
	if (!w->db->btf && !(w->db->btf = calloc(1, sizeof(*w->db->btf))))
		return ksym_db_fail(w->db, ENOMEM, "out of memory");
	if (w->n == w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 256;
		struct ksym_btf_func *v = realloc(w->v, cap * sizeof(*v));
		struct ksym_btf_rec *rv;

		if (!v)
			return ksym_db_fail(w->db, ENOMEM, "out of memory");
		w->v = v;
		rv = realloc(w->recs, cap * sizeof(*rv));
		if (!rv)
			return ksym_db_fail(w->db, ENOMEM, "out of memory");
		w->recs = rv;
		w->cap = cap;
	}
	bf = &w->v[w->n];
	*bf = (struct ksym_btf_func){ .site = *s };
	w->recs[w->n] = (struct ksym_btf_rec){ .loc = s->loc };
	r = s->site > 0 ? kept_answer(w, s->loc) : NULL;
	if (r) {
		bf->id = r->id;
		bf->verdict = r->verdict;
		bf->kallsyms_cnt = r->kallsyms_cnt;
		bf->why = r->verdict == KSYM_BTF_PROTO ? ksym_bproto__str(r->proto) :
			  verdict_words[r->verdict];
		w->recs[w->n++] = *r;
		return 0;
	}
	if (s->site > 0)
		w->missed = true;
	/* (a match without a site is judged before its name is looked up) */
	if (!w->names && s->site > 0) {
		err = names_table(w->db, &w->names);
		if (err)
			return err;
	}
	judge(w->db, w->names, w->flags, bf, &w->recs[w->n].proto);
	w->recs[w->n].id = bf->id;
	w->recs[w->n].verdict = bf->verdict;
	w->recs[w->n].kallsyms_cnt = bf->kallsyms_cnt;
	w->n++;
	return 0;
}

/* an id once per object: the first match keeps it, in the walk's order */
static int cmp_id(const void *x, const void *y, void *ctx)
{
	const struct ksym_btf_func *v = ctx;
	size_t a = *(const size_t *)x, b = *(const size_t *)y;
	const char *ma = v[a].site.sym.module ? v[a].site.sym.module : "";
	const char *mb = v[b].site.sym.module ? v[b].site.sym.module : "";
	int c = strcmp(ma, mb);

	if (c)
		return c;
	if (v[a].id != v[b].id)
		return v[a].id < v[b].id ? -1 : 1;
	return a < b ? -1 : a > b;
}

/* the same by site: two names of one function (aliases) */
static int cmp_loc(const void *x, const void *y, void *ctx)
{
	const struct ksym_btf_func *v = ctx;
	size_t a = *(const size_t *)x, b = *(const size_t *)y;

	if (v[a].site.loc != v[b].site.loc)
		return v[a].site.loc < v[b].site.loc ? -1 : 1;
	return a < b ? -1 : a > b;
}

/*
 * One function once in a link: the first of a group (one object's one id,
 * or one site) in the walk's order keeps it, the others are SAME.
 */
static int mark_same(struct ksym_btf_func *v, size_t n,
		     int (*cmp)(const void *, const void *, void *))
{
	size_t *ix = malloc((n ? n : 1) * sizeof(*ix)), i, g;
	bool kept = false;

	if (!ix)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		ix[i] = i;
	qsort_r(ix, n, sizeof(*ix), cmp, v);
	for (i = g = 0; i < n; i++) {
		struct ksym_btf_func *b = &v[ix[i]], *a = &v[ix[g]];
		bool same = cmp == cmp_loc ? a->site.loc == b->site.loc :
			    a->id == b->id && !strcmp(a->site.sym.module ?: "",
						      b->site.sym.module ?: "");

		if (!same) {
			g = i;
			kept = false;
		}
		if (b->verdict != KSYM_BTF_OK)
			continue;
		if (kept) {
			b->verdict = KSYM_BTF_SAME;
			b->why = verdict_words[KSYM_BTF_SAME];
		}
		kept = true;
	}
	free(ix);
	return 0;
}

/*
 * Whether these patterns' answers may be kept at all: a live kernel's, read
 * from its own sources (given files or a BTF directory describe another).
 */
static bool answers_cacheable(const struct ksym_db *db)
{
	const struct ksym_db_opts *o = &db->opts;

	return !o->no_cache && db->match_hash[0] && !o->btf_dir && ksym_opts_live_kallsyms(o) &&
	       !o->kcore_path && !o->funcs_path && !o->funcs_addrs_path;
}

/*
 * /run's file of these patterns' answers, keyed by the boot and the modules:
 * for a live kernel's patterns only (its name; false where there is none).
 */
static bool kept_name(struct ksym_db *db, unsigned int flags, char *name, size_t len)
{
	if (!answers_cacheable(db) || db->opts.no_run_cache)
		return false;
	if (db->key_err == 1)
		db->key_err = ksym_cache__live_key_from(&db->key, "", ksym_db_modules(db));
	if (db->key_err)
		return false;
	snprintf(name, len, "btf%s-%s", flags & KSYM_BTF_RETURN ? "r" : "", db->match_hash);
	return true;
}

static void kept_load(struct ksym_db *db, unsigned int flags, struct bwalk *w)
{
	struct ksym_cache_key key;
	uint64_t t0 = ksym_now_ns();
	char name[40];
	struct stat was;

	if (!kept_name(db, flags, name, sizeof(name)))
		return;
	key = db->key;
	snprintf(key.source, sizeof(key.source), "btf");
	ksym_db_cache_stat(db->opts.cache_dir, name, &was);
	w->kept = ksym_cache__load_btf(db->opts.cache_dir, name, &key, &w->kept_n);
	db->phase_ns[KSYM_PH_READ] += ksym_now_ns() - t0;
	if (w->kept) {
		if (db->opts.verbose)
			ksym_db_note(db, "BTF ids and verdicts from %s/%s: what these patterns "
				     "matched before", db->opts.cache_dir, name);
	} else if (errno == EBADMSG || errno == EPERM) {
		ksym_db_warn(db, "ignoring cache %s/%s: %s; removed", db->opts.cache_dir, name,
			     errno == EPERM ? "not a private root-owned file" : "corrupt or truncated");
		ksym_db_cache_remove(db->opts.cache_dir, name, &was);
	}
}

/* Whether a build cache file may serve or keep these patterns' answers. */
static bool build_allowed(const struct ksym_db *db)
{
	return answers_cacheable(db) && !db->opts.no_build_cache;
}

/*
 * A boot's first run of a build seen before, served by the build cache: the
 * answers that build's runs kept for vmlinux's functions, rebased onto this
 * boot's _text. A module's match is judged anew.
 */
static void kept_build_load(struct ksym_db *db, unsigned int flags, struct bwalk *w)
{
	struct ksym_cache_key key;
	uint64_t t0 = ksym_now_ns();
	char name[100];
	struct stat was;
	size_t i;

	if (w->kept || db->tier != KSYM_TIER_BUILD || !build_allowed(db) || !db->layout.text ||
	    !ksym_cache__btf_build_name(&db->layout, flags & KSYM_BTF_RETURN, db->match_hash,
					name, sizeof(name), &key))
		return;
	ksym_db_cache_stat(db->opts.build_cache_dir, name, &was);
	w->kept = ksym_cache__load_btf(db->opts.build_cache_dir, name, &key, &w->kept_n);
	db->phase_ns[KSYM_PH_READ] += ksym_now_ns() - t0;
	if (!w->kept) {
		if (errno == EBADMSG || errno == EPERM) {
			ksym_db_warn(db, "ignoring cache %s/%s: %s; removed", db->opts.build_cache_dir,
				     name, errno == EPERM ? "not a private root-owned file" :
				     "corrupt or truncated");
			ksym_db_cache_remove(db->opts.build_cache_dir, name, &was);
		}
		return;
	}
	for (i = 0; i < w->kept_n; i++)
		w->kept[i].loc += db->layout.text;
	w->from_build = true;
	if (db->opts.verbose)
		ksym_db_note(db, "BTF ids and verdicts from %s/%s: what these patterns matched in "
			     "an earlier boot of this build", db->opts.build_cache_dir, name);
}

/*
 * The walk's answers, to be written at the flush: none where /run had them
 * all; vmlinux's also for the next boots of this build, rebased at the flush.
 */
static void kept_put(struct ksym_db *db, unsigned int flags, struct bwalk *w)
{
	struct ksym_btf_rec *vml = NULL;
	size_t i, k, b = 0;

	if (w->kept && !w->missed && !w->from_build)
		return;
	if (!kept_name(db, flags, db->btf_put_name, sizeof(db->btf_put_name)))
		return;
	/* (the build's file answered them all: it stays as it is) */
	if (build_allowed(db) && !(w->from_build && !w->missed))
		vml = malloc((w->n ? w->n : 1) * sizeof(*vml));
	/* whole answers only: a match whose site is unknown is judged again each time */
	for (i = k = 0; i < w->n; i++) {
		if (w->v[i].site.site <= 0)
			continue;
		if (vml && !w->v[i].site.sym.module)
			vml[b++] = w->recs[i];
		w->recs[k++] = w->recs[i];
	}
	free(db->btf_put);
	db->btf_put = w->recs;
	db->btf_put_cnt = k;
	db->btf_put_key = db->key;
	snprintf(db->btf_put_key.source, sizeof(db->btf_put_key.source), "btf");
	w->recs = NULL;
	free(db->btf_build_put);
	db->btf_build_put = vml;
	db->btf_build_put_cnt = b;
	db->btf_build_ret = flags & KSYM_BTF_RETURN;
}

static int collect(struct ksym_db *db, unsigned int flags, struct bwalk *w)
{
	int err;

	*w = (struct bwalk){ .db = db, .flags = flags };
	kept_load(db, flags, w);
	kept_build_load(db, flags, w);
	err = ksym_db__each_match(db, take, w);
	if (!err)
		kept_put(db, flags, w);
	free(w->kept);
	free(w->recs);
	w->kept = NULL;
	w->recs = NULL;
	if (!err && db->btf && db->btf->n && db->btf->v[0].err)
		err = ksym_db_fail(db, -db->btf->v[0].err, "cannot read the kernel's BTF (%s/vmlinux): %s",
				   db->opts.btf_dir ? db->opts.btf_dir : BTF_DIR,
				   strerror(-db->btf->v[0].err));
	if (!err && (mark_same(w->v, w->n, cmp_id) || mark_same(w->v, w->n, cmp_loc)))
		err = ksym_db_fail(db, ENOMEM, "out of memory");
	return err;
}

int ksym_db__each_btf(struct ksym_db *db, unsigned int flags, ksym_btf_fn fn, void *ctx)
{
	struct bwalk w;
	size_t i;
	int err = collect(db, flags, &w);

	for (i = 0; i < w.n && !err; i++)
		err = fn(&w.v[i], ctx);
	free(w.v);
	return err;
}

static int cmp_u32(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;

	return a < b ? -1 : a > b;
}

void ksym_btf_ids__free(struct ksym_btf_ids *sets, size_t cnt)
{
	size_t i;

	for (i = 0; sets && i < cnt; i++) {
		free((char *)sets[i].module);
		free(sets[i].ids);
	}
	free(sets);
}

int ksym_db__btf_ids(struct ksym_db *db, unsigned int flags, struct ksym_btf_ids **sets,
		     size_t *cnt)
{
	struct ksym_btf_ids *v = NULL;
	size_t i, k, n = 0;
	struct bwalk w;
	int err;

	*sets = NULL;
	*cnt = 0;
	err = collect(db, flags, &w);
	if (err)
		goto out;
	/*
	 * One set per object: vmlinux's first, then the modules as the walk met
	 * them (the answers may come from /run: no object was read then).
	 */
	v = calloc(w.n + 1, sizeof(*v));
	if (!v) {
		err = ksym_db_fail(db, ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < w.n; i++) {
		const char *m = w.v[i].site.sym.module ? w.v[i].site.sym.module : "";
		struct ksym_btf_ids *set;

		if (w.v[i].verdict != KSYM_BTF_OK)
			continue;
		for (k = 0; k < n && strcmp(v[k].module ? v[k].module : "", m); k++)
			;
		if (k == n && *m && !(v[n].module = strdup(m))) {
			err = ksym_db_fail(db, ENOMEM, "out of memory");
			goto out;
		}
		n += k == n;
		set = &v[k];
		if (!(set->cnt & (set->cnt - 1))) {	/* at 0, 1, 2, 4 ...: room doubled */
			uint32_t *ids = realloc(set->ids, (set->cnt ? 2 * set->cnt : 1) * sizeof(*ids));

			if (!ids) {
				err = ksym_db_fail(db, ENOMEM, "out of memory");
				goto out;
			}
			set->ids = ids;
		}
		set->ids[set->cnt++] = w.v[i].id;
	}
	for (k = 0; k < n && v[k].module; k++)
		;
	if (k < n && k) {
		struct ksym_btf_ids x = v[k];

		memmove(v + 1, v, k * sizeof(*v));
		v[0] = x;
	}
	for (k = 0; k < n; k++)
		qsort(v[k].ids, v[k].cnt, sizeof(*v[k].ids), cmp_u32);
	if (!n)
		err = ksym_db_fail(db, ENOENT,
				   "no function the patterns match can be attached by BTF id (in %s)",
				   ksym_db__funcs_source(db));
out:
	free(w.v);
	if (err) {
		ksym_btf_ids__free(v, n + 1);
		return err;
	}
	*sets = v;
	*cnt = n;
	return 0;
}
