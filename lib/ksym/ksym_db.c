// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Which files hold the kernel's symbols, read once and cached. The cheapest live
 * source wins: available_filter_functions_addrs carries names and addresses in
 * one file (Linux >= 6.5); older kernels need the name list joined with
 * /proc/kallsyms. Cheaper still, where /proc/kcore can be read: /proc/kallsyms
 * alone (a sequential walk for the kernel, no address-to-name lookup per line)
 * with each candidate's call site checked in the kernel text. For the whole
 * kernel, ftrace's own records and the kernel's table, both read from its
 * memory (ksym_ftrace.c), give tracefs' list without the kernel naming each
 * record. The result is cached in /run, so a second run on the same boot reads
 * no kernel file at all.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <search.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/capability.h>

#include "ksym_internal.h"
#include "ksym_plan.h"
#include "ksym_site.h"

struct ksym_db {
	struct ksym_db_opts opts;
	struct ksym_table *funcs;
	struct ksym_table *kallsyms;
	struct ksym_table *blacklist;
	/*
	 * Where FUNCS came from, as one value: the source (its cache label),
	 * the tier that served it, and how kallsyms was read live. FUNCS may be
	 * the kallsyms table itself (every symbol wanted, or the fallback).
	 */
	enum ksym_origin origin;
	enum ksym_tier {
		KSYM_TIER_NONE,		/* not loaded */
		KSYM_TIER_LIVE,		/* read now: the kernel's files or memory, or files given */
		KSYM_TIER_RUN,		/* /run's cache of this boot: sites, checked when stored */
		KSYM_TIER_BUILD,	/* the build cache, rebased: each site checked when used */
	} tier;
	enum ksym_reader {
		KSYM_READ_FILE,		/* /proc/kallsyms or a file given */
		KSYM_READ_ITER,		/* the ksym BPF iterator */
		KSYM_READ_KMEM,		/* the kernel's table in memory (it lists no trampoline) */
	} reader;
	/* kallsyms+kcore: funcs are candidates, checked in the text on demand */
	struct ksym_kcore *kcore;
	char **prefixes;		/* what the patterns can match (a partial table) */
	size_t prefix_cnt, own_prefixes;
	const char **names;		/* the patterns without wildcards */
	size_t name_cnt;
	bool filter_made;		/* prefixes and names made (pattern_filter) */
	int filter_err;
	struct ksym_site_check check;	/* how a function's site is found (ksym_site.c) */
	unsigned int cached;		/* KSYM_DB_* served from the cache */
	char tracefs[64];		/* where tracefs was found ("": not) */
	const char *tracefs_denied;	/* or the directory this user may not look in */
	struct ksym_cache_key funcs_key; /* this boot's, once a step looked in /run */
	int kcore_err;			/* why kcore could not be opened (0: not tried) */
	uint64_t phase_ns[KSYM_PH_CNT];
	/* caches built by the load, written by ksym_db__flush() */
	struct {
		const char *name;
		const struct ksym_table *t;
		struct ksym_cache_key key;
		bool checked;	/* candidates: store those kcore confirms */
		bool partial;	/* read as far as the patterns go: only their share kept */
		bool subset;	/* store only what the patterns match */
	} pending[3];
	int pending_cnt;
	/* the build tier: modules it lacks read as far as the patterns go */
	bool live_partial;		/* and modules it lacks read as far as the patterns go */
	bool live_merged;		/* some read: candidates, not sites, until checked */
	bool match_stored;		/* the build's pattern set written (flush runs twice) */
	unsigned int rebase_bad;	/* sites not where the build cache said */
	uint64_t anchors[KSYM_ANCHOR_CNT];
	struct ksym_layout layout;	/* this boot's, for the messages */
	bool kmem_warned;
	bool iter_warned;
	bool ftrace_warned;
	char iter_err[80];		/* why the iterator was not used */
	dev_t build_dev;		/* the file used: removed only if still it */
	ino_t build_ino;
	/*
	 * What the patterns matched, kept apart (KSYM_MATCH_CACHE_KEEP): the
	 * patterns' hash ("": none), /run's file name for it; match_hit: FUNCS is
	 * only that, so it is never stored as the whole table.
	 */
	char match_hash[17];
	char run_match[24];
	bool match_hit;
	char build_file[100];		/* the build cache file used */
	/* the running kernel's cache key, read once (boot id, /proc/modules) */
	struct ksym_cache_key key;
	int key_err;			/* 1: not read yet */
	char *modules;			/* /proc/modules, read once for the key and the layout */
	char err[320];
};

static int fail(struct ksym_db *db, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(db->err, sizeof(db->err), fmt, ap);
	va_end(ap);
	return err < 0 ? err : -err;
}

/* One line to the caller's function, else to stderr behind prefix. */
static void say(void (*fn)(const char *), const char *prefix, const char *fmt, va_list ap)
{
	char msg[400];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (fn)
		fn(msg);
	else
		fprintf(stderr, "%s%s\n", prefix, msg);
}

static void warn(const struct ksym_db *db, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say(db->opts.warn, "ksym: warning: ", fmt, ap);
	va_end(ap);
}

static void note(const struct ksym_db *db, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say(db->opts.note, "ksym: ", fmt, ap);
	va_end(ap);
}

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

/* The patterns, in their order, named by a hash of them. */
static void match_hash(struct ksym_db *db)
{
	uint64_t h = ksym_fmix64(db->opts.pattern_cnt);
	size_t i;

	for (i = 0; i < db->opts.pattern_cnt; i++) {
		const char *c;

		/* each ends in NUL: "ab","c" and "a","bc" differ */
		for (c = db->opts.patterns[i]; *c; c++)
			h = (h ^ (unsigned char)*c) * 0x100000001b3ull;
		h = ksym_fmix64(h ^ 0xff);
	}
	snprintf(db->match_hash, sizeof(db->match_hash), "%016" PRIx64, h);
	snprintf(db->run_match, sizeof(db->run_match), "funcs-%s", db->match_hash);
}

/*
 * Marks t's entries the patterns match. Plain names (an agent's list of
 * thousands) go into a hash table and t is passed once; each glob passes it
 * once (ksym_table__mark()). glibc's hsearch_r() is the hash table: names are
 * looked up, never removed, and it is freed whole.
 */
static int mark_patterns(const struct ksym_db *db, const struct ksym_table *t, uint8_t *marks)
{
	struct hsearch_data h = {};
	size_t i, names = 0, cnt = ksym_table__cnt(t);
	ENTRY e, *found;
	bool hashed;
	int err = 0;

	for (i = 0; i < db->opts.pattern_cnt; i++)
		names += ksym_glob_is_name(db->opts.patterns[i]);
	/* (a few names are as quick a pass each) */
	hashed = names > 16;
	if (hashed && !hcreate_r(names * 2, &h))
		return -errno;
	for (i = 0; i < db->opts.pattern_cnt && !err; i++) {
		const char *p = db->opts.patterns[i];

		if (hashed && ksym_glob_is_name(p)) {
			e.key = (char *)p;
			e.data = NULL;
			if (!hsearch_r(e, ENTER, &found, &h))
				err = -errno;
			continue;
		}
		err = ksym_table__mark(t, p, marks);
	}
	for (i = 0; hashed && i < cnt && !err; i++) {
		struct ksym sym;

		ksym_table__at(t, i, &sym);
		e.key = (char *)sym.name;
		if (hsearch_r(e, FIND, &found, &h))
			marks[i / 8] |= 1u << (i % 8);
	}
	if (hashed)
		hdestroy_r(&h);
	return err;
}

/*
 * What t's entries the patterns match, as a table of its own; NULL with errno,
 * 0 where that is most of a whole table (which serves as well then). A share
 * (t read as far as the patterns go) is always kept: no whole table is.
 */
static struct ksym_table *pattern_subset(const struct ksym_db *db, const struct ksym_table *t,
					 bool share)
{
	size_t i, n = 0, cnt = ksym_table__cnt(t);
	uint8_t *marks = calloc(cnt / 8 + 1, 1);
	struct ksym_table *s = NULL;
	int err = 0;

	if (!marks)
		return NULL;
	err = mark_patterns(db, t, marks);
	for (i = 0; i <= cnt / 8; i++)
		n += __builtin_popcount(marks[i]);
	if (!err && (db->match_hit || share || n <= cnt / 2))
		s = ksym_table__select(t, marks);	/* (errno set where it fails) */
	else
		errno = -err;
	free(marks);
	return s;
}

