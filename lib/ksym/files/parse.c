// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * One pass over a symbol file: each line is read as spans of the input
 * (ksym_lex.h), passed through the filters (filter.c), and the name of
 * each line kept is copied to the front of the table's strings, so a symbol
 * costs one 24-byte entry and its name. The parser is fed a file piece by
 * piece (read.c reads it), a buffer whole (ksym_table__parse()), or one
 * symbol at a time (feed.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ksym_internal.h"
#include "ksym_filter.h"
#include "ksym_parser.h"

/* Copies [s, s + len) and a NUL to the strings kept; *off: where. */
static int emit(struct parser *ps, const char *s, size_t len, uint32_t *off)
{
	struct ksym_table *t = ps->t;

	/* an arena of its own grows; in place, the input's room is enough */
	if (t->buf_cap && ps->out + len + 1 > t->buf_cap) {
		size_t ncap = t->buf_cap * 2 + len + 1;
		char *n;

		if (ncap >= UINT32_MAX)
			return -EFBIG;
		n = ksym_mem_realloc(t->buf, t->buf_cap, ncap);
		if (!n)
			return -ENOMEM;
		t->buf = n;
		t->buf_cap = ncap;
	}
	/* in place, out never passes s: the bytes ahead are still to be read */
	memmove(t->buf + ps->out, s, len);
	t->buf[ps->out + len] = '\0';
	*off = ps->out;
	ps->out += len + 1;
	return 0;
}

/* The slot that holds name's id, or the empty one where it would go. */
static uint16_t *mod_slot(const struct parser *ps, const char *name, size_t len)
{
	const struct ksym_table *t = ps->t;
	size_t s = ksym_hash_len(name, len) & ps->mod_mask;
	const char *m;

	for (;; s = (s + 1) & ps->mod_mask) {
		if (!ps->mod_ix[s])
			return &ps->mod_ix[s];
		m = t->buf + t->mods[ps->mod_ix[s] - 1];
		if (!strncmp(m, name, len) && !m[len])
			return &ps->mod_ix[s];
	}
}

/* Room for one more module, the slots at most half full. */
static int mod_grow(struct parser *ps)
{
	struct ksym_table *t = ps->t;
	size_t cap = ps->mod_ix ? (ps->mod_mask + 1) * 2 : 256, i;
	uint16_t *old = ps->mod_ix;

	if (ps->mod_ix && (t->mod_cnt + 1) * 2 <= ps->mod_mask + 1)
		return 0;
	ps->mod_ix = calloc(cap, sizeof(*ps->mod_ix));
	if (!ps->mod_ix) {
		ps->mod_ix = old;
		return -ENOMEM;
	}
	ps->mod_mask = cap - 1;
	for (i = 0; i < t->mod_cnt; i++) {
		const char *m = t->buf + t->mods[i];

		*mod_slot(ps, m, strlen(m)) = i + 1;
	}
	free(old);
	return 0;
}

static int intern_mod(struct parser *ps, const char *name, size_t len, uint16_t *id)
{
	struct ksym_table *t = ps->t;
	uint16_t *slot;
	const char *m;
	int err;

	if (ps->last_mod) {
		m = t->buf + t->mods[ps->last_mod - 1];
		if (!strncmp(m, name, len) && !m[len]) {
			*id = ps->last_mod;
			return 0;
		}
	}
	err = mod_grow(ps);
	if (err)
		return err;
	slot = mod_slot(ps, name, len);
	if (!*slot) {
		if (t->mod_cnt == UINT16_MAX)
			return -E2BIG;
		if (t->mod_cnt == ps->mod_cap) {
			size_t ncap = ps->mod_cap ? ps->mod_cap * 2 : 64;
			uint32_t *n = realloc(t->mods, ncap * sizeof(*n));

			if (!n)
				return -ENOMEM;
			t->mods = n;
			ps->mod_cap = ncap;
		}
		err = emit(ps, name, len, &t->mods[t->mod_cnt]);
		if (err)
			return err;
		*slot = ++t->mod_cnt;
	}
	ps->last_mod = *id = *slot;
	return 0;
}

int ksym_parse_add(struct parser *ps, const struct ksym_line *l)
{
	struct ksym_table *t = ps->t;
	struct ksym_ent *e;
	int err;

	if (t->cnt == t->ent_cap) {
		size_t ncap = t->ent_cap * 2;
		struct ksym_ent *n = ksym_mem_realloc(t->ents, t->ent_cap * sizeof(*n),
						      ncap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		t->ents = n;
		t->ent_cap = ncap;
	}
	e = &t->ents[t->cnt];
	/* the name first: in place, the module name lies behind it in the line */
	err = emit(ps, l->name, l->name_len, &e->name);
	if (err)
		return err;
	e->addr = l->addr;
	e->size = l->size > UINT32_MAX ? UINT32_MAX : l->size;
	e->type = l->type;
	e->mod = 0;
	e->flags = ps->fmt == KSYM_FMT_FUNCS ? KSYM_F_UNRESOLVED | KSYM_F_TRACEABLE :
		   ps->fmt == KSYM_FMT_FUNCS_ADDRS ? KSYM_F_TRACEABLE : 0;
	if (l->mod) {
		err = intern_mod(ps, l->mod, l->mod_len, &e->mod);
		if (err)
			return err;
	}
	ps->any_addr |= e->addr != 0;
	if (ps->index) {
		err = ksym_index_add(&t->ix, t, t->cnt);
		if (err)
			return err;
	}
	t->cnt++;
	return 0;
}

/*
 * Parses the complete lines of [s, end), and at eof an unterminated last one;
 * *rest: where the unparsed part begins.
 */
static int parse_span(struct parser *ps, const char *s, const char *end, bool eof,
		      const char **rest)
{
	const char *nl, *le;
	struct ksym_line l;
	int err;

	for (; s < end; s = le + 1) {
		if (ps->fmt == KSYM_FMT_KALLSYMS && fast_line(s, end, &l, &le)) {
			ps->lineno++;
			if (!ksym_keep_line(ps, &l)) {
				ps->st->skipped++;
				continue;
			}
			err = ksym_parse_add(ps, &l);
			if (err)
				return err;
			continue;
		}
		nl = memchr(s, '\n', end - s);
		if (!nl && !eof)
			break;		/* the rest of this line is still to come */
		le = nl ? nl : end;
		ps->lineno++;
		if (skip_sep(s, le) == le)	/* blank line */
			continue;
		/* as the piece loader, which does not keep such a line, sees it */
		if (le - s > KSYM_LINE_MAX) {
			ksym_bad_line(ps->st, ps->lineno);
			continue;
		}
		/* "%px %c %s": a symbol left out is recognised by its first columns */
		if ((ps->text_only || ps->prefixes || ps->names) && ps->fmt == KSYM_FMT_KALLSYMS &&
		    le - s > 19 && s[16] == ' ' && s[18] == ' ' && ksym_hexval[(unsigned char)s[0]] >= 0 &&
		    ((ps->text_only && !ksym_type_is_text(s[17])) ||
		     !ksym_keep_name(ps, s + 19, token_end(s + 19, le) - (s + 19)))) {
			ps->st->skipped++;
			continue;
		}
		if (ksym_parse_line(ps->fmt, s, le, &l)) {
			ksym_bad_line(ps->st, ps->lineno);
		} else if (!ksym_keep_line(ps, &l)) {
			ps->st->skipped++;
		} else {
			err = ksym_parse_add(ps, &l);
			if (err)
				return err;
		}
	}
	*rest = s < end ? s : end;
	return 0;
}

static int carry_add(struct parser *ps, const char *s, size_t len)
{
	if (!len)
		return 0;
	if (ps->carry_len + len > ps->carry_cap) {
		size_t ncap = 2 * (ps->carry_len + len) + 512;
		char *n = realloc(ps->carry, ncap);

		if (!n)
			return -ENOMEM;
		ps->carry = n;
		ps->carry_cap = ncap;
	}
	memcpy(ps->carry + ps->carry_len, s, len);
	ps->carry_len += len;
	return 0;
}

/*
 * One piece of a file read into a buffer the parser does not keep: a line
 * split between pieces is put together in the carry first. At eof (len may be
 * 0) an unterminated last line counts too.
 */
int ksym_parse_piece(struct parser *ps, const char *s, size_t len, bool eof)
{
	const char *end = s + len, *nl = NULL, *rest;
	size_t take;
	int err;

	ps->fed += len;
	if (ps->fed > KSYM_INPUT_MAX)
		return -EFBIG;
	if (ps->stop && *ps->stop)
		return -EINTR;
	if (ps->carry_len || ps->overlong) {
		nl = len ? memchr(s, '\n', len) : NULL;
		take = nl ? (size_t)(nl + 1 - s) : len;
		/* (its '\n' not counted) */
		if (!ps->overlong && ps->carry_len + take - (nl != NULL) > KSYM_LINE_MAX) {
			ps->overlong = true;	/* no real line is this long */
			ps->carry_len = 0;
		}
		err = ps->overlong ? 0 : carry_add(ps, s, take);
		if (err)
			return err;
		s += take;
		if (!nl && !eof)
			return 0;
		if (ps->overlong) {
			ps->overlong = false;
			ksym_bad_line(ps->st, ++ps->lineno);
		} else {
			/* one line, whole: at its '\n', or the file's unterminated last */
			err = parse_span(ps, ps->carry, ps->carry + ps->carry_len, true, &rest);
			ps->carry_len = 0;
			if (err)
				return err;
		}
	}
	if (s == end)
		return 0;
	err = parse_span(ps, s, end, eof, &rest);
	if (err)
		return err;
	if (end - rest > KSYM_LINE_MAX) {
		ps->overlong = true;
		return 0;
	}
	return carry_add(ps, rest, end - rest);
}

void ksym_parse_opts(struct parser *ps, const struct ksym_parse_opts *opts,
		     struct ksym_parse_stats *local)
{
	ps->st = local;
	if (opts && opts->sz >= offsetof(struct ksym_parse_opts, stats) + sizeof(void *) &&
	    opts->stats)
		ps->st = opts->stats;
	if (opts && opts->sz >= offsetof(struct ksym_parse_opts, text_only) + sizeof(bool))
		ps->text_only = opts->text_only;
	if (opts && opts->sz >= offsetof(struct ksym_parse_opts, index) + sizeof(bool))
		ps->index = opts->index;
	if (opts && opts->sz >= offsetof(struct ksym_parse_opts, prefix_cnt) + sizeof(size_t)) {
		ps->prefixes = opts->prefixes;
		ps->prefix_cnt = opts->prefix_cnt;
	}
	if (opts && opts->sz >= offsetof(struct ksym_parse_opts, name_cnt) + sizeof(size_t)) {
		ps->want = opts->names;
		ps->want_cnt = opts->name_cnt;
	}
	if (opts && opts->sz >= offsetof(struct ksym_parse_opts, stop) + sizeof(void *))
		ps->stop = opts->stop;
	memset(ps->st, 0, sizeof(*ps->st));
}

/*
 * A table around buf, ready to be fed; ent_hint guesses the entry count. With
 * arena, buf (from ksym_mem_alloc(arena)) only receives the strings kept; else
 * buf is the input, its front rewritten with them.
 */
struct ksym_table *ksym_parse_begin(struct parser *ps, enum ksym_format fmt, char *buf,
				    size_t ent_hint, size_t arena)
{
	struct ksym_table *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->buf = buf;
	t->buf_cap = arena;
	t->fmt = fmt;
	ps->t = t;
	ps->fmt = fmt;
	t->ent_cap = ent_hint + 64;
	/*
	 * Only names asked for are kept: size for them (duplicates grow it). Each
	 * page of a table touched for the first time costs a fault; an index
	 * sized for the whole file would touch all of its pages.
	 */
	if (ps->want && !ps->prefixes && t->ent_cap > 2 * ps->want_cnt + 64)
		t->ent_cap = 2 * ps->want_cnt + 64;
	t->ents = ksym_mem_alloc(t->ent_cap * sizeof(*t->ents));
	if (!t->ents || (ps->index && ksym_index_init(&t->ix, t->ent_cap))) {
		ksym_mem_free(t->ents, t->ent_cap * sizeof(*t->ents));
		free(t);
		return NULL;
	}
	if (ps->index)
		t->batch_refs = 1;	/* as if batch_begin had been called */
	return t;
}

int ksym_parse_end(struct parser *ps)
{
	struct ksym_table *t = ps->t;

	ps->st->lines = ps->lineno;
	ps->st->symbols = t->cnt;
	t->len = ps->out;
	if (ps->fmt != KSYM_FMT_FUNCS && t->cnt && !ps->any_addr) {
		ps->st->all_zero = true;
		return -EPERM;
	}
	/* give back the guesses' slack: the table may live for the whole run */
	if (t->cnt && t->cnt < t->ent_cap) {
		struct ksym_ent *n = ksym_mem_realloc(t->ents, t->ent_cap * sizeof(*n),
						      t->cnt * sizeof(*n));

		if (n) {
			t->ents = n;
			t->ent_cap = t->cnt;
		}
	}
	/* the strings kept fill the front of buf: the rest goes back */
	if (t->buf_cap) {
		char *n = ksym_mem_realloc(t->buf, t->buf_cap, t->len + 1);

		if (n) {
			t->buf = n;
			t->buf_cap = t->len + 1;
		}
	} else {
		char *n = realloc(t->buf, t->len + 1);

		if (n)
			t->buf = n;
	}
	return ksym_table__finish(t);
}

/* The filters go; the table is returned, or freed with errno set from err. */
struct ksym_table *ksym_parse_done(struct parser *ps, int err)
{
	free(ps->key);
	free(ps->plen);
	free(ps->names);
	free(ps->nlen);
	free(ps->nslot);
	free(ps->carry);
	free(ps->mod_ix);
	if (err) {
		ksym_table__free(ps->t);
		errno = -err;
		return NULL;
	}
	return ps->t;
}

struct ksym_table *ksym_table__parse(enum ksym_format fmt, char *buf, size_t len,
				     const struct ksym_parse_opts *opts)
{
	struct ksym_parse_stats local;
	struct parser ps = {};
	struct ksym_table *t;
	const char *rest;
	int err;

	ksym_parse_opts(&ps, opts, &local);
	if (len >= UINT32_MAX) {
		free(buf);
		errno = EFBIG;
		return NULL;
	}
	/* kallsyms lines average ~44 bytes (40 for the function lists) */
	t = ksym_parse_begin(&ps, fmt, buf, len / 40, 0);
	if (!t) {
		free(buf);
		errno = ENOMEM;
		return NULL;
	}
	err = ksym_filters_init(&ps);
	if (!err)
		err = parse_span(&ps, buf, buf + len, true, &rest);
	if (!err)
		err = ksym_parse_end(&ps);
	return ksym_parse_done(&ps, err);
}
