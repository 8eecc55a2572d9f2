// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The build tier: a table of sites per kernel build, kept across boots
 * (cache/build.c), rebased onto this boot and each site confirmed in the text
 * when used. Get rebases it, with the modules it does not know read live;
 * put writes what a cold run confirmed; a file found wrong is removed with
 * the pattern sets made from it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ksym_db.h"

/* The build cache's file for this build (the one used, once one was), for its messages. */
static void build_path(const struct ksym_db *db, const struct ksym_layout *l, char *buf,
		       size_t len)
{
	char name[64];

	ksym_build__name(l, name, sizeof(name));
	snprintf(buf, len, "%s/%s", db->opts.build_cache_dir,
		 db->build_file[0] ? db->build_file : name);
}

/* The build cache file of what the patterns matched: match-<build id>-<hash>. */
static void build_match_name(const struct ksym_db *db, const struct ksym_layout *l, char *buf,
			     size_t len)
{
	char name[64];

	ksym_build__name(l, name, sizeof(name));
	snprintf(buf, len, "match-%s-%s", name + 6, db->match_hash);
}

/* Every pattern set's file of l's build. */
static void remove_matches(const struct ksym_db *db, const struct ksym_layout *l)
{
	char prefix[100];
	struct dirent *d;
	DIR *dp;

	build_match_name(db, l, prefix, sizeof(prefix));
	*strrchr(prefix, '-') = '\0';	/* "match-<id>" */
	dp = opendir(db->opts.build_cache_dir);
	if (!dp)
		return;
	while ((d = readdir(dp)))
		if (!strncmp(d->d_name, prefix, strlen(prefix)) && d->d_name[strlen(prefix)] == '-')
			unlinkat(dirfd(dp), d->d_name, 0);
	closedir(dp);
}

struct hidden_ctx {
	const struct ksym_layout *l;
	bool found;
};

static int hidden_fn(const struct ksym *sym, void *ctx)
{
	struct hidden_ctx *h = ctx;
	size_t i;

	if (!(sym->flags & KSYM_F_UNRESOLVED) || !sym->module)
		return 0;
	for (i = 0; i < h->l->mod_cnt; i++)
		if (!h->l->mods[i].base && !strcmp(h->l->mods[i].name, sym->module))
			return h->found = true;
	return 0;
}

/*
 * Module bases hidden (kptr_restrict=2): the file's modules cannot be rebased,
 * vmlinux can. Whether the patterns (none: anything) can match a function of
 * a loaded module, which only the kernel's symbols can place now.
 */
static bool hidden_match(const struct ksym_db *db, const struct ksym_table *t,
			 const struct ksym_layout *l)
{
	struct hidden_ctx h = { .l = l };
	size_t i;

	if (!db->opts.pattern_cnt)
		return true;
	for (i = 0; i < db->opts.pattern_cnt && !h.found; i++)
		ksym_table__match(t, db->opts.patterns[i], hidden_fn, &h);
	return h.found;
}

/*
 * The loaded modules the build cache does not know, from the kernel's own
 * tables (kmem/modlive.c), filtered by the patterns, joined to *t. Only what
 * the patterns can match is read: the /run cache, which later runs take for
 * the whole table, is then not written.
 */
static int live_modules(struct ksym_db *db, struct ksym_table **t, struct ksym_layout *l,
			bool *partial)
{
	struct ksym_parse_opts filter;
	struct ksym_table *extra, *all;
	struct ksym_feed *f;
	size_t i;
	int err;

	if (!l->mod_btf_known)
		return -EOPNOTSUPP;
	err = db->filter_err;
	if (err)
		return err;
	filter = db->filter;
	filter.text_only = true;
	f = ksym_feed__new(&filter, 4096, 256 << 10);
	if (!f)
		return -errno;
	for (i = 0, err = 0; i < l->mod_cnt && !err; i++) {
		if (l->mods[i].in_file)
			continue;
		err = ksym_modlive__read(db->kcore, &l->mod_btf, l->mods[i].name, f);
		/*
		 * Listed while still loading, before sysfs shows its sections (udev at
		 * boot): a run a moment earlier would not have seen it either.
		 */
		if (err == -ENOENT && l->mods[i].loading) {
			if (db->opts.verbose)
				ksym_db_warn(db, "module %s is still loading: left out", l->mods[i].name);
			err = 0;
		}
	}
	extra = ksym_feed__end(f, err);
	if (!extra)
		return -errno;
	*partial = db->prefix_cnt || db->name_cnt;
	if (!ksym_table__cnt(extra)) {
		ksym_table__free(extra);
		return 0;	/* nothing there the patterns can match */
	}
	all = ksym_table__merge(*t, extra);
	err = all ? 0 : -errno;
	ksym_table__free(extra);
	if (err)
		return err;
	db->live_merged = true;
	ksym_table__free(*t);
	*t = all;
	return 0;
}