struct ksym_db *ksym_db__new(const struct ksym_db_opts *opts)
{
	struct ksym_db *db = calloc(1, sizeof(*db));

	if (!db)
		return NULL;
	memcpy(&db->opts, opts, opts->sz < sizeof(db->opts) ? opts->sz : sizeof(db->opts));
	db->opts.sz = sizeof(db->opts);
	db->key_err = 1;
	if (!db->opts.cache_dir)
		db->opts.cache_dir = KSYM_CACHE_DIR;
	if (!db->opts.build_cache_dir)
		db->opts.build_cache_dir = KSYM_BUILD_CACHE_DIR;
	/* past a few dozen patterns (name lists), the index answers faster than a file */
	if (db->opts.pattern_cnt && !db->opts.cache_only)
		match_hash(db);
	return db;
}

void ksym_db__free(struct ksym_db *db)
{
	size_t i;

	if (!db)
		return;
	ksym_db__flush(db);
	if (db->funcs != db->kallsyms)
		ksym_table__free(db->funcs);
	ksym_table__free(db->kallsyms);
	ksym_table__free(db->blacklist);
	ksym_kcore__close(db->kcore);
	for (i = 0; i < db->own_prefixes; i++)
		free(db->prefixes[i]);
	free(db->prefixes);
	free(db->names);
	ksym_layout__free(&db->layout);
	free(db->modules);
	free(db);
}

struct ksym_table *ksym_db__funcs(const struct ksym_db *db) { return db->funcs; }
struct ksym_table *ksym_db__kallsyms(const struct ksym_db *db) { return db->kallsyms; }
const char *ksym_db__errmsg(const struct ksym_db *db) { return db->err; }
bool ksym_db__traceability_known(const struct ksym_db *db)
{
	return db->tier != KSYM_TIER_NONE && db->origin != KSYM_ORIG_UNKNOWN;
}

bool ksym_db__blacklist_known(const struct ksym_db *db) { return db->blacklist; }
bool ksym_db__from_build_cache(const struct ksym_db *db) { return db->tier == KSYM_TIER_BUILD; }
bool ksym_db__from_cache(const struct ksym_db *db, unsigned int which)
{
	return (db->cached & which) == which;
}

const char *ksym_db__funcs_source(const struct ksym_db *db)
{
	if (db->tier == KSYM_TIER_NONE)
		return "none";
	if (db->origin == KSYM_ORIG_KCORE && db->tier == KSYM_TIER_BUILD)
		return "kallsyms+kcore (build cache)";
	if (db->origin == KSYM_ORIG_KCORE && db->tier == KSYM_TIER_LIVE)
		return db->reader == KSYM_READ_ITER ? "iter+kcore" :
		       db->reader == KSYM_READ_KMEM ? "kmem+kcore" : "kallsyms+kcore";
	return ksym_origin__label(db->origin);
}

/* FUNCS loaded, from o through tier t: and how a function's site is found in them. */
static void set_from(struct ksym_db *db, enum ksym_origin o, enum ksym_tier t)
{
	db->origin = o;
	db->tier = t;
	db->check.kind = t == KSYM_TIER_BUILD ? KSYM_SITES_REBASED :
			 o == KSYM_ORIG_KCORE && t == KSYM_TIER_LIVE ? KSYM_SITES_CANDIDATES :
								       KSYM_SITES_LISTED;
	db->check.syms = db->funcs;
	db->check.kcore = db->kcore;
	db->check.no_trampolines = db->reader == KSYM_READ_KMEM;
	db->check.anchors = db->anchors;
}

