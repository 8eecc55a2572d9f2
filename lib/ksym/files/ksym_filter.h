/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The parser's filters (filter.c), as the parser's loop (parse.c),
 * the reader (read.c) and the feed (feed.c) ask them.
 */
#ifndef KSYM_FILTER_H
#define KSYM_FILTER_H

#include <stdbool.h>
#include <string.h>

#include "ksym_parser.h"

/* The prefixes' and names' filters made from the options */
int ksym_filters_init(struct parser *ps);

/*
 * Whether the name [name, name + len) starts with one of the prefixes asked
 * for or is one of the names (filter.c). No filter: everything is kept.
 */
bool ksym_keep_name(const struct parser *ps, const char *name, size_t len);

/* Whether the filters keep a well-formed line. */
static inline bool ksym_keep_line(const struct parser *ps, const struct ksym_line *l)
{
	if (ps->text_only && !ksym_type_is_text(l->type))
		return false;
	if ((ps->prefixes || ps->names) && !ksym_keep_name(ps, l->name, l->name_len))
		return false;
	/* 6.1's list holds placeholders for records it could not name */
	return ps->fmt != KSYM_FMT_FUNCS || l->name_len < 27 ||
	       memcmp(l->name, "__ftrace_invalid_address___", 27);
}

#endif /* KSYM_FILTER_H */