/*
 * The first run of a boot of a build seen before: the build cache rebased
 * onto this boot. Each function is checked in the kernel text when asked for
 * (ksym_db__ftrace_loc), the rest when the /run cache is written; a site not
 * where the file says costs the file and the caller loads again. Modules the file does not know
 * (loaded since, or another build of them) are a cold run too, whose cache
 * then knows them. -ENOENT: go on cold.
 */
static int build_funcs(struct ksym_db *db)
{
	struct ksym_layout l;
	char path[600];
	uint64_t t0 = ksym_now_ns();
	size_t unknown = 0;
	struct ksym_table *t;
	char names[160], whole[64];
	struct stat st, was;
	bool partial = false;
	int err;

	if (db->opts.no_cache || db->opts.no_build_cache ||
	    ksym_layout__live_from(&l, db->kcore, ksym_db_modules(db))) {
		db->phase_ns[KSYM_PH_READ] += ksym_now_ns() - t0;
		return -ENOENT;
	}
	/* what these patterns matched at an earlier boot, if a run kept it */
	t = NULL;
	if (db->match_hash[0]) {
		build_match_name(db, &l, db->build_file, sizeof(db->build_file));
		ksym_db_cache_stat(db->opts.build_cache_dir, db->build_file, &was);
		t = ksym_build__load_as(db->opts.build_cache_dir, db->build_file, &l, db->anchors,
					&unknown, names, sizeof(names));
		if (!t && (errno == EBADMSG || errno == EPERM)) {
			ksym_db_warn(db, "ignoring build cache %s/%s: %s; using the whole one",
				     db->opts.build_cache_dir, db->build_file, errno == EPERM ?
				     "not a private root-owned file" : "corrupt or truncated");
			ksym_db_cache_remove(db->opts.build_cache_dir, db->build_file, &was);
		}
		/* a module loaded now that it lacks: the whole file may know it */
		if (t && unknown) {
			ksym_table__free(t);
			t = NULL;
		}
		if (!t)
			db->build_file[0] = '\0';
	}
	if (!t) {
		ksym_build__name(&l, whole, sizeof(whole));
		ksym_db_cache_stat(db->opts.build_cache_dir, whole, &was);
		t = ksym_build__load(db->opts.build_cache_dir, &l, db->anchors, &unknown, names,
				     sizeof(names));
	}
	db->phase_ns[KSYM_PH_READ] += ksym_now_ns() - t0;
	build_path(db, &l, path, sizeof(path));
	if (!t) {
		err = errno;
		if ((err == EBADMSG || err == EPERM) && (!db->opts.cache_only || db->opts.verbose))
			ksym_db_warn(db, "ignoring build cache %s: %s; removed", path,
				     err == EPERM ? "not a private root-owned file" : "corrupt or truncated");
		else if (err == ESTALE && db->opts.verbose)
			ksym_db_warn(db, "build cache %s is another build's; removed", path);
		if (err == EBADMSG || err == EPERM || err == ESTALE)
			ksym_db_cache_remove(db->opts.build_cache_dir, whole, &was);
		ksym_layout__free(&l);
		return -ENOENT;
	}
	if (l.bases_hidden && hidden_match(db, t, &l)) {
		if (db->opts.verbose)
			ksym_db_warn(db, "build cache %s: module addresses hidden (kernel.kptr_restrict=2) "
				     "and the patterns match module functions; reading the kernel's symbols",
				     path);
		ksym_table__free(t);
		ksym_layout__free(&l);
		db->build_file[0] = '\0';
		return -ENOENT;
	}
	/* completion answers at once and quietly: the names the file knows */
	if (unknown && !db->opts.cache_only) {
		err = live_modules(db, &t, &l, &partial);
		if (err) {
			/* once: this run's cache will know them */
			ksym_db_warn(db, "build cache %s: %zu loaded module%s not in it (%s) and not "
				     "readable from kernel memory (%s); reading the kernel's symbols", path,
				     unknown, unknown == 1 ? "" : "s", names,
				     err == -EOPNOTSUPP ? "no struct module layout for this build" :
				     strerror(-err));
			ksym_table__free(t);
			ksym_layout__free(&l);
			db->build_file[0] = '\0';
			return -ENOENT;
		}
		if (db->opts.verbose)
			ksym_db_warn(db, "build cache %s: %zu loaded module%s not in it (%s): read from "
				     "kernel memory", path, unknown, unknown == 1 ? "" : "s", names);
	}
	db->funcs = t;
	ksym_db_set_from(db, KSYM_ORIG_KCORE, KSYM_TIER_BUILD,
			 db->build_file[0] ? KSYM_EXT_MATCHED :
			 partial ? KSYM_EXT_PARTIAL : KSYM_EXT_WHOLE);
	if (db->extent == KSYM_EXT_MATCHED && db->opts.verbose)
		ksym_db_warn(db, "symbols from build cache %s: what these patterns matched before", path);
	db->layout = l;
	/* where a function read live is checked as a cold run checks it */
	ksym_site__bounds_from(&db->check, db->anchors);
	if (!stat(path, &st)) {
		db->build_dev = st.st_dev;
		db->build_ino = st.st_ino;
	}
	/* used: the prune keeps the builds booted lately, not those written lately
	 * (the whole file too where a pattern set's served: its sets go with it) */
	utimensat(AT_FDCWD, path, NULL, 0);
	if (db->extent == KSYM_EXT_MATCHED) {
		char whole[600];
		char name[64];

		ksym_build__name(&l, name, sizeof(name));
		snprintf(whole, sizeof(whole), "%s/%s", db->opts.build_cache_dir, name);
		utimensat(AT_FDCWD, whole, NULL, 0);
	}
	return 0;
}