uint64_t ksym_db__phase_ns(const struct ksym_db *db, enum ksym_phase ph)
{
	return ph < KSYM_PH_CNT ? db->phase_ns[ph] : 0;
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

/*
 * sym's site as the check finds it. A rebased site not where the build cache
 * said costs the file (the first is worth a word), and -ESTALE tells the
 * caller to load again, cold.
 */
static int site_loc(struct ksym_db *db, struct ksym_site_check *c, const struct ksym *sym,
		    uint64_t *loc)
{
	int ret = ksym_site__loc(c, sym, loc);

	if (ret == -ESTALE && !db->rebase_bad++) {
		char path[600];
		struct stat st;

		build_path(db, &db->layout, path, sizeof(path));
		warn(db, "build cache %s does not match this kernel's text (%s): removed", path,
		     sym->name);
		/* only the file this run used: another may have written a good one since */
		if (!lstat(path, &st) && st.st_dev == db->build_dev && st.st_ino == db->build_ino)
			unlink(path);
		/* and the sets made from a file found wrong */
		remove_matches(db, &db->layout);
	}
	return ret;
}

int ksym_db__ftrace_loc(struct ksym_db *db, const struct ksym *sym, uint64_t *loc)
{
	if (!db->funcs || !ksym_db__traceability_known(db))
		return -ENODATA;
	return site_loc(db, &db->check, sym, loc);
}

bool ksym_db__blacklisted(const struct ksym_db *db, uint64_t addr)
{
	struct ksym b;

	return db->blacklist && !ksym_table__addr(db->blacklist, addr, &b) &&
	       addr < b.addr + b.size;
}

const char *ksym__lockdown(void)
{
	static const char *const levels[] = { "none", "integrity", "confidentiality" };
	char buf[96] = "", *l, *r;
	size_t i;
	FILE *f = fopen("/sys/kernel/security/lockdown", "re");

	if (!f)
		return NULL;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	/* "none integrity [confidentiality]": the one in brackets */
	l = strchr(buf, '[');
	r = l ? strchr(l, ']') : NULL;
	if (!r)
		return NULL;
	*r = '\0';
	for (i = 0; i < sizeof(levels) / sizeof(levels[0]); i++)
		if (!strcmp(l + 1, levels[i]))
			return levels[i];
	return NULL;
}

static bool lockdown_is(const char *level)
{
	const char *l = ksym__lockdown();

	return l && !strcmp(l, level);
}

/* Why root was refused a kernel file: lockdown where the kernel says so. */
static const char *root_refused(void)
{
	const char *l = ksym__lockdown();

	if (l && !strcmp(l, "confidentiality"))
		return " (kernel lockdown=confidentiality refuses it)";
	if (l)
		return " (refused even to root, under kernel lockdown=none or integrity: "
		       "a security policy)";
	return " (refused even to root: kernel lockdown or a security policy)";
}

static const char *iter_error(int err)
{
	switch (err) {
	case EOPNOTSUPP:
		return "this kernel has no ksym iterator (Linux >= 6.0)";
	case ENOENT:
		return "no vmlinux BTF (/sys/kernel/btf/vmlinux)";
	case EPERM:
		return "not permitted (CAP_BPF and CAP_PERFMON, or root)";
	case EINVAL:
	case EACCES:
		/* lockdown takes bpf_probe_read_kernel() away: the verifier refuses the call */
		if (lockdown_is("confidentiality"))
			return "kernel lockdown=confidentiality refuses its reads of kernel memory";
		return "the kernel refused its program";
	default:
		return strerror(err);
	}
}

static const char *kmem_error(int err)
{
	switch (err) {
	case EOPNOTSUPP:
		return "this kernel's VMCOREINFO does not say where the table is (Linux >= 6.0)";
	case ENOEXEC:
		return "struct module is laid out unlike the kernels known";
	case EBADMSG:
		return "the tables there are not laid out as this code reads them";
	case EPROTO:
		return "no single form of address known here (kallsyms_addresses; kallsyms_offsets "
		       "base-relative, with absolute per-CPU, or place-relative) puts _stext where "
		       "VMCOREINFO says it is";
	case ESTALE:
		return "a module went while its symbols were read";
	case ENOENT:
		return "no vmlinux BTF (/sys/kernel/btf/vmlinux) for struct module's layout, or "
		       "no /proc/kcore";
	default:
		return strerror(err);
	}
}

/*
 * A live source that did not serve (err): stopped; an error where it was the
 * one asked for; else a verbose line, once ("name: why; next"): a note where
 * the kernel does not have it (EOPNOTSUPP), a warning where it failed.
 * -EAGAIN: the next source's turn.
 */
static int source_refused(struct ksym_db *db, int err, bool asked, bool *warned,
			  const char *failed, const char *name, const char *why, const char *next)
{
	if (err == EINTR)
		return fail(db, EINTR, "interrupted while reading the kernel's symbols");
	if (asked)
		return fail(db, err, "%s: %s", failed, why);
	if (db->opts.verbose && !*warned)
		(err == EOPNOTSUPP ? note : warn)(db, "%s: %s; %s", name, why, next);
	*warned = true;
	return -EAGAIN;
}

/*
 * The live table's text symbols from the kernel's own table in memory, read
 * through kcore: no walk in the kernel at all. -EAGAIN: try the iterator.
 */
static int load_kmem(struct ksym_db *db, const struct ksym_parse_opts *po,
		     struct ksym_table **out)
{
	struct ksym_parse_stats *st = po->stats;
	char denied[128];
	int err;

	if (db->opts.syms_from == KSYM_SYMS_KALLSYMS || db->opts.syms_from == KSYM_SYMS_ITER ||
	    !po->text_only)
		return -EAGAIN;
	*out = ksym_kmem__load(db->kcore, po);
	db->phase_ns[KSYM_PH_READ] += st->read_ns;
	if (*out) {
		db->reader = KSYM_READ_KMEM;
		return 0;
	}
	err = errno;
	if (err == EACCES || err == EPERM)
		snprintf(denied, sizeof(denied), "/proc/kcore refused%s",
			 geteuid() ? " (run as root)" :
			 !ksym__capable(CAP_SYS_RAWIO) ? " (CAP_SYS_RAWIO is missing)" :
			 root_refused());
	return source_refused(db, err, db->opts.syms_from == KSYM_SYMS_KMEM, &db->kmem_warned,
			      "cannot read the kernel's symbol table from its memory",
			      "kernel's symbol table in memory",
			      err == EACCES || err == EPERM ? denied : kmem_error(err),
			      "trying the ksym BPF iterator");
}

/*
 * The live /proc/kallsyms table through the ksym iterator where it works (it
 * walks the same table without printing it, and sees what kptr_restrict
 * hides). -EAGAIN: read the file instead.
 */
static int load_iter(struct ksym_db *db, const struct ksym_parse_opts *po,
		     struct ksym_table **out)
{
	struct ksym_parse_stats *st = po->stats;
	int err;

	if (db->opts.syms_from == KSYM_SYMS_KALLSYMS)
		return -EAGAIN;
	*out = ksym_table__load_iter(po);
	db->phase_ns[KSYM_PH_READ] += st->read_ns;
	db->phase_ns[KSYM_PH_PARSE] += st->parse_ns;
	if (*out) {
		db->reader = KSYM_READ_ITER;
		return 0;
	}
	err = errno;
	if (err != EINTR)
		snprintf(db->iter_err, sizeof(db->iter_err), "%s", iter_error(err));
	return source_refused(db, err, db->opts.syms_from == KSYM_SYMS_ITER, &db->iter_warned,
			      "cannot read the kernel's symbols through the ksym BPF iterator",
			      "ksym BPF iterator", db->iter_err, "reading /proc/kallsyms");
}

/* Read + parse of one file, timed by the loader. */
static int load_file_only(struct ksym_db *db, enum ksym_format fmt, const char *path,
			  bool text_only, bool index, const struct ksym_parse_opts *filter,
			  struct ksym_table **out)
{
	struct ksym_parse_stats st = {};
	struct ksym_parse_opts po = { .sz = sizeof(po), .stats = &st, .text_only = text_only,
				      .index = index, .stop = db->opts.stop };
	int err;

	if (filter) {
		po.prefixes = filter->prefixes;
		po.prefix_cnt = filter->prefix_cnt;
		po.names = filter->names;
		po.name_cnt = filter->name_cnt;
	}
	if (fmt == KSYM_FMT_KALLSYMS && !strcmp(path, "/proc/kallsyms")) {
		err = load_kmem(db, &po, out);
		if (err != -EAGAIN)
			return err;
		err = load_iter(db, &po, out);
		if (err != -EAGAIN)
			return err;
	}
	/* read and parsed at once (a second thread reads what the kernel generates) */
	*out = ksym_table__load(fmt, path, &po);
	db->phase_ns[KSYM_PH_READ] += st.read_ns;
	db->phase_ns[KSYM_PH_PARSE] += st.parse_ns;
	if (!*out) {
		err = -errno;
		/* the live file's zeros have a cause here; a captured one's, at capture */
		if (st.all_zero && strncmp(path, "/proc/", 6))
			return fail(db, EPERM, "%s shows only zero addresses: captured without "
				    "CAP_SYSLOG (run as root) or under kernel.kptr_restrict=2", path);
		if (st.all_zero && !ksym__capable(CAP_SYSLOG))
			return fail(db, EPERM, "%s shows only zero addresses: CAP_SYSLOG is missing "
				    "(run as root; kernel.kptr_restrict shows addresses only with it)",
				    path);
		if (st.all_zero)
			return fail(db, EPERM, "%s shows only zero addresses, even with CAP_SYSLOG: "
				    "kernel.kptr_restrict=2 hides them from everyone (and the ksym "
				    "BPF iterator, which sees them: %s)", path,
				    db->iter_err[0] ? db->iter_err : "not tried");
		if (err == -EINTR)
			return fail(db, EINTR, "interrupted while reading %s", path);
		if (err == -EFBIG)
			return fail(db, EFBIG, "%s: larger than %u MiB (no kernel's is): not a "
				    "symbol file, or one that never ends", path, KSYM_INPUT_MAX >> 20);
		if (err == -ENOMEM || err == -E2BIG)
			return fail(db, -err, "cannot parse %s: %s", path, strerror(-err));
		return fail(db, -err, "cannot read %s: %s%s", path, strerror(-err),
			    err != -EACCES && err != -EPERM ? "" :
			    geteuid() ? " (run as root)" : root_refused());
	}
	/* a symbol table without one symbol line is the wrong file, not an empty table */
	if (!st.symbols && !st.skipped &&
	    (fmt == KSYM_FMT_KALLSYMS || fmt == KSYM_FMT_SYSTEM_MAP)) {
		ksym_table__free(*out);
		*out = NULL;
		return fail(db, ENODATA, "%s: no symbols in it%s", path,
			    st.malformed ? " (only malformed lines)" : "");
	}
	if (st.malformed) {
		char lines[64] = "";
		size_t i, off = 0;

		for (i = 0; i < st.malformed && i < KSYM_MAX_BAD_LINES; i++)
			off += snprintf(lines + off, sizeof(lines) - off, "%s%zu", i ? ", " : "",
					st.bad_line[i]);
		warn(db, "%s: %zu malformed lines skipped (line %s%s)", path, st.malformed, lines,
		     st.malformed > KSYM_MAX_BAD_LINES ? ", ..." : "");
	}
	return 0;
}

static int load_file(struct ksym_db *db, enum ksym_format fmt, const char *path, bool text_only,
		     bool index, struct ksym_table **out)
{
	return load_file_only(db, fmt, path, text_only, index, NULL, out);
}

/*
 * /proc/modules' text ("" where there is none), for the cache key and the
 * layout: one read of it took 47 ms at a real boot (a 2026-12-01 profile).
 */
static const char *db_modules(struct ksym_db *db)
{
	size_t len;

	if (!db->modules && ksym__read_file("/proc/modules", &db->modules, &len))
		db->modules = strdup("");
	return db->modules;
}

/* The file dir/name as found before a load: a bad one is removed after it. */
static void cache_stat(const char *dir, const char *name, struct stat *st)
{
	char path[600];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (lstat(path, st))
		memset(st, 0, sizeof(*st));
}

/*
 * A damaged, foreign or unsafe cache file is removed: a run keeps only what
 * it read, so no later run might replace it, and each would warn again. Not
 * one a writer has put in its place since (a rename: another inode).
 */
static void cache_remove(const char *dir, const char *name, const struct stat *was)
{
	char path[600];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (was->st_ino && !lstat(path, &st) && st.st_dev == was->st_dev &&
	    st.st_ino == was->st_ino)
		unlink(path);
}

/* Cache lookup, timed as reading; a bad file is reported and removed. */
static struct ksym_table *cache_get(struct ksym_db *db, const char *name, const char *source,
				    struct ksym_cache_key *key)
{
	uint64_t t0 = ksym_now_ns();
	struct ksym_table *t = NULL;
	struct stat was;

	if (db->opts.no_cache)
		return NULL;
	if (db->key_err == 1)
		db->key_err = ksym_cache__live_key_from(&db->key, "", db_modules(db));
	if (db->key_err)
		return NULL;
	*key = db->key;
	snprintf(key->source, sizeof(key->source), "%s", source);
	/* the key still serves the build cache's writing */
	if (db->opts.no_run_cache)
		return NULL;
	cache_stat(db->opts.cache_dir, name, &was);
	t = ksym_cache__load(db->opts.cache_dir, name, key);
	db->phase_ns[KSYM_PH_READ] += ksym_now_ns() - t0;
	if (t)
		return t;
	if (errno == EBADMSG || errno == EPERM) {
		warn(db, "ignoring cache %s/%s: %s; removed", db->opts.cache_dir, name,
		     errno == EPERM ? "not a private root-owned file" : "corrupt or truncated");
		cache_remove(db->opts.cache_dir, name, &was);
	} else if (errno == ESTALE && db->opts.verbose) {
		note(db, "cache %s/%s is not for %s (another boot or source, or modules changed)",
		     db->opts.cache_dir, name, source);
	}
	return NULL;
}

/* Remembered, not written: storing is no part of the caller's critical path. */
static void cache_put(struct ksym_db *db, const char *name, const struct ksym_cache_key *key,
		      const struct ksym_table *t, bool checked, bool partial)
{
	if (db->opts.no_cache || !key->boot_id[0] ||
	    db->pending_cnt == (int)(sizeof(db->pending) / sizeof(db->pending[0])))
		return;
	db->pending[db->pending_cnt].name = name;
	db->pending[db->pending_cnt].t = t;
	db->pending[db->pending_cnt].key = *key;
	db->pending[db->pending_cnt].checked = checked;
	db->pending[db->pending_cnt].partial = partial;
	db->pending[db->pending_cnt].subset = false;
	db->pending_cnt++;
}

/* The key of what the patterns matched in a table of key's */
static void match_key(const struct ksym_db *db, const struct ksym_cache_key *key,
		      struct ksym_cache_key *mk)
{
	*mk = *key;
	snprintf(mk->source, sizeof(mk->source), "%.40s match %s", key->source, db->match_hash);
}

/* Only what the patterns match of t (a whole table: a "funcs" put stores it too). */
static void match_put(struct ksym_db *db, const struct ksym_cache_key *key,
		      const struct ksym_table *t, bool checked)
{
	struct ksym_cache_key mk;

	if (!db->match_hash[0])
		return;
	match_key(db, key, &mk);
	cache_put(db, db->run_match, &mk, t, checked, false);
	if (db->pending_cnt && db->pending[db->pending_cnt - 1].name == db->run_match)
		db->pending[db->pending_cnt - 1].subset = true;
}

/*
 * /run's table from source: what these patterns matched, where a run with
 * them kept it, else the whole one (and what they match in it is kept).
 */
static struct ksym_table *funcs_cache_get(struct ksym_db *db, const char *source,
					  struct ksym_cache_key *key)
{
	struct ksym_cache_key mk;
	struct ksym_table *t;
	char src[64];

	if (db->match_hash[0]) {
		snprintf(src, sizeof(src), "%.40s match %s", source, db->match_hash);
		t = cache_get(db, db->run_match, src, &mk);
		if (t) {
			char path[600];

			db->match_hit = true;
			*key = mk;
			/* used: the newest sets are kept, by use */
			snprintf(path, sizeof(path), "%s/%s", db->opts.cache_dir, db->run_match);
			utimensat(AT_FDCWD, path, NULL, 0);
			if (db->opts.verbose)
				warn(db, "symbols from %s/%s: what these patterns matched before",
				     db->opts.cache_dir, db->run_match);
			return t;
		}
	}
	t = cache_get(db, "funcs", source, key);
	if (t)
		match_put(db, key, t, false);
	return t;
}

/*
 * The candidates kcore confirms, at their ftrace locations, as a table like
 * tracefs' _addrs list: a later run needs neither kallsyms nor kcore.
 */
static int checked_table(struct ksym_db *db, const struct ksym_table *cand,
			 struct ksym_table **out)
{
	size_t i, n = ksym_table__cnt(cand), cap = n * 48 + 1, len = 0, need;
	struct ksym_site_check c = db->check;
	char *buf = malloc(cap);
	struct ksym s;
	uint64_t loc;
	int err = 0;

	if (!buf)
		return -ENOMEM;
	/* call targets are looked up in cand: every symbol, where a pattern's share was read */
	c.syms = cand;
	for (i = 0; i < n && !err; i++) {
		if (db->opts.stop && *db->opts.stop) {
			err = -EINTR;
			break;
		}
		ksym_table__at(cand, i, &s);
		err = site_loc(db, &c, &s, &loc);
		if (err <= 0)
			continue;
		err = 0;
		need = strlen(s.name) + (s.module ? strlen(s.module) : 0) + 24;
		while (cap - len < need) {
			char *nb = realloc(buf, cap * 2);

			if (!nb) {
				free(buf);
				return -ENOMEM;
			}
			buf = nb;
			cap *= 2;
		}
		len += sprintf(buf + len, "%" PRIx64 " %s%s%s%s\n", loc, s.name,
			       s.module ? " [" : "", s.module ? s.module : "", s.module ? "]" : "");
	}
	db->check.flux_waits = c.flux_waits;
	if (!err && !len)
		err = -ENODATA;	/* nothing confirmed: no cache rather than an empty one */
	if (err) {
		free(buf);
		return err;
	}
	*out = ksym_table__parse(KSYM_FMT_FUNCS_ADDRS, buf, len, NULL);
	return *out ? 0 : -errno;
}

static int find_tracefs(struct ksym_db *db);

/*
 * A whole checked table left with only the sites tracefs lists, where it
 * lists addresses (Linux >= 6.5): the kcore check's look-alikes (a NOP of
 * another kind at a function's entry) each cost a link, as ksym_plan.c
 * says, and a cache keeps them for every later run. Without that list, *t as
 * it is.
 */
static void exact_sites(struct ksym_db *db, struct ksym_table **t)
{
	struct ksym_parse_opts po = { .sz = sizeof(po), .stop = db->opts.stop };
	size_t i, n = ksym_table__cnt(*t);
	struct ksym_table *ft, *sel;
	uint8_t *marks;
	char path[160];
	struct ksym s, f;

	if (!db->tracefs[0] && find_tracefs(db))
		return;
	snprintf(path, sizeof(path), "%s/available_filter_functions_addrs", db->tracefs);
	if (access(path, R_OK))
		return;
	ft = ksym_table__load(KSYM_FMT_FUNCS_ADDRS, path, &po);
	marks = calloc(n / 8 + 1, 1);
	if (!ft || !marks) {
		ksym_table__free(ft);
		free(marks);
		return;
	}
	for (i = 0; i < n; i++) {
		ksym_table__at(*t, i, &s);
		if (!ksym_table__addr(ft, s.addr, &f) && f.addr == s.addr)
			marks[i / 8] |= 1u << (i % 8);
	}
	sel = ksym_table__select(*t, marks);
	if (sel) {
		ksym_table__free(*t);
		*t = sel;
	}
	ksym_table__free(ft);
	free(marks);
}

static bool live_kallsyms(const struct ksym_db *db);
static void build_match_store(struct ksym_db *db, const struct ksym_table *t,
			      const struct ksym_layout *l, const uint64_t anchors[KSYM_ANCHOR_CNT],
			      bool share);
static void build_store(struct ksym_db *db, const struct ksym_table *checked,
			const uint64_t anchors[KSYM_ANCHOR_CNT], uint64_t modules_hash, bool share);
static void find_anchors(const struct ksym_table *t, uint64_t a[KSYM_ANCHOR_CNT]);
static int live_anchors(struct ksym_db *db, uint64_t a[KSYM_ANCHOR_CNT]);

/*
 * The whole table from tracefs' list of sites, read live where kcore is open
 * (as ksym_plan.c orders it): exact, and a build cache for the next boots once it
 * has the anchors the list lacks.
 */
static bool sites_whole(const struct ksym_db *db, int i)
{
	return db->kcore && db->tier == KSYM_TIER_LIVE && !db->pending[i].checked &&
	       !db->pending[i].partial && !db->pending[i].subset && !db->opts.kcore_path &&
	       !strcmp(db->pending[i].name, "funcs") && !db->opts.funcs_addrs_path &&
	       (db->origin == KSYM_ORIG_ADDRS || db->origin == KSYM_ORIG_FTRACE);
}

/*
 * Pending entry i's table t into /run: what the patterns match of it where
 * that was asked or t is their share; a whole FUNCS table, and then that too.
 */
static int store_run(struct ksym_db *db, int i, const struct ksym_table *t, const char **name)
{
	bool share = db->pending[i].partial, whole = !db->pending[i].subset && !share;
	struct ksym_cache_key mk;
	struct ksym_table *sub;
	int err = 0;

	*name = db->pending[i].name;
	if (whole)
		err = ksym_cache__store(db->opts.cache_dir, db->pending[i].name,
					&db->pending[i].key, t);
	if (err || !db->match_hash[0] || (whole && strcmp(db->pending[i].name, "funcs")))
		return err;
	*name = db->run_match;
	sub = pattern_subset(db, t, share);
	if (!sub)
		return -errno;	/* (0: not worth a file) */
	if (db->pending[i].subset)
		mk = db->pending[i].key;
	else
		match_key(db, &db->pending[i].key, &mk);
	err = ksym_cache__store(db->opts.cache_dir, db->run_match, &mk, sub);
	ksym_table__free(sub);
	if (!err)
		ksym_prune_newest(db->opts.cache_dir, "funcs-", KSYM_MATCH_CACHE_KEEP);
	return err;
}

void ksym_db__flush(struct ksym_db *db)
{
	bool rebased = db->tier == KSYM_TIER_BUILD;
	struct ksym_cache_key now;
	uint64_t t0 = ksym_now_ns();
	const char *name;
	int i, err;

	/* a boot's first run measured on a later one: the build cache is all it is
	 * about; a build cache found wrong: nothing from it is worth keeping */
	if (rebased && (db->opts.no_run_cache || db->rebase_bad || db->layout.bases_hidden))
		db->pending_cnt = 0;	/* (hidden module bases: its modules are unresolved) */
	/* modules loaded or unloaded since: what was read may no longer hold */
	if (db->pending_cnt && (ksym_cache__live_key(&now, "") ||
				now.modules_hash != db->pending[0].key.modules_hash)) {
		if (db->opts.verbose)
			warn(db, "modules changed while running: symbol cache not written");
		db->pending_cnt = 0;
	}
	for (i = 0; i < db->pending_cnt; i++) {
		const struct ksym_table *from = db->pending[i].t;
		uint64_t anchors[KSYM_ANCHOR_CNT];
		struct ksym_table *c = NULL;

		/* (the records' names came with the anchors: no read for them) */
		if (sites_whole(db, i) && db->origin == KSYM_ORIG_FTRACE)
			build_store(db, from, db->anchors, db->pending[i].key.modules_hash, false);
		else if (sites_whole(db, i) && !live_anchors(db, anchors))
			build_store(db, from, anchors, db->pending[i].key.modules_hash, false);
		if (db->pending[i].checked) {
			err = checked_table(db, from, &c);
			if (!err && !db->pending[i].partial && !rebased && !db->opts.kcore_path)
				exact_sites(db, &c);
			/* a function not where the build cache said: no cache from it */
			if (rebased && db->rebase_bad)
				err = -ESTALE;
			/* (a share has the anchors: the filter keeps the names the check
			 * looks up) */
			if (!err && !rebased && live_kallsyms(db) && !db->opts.kcore_path) {
				find_anchors(from, anchors);
				build_store(db, c, anchors, db->pending[i].key.modules_hash,
					    db->pending[i].partial);
			}
			if (!err && rebased && db->live_merged && !db->match_stored) {
				build_match_store(db, c, &db->layout, db->anchors, false);
				db->match_stored = true;
			}
			if (err) {
				ksym_table__free(c);
				continue;
			}
		}
		name = db->pending[i].name;
		err = db->opts.no_run_cache ? 0 : store_run(db, i, c ? c : from, &name);
		ksym_table__free(c);
		/* root's cache that cannot be written (/run full, read-only) is worth a
		 * word; a user's run is not expected to write root's */
		if (err && (db->opts.verbose || !geteuid()))
			warn(db, "cannot write cache %s/%s: %s; the run goes on without it",
			     db->opts.cache_dir, name, strerror(-err));
	}
	/*
	 * The whole build cache used and right so far: what the patterns matched
	 * in it, for the next boot (sites as the file has them, each checked again
	 * when used); with modules read live, from the checked table above.
	 */
	if (rebased && !db->match_hit && !db->rebase_bad && !db->layout.bases_hidden &&
	    !db->opts.no_cache && !db->live_merged && !db->match_stored) {
		build_match_store(db, db->funcs, &db->layout, db->anchors, false);
		db->match_stored = true;
	}
	if (db->pending_cnt)
		db->phase_ns[KSYM_PH_STORE] += ksym_now_ns() - t0;
	db->pending_cnt = 0;
}

static bool live_kallsyms(const struct ksym_db *db)
{
	return !db->opts.kallsyms_path && !db->opts.system_map_path && !db->opts.vmlinux_path;
}

/* Where the symbols come from: the files in this order of precedence, else the live file. */
static const char *kallsyms_source(const struct ksym_db *db)
{
	const struct ksym_db_opts *o = &db->opts;

	return o->system_map_path ? o->system_map_path :
	       o->vmlinux_path	  ? o->vmlinux_path :
	       o->kallsyms_path	  ? o->kallsyms_path :
				    "/proc/kallsyms";
}

/* Every symbol, or text only when it is just for the join. */
static int load_kallsyms(struct ksym_db *db, bool text_only)
{
	const struct ksym_db_opts *o = &db->opts;
	const char *path = kallsyms_source(db);
	struct ksym_cache_key key = {};
	uint64_t t0;
	int err;

	if (db->kallsyms)
		return 0;
	if (path == o->system_map_path)
		return load_file(db, KSYM_FMT_SYSTEM_MAP, path, text_only, true, &db->kallsyms);
	if (path == o->vmlinux_path) {
		struct ksym_parse_opts po = { .sz = sizeof(po), .text_only = text_only };

		t0 = ksym_now_ns();
		db->kallsyms = ksym_table__load_elf(o->vmlinux_path, &po);
		db->phase_ns[KSYM_PH_PARSE] += ksym_now_ns() - t0;
		if (!db->kallsyms)
			return fail(db, errno, "cannot load symbols from %s: %s", o->vmlinux_path,
				    errno == ENODATA ? "no symbol table (stripped)" :
				    errno == ENOEXEC ? "not an ELF file" : strerror(errno));
		return 0;
	}
	if (path == o->kallsyms_path)
		return load_file(db, KSYM_FMT_KALLSYMS, path, text_only, true, &db->kallsyms);
	if (!text_only) {
		db->kallsyms = cache_get(db, "kallsyms", "/proc/kallsyms", &key);
		if (db->kallsyms) {
			db->cached |= KSYM_DB_KALLSYMS;
			return 0;
		}
	}
	err = load_file(db, KSYM_FMT_KALLSYMS, "/proc/kallsyms", text_only, true, &db->kallsyms);
	if (err)
		return err;
	if (!text_only)
		cache_put(db, "kallsyms", &key, db->kallsyms, false, false);
	return 0;
}

/*
 * tracefs: its own mount, or under debugfs on older setups. -EACCES (the
 * directory in tracefs_denied) or -ENOENT; refuse() words them.
 */
static int find_tracefs(struct ksym_db *db)
{
	static const char *const dirs[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	char path[128];
	size_t i;

	if (db->opts.tracefs_path) {
		snprintf(db->tracefs, sizeof(db->tracefs), "%s", db->opts.tracefs_path);
		return 0;
	}
	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s/available_filter_functions", dirs[i]);
		if (access(path, F_OK) == 0) {
			snprintf(db->tracefs, sizeof(db->tracefs), "%s", dirs[i]);
			return 0;
		}
		/* tracefs is mode 0700: an unprivileged user cannot even look */
		if (errno == EACCES) {
			db->tracefs_denied = dirs[i];
			return -EACCES;
		}
	}
	return -ENOENT;
}

/* The names-only list joined with kallsyms text symbols. */
static int join_funcs(struct ksym_db *db, const char *funcs_path)
{
	uint64_t t0;
	int err, left;

	err = load_file(db, KSYM_FMT_FUNCS, funcs_path, false, true, &db->funcs);
	if (!err)
		err = load_kallsyms(db, !(db->opts.need & KSYM_DB_KALLSYMS));
	if (err)
		return err;
	t0 = ksym_now_ns();
	left = ksym_table__resolve(db->funcs, db->kallsyms);
	db->phase_ns[KSYM_PH_INDEX] += ksym_now_ns() - t0;
	if (left < 0)
		return fail(db, left, "cannot index symbols: %s", strerror(-left));
	if (left && db->opts.verbose)
		warn(db, "%d traceable functions not in kallsyms, left out", left);
	return 0;
}

/* No readable function list: kallsyms text symbols, traceability unknown. */
static int fallback_funcs(struct ksym_db *db, const char *why)
{
	char reason[sizeof(db->err)];
	int err;

	snprintf(reason, sizeof(reason), "%s", why);
	err = load_kallsyms(db, !(db->opts.need & KSYM_DB_KALLSYMS));
	if (err)
		return err;
	warn(db, "%s; using %s text symbols, traceability unknown", reason, kallsyms_source(db));
	db->err[0] = '\0';
	db->funcs = db->kallsyms;
	set_from(db, KSYM_ORIG_UNKNOWN, KSYM_TIER_LIVE);
	return 0;
}

/*
 * What the patterns can match: exact names for those without wildcards, name
 * prefixes for the others (nothing at all: anything), plus the symbols the
 * kcore check itself looks up: text bounds and trampolines.
 */
static int make_filter(struct ksym_db *db)
{
	static const char *const own[] = { "_stext", "_etext", "_sinittext", "_einittext",
					   "ftrace_", "bpf_trampoline_" };
	const size_t n_own = sizeof(own) / sizeof(own[0]);
	size_t i, n = db->opts.pattern_cnt, globs = 0;

	for (i = 0; i < n; i++) {
		const char *g = db->opts.patterns[i], *colon = strchr(g, ':');

		g = colon ? colon + 1 : g;
		if (!g[strcspn(g, "*?[")])
			continue;
		/* a leading wildcard: no prefix to go by */
		if (!strcspn(g, "*?["))
			return 0;
		globs++;
	}
	/* past a few dozen prefixes, filtering costs more per line than it saves */
	if (!n || globs > 64)
		return 0;
	db->prefixes = calloc(globs + n_own, sizeof(*db->prefixes));
	db->names = calloc(n - globs + 1, sizeof(*db->names));
	if (!db->prefixes || !db->names)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const char *p = db->opts.patterns[i], *colon = strchr(p, ':');
		const char *g = colon ? colon + 1 : p;
		size_t len = strcspn(g, "*?[");

		if (!g[len]) {
			db->names[db->name_cnt++] = p;
			continue;
		}
		db->prefixes[db->own_prefixes] = strndup(g, len);
		if (!db->prefixes[db->own_prefixes])
			return -ENOMEM;
		db->own_prefixes++;
	}
	for (i = 0; i < n_own; i++)
		db->prefixes[globs + i] = (char *)own[i];
	db->prefix_cnt = globs + n_own;
	return 0;
}

