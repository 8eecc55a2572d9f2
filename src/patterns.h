/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KSA_PATTERNS_H
#define KSA_PATTERNS_H

#include <stddef.h>

/* At most this many patterns in all (a whole kernel has about 50,000 functions). */
#define PATTERNS_MAX (1u << 20)

struct patterns {
	const char **v;
	size_t cnt, cap;
};

/*
 * Appends p to l. 0, or -ENOMEM, or -E2BIG past PATTERNS_MAX.
 */
int patterns__add(struct patterns *l, const char *p);

/*
 * Appends the patterns of file path, one glob or name per line (blank lines
 * and lines starting with '#' skipped, spaces around a pattern dropped). The
 * strings live as long as the process. 0, or -errno with why (one line)
 * naming the cause: the file unreadable or larger than any list of the
 * kernel's functions, a line too long to be a name, no pattern in it.
 */
int patterns__read_file(struct patterns *l, const char *path, char *why, size_t why_len);

#endif
