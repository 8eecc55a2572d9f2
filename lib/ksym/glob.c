// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Shell-style globs: '*', '?', '[...]' with ranges and '!'/'^' negation. */
#include <stdbool.h>
#include <string.h>

#include <ksym/ksym.h>

/* Matches one bracket expression at *pp against c; advances *pp past it. */
static bool match_class(const char **pp, char c, bool *ok)
{
	const char *p = *pp + 1;
	bool neg = false, hit = false;

	if (*p == '!' || *p == '^') {
		neg = true;
		p++;
	}
	/* a ']' right after '[' or the negation is a literal */
	if (*p == ']') {
		hit |= c == ']';
		p++;
	}
	while (*p && *p != ']') {
		if (p[1] == '-' && p[2] && p[2] != ']') {
			hit |= (unsigned char)c >= (unsigned char)p[0] &&
			       (unsigned char)c <= (unsigned char)p[2];
			p += 3;
		} else {
			hit |= c == *p++;
		}
	}
	if (!*p) {		/* unterminated: '[' is a literal */
		*ok = false;
		return c == '[';
	}
	*ok = true;
	*pp = p + 1;
	return hit != neg;
}

bool ksym_glob_match(const char *glob, const char *str)
{
	const char *star_g = NULL, *star_s = NULL;
	bool ok;

	/* Greedy '*' with one backtrack point: the last star absorbs one more char. */
	while (*str) {
		const char *g = glob;

		if (*g == '*') {
			star_g = ++glob;
			star_s = str;
			continue;
		}
		if (*g == '[') {
			if (match_class(&g, *str, &ok)) {
				glob = ok ? g : glob + 1;
				str++;
				continue;
			}
		} else if (*g && (*g == '?' || *g == *str)) {
			glob++;
			str++;
			continue;
		}
		if (!star_g)
			return false;
		glob = star_g;
		str = ++star_s;
	}
	while (*glob == '*')
		glob++;
	return !*glob;
}

bool ksym_glob_is_literal(const char *glob)
{
	return !strpbrk(glob, "*?[");
}

bool ksym_glob_is_name(const char *pattern)
{
	return !strpbrk(pattern, "*?[:");
}
