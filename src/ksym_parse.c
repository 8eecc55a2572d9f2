// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * One pass over a symbol file as read: each line is split in place (separators
 * become NULs), so a symbol costs one 24-byte entry and no allocation.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ksym_internal.h"

/* The kernel's KSYM_NAME_LEN is 512 (with the NUL). */
#define KSYM_NAME_MAX 511

int ksym__read_file(const char *path, char **bufp, size_t *lenp)
{
	size_t cap = 1 << 20, len = 0;
	char *buf, *nbuf;
	ssize_t n;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	buf = malloc(cap + 1);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	for (;;) {
		if (cap - len < (1 << 16)) {
			nbuf = realloc(buf, cap * 2 + 1);
			if (!nbuf) {
				err = -ENOMEM;
				goto err;
			}
			buf = nbuf;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			goto err;
		}
		if (n == 0)
			break;
		len += n;
	}
	close(fd);
	buf[len] = '\0';
	/* the doubling left up to half unused: the buffer becomes the string arena */
	nbuf = realloc(buf, len + 1);
	*bufp = nbuf ? nbuf : buf;
	*lenp = len;
	return 0;
err:
	close(fd);
	free(buf);
	return err;
}

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
static inline bool parse_hex_to(char **p, char *end, char stop, uint64_t *val)
{
	char *s = *p;
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

static inline bool parse_hex(char **p, char *end, uint64_t *val)
{
	return parse_hex_to(p, end, 0, val);
}

static inline char *skip_sep(char *s, char *end)
{
	while (s < end && is_sep(*s))
		s++;
	return s;
}

/* a token ends at a separator, or at a NUL, which no real file has inside a line */
static bool sep_tab[256] = { ['\0'] = true, [' '] = true, ['\t'] = true, ['\r'] = true };

static inline char *token_end(char *s, char *end)
{
	const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
	uint64_t w, low;

	/*
	 * Eight bytes a step while none is below '!' (every separator is): a
	 * name is ~25 bytes, and a byte loop was half of the parse. The first
	 * flagged byte is exact (a borrow only runs upwards from a real one).
	 */
	for (;;) {
		while (end - s >= 8) {
			memcpy(&w, s, 8);
			low = (w - ones * 0x21) & ~w & highs;
			if (low) {
				s += __builtin_ctzll(low) / 8;
				break;
			}
			s += 8;
		}
		while (s < end && (unsigned char)*s > ' ')
			s++;
		if (s == end || sep_tab[(unsigned char)*s])
			return s;
		s++;	/* a control byte that is no separator: part of the token */
	}
}

/* Parser state: it can be fed a file piece by piece as it is being read. */
struct parser {
	struct ksym_table *t;
	enum ksym_format fmt;
	struct ksym_parse_stats *st;
	bool text_only;
	bool index;		/* add every entry to the name index as it is parsed */
	const char *const *prefixes;
	size_t prefix_cnt;
	/* names' first two bytes any prefix allows: most names stop there */
	uint64_t first2[65536 / 64];
	uint16_t *key;		/* each prefix's first two bytes */
	size_t *plen;
	const char *const *want;	/* the exact names asked for */
	size_t want_cnt;
	/* their set: open addressing, name index + 1 per slot */
	const char **names;
	uint32_t *nlen;
	uint32_t *nslot;
	uint32_t nmask;
	bool any_addr;
	size_t pos;		/* next unparsed byte of t->buf */
	size_t lineno;
	size_t mod_cap;
	const char *last_mod;	/* consecutive lines share a module: skip the search */
	uint16_t last_mod_id;
};

static int intern_mod(struct parser *ps, char *name, uint16_t *id)
{
	struct ksym_table *t = ps->t;
	size_t i;

	if (ps->last_mod && !strcmp(ps->last_mod, name)) {
		*id = ps->last_mod_id;
		return 0;
	}
	for (i = 0; i < t->mod_cnt; i++)
		if (!strcmp(t->buf + t->mods[i], name))
			break;
	if (i == t->mod_cnt) {
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
		t->mods[t->mod_cnt++] = name - t->buf;
	}
	ps->last_mod = t->buf + t->mods[i];
	ps->last_mod_id = *id = i + 1;
	return 0;
}

static void bad_line(struct ksym_parse_stats *st, size_t lineno)
{
	if (st->malformed < KSYM_MAX_BAD_LINES)
		st->bad_line[st->malformed] = lineno;
	st->malformed++;
}

static inline unsigned int first2(const char *s)
{
	return (unsigned char)s[0] << 8 | (unsigned char)s[1];
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
	unsigned int k = first2(name);
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
		ps->key[i] = ps->plen[i] > 1 ? first2(p) : 0;
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

/* Parses one line [s, end); end points at its '\n' or the buffer end. */
static int parse_line(struct parser *ps, enum ksym_format fmt, char *s, char *end,
		      bool text_only, struct ksym_ent *e)
{
	struct ksym_table *t = ps->t;
	char *name, *name_end, *mod = NULL, *p;
	uint64_t addr = 0, size = 0;
	char type = 0;

	p = s;
	if (fmt == KSYM_FMT_KALLSYMS && end - s > 19 && s[16] == ' ' && s[18] == ' ' &&
	    (unsigned char)s[17] > ' ' && !is_sep(s[19]) && parse_hex(&p, s + 17, &addr)) {
		/* the kernel's own "%px %c %s": fixed columns, no scanning */
		type = s[17];
		p = s + 19;
	} else if (fmt == KSYM_FMT_BLACKLIST) {
		/* a range: the kernel prints both ends with %px */
		uint64_t hi;

		if (end - p < 2 || p[0] != '0' || p[1] != 'x')
			return -EINVAL;
		p += 2;
		if (!parse_hex_to(&p, end, '-', &addr) || end - p < 3 || p[1] != '0' || p[2] != 'x')
			return -EINVAL;
		p += 3;
		if (!parse_hex(&p, end, &hi) || hi < addr)
			return -EINVAL;
		size = hi - addr;
		p = skip_sep(p, end);
	} else if (fmt != KSYM_FMT_FUNCS) {
		if (!parse_hex(&p, end, &addr))
			return -EINVAL;
		p = skip_sep(p, end);
	}
	if (!type && (fmt == KSYM_FMT_KALLSYMS || fmt == KSYM_FMT_SYSTEM_MAP)) {
		/* the type is a single letter (or '?'), then a separator */
		if (p + 1 >= end || !is_sep(p[1]) || (unsigned char)p[0] <= ' ')
			return -EINVAL;
		type = *p;
		p = skip_sep(p + 1, end);
	}
	name = p;
	name_end = token_end(p, end);
	if (name_end == name || name_end - name > KSYM_NAME_MAX || (name_end < end && !*name_end))
		return -EINVAL;
	p = skip_sep(name_end, end);
	if (p < end) {
		/* only "[module]" may follow the name */
		char *m_end = token_end(p, end);

		if (fmt == KSYM_FMT_SYSTEM_MAP || *p != '[' || m_end[-1] != ']' || m_end - p < 3 ||
		    (m_end < end && !*m_end) || skip_sep(m_end, end) != end)
			return -EINVAL;
		mod = p + 1;
		m_end[-1] = '\0';
	}
	*name_end = '\0';

	if ((text_only && !ksym_type_is_text(type)) ||
	    ((ps->prefixes || ps->names) && !keep_name(ps, name, name_end - name)))
		return 1;
	/* 6.1's list holds placeholders for records it could not name */
	if (fmt == KSYM_FMT_FUNCS && !strncmp(name, "__ftrace_invalid_address___", 27))
		return 1;

	e->addr = addr;
	e->name = name - t->buf;
	e->size = size > UINT32_MAX ? UINT32_MAX : size;
	e->type = type;
	e->mod = 0;
	e->flags = fmt == KSYM_FMT_FUNCS ? KSYM_F_UNRESOLVED | KSYM_F_TRACEABLE :
		   fmt == KSYM_FMT_FUNCS_ADDRS ? KSYM_F_TRACEABLE : 0;
	if (mod) {
		int err = intern_mod(ps, mod, &e->mod);

		if (err)
			return err;
	}
	return 0;
}

/* Parses the complete lines of buf[ps->pos, avail); at eof the last one too. */
static int parse_lines(struct parser *ps, size_t avail, bool eof)
{
	struct ksym_table *t = ps->t;
	char *s = t->buf + ps->pos, *end = t->buf + avail, *nl, *le;
	int err;

	while (s < end) {
		struct ksym_ent *e;

		nl = memchr(s, '\n', end - s);
		if (!nl && !eof)
			break;		/* the rest of this line is still being read */
		le = nl ? nl : end;
		ps->lineno++;
		if (le > s && le[-1] == '\r')
			le[-1] = ' ';
		if (skip_sep(s, le) == le) {	/* blank line */
			s = le + 1;
			continue;
		}
		/* "%px %c %s": a symbol left out is recognised by its first columns */
		if ((ps->text_only || ps->prefixes || ps->names) && ps->fmt == KSYM_FMT_KALLSYMS &&
		    le - s > 19 && s[16] == ' ' && s[18] == ' ' && hexval[(unsigned char)s[0]] >= 0 &&
		    ((ps->text_only && !ksym_type_is_text(s[17])) ||
		     !keep_name(ps, s + 19, token_end(s + 19, le) - (s + 19)))) {
			ps->st->skipped++;
			s = le + 1;
			continue;
		}
		if (t->cnt == t->ent_cap) {
			size_t ncap = t->ent_cap * 2;
			struct ksym_ent *n = realloc(t->ents, ncap * sizeof(*n));

			if (!n)
				return -ENOMEM;
			t->ents = n;
			t->ent_cap = ncap;
		}
		e = &t->ents[t->cnt];
		err = parse_line(ps, ps->fmt, s, le, ps->text_only, e);
		if (err < 0 && err != -EINVAL)
			return err;
		if (err == -EINVAL) {
			bad_line(ps->st, ps->lineno);
		} else if (err == 1) {
			ps->st->skipped++;
		} else {
			ps->any_addr |= e->addr != 0;
			if (ps->index) {
				err = ksym_index_add(&t->ix, t, t->cnt);
				if (err)
					return err;
			}
			t->cnt++;
		}
		if (nl)
			*nl = '\0';
		s = le + 1;
	}
	ps->pos = s > end ? avail : (size_t)(s - t->buf);
	return 0;
}

static void parse_opts(struct parser *ps, const struct ksym_parse_opts *opts,
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
	memset(ps->st, 0, sizeof(*ps->st));
}

/* A table around buf, ready to be fed; size_hint guesses the entry count. */
static struct ksym_table *parse_begin(struct parser *ps, enum ksym_format fmt, char *buf,
				      size_t size_hint)
{
	struct ksym_table *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->buf = buf;
	t->fmt = fmt;
	ps->t = t;
	ps->fmt = fmt;
	/* kallsyms lines average ~44 bytes (40 for the function lists) */
	t->ent_cap = size_hint / 40 + 64;
	/*
	 * Only names asked for are kept: size for them (duplicates grow it). Each
	 * page of a table touched for the first time costs a fault; an index
	 * sized for the whole file would touch all of its pages.
	 */
	if (ps->want && !ps->prefixes && t->ent_cap > 2 * ps->want_cnt + 64)
		t->ent_cap = 2 * ps->want_cnt + 64;
	t->ents = malloc(t->ent_cap * sizeof(*t->ents));
	if (!t->ents || (ps->index && ksym_index_init(&t->ix, t->ent_cap))) {
		free(t->ents);
		free(t);
		return NULL;
	}
	if (ps->index)
		t->batch_refs = 1;	/* as if batch_begin had been called */
	return t;
}

static int parse_end(struct parser *ps)
{
	struct ksym_table *t = ps->t;

	ps->st->lines = ps->lineno;
	ps->st->symbols = t->cnt;
	if (ps->fmt != KSYM_FMT_FUNCS && t->cnt && !ps->any_addr) {
		ps->st->all_zero = true;
		return -EPERM;
	}
	/* give back the guesses' slack: the table may live for the whole run */
	if (t->cnt && t->cnt < t->ent_cap) {
		struct ksym_ent *n = realloc(t->ents, t->cnt * sizeof(*n));

		if (n) {
			t->ents = n;
			t->ent_cap = t->cnt;
		}
	}
	return ksym_table__finish(t);
}

static int filters_init(struct parser *ps)
{
	int err = ps->prefixes ? prefixes_init(ps) : 0;

	if (!err && ps->want)
		err = names_init(ps, ps->want, ps->want_cnt);
	return err;
}

/* The filters go; the table is returned, or freed with errno set from err. */
static struct ksym_table *parse_done(struct parser *ps, int err)
{
	free(ps->key);
	free(ps->plen);
	free(ps->names);
	free(ps->nlen);
	free(ps->nslot);
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
	int err;

	parse_opts(&ps, opts, &local);
	if (len >= UINT32_MAX) {
		free(buf);
		errno = EFBIG;
		return NULL;
	}
	t = parse_begin(&ps, fmt, buf, len);
	if (!t) {
		free(buf);
		errno = ENOMEM;
		return NULL;
	}
	t->len = len;
	err = filters_init(&ps);
	if (!err)
		err = parse_lines(&ps, len, true);
	if (!err)
		err = parse_end(&ps);
	return parse_done(&ps, err);
}

/*
 * A file the kernel generates as it is read (procfs, tracefs: size 0) takes the
 * kernel tens of milliseconds to produce. A second thread reads it into one
 * address range reserved up front (so it never moves under the parser) while
 * this thread parses and indexes what has arrived: the parse then costs only
 * the tail after the last read.
 */
#define FEED_RESERVE (1ul << 30)
#define FEED_STEP (64u << 10)	/* wake the parser every this many bytes */
#define FEED_HUGE (4u << 20)

struct feed {
	int fd;
	char *buf;
	size_t avail;		/* bytes read so far, under mu */
	bool done;
	int err;
	pthread_mutex_t mu;
	pthread_cond_t cv;
};

static void feed_publish(struct feed *f, size_t len, bool done, int err)
{
	pthread_mutex_lock(&f->mu);
	f->avail = len;
	f->done = done;
	f->err = err;
	pthread_cond_signal(&f->cv);
	pthread_mutex_unlock(&f->mu);
}

static void *feed_read(void *arg)
{
	struct feed *f = arg;
	size_t len = 0, told = 0;
	ssize_t n;

	for (;;) {
		/* one byte stays free for the NUL the parser may write at the end */
		if (FEED_RESERVE - len < 2) {
			feed_publish(f, len, true, -EFBIG);
			return NULL;
		}
		n = read(f->fd, f->buf + len, FEED_RESERVE - len - 1 < (1u << 20) ?
						      FEED_RESERVE - len - 1 : (1u << 20));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			feed_publish(f, len, true, n < 0 ? -errno : 0);
			return NULL;
		}
		len += n;
		if (len - told >= FEED_STEP) {
			feed_publish(f, len, false, 0);
			told = len;
		}
	}
}

static struct ksym_table *load_pipelined(enum ksym_format fmt, int fd,
					 const struct ksym_parse_opts *opts)
{
	struct feed f = { .fd = fd, .mu = PTHREAD_MUTEX_INITIALIZER,
			  .cv = PTHREAD_COND_INITIALIZER };
	struct ksym_parse_stats local;
	struct parser ps = {};
	struct ksym_table *t = NULL;
	pthread_t th;
	size_t avail;
	bool done = false;
	int err;

	f.buf = mmap(NULL, FEED_RESERVE, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (f.buf == MAP_FAILED)
		return NULL;
	/*
	 * Huge pages where the kernel allows them: a 4 KiB page touched for the
	 * first time can cost more than the bytes it receives (measured on a VM:
	 * ~11 us a fault, ~1,300 of them for a 5 MiB kallsyms). Only the first
	 * FEED_HUGE bytes: a half-filled last huge page would count whole.
	 */
	madvise(f.buf, FEED_HUGE, MADV_HUGEPAGE);
	parse_opts(&ps, opts, &local);
	/* 4 MiB: the name index then fits a 165k-symbol kallsyms without growing */
	t = parse_begin(&ps, fmt, f.buf, 4u << 20);
	if (!t) {
		munmap(f.buf, FEED_RESERVE);
		errno = ENOMEM;
		return NULL;
	}
	t->buf_map_len = FEED_RESERVE;
	err = filters_init(&ps);
	if (!err && pthread_create(&th, NULL, feed_read, &f))
		err = -EAGAIN;
	if (err)
		goto out;
	while (!done) {
		pthread_mutex_lock(&f.mu);
		while (f.avail == ps.pos && !f.done)
			pthread_cond_wait(&f.cv, &f.mu);
		avail = f.avail;
		done = f.done;
		err = f.err;
		pthread_mutex_unlock(&f.mu);
		if (err)
			break;
		if (done) {
			t->len = avail;
			t->buf[avail] = '\0';
		}
		err = parse_lines(&ps, avail, done);
		if (err)
			break;
	}
	/* the reader ends on its own: at EOF, on an error, or at the reserve's end */
	pthread_join(th, NULL);
	if (!err && t->len >= UINT32_MAX)
		err = -EFBIG;
	if (!err)
		err = parse_end(&ps);
out:
	return parse_done(&ps, err);
}

struct ksym_table *ksym_table__load(enum ksym_format fmt, const char *path,
				    const struct ksym_parse_opts *opts)
{
	struct ksym_table *t;
	struct stat st;
	char *buf;
	size_t len;
	int err, fd;

	/* generated as read (size 0), or a pipe: worth a reader of its own */
	if (!stat(path, &st) && ((S_ISREG(st.st_mode) && !st.st_size) || S_ISFIFO(st.st_mode)) &&
	    sysconf(_SC_NPROCESSORS_ONLN) > 1) {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return NULL;
		t = load_pipelined(fmt, fd, opts);
		err = errno;
		close(fd);
		errno = err;
		return t;
	}
	/* a file on disk reads fast: read it all, then one pass */
	err = ksym__read_file(path, &buf, &len);
	if (err) {
		errno = -err;
		return NULL;
	}
	return ksym_table__parse(fmt, buf, len, opts);
}
