// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The kernel's symbols through its ksym BPF iterator (Linux >= 6.0).
 *
 * /proc/kallsyms prints every symbol as text, a page per read(); the iterator
 * runs a program on every symbol of the same walk and lets it write what it
 * wants. This one writes binary records, only for symbols a filter can keep
 * (text types, the first two bytes a prefix or name allows), so most of the
 * table is walked inside one read(). It sees real addresses where
 * kernel.kptr_restrict=2 shows zeros even to root.
 *
 * This file reads the records and feeds them to a table; the program that
 * writes them is iter_prog.c's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ksym_internal.h"
#include "ksym_iter.h"

/* One record, as read. */
struct rec {
	uint64_t addr;
	const char *name, *mod;
	size_t name_len, mod_len, len;
	char type;
};

/*
 * The record at [p, end), if it is whole there (-EBADMSG in *err where it
 * cannot be one: sizes out of bounds, an end that is not a NUL).
 */
static bool rec_at(const char *p, const char *end, struct rec *r, int *err)
{
	uint16_t nsz;
	uint8_t msz;

	if (end - p < REC_HEAD)
		return false;
	memcpy(&nsz, p + REC_NAME_SZ, 2);
	msz = p[REC_MOD_SZ];
	if (!nsz && !msz) {
		/* a filler: skipped */
		if (end - p < FILL)
			return false;
		r->name = NULL;
		r->len = FILL;
		return true;
	}
	if (nsz < 1 || nsz > NAME_LEN || msz < 1 || msz > MOD_LEN) {
		*err = -EBADMSG;
		return false;
	}
	if (end - p < REC_HEAD + nsz + msz)
		return false;
	r->name = p + REC_HEAD;
	r->mod = r->name + nsz;
	/* each ends at its first NUL, as the kernel's string copy does */
	if (strnlen(r->name, nsz) != (size_t)nsz - 1 || strnlen(r->mod, msz) != (size_t)msz - 1) {
		*err = -EBADMSG;
		return false;
	}
	memcpy(&r->addr, p, 8);
	r->type = p[8];
	r->name_len = nsz - 1;
	r->mod_len = msz - 1;
	r->len = REC_HEAD + nsz + msz;
	/* /proc/kallsyms' case for a module's: exported or not */
	if (r->mod_len && (r->type | 0x20) >= 'a' && (r->type | 0x20) <= 'z')
		r->type = p[9] ? (r->type & ~0x20) : (r->type | 0x20);
	return true;
}

/*
 * The kernel calls the program once more as the walk ends, with the last
 * symbol's fields still in the iterator (and another module name): a last
 * record that repeats the one before it is that call's. So the last whole
 * record of each read is held back (left in the buffer) until more come, and
 * the one fed before it is remembered.
 */
struct feed {
	struct ksym_feed *f;
	uint64_t prev_addr;
	size_t prev_len;
	char prev_name[NAME_LEN];
};

/* The walk sees the iterator's own program, gone once the walk is over. */
static bool own_prog(const struct rec *r)
{
	static const char tail[] = "_ksym_iter";
	size_t n = sizeof(tail) - 1;

	return r->mod_len == 3 && !memcmp(r->mod, "bpf", 3) && r->name_len > n &&
	       !memcmp(r->name + r->name_len - n, tail, n);
}

static int feed_records(struct feed *fd, const char *s, const char *end, size_t *used)
{
	struct rec r, next, fed = {};
	const char *p = s;
	int err = 0;

	*used = 0;
	if (!rec_at(p, end, &r, &err))
		return err;
	while (rec_at(p + r.len, end, &next, &err)) {
		if (r.name) {
			err = own_prog(&r) ? 0 : ksym_feed__add(fd->f, r.addr, r.type, r.name,
								r.name_len, r.mod, r.mod_len);
			if (err)
				return err;
			fed = r;
		}
		p += r.len;
		r = next;
	}
	if (err)
		return err;
	/* r, at p, is held; the one fed before it is remembered */
	if (fed.name) {
		fd->prev_addr = fed.addr;
		fd->prev_len = fed.name_len;
		memcpy(fd->prev_name, fed.name, fed.name_len);
	}
	*used = p - s;
	return 0;
}

/* At the walk's end, [s, end) holds the held record: fed unless it is the closing call's. */
static int feed_last(struct feed *fd, const char *s, const char *end)
{
	struct rec r;
	int err = 0;

	if (s == end)
		return 0;
	if (!rec_at(s, end, &r, &err) || r.len != (size_t)(end - s))
		return -EBADMSG;
	if (!r.name || own_prog(&r))
		return 0;	/* a filler, or the walk's own program */
	if (fd->prev_len && r.addr == fd->prev_addr && r.name_len == fd->prev_len &&
	    !memcmp(r.name, fd->prev_name, r.name_len))
		return 0;
	return ksym_feed__add(fd->f, r.addr, r.type, r.name, r.name_len, r.mod, r.mod_len);
}

#define ITER_BUF (64u << 10)

/* n more bytes at buf + *have: the whole records fed, what is left moved to the front. */
static int feed_more(struct feed *fd, char *buf, size_t *have, size_t n)
{
	size_t used;
	int err;

	*have += n;
	err = feed_records(fd, buf, buf + *have, &used);
	if (err)
		return err;
	memmove(buf, buf + used, *have - used);
	*have -= used;
	/* a record never comes near the buffer's size */
	return *have > ITER_BUF / 2 ? -EBADMSG : 0;
}

struct ksym_table *ksym_table__load_iter(const struct ksym_parse_opts *opts)
{
	struct ksym_parse_opts o = {};
	struct ksym_parse_stats local, *st;
	struct ksym_iter it = { -1, -1, -1, -1 };
	size_t have = 0, fed = 0;
	uint64_t t0 = ksym_now_ns(), read_ns, t1;
	struct feed *fd = NULL;
	struct ksym_feed *f = NULL;
	char *buf = NULL;
	ssize_t n;
	int err;

	st = ksym_opts_copy(&o, opts, &local);
	/* loading the program serves the read: its time is the read's */
	err = ksym_iter_open(&it, &o);
	read_ns = ksym_now_ns() - t0;
	if (err)
		goto out;
	/* a whole table: ~165k symbols, ~22 bytes of name each */
	f = ksym_feed__new(&o, 200000, 4u << 20);
	fd = calloc(1, sizeof(*fd));
	buf = malloc(ITER_BUF);
	if (!f || !fd || !buf) {
		err = -ENOMEM;
		goto out;
	}
	fd->f = f;
	for (;;) {
		if (o.stop && *o.stop) {
			err = -EINTR;
			break;
		}
		t1 = ksym_now_ns();
		n = read(it.fd, buf + have, ITER_BUF - have);
		read_ns += ksym_now_ns() - t1;
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = -errno;
			break;
		}
		if (!n)
			break;
		fed += n;
		if (fed > KSYM_INPUT_MAX) {
			err = -EFBIG;
			break;
		}
		err = feed_more(fd, buf, &have, n);
		if (err)
			break;
	}
	if (!err)
		err = feed_last(fd, buf, buf + have);
out:
	free(fd);
	free(buf);
	ksym_iter_close(&it);
	if (!f) {
		errno = err ? -err : ENOMEM;
		return NULL;
	}
	{
		struct ksym_table *t = ksym_feed__end(f, err);

		st->read_ns = read_ns;
		st->parse_ns = ksym_now_ns() - t0 - read_ns;
		return t;
	}
}
