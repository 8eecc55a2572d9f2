// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Any line of the symbol files the library reads: kallsyms, System.map,
 * tracefs' function lists (with or without addresses) and the kprobe
 * blacklist. A line is split into spans of the input, and nothing is written.
 */
#include <errno.h>
#include <string.h>

#include "ksym_lex.h"

signed char ksym_hexval[256];
const bool ksym_sep_tab[256] = { ['\0'] = true, [' '] = true, ['\t'] = true, ['\r'] = true };

static void __attribute__((constructor)) init_hexval(void)
{
	int c;

	memset(ksym_hexval, -1, sizeof(ksym_hexval));
	for (c = '0'; c <= '9'; c++)
		ksym_hexval[c] = c - '0';
	for (c = 'a'; c <= 'f'; c++)
		ksym_hexval[c] = c - 'a' + 10;
	for (c = 'A'; c <= 'F'; c++)
		ksym_hexval[c] = c - 'A' + 10;
}

/* Parses 1..16 hex digits at *p, ending at stop (0: a separator). */
static inline bool parse_hex_to(const char **p, const char *end, char stop, uint64_t *val)
{
	const char *s = *p;
	uint64_t v = 0;
	int n = 0;

	while (s < end && ksym_hexval[(unsigned char)*s] >= 0) {
		v = (v << 4) | ksym_hexval[(unsigned char)*s++];
		n++;
	}
	if (n == 0 || n > 16 || s == end || (stop ? *s != stop : !is_sep(*s)))
		return false;
	*val = v;
	*p = s;
	return true;
}

static inline bool parse_hex(const char **p, const char *end, uint64_t *val)
{
	return parse_hex_to(p, end, 0, val);
}

/* Parses one line [s, end); end points at its '\n' or the input's end. */
int ksym_parse_line(enum ksym_format fmt, const char *s, const char *end, struct ksym_line *l)
{
	const char *name_end, *p = s;

	l->addr = l->size = 0;
	l->mod_len = 0;
	l->type = 0;
	l->mod = NULL;
	if (fmt == KSYM_FMT_KALLSYMS && end - s > 19 && s[16] == ' ' && s[18] == ' ' &&
	    (unsigned char)s[17] > ' ' && !is_sep(s[19]) && parse_hex(&p, s + 17, &l->addr)) {
		/* the kernel's own "%px %c %s": fixed columns, no scanning */
		l->type = s[17];
		p = s + 19;
	} else if (fmt == KSYM_FMT_BLACKLIST) {
		/* a range: the kernel prints both ends with %px */
		uint64_t hi;

		if (end - p < 2 || p[0] != '0' || p[1] != 'x')
			return -EINVAL;
		p += 2;
		if (!parse_hex_to(&p, end, '-', &l->addr) || end - p < 3 || p[1] != '0' ||
		    p[2] != 'x')
			return -EINVAL;
		p += 3;
		if (!parse_hex(&p, end, &hi) || hi < l->addr)
			return -EINVAL;
		l->size = hi - l->addr;
		p = skip_sep(p, end);
	} else if (fmt != KSYM_FMT_FUNCS) {
		if (!parse_hex(&p, end, &l->addr))
			return -EINVAL;
		p = skip_sep(p, end);
	}
	if (!l->type && (fmt == KSYM_FMT_KALLSYMS || fmt == KSYM_FMT_SYSTEM_MAP)) {
		/* the type is a single letter (or '?'), then a separator */
		if (p + 1 >= end || !is_sep(p[1]) || (unsigned char)p[0] <= ' ')
			return -EINVAL;
		l->type = *p;
		p = skip_sep(p + 1, end);
	}
	l->name = p;
	name_end = token_end(p, end);
	l->name_len = name_end - p;
	if (!l->name_len || l->name_len > KSYM_NAME_MAX || (name_end < end && !*name_end))
		return -EINVAL;
	p = skip_sep(name_end, end);
	if (p < end) {
		/* only "[module]" may follow the name */
		const char *m_end = token_end(p, end);

		if (fmt == KSYM_FMT_SYSTEM_MAP || *p != '[' || m_end[-1] != ']' || m_end - p < 3 ||
		    (m_end < end && !*m_end) || skip_sep(m_end, end) != end)
			return -EINVAL;
		l->mod = p + 1;
		l->mod_len = m_end - p - 2;
	}
	return 0;
}
