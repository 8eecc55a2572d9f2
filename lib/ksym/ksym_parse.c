// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * One pass over a symbol file as read: each line is split in place (separators
 * become NULs), so a symbol costs one 24-byte entry and no allocation. The
 * parser is fed a file piece by piece (ksym_read.c reads it), a buffer whole
 * (ksym_table__parse()), or one symbol at a time (ksym_feed__add()).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ksym_internal.h"
#include "ksym_parse.h"

static signed char hexval[256];

static void __attribute__((constructor)) init_hexval(void)
{
	int c;

	memset(hexval, -1, sizeof(hexval));
	for (c = '0'; c <= '9'; c++)
		hexval[c] = c - '0';
	for (c = 'a'; c <= 'f'; c++)
		hexval[c] = c - 'a' + 10;
	for (c = 'A'; c <= 'F'; c++)
		hexval[c] = c - 'A' + 10;
}

static inline bool is_sep(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* Parses 1..16 hex digits at *p, ending at stop (0: a separator). */
static inline bool parse_hex_to(const char **p, const char *end, char stop, uint64_t *val)
{
	const char *s = *p;
	uint64_t v = 0;
	int n = 0;

	while (s < end && hexval[(unsigned char)*s] >= 0) {
		v = (v << 4) | hexval[(unsigned char)*s++];
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

static inline const char *skip_sep(const char *s, const char *end)
{
	while (s < end && is_sep(*s))
		s++;
	return s;
}

/* a token ends at a separator, or at a NUL, which no real file has inside a line */
static bool sep_tab[256] = { ['\0'] = true, [' '] = true, ['\t'] = true, ['\r'] = true };

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
		if (s == end || sep_tab[(unsigned char)*s])
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

/* What a line holds, as spans of the input; parsing writes nothing. */
struct line {
	const char *name, *mod;	/* mod: NULL for vmlinux */
	size_t name_len, mod_len;
	uint64_t addr, size;
	char type;
};

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

static void bad_line(struct ksym_parse_stats *st, size_t lineno)
{
	if (st->malformed < KSYM_MAX_BAD_LINES)
		st->bad_line[st->malformed] = lineno;
	st->malformed++;
}

/* A one-byte name has no second byte: it only meets one-byte prefixes. */
static inline unsigned int first2(const char *s, size_t len)
{
	return (unsigned char)s[0] << 8 | (len > 1 ? (unsigned char)s[1] : 0);
}

static bool exact_name(const struct parser *ps, const char *name, size_t len)
{
	uint32_t i, r;

	for (i = ksym_hash_len(name, len) & ps->nmask; (r = ps->nslot[i]); i = (i + 1) & ps->nmask)
		if (ps->nlen[r - 1] == len && !memcmp(ps->names[r - 1], name, len))
			return true;
	return false;
}

/*
 * The name [name, name + len) starts with one of the prefixes asked for or is
 * one of the names. No filter: everything is kept.
 */
static bool keep_name(const struct parser *ps, const char *name, size_t len)
{
	unsigned int k = first2(name, len);
	size_t i;

	if (!ps->prefixes && !ps->names)
		return true;
	if (ps->names && exact_name(ps, name, len))
		return true;
	if (!ps->prefixes || !(ps->first2[k / 64] >> (k % 64) & 1))
		return false;
	for (i = 0; i < ps->prefix_cnt; i++)
		if (ps->plen[i] < 2 ? name[0] == ps->prefixes[i][0]
				    : ps->key[i] == k && ps->plen[i] <= len &&
					      !memcmp(name + 2, ps->prefixes[i] + 2, ps->plen[i] - 2))
			return true;
	return false;
}

/* The set of exact names; "mod:name" stands for name. */
static int names_init(struct parser *ps, const char *const *names, size_t cnt)
{
	size_t i, sz = 16;
	uint32_t h;

	while (sz < 2 * cnt)
		sz *= 2;
	ps->names = malloc(cnt * sizeof(*ps->names));
	ps->nlen = malloc(cnt * sizeof(*ps->nlen));
	ps->nslot = calloc(sz, sizeof(*ps->nslot));
	if (!ps->names || !ps->nlen || !ps->nslot)
		return -ENOMEM;
	ps->nmask = sz - 1;
	for (i = 0; i < cnt; i++) {
		const char *n = names[i], *colon = strchr(n, ':');

		ps->names[i] = colon ? colon + 1 : n;
		ps->nlen[i] = strlen(ps->names[i]);
		if (ps->nlen[i]) {
			unsigned int k = first2(ps->names[i], ps->nlen[i]);

			ps->want2[k / 64] |= 1ull << (k % 64);
		}
		for (h = ksym_hash_len(ps->names[i], ps->nlen[i]) & ps->nmask; ps->nslot[h];
		     h = (h + 1) & ps->nmask)
			;
		ps->nslot[h] = i + 1;
	}
	return 0;
}

/* The first-two-bytes filter; an empty prefix keeps everything. */
static int prefixes_init(struct parser *ps)
{
	size_t i, c;

	ps->key = malloc(ps->prefix_cnt * sizeof(*ps->key));
	ps->plen = malloc(ps->prefix_cnt * sizeof(*ps->plen));
	if (!ps->key || !ps->plen)
		return -ENOMEM;
	for (i = 0; i < ps->prefix_cnt; i++) {
		const char *p = ps->prefixes[i];

		ps->plen[i] = strlen(p);
		if (!ps->plen[i]) {
			ps->prefixes = NULL;	/* keeps all */
			return 0;
		}
		ps->key[i] = ps->plen[i] > 1 ? first2(p, 2) : 0;
		if (ps->plen[i] > 1) {
			ps->first2[ps->key[i] / 64] |= 1ull << (ps->key[i] % 64);
			continue;
		}
		for (c = 0; c < 256; c++) {
			unsigned int k = (unsigned char)p[0] << 8 | c;

			ps->first2[k / 64] |= 1ull << (k % 64);
		}
	}
	return 0;
}

/* Parses one line [s, end); end points at its '\n' or the input's end. */
static int parse_line(enum ksym_format fmt, const char *s, const char *end, struct line *l)
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

/* Whether the filters keep a well-formed line. */
static bool keep_line(const struct parser *ps, const struct line *l)
{
	if (ps->text_only && !ksym_type_is_text(l->type))
		return false;
	if ((ps->prefixes || ps->names) && !keep_name(ps, l->name, l->name_len))
		return false;
	/* 6.1's list holds placeholders for records it could not name */
	return ps->fmt != KSYM_FMT_FUNCS || l->name_len < 27 ||
	       memcmp(l->name, "__ftrace_invalid_address___", 27);
}

static int add_entry(struct parser *ps, const struct line *l)
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
 * The kernel's own "%px %c %s[\t[%s]]\n", recognised in one scan of the line
 * (no search for its end first); *le: its '\n'. Anything else is for
 * parse_line(), which accepts every line this does.
 */
static inline bool fast_line(const char *s, const char *end, struct line *l, const char **le)
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

/*
 * Parses the complete lines of [s, end), and at eof an unterminated last one;
 * *rest: where the unparsed part begins.
 */
static int parse_span(struct parser *ps, const char *s, const char *end, bool eof,
		      const char **rest)
{
	const char *nl, *le;
	struct line l;
	int err;

	for (; s < end; s = le + 1) {
		if (ps->fmt == KSYM_FMT_KALLSYMS && fast_line(s, end, &l, &le)) {
			ps->lineno++;
			if (!keep_line(ps, &l)) {
				ps->st->skipped++;
				continue;
			}
			err = add_entry(ps, &l);
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
			bad_line(ps->st, ps->lineno);
			continue;
		}
		/* "%px %c %s": a symbol left out is recognised by its first columns */
		if ((ps->text_only || ps->prefixes || ps->names) && ps->fmt == KSYM_FMT_KALLSYMS &&
		    le - s > 19 && s[16] == ' ' && s[18] == ' ' && hexval[(unsigned char)s[0]] >= 0 &&
		    ((ps->text_only && !ksym_type_is_text(s[17])) ||
		     !keep_name(ps, s + 19, token_end(s + 19, le) - (s + 19)))) {
			ps->st->skipped++;
			continue;
		}
		if (parse_line(ps->fmt, s, le, &l)) {
			bad_line(ps->st, ps->lineno);
		} else if (!keep_line(ps, &l)) {
			ps->st->skipped++;
		} else {
			err = add_entry(ps, &l);
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
			bad_line(ps->st, ++ps->lineno);
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

int ksym_filters_init(struct parser *ps)
{
	int err = ps->prefixes ? prefixes_init(ps) : 0;

	if (!err && ps->want)
		err = names_init(ps, ps->want, ps->want_cnt);
	return err;
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

/*
 * A table fed one symbol at a time, with a KALLSYMS parse's filters and
 * checks: for sources that are not text (the ksym iterator's records).
 */
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
	struct line l = { .name = name, .name_len = name_len, .mod = mod_len ? mod : NULL,
			  .mod_len = mod_len, .addr = addr, .type = type };

	ps->lineno++;
	/* (tracefs' lists have no type: 0) */
	if (!name_len || name_len > KSYM_NAME_MAX ||
	    ((unsigned char)type <= ' ' && (type || ps->fmt == KSYM_FMT_KALLSYMS))) {
		bad_line(ps->st, ps->lineno);
		return 0;
	}
	if (!keep_line(ps, &l)) {
		ps->st->skipped++;
		return 0;
	}
	return add_entry(ps, &l);
}

bool ksym_feed__may_keep(const struct ksym_feed *f, char type, const char *head, size_t len)
{
	const struct parser *ps = &f->ps;
	unsigned int k;

	if (ps->text_only && !ksym_type_is_text(type))
		return false;
	if (!ps->prefixes && !ps->names)
		return true;
	k = first2(head, len);
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
