/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A symbol file's line read as spans of its input, shared by the parser's loop
 * (parse.c) and the line parser (lex.c). The kernel's own
 * "%px %c %s" is read inline, eight bytes a step; every other line goes to
 * ksym_parse_line().
 */
#ifndef KSYM_LEX_H
#define KSYM_LEX_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "ksym_internal.h"

/* Each byte's value as a hex digit, -1 if it is none. */
extern signed char ksym_hexval[256];
/* a token ends at a separator, or at a NUL, which no real file has inside a line */
extern const bool ksym_sep_tab[256];

/* What a line holds, as spans of the input; parsing writes nothing. */
struct ksym_line {
	const char *name, *mod;	/* mod: NULL for vmlinux */
	size_t name_len, mod_len;
	uint64_t addr, size;
	char type;
};

static inline bool is_sep(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

static inline const char *skip_sep(const char *s, const char *end)
{
	while (s < end && is_sep(*s))
		s++;
	return s;
}

/*
 * The first byte at or below ' ' (every separator and line end is), or end.
 * Eight bytes a step: a name is ~25 bytes, and a byte loop was half of the
 * parse. The first flagged byte is exact (a borrow only runs upwards from a
 * real one).
 */
static inline const char *ctl_end(const char *s, const char *end)
{
	const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
	uint64_t w, low;

	while (end - s >= 8) {
		memcpy(&w, s, 8);
		low = (w - ones * 0x21) & ~w & highs;
		if (low)
			return s + __builtin_ctzll(low) / 8;
		s += 8;
	}
	while (s < end && (unsigned char)*s > ' ')
		s++;
	return s;
}

static inline const char *token_end(const char *s, const char *end)
{
	for (;;) {
		s = ctl_end(s, end);
		if (s == end || ksym_sep_tab[(unsigned char)*s])
			return s;
		s++;	/* a control byte that is no separator: part of the token */
	}
}

/* Eight hex digits, the first the most significant, all eight at once. */
static inline bool hex8(const char *s, uint64_t *val)
{
	const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
	uint64_t w, lw, digit, alpha, v;

	memcpy(&w, s, 8);
	if (w & highs)
		return false;
	/* per byte, no carry between them as every byte is below 0x80 */
	digit = (w + ones * (0x80 - '0')) & ~(w + ones * (0x7f - '9')) & highs;
	lw = w | ones * 0x20;
	alpha = (lw + ones * (0x80 - 'a')) & ~(lw + ones * (0x7f - 'f')) & highs;
	if ((digit | alpha) != highs)
		return false;
	v = (w & ones * 0x0f) + (w >> 6 & ones) * 9;
	v = (v << 4 | v >> 8) & 0x00ff00ff00ff00ffull;
	v = (v << 8 | v >> 16) & 0x0000ffff0000ffffull;
	*val = (v << 16 | v >> 32) & 0xffffffffull;
	return true;
}

/*
 * The kernel's own "%px %c %s[\t[%s]]\n", recognised in one scan of the line
 * (no search for its end first); *le: its '\n'. Anything else is for
 * ksym_parse_line(), which accepts every line this does.
 */
static inline bool fast_line(const char *s, const char *end, struct ksym_line *l, const char **le)
{
	const char *name = s + 19, *ne, *m, *me;
	uint64_t hi, lo;

	if (end - s < 21 || s[16] != ' ' || s[18] != ' ' || (unsigned char)s[17] <= ' ' ||
	    !hex8(s, &hi) || !hex8(s + 8, &lo))
		return false;
	ne = ctl_end(name, end);
	if (ne == name || ne == end || ne - name > KSYM_NAME_MAX)
		return false;
	l->mod = NULL;
	l->mod_len = 0;
	if (*ne == '\t' && end - ne > 3 && ne[1] == '[') {
		m = ne + 2;
		me = ctl_end(m, end);
		if (me == end || *me != '\n' || me - m < 2 || me[-1] != ']')
			return false;
		l->mod = m;
		l->mod_len = me - 1 - m;
		*le = me;
	} else if (*ne == '\n') {
		*le = ne;
	} else {
		return false;
	}
	l->addr = hi << 32 | lo;
	l->size = 0;
	l->type = s[17];
	l->name = name;
	l->name_len = ne - name;
	return true;
}

/* Parses one line [s, end); end points at its '\n' or the input's end. */
int ksym_parse_line(enum ksym_format fmt, const char *s, const char *end, struct ksym_line *l);

#endif /* KSYM_LEX_H */
