/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The parser's state, shared by the parser (parse.c), its filters
 * (filter.c, ksym_filter.h), the feed (feed.c) and the reader
 * (read.c).
 */
#ifndef KSYM_PARSER_H
#define KSYM_PARSER_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "ksym_internal.h"
#include "ksym_lex.h"

/*
 * Parser state: it can be fed a file piece by piece as it is being read. The
 * names kept are copied to the front of t->buf (NUL-terminated, nothing else):
 * in place behind the parse when t->buf is the input, else to an arena that
 * grows. Only a quarter to a half of a kallsyms line is its name, so the
 * table's strings, which every lookup touches, shrink by half or more.
 */
struct parser {
	struct ksym_table *t;
	enum ksym_format fmt;
	struct ksym_parse_stats *st;
	bool text_only;
	bool index;		/* add every entry to the name index as it is parsed */
	const char *const *prefixes;
	size_t prefix_cnt;
	/* names' first two bytes any prefix allows: most names stop there */
	uint64_t first2[65536 / 64];
	uint64_t want2[65536 / 64];	/* and those of the exact names */
	uint16_t *key;		/* each prefix's first two bytes */
	size_t *plen;
	const char *const *want;	/* the exact names asked for */
	size_t want_cnt;
	/* their set: open addressing, name index + 1 per slot */
	const char **names;
	uint32_t *nlen;
	uint32_t *nslot;
	uint32_t nmask;
	bool any_addr;
	size_t out;		/* strings kept so far: t->buf[0, out) */
	char *carry;		/* a line split between two pieces fed */
	size_t carry_len, carry_cap;
	bool overlong;		/* in a line past KSYM_LINE_MAX: dropped up to its end */
	const volatile sig_atomic_t *stop;
	size_t fed;		/* bytes fed so far: KSYM_INPUT_MAX bounds them */
	size_t lineno;
	size_t mod_cap;
	uint16_t last_mod;	/* consecutive lines share a module: skip the search */
	/* module name -> id, open addressing, at most half full: a file may name 65k */
	uint16_t *mod_ix;
	size_t mod_mask;
};

/* A line the parser cannot read: counted, its number kept for the first few. */
static inline void ksym_bad_line(struct ksym_parse_stats *st, size_t lineno)
{
	if (st->malformed < KSYM_MAX_BAD_LINES)
		st->bad_line[st->malformed] = lineno;
	st->malformed++;
}

/* A one-byte name has no second byte: it only meets one-byte prefixes. */
static inline unsigned int ksym_first2(const char *s, size_t len)
{
	return (unsigned char)s[0] << 8 | (len > 1 ? (unsigned char)s[1] : 0);
}

/* A line kept: its name (and module) copied, an entry added. */
int ksym_parse_add(struct parser *ps, const struct ksym_line *l);

/* opts (of any older size) into ps; the stats go to opts->stats, else local */
void ksym_parse_opts(struct parser *ps, const struct ksym_parse_opts *opts,
		     struct ksym_parse_stats *local);
/*
 * A table around buf, ready to be fed; ent_hint guesses the entry count. With
 * arena, buf only receives the strings kept; else buf is the input.
 */
struct ksym_table *ksym_parse_begin(struct parser *ps, enum ksym_format fmt, char *buf,
				    size_t ent_hint, size_t arena);
/* The next piece of the file (eof: the last); a line may straddle two pieces. */
int ksym_parse_piece(struct parser *ps, const char *s, size_t len, bool eof);
/* The file's end: the table finished (address order, index) */
int ksym_parse_end(struct parser *ps);
/* The table, or NULL with errno where err (or the parse) failed */
struct ksym_table *ksym_parse_done(struct parser *ps, int err);

#endif
