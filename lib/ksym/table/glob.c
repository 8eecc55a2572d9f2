// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Shell-style globs: '*', '?', '[...]' with ranges and '!'/'^' negation; and
 * the check that a pattern can match a kernel function at all, which -p and
 * the config both use.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
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

/* A character of a kernel function's name: C's, and the '.' and '$' of compiler suffixes. */
static bool name_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '.' || c == '$';
}

/*
 * '-' as in module file names, though the kernel's own names have '_' there
 * (KBUILD_MODNAME): "nf-conntrack:" finds nothing unless the engine maps it.
 */
static bool module_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '-';
}

static int why_not(char *why, size_t sz, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int why_not(char *why, size_t sz, const char *fmt, ...)
{
	va_list ap;

	if (why && sz) {
		va_start(ap, fmt);
		vsnprintf(why, sz, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/* Where the bracket expression at s ends (its ']'), as match_class() reads it; NULL: never. */
static const char *class_end(const char *s)
{
	const char *p = s + 1;

	if (*p == '!' || *p == '^')
		p++;
	if (*p == ']')
		p++;
	while (*p && *p != ']')
		p += p[1] == '-' && p[2] && p[2] != ']' ? 3 : 1;
	return *p ? p : NULL;
}

/* Whether [s, e] matches some character a function name can have. */
static bool class_matches(const char *s, const char *e)
{
	char cls[KSYM_GLOB_NAME_MAX + 1], ch[2] = { 0, 0 };
	unsigned int c;

	memcpy(cls, s, e - s + 1);
	cls[e - s + 1] = '\0';
	for (c = 1; c < 0x80; c++) {
		ch[0] = (char)c;
		if (name_char(c) && ksym_glob_match(cls, ch))
			return true;
	}
	return false;
}

/* c for a message: itself, or escaped where it does not print */
static const char *shown(char buf[8], unsigned char c)
{
	if (c == '\t')
		snprintf(buf, 8, "\\t");
	else if (c < 0x20 || c >= 0x7f)
		snprintf(buf, 8, "\\x%02x", c);
	else
		snprintf(buf, 8, "%c", c);
	return buf;
}

int ksym_glob_check(const char *pat, char *why, size_t sz)
{
	const char *colon = strchr(pat, ':'), *name = colon ? colon + 1 : pat, *s;
	char q[8];

	if (!*pat)
		return why_not(why, sz, "empty");
	if (strpbrk(pat, " \t"))
		return why_not(why, sz, "contains whitespace%s",
			       strstr(pat, " #") || strstr(pat, "\t#") ?
				       " ('#' starts a comment only at the start of a line)" : "");
	if (colon) {
		for (s = pat; s < colon; s++) {
			if (strchr("*?[]!^", *s))
				return why_not(why, sz, "the module part is a glob: modules are "
							"matched by their exact name");
			if (!module_char((unsigned char)*s))
				return why_not(why, sz, "the module part has '%s', which no "
					       "module name has", shown(q, *s));
		}
		if (colon - pat > KSYM_GLOB_MODULE_MAX)
			return why_not(why, sz, "the module part is longer than %d characters",
				       KSYM_GLOB_MODULE_MAX);
		if (!*name)
			return why_not(why, sz, "no function name after ':'");
	}
	if (strlen(name) > KSYM_GLOB_NAME_MAX)
		return why_not(why, sz, "the function name is longer than %d characters",
			       KSYM_GLOB_NAME_MAX);
	for (s = name; *s; s++) {
		if (*s == ':')
			return why_not(why, sz, "more than one ':' (function names have none)");
		if (!name_char((unsigned char)*s) && !strchr("*?[]!^-", *s))
			return why_not(why, sz, "has '%s', which no kernel function name has%s",
				       shown(q, *s),
				       *s == '"' || *s == '\'' ? " (values are not quoted)" : "");
	}
	/* what match_class() takes literally outside a bracket expression never matches */
	for (s = name; *s; s++) {
		const char *e;

		if (*s == '[') {
			e = class_end(s);
			if (!e)
				return why_not(why, sz, "unterminated '['");
			if (!class_matches(s, e))
				return why_not(why, sz, "'%.*s' matches no character of a function "
							"name", (int)(e - s + 1), s);
			s = e;
		} else if (strchr("]!^-", *s)) {
			return why_not(why, sz, "has '%c' outside '[...]', which no kernel "
						"function name has", *s);
		}
	}
	return 0;
}
