// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A table fed one symbol at a time, with a KALLSYMS parse's filters and
 * checks: for sources that are not text (the ksym iterator's records).
 */
#include <errno.h>
#include <stdlib.h>

#include "ksym_filter.h"
#include "ksym_parser.h"

struct ksym_feed {
	struct parser ps;
	struct ksym_parse_stats local;
};

struct ksym_feed *ksym_feed__new(const struct ksym_parse_opts *opts, size_t ents, size_t arena)
{
	return ksym_feed__new_fmt(KSYM_FMT_KALLSYMS, opts, ents, arena);
}

struct ksym_feed *ksym_feed__new_fmt(enum ksym_format fmt, const struct ksym_parse_opts *opts,
				     size_t ents, size_t arena)
{
	struct ksym_feed *f = calloc(1, sizeof(*f));
	char *buf;

	if (!f)
		return NULL;
	ksym_parse_opts(&f->ps, opts, &f->local);
	if (f->ps.want || f->ps.prefixes) {
		ents = f->ps.want_cnt * 2 + 1024;
		arena = f->ps.want_cnt * 32 + (64u << 10);
	}
	buf = ksym_mem_alloc(arena);
	if ((fmt != KSYM_FMT_KALLSYMS && fmt != KSYM_FMT_FUNCS_ADDRS) || !buf ||
	    !ksym_parse_begin(&f->ps, fmt, buf, ents, arena)) {
		ksym_mem_free(buf, arena);
		free(f);
		return NULL;
	}
	if (ksym_filters_init(&f->ps)) {
		ksym_parse_done(&f->ps, -ENOMEM);
		free(f);
		return NULL;
	}
	return f;
}

int ksym_feed__add(struct ksym_feed *f, uint64_t addr, char type, const char *name,
		   size_t name_len, const char *mod, size_t mod_len)
{
	struct parser *ps = &f->ps;
	struct ksym_line l = { .name = name, .name_len = name_len, .mod = mod_len ? mod : NULL,
			  .mod_len = mod_len, .addr = addr, .type = type };

	ps->lineno++;
	/* (tracefs' lists have no type: 0) */
	if (!name_len || name_len > KSYM_NAME_MAX ||
	    ((unsigned char)type <= ' ' && (type || ps->fmt == KSYM_FMT_KALLSYMS))) {
		ksym_bad_line(ps->st, ps->lineno);
		return 0;
	}
	if (!ksym_keep_line(ps, &l)) {
		ps->st->skipped++;
		return 0;
	}
	return ksym_parse_add(ps, &l);
}

bool ksym_feed__may_keep(const struct ksym_feed *f, char type, const char *head, size_t len)
{
	const struct parser *ps = &f->ps;
	unsigned int k;

	if (ps->text_only && !ksym_type_is_text(type))
		return false;
	if (!ps->prefixes && !ps->names)
		return true;
	k = ksym_first2(head, len);
	return (ps->prefixes && ps->first2[k / 64] >> (k % 64) & 1) ||
	       (ps->names && ps->want2[k / 64] >> (k % 64) & 1);
}

struct ksym_table *ksym_feed__end(struct ksym_feed *f, int err)
{
	struct ksym_table *t;

	if (!err)
		err = ksym_parse_end(&f->ps);
	t = ksym_parse_done(&f->ps, err);
	err = errno;
	free(f);
	errno = err;
	return t;
}