/* Where the kcore check needs them: text bounds and ftrace's callers, from t. */
static const char *const anchor_names[KSYM_ANCHOR_CNT] = {
	[KSYM_ANCHOR_STEXT] = "_stext", [KSYM_ANCHOR_ETEXT] = "_etext",
	[KSYM_ANCHOR_SINITTEXT] = "_sinittext", [KSYM_ANCHOR_EINITTEXT] = "_einittext",
	[KSYM_ANCHOR_FTRACE_CALLER] = "ftrace_caller",
	[KSYM_ANCHOR_FTRACE_REGS_CALLER] = "ftrace_regs_caller",
};

void ksym_db_find_anchors(const struct ksym_table *t, uint64_t a[KSYM_ANCHOR_CNT])
{
	struct ksym s;
	int i;

	for (i = 0; i < KSYM_ANCHOR_CNT; i++)
		a[i] = ksym_table__find(t, anchor_names[i], "", &s, 1) > 0 ? s.addr : 0;
}

/*
 * The anchors of a table that has none (tracefs' list of sites): the
 * kernel's table in memory, else /proc/kallsyms, read for their names only.
 * Called after the attach: its time is the store's.
 */
int ksym_db_live_anchors(struct ksym_db *db, uint64_t a[KSYM_ANCHOR_CNT])
{
	struct ksym_parse_opts po = { .sz = sizeof(po), .text_only = true, .names = anchor_names,
				      .name_cnt = KSYM_ANCHOR_CNT, .stop = db->opts.stop };
	struct ksym_table *t = NULL;

	if (db->opts.syms_from != KSYM_SYMS_KALLSYMS && db->opts.syms_from != KSYM_SYMS_ITER)
		t = ksym_kmem__load(db->kcore, &po);
	if (!t)
		t = ksym_table__load(KSYM_FMT_KALLSYMS, "/proc/kallsyms", &po);
	if (!t)
		return -errno;
	ksym_db_find_anchors(t, a);
	ksym_table__free(t);
	/* (arm64's _etext is no text symbol: the text's end then goes unchecked) */
	return a[KSYM_ANCHOR_STEXT] ? 0 : -ENOENT;
}

/*
 * What the patterns match of t, for the next boots of l's build that ask the
 * same (share: t is what was read of the table for them).
 */
void ksym_db_build_match_store(struct ksym_db *db, const struct ksym_table *t,
			       const struct ksym_layout *l, const uint64_t anchors[KSYM_ANCHOR_CNT],
			       bool share)
{
	struct ksym_table *sub;
	char name[100], build[64];

	if (!db->match_hash[0])
		return;
	sub = ksym_db_pattern_subset(db, t, share);
	if (!sub)
		return;
	build_match_name(db, l, name, sizeof(name));
	/* (-ENODATA: the patterns match nothing there; the whole file answers that) */
	if (!ksym_build__store_as(db->opts.build_cache_dir, name, l, sub, anchors,
				  "kallsyms+kcore")) {
		ksym_build__name(l, build, sizeof(build));
		ksym_build__prune(db->opts.build_cache_dir, build, KSYM_BUILD_CACHE_KEEP);
	}
	ksym_table__free(sub);
}

