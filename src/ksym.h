/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * ksym: kernel symbol tables, parsed once, looked up fast.
 *
 * A table is built from one source (/proc/kallsyms, a tracefs function list, a
 * System.map) in a single pass over the file as read: the read buffer becomes the
 * table's string arena (separators are overwritten with NULs), so parsing does no
 * per-line allocation and no scanf. Entries are kept in address order.
 *
 * Lookups:
 * - by address: binary search, always available;
 * - by exact name: a linear scan outside a batch, O(1) inside one. A batch
 *   (ksym_table__batch_begin/end, refcounted) builds a hash index of the names on
 *   demand and drops it when the last user ends it, as the kernel series' transient
 *   index does; open a batch around any run of more than a few name lookups;
 * - by glob: '*', '?', '[...]' (ranges, '!' or '^' negation) over names.
 *
 * Every pointer in a struct ksym points into the table and lives as long as it.
 * Functions return negative errno on failure.
 */
#ifndef KSYM_H
#define KSYM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ksym_table;

enum ksym_format {
	KSYM_FMT_KALLSYMS,	/* "addr type name[\t[module]]": /proc/kallsyms */
	KSYM_FMT_SYSTEM_MAP,	/* "addr type name": System.map, vmlinux only */
	KSYM_FMT_FUNCS,		/* "name [module]": available_filter_functions */
	KSYM_FMT_FUNCS_ADDRS,	/* "addr name [module]": ..._addrs (Linux >= 6.5) */
};

/* Per-symbol flags. */
enum {
	KSYM_F_UNRESOLVED = 1 << 0,	/* FUNCS entry with no address yet */
	KSYM_F_TRACEABLE = 1 << 1,	/* listed by ftrace */
	KSYM_F_BLACKLISTED = 1 << 2,	/* in the kprobe blacklist */
	KSYM_F_AMBIGUOUS = 1 << 3,	/* joined by name where kallsyms has a different
					   number of same-named functions */
};

struct ksym {
	uint64_t addr;
	uint64_t size;		/* up to the next symbol of the same module; 0 = unknown */
	const char *name;
	const char *module;	/* NULL for vmlinux */
	char type;		/* kallsyms type letter; 0 when the source has none */
	unsigned int flags;	/* KSYM_F_* */
};

#define KSYM_MAX_BAD_LINES 4

struct ksym_parse_stats {
	size_t lines;		/* lines seen */
	size_t symbols;		/* entries kept */
	size_t skipped;		/* well-formed lines deliberately left out */
	size_t malformed;	/* lines that could not be parsed */
	size_t bad_line[KSYM_MAX_BAD_LINES];	/* first malformed line numbers (1-based) */
	bool all_zero;		/* every address was 0: kptr_restrict or no CAP_SYSLOG */
};

struct ksym_parse_opts {
	size_t sz;			/* sizeof(struct ksym_parse_opts) */
	struct ksym_parse_stats *stats;	/* out, optional */
	bool text_only;			/* KALLSYMS: keep only t/T/w/W symbols */
};

/* Read a whole file (works for procfs/tracefs files that report size 0). */
int ksym__read_file(const char *path, char **buf, size_t *len);

/*
 * Parse buf[0..len) and take ownership of buf (malloc()ed with room for len + 1
 * bytes; freed with the table).
 * Malformed lines are counted in opts->stats and skipped, never guessed at. A
 * KALLSYMS/SYSTEM_MAP/FUNCS_ADDRS source whose addresses are all zero gives
 * -EPERM (stats->all_zero set). Returns NULL with errno set on error.
 */
struct ksym_table *ksym_table__parse(enum ksym_format fmt, char *buf, size_t len,
				     const struct ksym_parse_opts *opts);
/* ksym__read_file() + ksym_table__parse(). */
struct ksym_table *ksym_table__load(enum ksym_format fmt, const char *path,
				    const struct ksym_parse_opts *opts);
void ksym_table__free(struct ksym_table *t);

size_t ksym_table__cnt(const struct ksym_table *t);
/* i-th symbol in address order (unresolved FUNCS entries sort first, addr 0). */
int ksym_table__at(const struct ksym_table *t, size_t i, struct ksym *out);

/* Build/drop the exact-name index; nests. Lookups work without it, only slower. */
int ksym_table__batch_begin(struct ksym_table *t);
void ksym_table__batch_end(struct ksym_table *t);

/*
 * Every symbol called name; module NULL matches any, "" vmlinux only, "mod" that
 * module; "mod:name" in name restricts too. Fills up to max into out (address
 * order) and returns the total count, 0 when there is none.
 */
int ksym_table__find(const struct ksym_table *t, const char *name, const char *module,
		     struct ksym *out, size_t max);

/* The symbol containing addr (greatest addr' <= addr); -ENOENT below the first. */
int ksym_table__addr(const struct ksym_table *t, uint64_t addr, struct ksym *out);

/* Calls fn for every symbol whose name matches glob, in address order; stops
 * when fn returns nonzero and returns that value, else 0. */
typedef int (*ksym_fn)(const struct ksym *sym, void *ctx);
int ksym_table__match(const struct ksym_table *t, const char *glob, ksym_fn fn, void *ctx);

/*
 * Give every unresolved FUNCS entry of funcs the address of the same-named text
 * symbol of the same module in kallsyms; the k-th duplicate in funcs takes the
 * k-th in kallsyms (both in address order). Entries with no counterpart stay
 * unresolved; where the counts differ the entries are flagged KSYM_F_AMBIGUOUS.
 * Returns the number still unresolved.
 */
int ksym_table__resolve(struct ksym_table *funcs, struct ksym_table *kallsyms);

/* glob(3)-style match of one string; exported for callers and tests. */
bool ksym_glob_match(const char *glob, const char *str);
/* True when glob has no wildcard, so an exact lookup can serve it. */
bool ksym_glob_is_literal(const char *glob);

#endif