/* Made once (the build cache's live modules may ask first), its error kept. */
static int pattern_filter(struct ksym_db *db)
{
	if (!db->filter_made) {
		db->filter_made = true;
		db->filter_err = make_filter(db);
	}
	return db->filter_err;
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
 * tables (ksym_modlive.c), filtered by the patterns, joined to *t. Only what
 * the patterns can match is read: the /run cache, which later runs take for
 * the whole table, is then not written.
 */
static int live_modules(struct ksym_db *db, struct ksym_table **t, struct ksym_layout *l)
{
	struct ksym_parse_opts filter = { .text_only = true };
	struct ksym_table *extra, *all;
	struct ksym_feed *f;
	size_t i;
	int err;

	if (!l->mod_btf_known)
		return -EOPNOTSUPP;
	err = pattern_filter(db);
	if (err)
		return err;
	filter.prefixes = db->prefix_cnt ? (const char *const *)db->prefixes : NULL;
	filter.prefix_cnt = db->prefix_cnt;
	filter.names = db->name_cnt ? db->names : NULL;
	filter.name_cnt = db->name_cnt;
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
				warn(db, "module %s is still loading: left out", l->mods[i].name);
			err = 0;
		}
	}
	extra = ksym_feed__end(f, err);
	if (!extra)
		return -errno;
	db->live_partial = db->prefix_cnt || db->name_cnt;
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
	int err;

	if (db->opts.no_cache || db->opts.no_build_cache ||
	    ksym_layout__live_from(&l, db->kcore, db_modules(db))) {
		db->phase_ns[KSYM_PH_READ] += ksym_now_ns() - t0;
		return -ENOENT;
	}
	/* what these patterns matched at an earlier boot, if a run kept it */
	t = NULL;
	if (db->match_hash[0]) {
		build_match_name(db, &l, db->build_file, sizeof(db->build_file));
		cache_stat(db->opts.build_cache_dir, db->build_file, &was);
		t = ksym_build__load_as(db->opts.build_cache_dir, db->build_file, &l, db->anchors,
					&unknown, names, sizeof(names));
		if (!t && (errno == EBADMSG || errno == EPERM)) {
			warn(db, "ignoring build cache %s/%s: %s; using the whole one",
			     db->opts.build_cache_dir, db->build_file, errno == EPERM ?
			     "not a private root-owned file" : "corrupt or truncated");
			cache_remove(db->opts.build_cache_dir, db->build_file, &was);
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
		cache_stat(db->opts.build_cache_dir, whole, &was);
		t = ksym_build__load(db->opts.build_cache_dir, &l, db->anchors, &unknown, names,
				     sizeof(names));
	}
	db->phase_ns[KSYM_PH_READ] += ksym_now_ns() - t0;
	build_path(db, &l, path, sizeof(path));
	if (!t) {
		err = errno;
		if ((err == EBADMSG || err == EPERM) && (!db->opts.cache_only || db->opts.verbose))
			warn(db, "ignoring build cache %s: %s; removed", path,
			     err == EPERM ? "not a private root-owned file" : "corrupt or truncated");
		else if (err == ESTALE && db->opts.verbose)
			warn(db, "build cache %s is another build's; removed", path);
		if (err == EBADMSG || err == EPERM || err == ESTALE)
			cache_remove(db->opts.build_cache_dir, whole, &was);
		ksym_layout__free(&l);
		return -ENOENT;
	}
	if (l.bases_hidden && hidden_match(db, t, &l)) {
		if (db->opts.verbose)
			warn(db, "build cache %s: module addresses hidden (kernel.kptr_restrict=2) "
			     "and the patterns match module functions; reading the kernel's symbols",
			     path);
		ksym_table__free(t);
		ksym_layout__free(&l);
		db->build_file[0] = '\0';
		return -ENOENT;
	}
	/* completion answers at once and quietly: the names the file knows */
	if (unknown && !db->opts.cache_only) {
		err = live_modules(db, &t, &l);
		if (err) {
			/* once: this run's cache will know them */
			warn(db, "build cache %s: %zu loaded module%s not in it (%s) and not "
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
			warn(db, "build cache %s: %zu loaded module%s not in it (%s): read from "
			     "kernel memory", path, unknown, unknown == 1 ? "" : "s", names);
	}
	db->funcs = t;
	set_from(db, KSYM_ORIG_KCORE, KSYM_TIER_BUILD);
	db->match_hit = db->build_file[0] != '\0';
	if (db->match_hit && db->opts.verbose)
		warn(db, "symbols from build cache %s: what these patterns matched before", path);
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
	if (db->match_hit) {
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

static void find_anchors(const struct ksym_table *t, uint64_t a[KSYM_ANCHOR_CNT])
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
static int live_anchors(struct ksym_db *db, uint64_t a[KSYM_ANCHOR_CNT])
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
	find_anchors(t, a);
	ksym_table__free(t);
	return a[KSYM_ANCHOR_STEXT] && a[KSYM_ANCHOR_ETEXT] ? 0 : -ENOENT;
}

/*
 * What the patterns match of t, for the next boots of l's build that ask the
 * same (share: t is what was read of the table for them).
 */
static void build_match_store(struct ksym_db *db, const struct ksym_table *t,
			      const struct ksym_layout *l, const uint64_t anchors[KSYM_ANCHOR_CNT],
			      bool share)
{
	struct ksym_table *sub;
	char name[100], build[64];

	if (!db->match_hash[0])
		return;
	sub = pattern_subset(db, t, share);
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
static void build_store(struct ksym_db *db, const struct ksym_table *checked,
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
		build_match_store(db, checked, &l, anchors, true);
		ksym_layout__free(&l);
		return;
	}
	/* for the boots that find a module the file does not know (ksym_modlive.c) */
	l.mod_btf_known = !ksym_modlive__btf(&l.mod_btf);
	err = ksym_build__store(db->opts.build_cache_dir, &l, checked, anchors, "kallsyms+kcore");
	ksym_build__name(&l, name, sizeof(name));
	if (!err)
		ksym_build__prune(db->opts.build_cache_dir, name, KSYM_BUILD_CACHE_KEEP);
	if (!err)
		build_match_store(db, checked, &l, anchors, false);
	else if (err == -EAGAIN || err == -EPERM ? db->opts.verbose : db->opts.verbose || !geteuid())
		warn(db, "cannot write build cache %s/%s: %s; the next boot's first run is cold",
		     db->opts.build_cache_dir, name, err == -EAGAIN ?
		     "a module is still loading, or a loaded one's build ID is unreadable (/sys/module hidden?)" :
		     err == -EPERM ? "module addresses are hidden (kernel.kptr_restrict=2)" :
		     strerror(-err));
	ksym_layout__free(&l);
}

/* A glob over vmlinux with no prefix (or no pattern): the whole table; not mod:*. */
static bool whole_patterns(const struct ksym_db *db)
{
	bool all = !db->opts.pattern_cnt;
	size_t i;

	for (i = 0; i < db->opts.pattern_cnt && !all; i++)
		all = !strchr(db->opts.patterns[i], ':') && !strcspn(db->opts.patterns[i], "*?[");
	return all;
}

/* What the plan goes by: the options, and a look at tracefs (no table read). */
static void plan_in(struct ksym_db *db, struct ksym_plan_in *in)
{
	const struct ksym_db_opts *o = &db->opts;
	char path[160];

	memset(in, 0, sizeof(*in));
	in->funcs_from = o->funcs_from;
	in->cache_only = o->cache_only;
	in->addrs_file = o->funcs_addrs_path;
	in->names_file = o->funcs_path;
	in->live_syms = live_kallsyms(db);
	in->kallsyms_file = o->kallsyms_path && !o->system_map_path && !o->vmlinux_path;
	in->kcore_file = o->kcore_path;
	in->need_kallsyms = o->need & KSYM_DB_KALLSYMS;
	in->whole = whole_patterns(db);
	in->allow_unknown = o->allow_unknown_traceability;
	in->no_cache = o->no_cache;
	in->no_build_cache = o->no_build_cache;
	in->tracefs = !find_tracefs(db);
	in->tracefs_denied = db->tracefs_denied;
	if (in->tracefs) {
		snprintf(path, sizeof(path), "%s/available_filter_functions_addrs", db->tracefs);
		in->tracefs_addrs = !access(path, F_OK);
	}
}

/* The error a plan's refusal stands for (db->err: the unknown step's reason). */
static int refuse(struct ksym_db *db, enum ksym_refusal r)
{
	switch (r) {
	case KSYM_REFUSE_FTRACE_FILES:
		return fail(db, EINVAL, "ftrace's records are read from the running kernel only");
	case KSYM_REFUSE_KCORE_PAIR:
		return fail(db, EINVAL, "traceability from kcore needs the live /proc/kallsyms%s",
			    db->opts.kcore_path ? ", or a kallsyms file with the core file" : "");
	case KSYM_REFUSE_NO_LIST:
		return fail(db, EINVAL, "no function list given for %s (--funcs-addrs, --funcs)",
			    kallsyms_source(db));
	case KSYM_REFUSE_TRACEFS:
		/* tracefs is mode 0700: an unprivileged user cannot even look */
		if (db->tracefs_denied)
			return fail(db, EACCES, "cannot access %s: Permission denied (run as root)",
				    db->tracefs_denied);
		return fail(db, ENOENT,
			    "tracefs is not mounted: mount -t tracefs nodev /sys/kernel/tracing");
	case KSYM_REFUSE_NO_CACHE:
		return fail(db, ENOENT, "no symbol cache for this boot in %s", db->opts.cache_dir);
	default:
		return fail(db, EINVAL, "no source of traceable functions");
	}
}

/* The put of what a step read into /run's "funcs", under its origin's label. */
static void funcs_put(struct ksym_db *db, enum ksym_origin o, const struct ksym_table *t,
		      bool checked, bool partial)
{
	struct ksym_cache_key k = db->funcs_key;

	if (!k.boot_id[0])
		return;	/* no cache lookup before it: no cache for it */
	snprintf(k.source, sizeof(k.source), "%s", ksym_origin__label(o));
	cache_put(db, "funcs", &k, t, checked, partial);
}

/*
 * /proc/kcore (or the core file), opened by the first step that needs it.
 * -EAGAIN: unreadable, and the plan has other sources.
 */
static int open_kcore(struct ksym_db *db, const struct ksym_load_plan *plan)
{
	const char *path = db->opts.kcore_path ? db->opts.kcore_path : "/proc/kcore";
	bool denied, no_cap;
	uint64_t t0;
	int err;

	if (db->kcore)
		return 0;
	if (db->kcore_err)
		return -EAGAIN;
	t0 = ksym_now_ns();
	db->kcore = ksym_kcore__open(db->opts.kcore_path);
	db->phase_ns[KSYM_PH_READ] += ksym_now_ns() - t0;
	if (db->kcore) {
		db->check.kcore = db->kcore;
		return 0;
	}
	err = db->kcore_err = errno;
	denied = err == EACCES || err == EPERM;
	no_cap = denied && !ksym__capable(CAP_SYS_RAWIO);
	if (plan->kcore_required)
		return fail(db, err, "cannot read %s: %s%s", path, strerror(err),
			    !denied ? "" : geteuid() ? " (run as root)" :
			    no_cap ? " (CAP_SYS_RAWIO is missing)" : root_refused());
	/* completion answers quietly; elsewhere a capability left out is worth a word */
	if (!db->opts.cache_only && (db->opts.verbose || (no_cap && !geteuid())))
		warn(db, "cannot read /proc/kcore: %s%s; using tracefs' function lists",
		     strerror(err), !denied || geteuid() ? "" :
		     no_cap ? " (CAP_SYS_RAWIO is missing)" : root_refused());
	return -EAGAIN;
}

/* /run's table from the first of the origins a run left one of. */
static int run_cache_step(struct ksym_db *db, unsigned int origins)
{
	int o;

	for (o = 0; o < KSYM_ORIG_CNT; o++) {
		if (!(origins & 1u << o))
			continue;
		db->funcs = funcs_cache_get(db, ksym_origin__label(o), &db->funcs_key);
		if (db->funcs) {
			db->cached |= KSYM_DB_FUNCS;
			set_from(db, o, KSYM_TIER_RUN);
			return 0;
		}
	}
	return -EAGAIN;
}

static int build_step(struct ksym_db *db)
{
	if (build_funcs(db))
		return -EAGAIN;
	/* completion answers at once: nothing checked, nothing written */
	if (db->opts.cache_only) {
		db->cached |= KSYM_DB_FUNCS;
		return 0;
	}
	/* the whole table's put keeps what the patterns match too */
	if (!db->live_partial && !db->match_hit) {
		funcs_put(db, KSYM_ORIG_KCORE, db->funcs, true, false);
	} else if (db->funcs_key.boot_id[0]) {
		struct ksym_cache_key k = db->funcs_key;

		snprintf(k.source, sizeof(k.source), "%s", ksym_origin__label(KSYM_ORIG_KCORE));
		match_put(db, &k, db->funcs, true);
	}
	return 0;
}

static const char *ftrace_error(int err)
{
	switch (err) {
	case ENODATA:
		return "this kernel has no ftrace records (no ftrace_pages_start: no dynamic ftrace)";
	case ENOEXEC:
		return "no vmlinux BTF (/sys/kernel/btf/vmlinux) with struct ftrace_page and "
		       "struct dyn_ftrace as known here, or struct module laid out unlike the "
		       "kernels known";
	case ESTALE:
		return "a module came or went while ftrace's records were read";
	default:
		return kmem_error(err);
	}
}

/*
 * The whole table as tracefs' list of sites has it, from ftrace's records
 * and the kernel's symbol table in memory (ksym_ftrace.c): the list without
 * the kernel naming each record (430-505 ms of a cold -p '*' in the TCG
 * guest). The anchors come with the names. -EAGAIN: the next source's turn.
 */
static int ftrace_step(struct ksym_db *db, bool asked)
{
	struct ksym_parse_stats st = {};
	struct ksym_parse_opts po = { .sz = sizeof(po), .stats = &st, .index = true,
				      .stop = db->opts.stop };
	struct ksym_table *syms;
	int err;

	db->funcs = ksym_ftrace__load(db->kcore, &po, &syms);
	db->phase_ns[KSYM_PH_READ] += st.read_ns;
	if (!db->funcs) {
		err = errno;
		return source_refused(db, err, asked, &db->ftrace_warned,
				      "cannot read ftrace's records from memory",
				      "ftrace's records in memory", ftrace_error(err),
				      "the next source");
	}
	find_anchors(syms, db->anchors);
	ksym_table__free(syms);
	set_from(db, KSYM_ORIG_FTRACE, KSYM_TIER_LIVE);
	funcs_put(db, KSYM_ORIG_FTRACE, db->funcs, false, false);
	return 0;
}

/*
 * kallsyms' text symbols as candidates, each checked through kcore when asked
 * for (ksym_db__ftrace_loc): as far as the patterns go, or every symbol where
 * the caller wants them all anyway (one table serves both).
 */
static int candidates_step(struct ksym_db *db, bool all)
{
	int err;

	if (all) {
		err = load_kallsyms(db, false);
		if (err)
			return err;
		db->funcs = db->kallsyms;
		set_from(db, KSYM_ORIG_KCORE, KSYM_TIER_LIVE);
		return 0;
	}
	/* globs scan; exact names open a batch: no index in the parsing pass */
	err = pattern_filter(db);
	if (!err) {
		struct ksym_parse_opts filter = {
			.prefixes = db->prefix_cnt ? (const char *const *)db->prefixes : NULL,
			.prefix_cnt = db->prefix_cnt,
			.names = db->name_cnt ? db->names : NULL,
			.name_cnt = db->name_cnt,
		};

		err = load_file_only(db, KSYM_FMT_KALLSYMS, kallsyms_source(db), true, false,
				     &filter, &db->funcs);
	}
	if (err)
		return err;
	set_from(db, KSYM_ORIG_KCORE, KSYM_TIER_LIVE);
	funcs_put(db, KSYM_ORIG_KCORE, db->funcs, true, db->prefix_cnt != 0);
	return err;
}

/* tracefs' list of sites, live: with addresses (Linux >= 6.5), else names joined. */
static int tracefs_step(struct ksym_db *db, unsigned int origins)
{
	bool addrs = origins & 1u << KSYM_ORIG_ADDRS;
	char path[160];
	int err;

	snprintf(path, sizeof(path), "%s/%s", db->tracefs,
		 addrs ? "available_filter_functions_addrs" : "available_filter_functions");
	err = addrs ? load_file(db, KSYM_FMT_FUNCS_ADDRS, path, false, true, &db->funcs)
		    : join_funcs(db, path);
	/* refused (a security policy): the unknown step's turn, where it was allowed */
	if (err && (err == -EACCES || err == -EPERM) && !db->funcs &&
	    db->opts.allow_unknown_traceability)
		return -EAGAIN;
	if (err)
		return err;
	set_from(db, addrs ? KSYM_ORIG_ADDRS : KSYM_ORIG_JOIN, KSYM_TIER_LIVE);
	funcs_put(db, db->origin, db->funcs, false, false);
	return 0;
}

/* A list of sites given as a file: available_filter_functions_addrs, or names joined. */
static int file_step(struct ksym_db *db, bool addrs)
{
	int err;

	err = addrs ? load_file(db, KSYM_FMT_FUNCS_ADDRS, db->opts.funcs_addrs_path, false, true,
				&db->funcs)
		    : join_funcs(db, db->opts.funcs_path);
	if (err)
		return err;
	set_from(db, addrs ? KSYM_ORIG_ADDRS : KSYM_ORIG_JOIN, KSYM_TIER_LIVE);
	return 0;
}

static int run_step(struct ksym_db *db, const struct ksym_plan_step *s)
{
	switch (s->step) {
	case KSYM_STEP_RUN_CACHE:
		return run_cache_step(db, s->origins);
	case KSYM_STEP_BUILD_CACHE:
		return build_step(db);
	case KSYM_STEP_FTRACE:
		return ftrace_step(db, s->asked);
	case KSYM_STEP_CANDIDATES:
	case KSYM_STEP_ALL_CANDIDATES:
		return candidates_step(db, s->step == KSYM_STEP_ALL_CANDIDATES);
	case KSYM_STEP_TRACEFS:
		return tracefs_step(db, s->origins);
	case KSYM_STEP_FILE_ADDRS:
	case KSYM_STEP_FILE_JOIN:
		return file_step(db, s->step == KSYM_STEP_FILE_ADDRS);
	case KSYM_STEP_UNKNOWN:
		return fallback_funcs(db, db->err);
	default:
		return -EINVAL;
	}
}

/* The plan's steps in order, each loading the table or passing it on (-EAGAIN). */
static int load_funcs(struct ksym_db *db)
{
	struct ksym_load_plan plan;
	struct ksym_plan_in in;
	size_t i;
	int err = 0;

	plan_in(db, &in);
	ksym_plan__make(&in, &plan);
	if (db->opts.verbose) {
		char line[200];

		ksym_plan__str(&plan, line, sizeof(line));
		note(db, "sources, in the order tried: %s", line);
	}
	if (plan.refusal)
		err = refuse(db, plan.refusal);
	for (i = 0; i < plan.cnt; i++) {
		if (ksym_step__needs_kcore(plan.steps[i].step)) {
			err = open_kcore(db, &plan);
			if (err == -EAGAIN)
				continue;
			if (err)
				return err;
		}
		err = run_step(db, &plan.steps[i]);
		if (err != -EAGAIN)
			return err;
	}
	return plan.end ? refuse(db, plan.end) : err;
}

static int load_blacklist(struct ksym_db *db)
{
	const char *path = db->opts.blacklist_path ? db->opts.blacklist_path
						   : "/sys/kernel/debug/kprobes/blacklist";
	int err;

	/* the blacklist is only looked up by address */
	err = load_file(db, KSYM_FMT_BLACKLIST, path, false, false, &db->blacklist);
	if (err && !db->opts.blacklist_path) {
		/* optional unless asked for by name: debugfs may not be mounted */
		if (db->opts.verbose)
			warn(db, "%s", db->err);
		db->err[0] = '\0';
		return 0;
	}
	return err;
}

int ksym_db__load(struct ksym_db *db)
{
	unsigned int need = db->opts.need;
	int err = 0;

	if (need & KSYM_DB_FUNCS && !db->funcs)
		err = load_funcs(db);
	if (!err && need & KSYM_DB_KALLSYMS)
		err = load_kallsyms(db, false);
	if (!err && need & KSYM_DB_BLACKLIST && !db->blacklist)
		err = load_blacklist(db);
	return err;
}

int ksym_db__load_more(struct ksym_db *db, unsigned int need)
{
	db->opts.need |= need;
	return ksym_db__load(db);
}

bool ksym__capable(int cap)
{
	unsigned long long eff;
	char line[128];
	bool found = false;
	FILE *f = fopen("/proc/self/status", "re");

	if (!f)
		return true;
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "CapEff: %llx", &eff) == 1;
	fclose(f);
	return !found || cap < 0 || cap > 63 || (eff >> cap & 1);
}
