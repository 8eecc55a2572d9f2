// SPDX-License-Identifier: GPL-2.0
/*
 * -p @FILE: patterns from a file, as retsnoop takes @FILE for its globs. An
 * agent's list of thousands of functions does not fit on a command line, and
 * a list written by a script is easier to check than one in a shell variable.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ksym/ksym.h>

#include "patterns.h"

/* The kernel's names are shorter (KSYM_NAME_LEN, 512 with the terminator). */
#define PATTERN_LEN_MAX 511
/* A million names of the longest kind: past it, no list of functions. */
#define PATTERNS_FILE_MAX (PATTERNS_MAX * 16u)

int patterns__add(struct patterns *l, const char *p)
{
	if (l->cnt == PATTERNS_MAX)
		return -E2BIG;
	if (l->cnt == l->cap) {
		size_t ncap = l->cap ? l->cap * 2 : 64;
		const char **n = realloc(l->v, ncap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		l->v = n;
		l->cap = ncap;
	}
	l->v[l->cnt++] = p;
	return 0;
}

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

int patterns__read_file(struct patterns *l, const char *path, char *why, size_t why_len)
{
	size_t len = 0, line = 0, before = l->cnt;
	char *buf = NULL, *s, *next, reason[160];
	int err;

	/* (a device or a FIFO that never ends is refused with that much read) */
	err = ksym__read_file_max(path, PATTERNS_FILE_MAX, &buf, &len);
	if (err) {
		snprintf(why, why_len, "cannot read patterns from %s: %s", path,
			 err == -EFBIG ? "larger than any list of the kernel's functions" :
			 strerror(-err));
		return err;
	}
	for (s = buf; s < buf + len; s = next) {
		char *end = memchr(s, '\n', buf + len - s);

		next = end ? end + 1 : buf + len;
		if (!end)
			end = buf + len;
		line++;
		while (s < end && blank(*s))
			s++;
		while (end > s && blank(end[-1]))
			end--;
		if (s == end || *s == '#')
			continue;
		if (end - s > PATTERN_LEN_MAX || memchr(s, '\0', end - s)) {
			snprintf(why, why_len, "%s:%zu: not a pattern (%s)", path, line,
				 end - s > PATTERN_LEN_MAX ? "longer than any kernel function name"
							   : "a NUL byte in it");
			return -EINVAL;
		}
		*end = '\0';
		if (ksym_glob_check(s, reason, sizeof(reason))) {
			snprintf(why, why_len, "%s:%zu: pattern '%.*s' can never match: %s", path,
				 line, 80, s, reason);
			return -EINVAL;
		}
		err = patterns__add(l, s);
		if (err) {
			snprintf(why, why_len, "%s: %s", path, err == -E2BIG ?
				 "more patterns than any kernel has functions" : strerror(-err));
			return err;
		}
	}
	if (l->cnt == before) {
		snprintf(why, why_len, "%s: no pattern in it", path);
		return -ENODATA;
	}
	return 0;	/* (buf holds the patterns for the process's life) */
}