/*
 * What a cold run confirmed, for the next boots of this build: the whole
 * table, or only the patterns' share where that is all the run read.
 */
void ksym_db_build_store(struct ksym_db *db, const struct ksym_table *checked,
			 const uint64_t anchors[KSYM_ANCHOR_CNT], uint64_t modules_hash, bool share)
{
	struct ksym_cache_key now;
	struct ksym_layout l;
	char name[64], *mods;
	size_t len;
	int err;

	/* one read: the layout stored is the one the key checks */
	if (ksym__read_file("/proc/modules", &mods, &len))
		mods = NULL;
	err = ksym_layout__live_from(&l, db->kcore, mods ? mods : "");
	/* a module loaded or gone while the functions were checked: not this table's */
	if (!err && (ksym_cache__live_key_from(&now, "", mods ? mods : "") ||
		     now.modules_hash != modules_hash)) {
		ksym_layout__free(&l);
		err = -ESTALE;
	}
	free(mods);
	if (err)
		return;
	if (share) {
		ksym_db_build_match_store(db, checked, &l, anchors, true);
		ksym_layout__free(&l);
		return;
	}
	/* boots that find a module the file does not know (kmem/modlive.c) */
	l.mod_btf_known = !ksym_modlive__btf(&l.mod_btf);
	err = ksym_build__store(db->opts.build_cache_dir, &l, checked, anchors, "kallsyms+kcore");
	ksym_build__name(&l, name, sizeof(name));
	if (!err)
		ksym_build__prune(db->opts.build_cache_dir, name, KSYM_BUILD_CACHE_KEEP);
	if (!err)
		ksym_db_build_match_store(db, checked, &l, anchors, false);
	else if (err == -EAGAIN || err == -EPERM ? db->opts.verbose : db->opts.verbose || !geteuid())
		ksym_db_warn(db, "cannot write build cache %s/%s: %s; the next boot's first run is cold",
			     db->opts.build_cache_dir, name, err == -EAGAIN ?
			     "a module is still loading, or a loaded one's build ID is unreadable "
			     "(/sys/module hidden?)" :
			     err == -EPERM ? "module addresses are hidden (kernel.kptr_restrict=2)" :
			     strerror(-err));
	ksym_layout__free(&l);
}

void ksym_db_build_invalidate(struct ksym_db *db, const char *why)
{
	char path[600];
	struct stat st;

	build_path(db, &db->layout, path, sizeof(path));
	ksym_db_warn(db, "build cache %s does not match this kernel's text (%s): removed", path,
		     why);
	/* only the file this run used: another may have written a good one since */
	if (!lstat(path, &st) && st.st_dev == db->build_dev && st.st_ino == db->build_ino)
		unlink(path);
	/* and the sets made from a file found wrong */
	remove_matches(db, &db->layout);
}

/*
 * sym's site as the check finds it. A rebased site not where the build cache
 * said costs the file (the first is worth a word), and -ESTALE tells the
 * caller to load again, cold.
 */
int ksym_db_site_loc(struct ksym_db *db, struct ksym_site_check *c, const struct ksym *sym,
		     uint64_t *loc)
{
	int ret = ksym_site__loc(c, sym, loc);

	if (ret == -ESTALE && !db->rebase_bad++)
		ksym_db_build_invalidate(db, sym->name);
	return ret;
}

static int build_load(struct ksym_db *db, const struct ksym_plan_step *s)
{
	(void)s;
	if (build_funcs(db))
		return -EAGAIN;
	/* completion answers at once: nothing checked, nothing written */
	if (db->opts.cache_only) {
		db->cached |= KSYM_DB_FUNCS;
		return 0;
	}
	/* the whole table's put keeps what the patterns match too */
	if (db->extent == KSYM_EXT_WHOLE) {
		ksym_db_funcs_put(db, KSYM_ORIG_KCORE, db->funcs, true, false);
	} else if (db->funcs_key.boot_id[0]) {
		struct ksym_cache_key k = db->funcs_key;

		snprintf(k.source, sizeof(k.source), "%s", ksym_origin__label(KSYM_ORIG_KCORE));
		ksym_db_match_put(db, &k, db->funcs, true);
	}
	return 0;
}

const struct ksym_cache_tier ksym_tier_build = {
	.name = "the build cache",
	.produces = KSYM_SITES_REBASED,
	.load = build_load,
};
