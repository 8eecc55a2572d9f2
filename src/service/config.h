/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * ksa_config: /etc/ksymattach/ksymattach.conf, the fleet service's settings
 * (ksymattach.conf(5)).
 *
 *	struct ksa_config *c;
 *	char err[KSA_CONFIG_ERR_MAX];
 *
 *	if (ksa_config__load(KSA_CONFIG_PATH, NULL, &c, err, sizeof(err))) {
 *		fprintf(stderr, "ksymattach: %s\n", err);
 *		exit(KSA_EX_CONFIG);
 *	}
 *	... c->patterns, c->mode, ... (command-line options override them)
 *	ksa_config__free(c);
 *
 * One "key = value" a line; '#' or ';' at the start of a line (after any
 * blanks) makes it a comment, and " ;" (a ';' after a blank) starts an inline
 * comment; '#' inside a value is kept, so "pattern = vfs_* # x" is an error,
 * not the pattern "vfs_*". No sections, no continuation lines (leading blanks
 * are ignored), no "key: value". UTF-8 BOM and CRLF line ends are accepted;
 * NUL and other control bytes (but tab) are errors.
 *
 * Every problem is one line "FILE:LINE: what is wrong"; a problem with the
 * whole file is "FILE: what is wrong" (cannot open, too large, no pattern).
 * A config is handed back only when the whole file is valid: a reload that
 * fails leaves the caller's current config as it was.
 */
#ifndef KSA_CONFIG_H
#define KSA_CONFIG_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include <ksym/ksym.h>

#include "attach.h"	/* enum kattach_mode, kattach_resolver, kattach_fallback */

#define KSA_CONFIG_PATH "/etc/ksymattach/ksymattach.conf"
/* sysexits.h' EX_CONFIG: what the caller exits with on any failure here */
#define KSA_EX_CONFIG 78

#define KSA_CONFIG_SIZE_MAX (1u << 20)	/* a larger file (or an endless one) is an error */
#define KSA_CONFIG_LINE_MAX 4096	/* characters a line, without its line end */
#define KSA_CONFIG_GLOBS_MAX 256	/* patterns, and excludes, as many as -p takes */
#define KSA_CONFIG_NAME_MAX KSYM_GLOB_NAME_MAX	/* the function name part */
#define KSA_CONFIG_MODULE_MAX KSYM_GLOB_MODULE_MAX	/* the "mod:" part */
/* an err buffer this large holds any message, with a path up to PATH_MAX */
#define KSA_CONFIG_ERR_MAX (PATH_MAX + 352)

/* The keys, in the order ksymattach.conf(5) and the shipped file list them. */
enum ksa_key {
	KSA_KEY_PATTERN,
	KSA_KEY_EXCLUDE,
	KSA_KEY_MODE,
	KSA_KEY_RESOLVER,
	KSA_KEY_LINKS,
	KSA_KEY_FALLBACK,
	KSA_KEY_DURATION,
	KSA_KEY_INTERVAL,
	KSA_KEY_JSON_DIR,
	KSA_KEY_PROM_FILE,
	KSA_KEY_TOP,
	KSA_KEY_CACHE,
	KSA_KEY_REPORTS_KEPT,
	KSA_KEY_STALL_THRESHOLD,
	KSA_KEY_WATCH_WINDOW,
	KSA_KEY_WATCH_MIN_STALL,
	KSA_KEY_WATCH_STALL_THRESHOLD,
	KSA_KEY_WATCH_TOTALS,
	KSA_KEY__CNT,
};

struct ksa_config_key {
	const char *name;	/* as written in the file */
	const char *values;	/* what it takes, in words */
	const char *def;	/* the default, as the file would spell it; NULL: none */
	const char *desc;	/* one line */
	bool repeatable;	/* pattern, exclude; any other key may be set once */
};

/* The key's description; NULL out of range. The man page test walks these. */
const struct ksa_config_key *ksa_config__key(enum ksa_key key);

struct ksa_config {
	/* In file order, as kattach_opts.patterns takes them; line of each in *_lines. */
	char **patterns;
	unsigned int *pattern_lines;
	size_t pattern_cnt;
	/* Functions any pattern matches that are left out; the engine applies them. */
	char **excludes;
	unsigned int *exclude_lines;
	size_t exclude_cnt;
	enum kattach_mode mode;
	enum kattach_resolver resolver;
	enum kattach_fallback fallback;
	size_t link_batch;	/* as kattach_opts.link_batch: 0 one link, 1 per function, N */
	double duration_s;	/* boot measurement: stay attached this long (0: detach at once) */
	double interval_s;	/* the daemon's report interval */
	double stall_threshold_s;	/* exported for the alert rule */
	double watch_window_s;		/* the boot watch: how long it records */
	double watch_min_stall_s;	/* the stall a process needs to be recorded */
	double watch_stall_threshold_s;	/* exported for the agents' alert rule */
	bool watch_totals;		/* after its window: running totals every interval */
	char *json_dir;		/* absolute */
	char *prom_file;	/* absolute, *.prom; NULL: no Prometheus file */
	size_t top;		/* functions with a series of their own; the rest are summed */
	size_t reports_kept;	/* boot reports kept in json_dir */
	bool cache;		/* the /run symbol cache */
	char *name;		/* the file, as errors name it */
	/*
	 * The line each key was first set on, 0 where the file left the default:
	 * so that a command-line option can override the file, and a later
	 * message can say where a value came from.
	 */
	unsigned int key_line[KSA_KEY__CNT];
};

struct ksa_config_opts {
	size_t sz;		/* sizeof(struct ksa_config_opts) */
	/* What errors call the file (default: the path; ksa_config__parse: "<config>"). */
	const char *name;
	/*
	 * Called with every problem, in file order, one line each without a
	 * newline (at most 50, then "FILE: too many errors, stopped"), so that
	 * --check-config can print them all. NULL: parsing stops at the first.
	 * Either way err gets the first.
	 */
	void (*error_fn)(const char *msg, void *ctx);
	void *error_ctx;
};

/*
 * Reads and checks path. 0 and *out set (free with ksa_config__free()), or a
 * negative errno and the first problem in err (cut to err_sz; err may be
 * NULL): -EINVAL for content (and a NULL path or out), the open(2)/read(2)
 * error for a file that cannot be read (-EISDIR for a directory), -EFBIG past
 * KSA_CONFIG_SIZE_MAX, -ENOMEM. *out is untouched on failure. opts may be NULL.
 */
int ksa_config__load(const char *path, const struct ksa_config_opts *opts,
		     struct ksa_config **out, char *err, size_t err_sz);
/* The same for size bytes in memory (any bytes: NULs are errors, not ends). */
int ksa_config__parse(const void *data, size_t size, const struct ksa_config_opts *opts,
		      struct ksa_config **out, char *err, size_t err_sz);
/* The defaults and no pattern: for a run with no file (NULL: out of memory). */
struct ksa_config *ksa_config__new(void);
void ksa_config__free(struct ksa_config *c);

#endif
