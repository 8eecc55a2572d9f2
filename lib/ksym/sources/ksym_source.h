/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The sources of traceable functions (this folder) and the readers of the
 * kernel's symbols (syms.c), below the load (ksym_db.h). A source reads
 * with what the load hands it, a struct ksym_reading, and returns what it read
 * as a struct ksym_loaded, or "not mine" (-EAGAIN): it never sees the load,
 * its caches or its state. The load asks the cache tiers first, runs the
 * sources in its plan's order, and keeps what one returned in the tiers.
 */
#ifndef KSYM_SOURCE_H
#define KSYM_SOURCE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ksym_internal.h"
#include "ksym_kmem.h"
#include "ksym_plan.h"
#include "ksym_site.h"

/* How much of its source a table holds. */
enum ksym_extent {
	KSYM_EXT_WHOLE,		/* every function of the source */
	KSYM_EXT_PARTIAL,	/* some of it read only as far as the patterns go */
	KSYM_EXT_MATCHED,	/* only what these patterns matched at an earlier run */
};

struct ksym_syms_reader;

/*
 * What a source reads with. The load fills it once and keeps it; the words
 * (err, and the readers' "once" flags) and the timings are what a read
 * leaves, nothing else.
 */
struct ksym_reading {
	const struct ksym_db_opts *opts;
	uint64_t *phase_ns;		/* KSYM_PH_CNT: a read adds its time */
	char *err;			/* why a read failed, one line */
	size_t err_sz;
	struct ksym_kcore *kcore;	/* opened by the load for a step that needs it */
	const char *tracefs;		/* where tracefs is ("": not found) */
	/* the patterns, for a read that keeps only what they can match */
	const struct ksym_parse_opts *filter;	/* prefixes and names alone */
	int filter_err;			/* why it could not be made */
	bool filtered;			/* the filter keeps less than everything */
	/*
	 * The kernel's symbols, every one or text only, as the load keeps
	 * them (it serves them from its cache where it can): 0 and *out set,
	 * or the error, err saying why.
	 */
	int (*kallsyms)(struct ksym_reading *rd, bool text_only, struct ksym_table **out);
	void *load;			/* kallsyms()'s own */
	/* what the readers of the live table leave */
	const struct ksym_syms_reader *reader;	/* the one that read it last */
	bool kmem_warned, iter_warned, ftrace_warned;	/* their -v lines, once each */
	char iter_err[80];		/* why the iterator was not used */
};

/* What a source served. */
struct ksym_loaded {
	struct ksym_table *funcs;	/* the load's from now on; NULL with kallsyms */
	bool kallsyms;			/* the table is the load's kallsyms itself */
	enum ksym_origin origin;
	enum ksym_extent extent;
	/* what /run may keep of it, as "funcs" under the origin's label */
	bool keep;
	bool checked;			/* candidates: only those the text check confirms */
	bool partial;			/* read as far as the patterns go */
	/* the kernel's whole table, where the source read it on the way (freed by the load) */
	struct ksym_table *syms;
};

struct ksym_source {
	const char *name;
	enum ksym_site_kind produces;	/* how a function's site is found in what it loads */
	int (*load)(struct ksym_reading *rd, const struct ksym_plan_step *s,
		    struct ksym_loaded *out);
};

extern const struct ksym_source ksym_src_ftrace, ksym_src_kcore, ksym_src_tracefs, ksym_src_file,
	ksym_src_unknown;

/* tracefs: its own mount, or under debugfs on older setups (given: the caller's).
 * 0 with dir filled, -EACCES with *denied the directory this user may not look
 * in, or -ENOENT. */
int ksym_tracefs_find(const char *given, char *dir, size_t dir_sz, const char **denied);

/* reading.c: a read's words */
/* one line to fn, else to stderr behind prefix */
void ksym_vsay(void (*fn)(const char *), const char *prefix, const char *fmt, va_list ap);
/* rd->err set, and -err returned */
int ksym_rd_fail(struct ksym_reading *rd, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* one line to opts.warn or opts.note, else to stderr */
void ksym_rd_warn(const struct ksym_reading *rd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void ksym_rd_note(const struct ksym_reading *rd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * A reader of the running kernel's kallsyms table (syms.c), tried in
 * order: the kernel's table in memory, the ksym BPF iterator, /proc/kallsyms.
 * Each gives names and addresses; they differ in whether the table lists
 * ftrace's and BPF's trampolines, which the site check must know. load()
 * fills *out, or returns -EAGAIN, "not mine", with a -v line saying why.
 */
struct ksym_syms_reader {
	const char *label;		/* "kmem", "iter", "kallsyms": the source's label */
	bool lists_trampolines;
	int (*load)(struct ksym_reading *rd, const struct ksym_parse_opts *po,
		    struct ksym_table **out);
};

extern const struct ksym_syms_reader ksym_read_kmem, ksym_read_iter, ksym_read_file;

/* syms.c: the kernel's symbols */
/* why root was refused a kernel file, as " (...)" */
const char *ksym_root_refused(void);
/* why the kernel's table could not be read from memory (errno) */
const char *ksym_kmem_error(int err);
/* a source that did not serve: the error where asked for, else -EAGAIN and a -v line */
int ksym_rd_refused(struct ksym_reading *rd, int err, bool asked, bool *warned,
		    const char *failed, const char *name, const char *why, const char *next);
/* one file read and parsed (kallsyms: from memory or the iterator first), filtered */
int ksym_rd_file_filtered(struct ksym_reading *rd, enum ksym_format fmt, const char *path,
			  bool text_only, bool index, const struct ksym_parse_opts *filter,
			  struct ksym_table **out);
int ksym_rd_file(struct ksym_reading *rd, enum ksym_format fmt, const char *path, bool text_only,
		 bool index, struct ksym_table **out);
/* a vmlinux's symbol table */
int ksym_rd_elf(struct ksym_reading *rd, const char *path, bool text_only, struct ksym_table **out);
/* no symbol file given: the running kernel's */
bool ksym_opts_live_kallsyms(const struct ksym_db_opts *o);
/* the symbol file given, else "/proc/kallsyms" */
const char *ksym_opts_kallsyms_path(const struct ksym_db_opts *o);

#endif
