// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * What this library needs of the running kernel's types, from the raw
 * /sys/kernel/btf/vmlinux: a function's id (the ksym iterator's target) and
 * a few field offsets of a few structs. A scan of the type section finds them;
 * libbpf's BTF parser would index all ~100k types to answer the same.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/btf.h>

#include "ksym_internal.h"
#include "ksym_kmem.h"
#include "ksym_bfuncs.h"

#define BTF_PATH "/sys/kernel/btf/vmlinux"
#define BTF_MAX (64u << 20)

/*
 * The file through one small window, read where it is asked for: a fresh
 * process pays for every page it first touches (in the TCG guest 66-81 ms
 * for 6 MB, three to four times the copy itself), and what is sought comes
 * before each section's end (on this host's kernel 61% into the strings,
 * 63% into the types), so neither the whole file nor a buffer of its size
 * is wanted.
 */
#ifndef KSYM_BTF_WIN		/* the fuzzer's build: a small one, so records straddle it */
#define KSYM_BTF_WIN (64u << 10)
#endif
#define WIN KSYM_BTF_WIN

struct win {
	int fd;
	uint64_t off;		/* the file's bytes [off, off + len) are in buf */
	size_t len;
	char buf[WIN];
};

/* n (<= WIN) bytes of the file at at, or NULL where it has fewer (err set on an error) */
static const char *win_at(struct win *w, uint64_t at, size_t n, int *err)
{
	ssize_t k;

	if (at >= w->off && at + n <= w->off + w->len)
		return w->buf + (at - w->off);
	if (at >= w->off && at < w->off + w->len) {
		w->len -= at - w->off;
		memmove(w->buf, w->buf + (at - w->off), w->len);
	} else {
		w->len = 0;
	}
	w->off = at;
	while (w->len < n) {
		/* sysfs gives a page per read(); a file bound over it, more */
		k = pread(w->fd, w->buf + w->len, WIN - w->len, at + w->len);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			if (k < 0)
				*err = -errno;
			return NULL;
		}
		w->len += k;
	}
	return w->buf;
}

#define SCAN_MAX_STRUCTS 4
#define SCAN_MAX_FIELDS 8
#define SCAN_MAX_NAMES (1 + SCAN_MAX_STRUCTS * (1 + SCAN_MAX_FIELDS))
#define NAME_MAX_LEN 64
_Static_assert(WIN > NAME_MAX_LEN + 2, "a window holds any name sought, with its NULs");

/*
 * Each name's offset in the string section [at, at + len) (0: not there),
 * read until all are found. Every string follows a NUL (the section starts
 * with the empty one), so "\0name\0" is where name starts, less one.
 */
static int find_strings(struct win *w, uint64_t at, uint32_t len, const char *const *names,
			uint32_t *offs, size_t cnt)
{
	char needle[SCAN_MAX_NAMES][NAME_MAX_LEN + 2];
	size_t nlen[SCAN_MAX_NAMES], i, left = 0, over = 0;
	uint32_t pos = 0;
	int err = 0;

	for (i = 0; i < cnt; i++) {
		size_t n = strlen(names[i]);

		offs[i] = 0;
		nlen[i] = 0;
		if (!n || n > NAME_MAX_LEN)
			continue;
		needle[i][0] = '\0';
		memcpy(needle[i] + 1, names[i], n + 1);
		nlen[i] = n + 2;
		over = nlen[i] > over ? nlen[i] : over;
		left++;
	}
	while (left && pos + over <= len) {
		size_t n = len - pos < WIN ? len - pos : WIN;
		const char *c = win_at(w, at + pos, n, &err), *hit;

		if (!c)
			return err ? err : -EBADMSG;
		for (i = 0; i < cnt; i++) {
			if (!nlen[i] || offs[i])
				continue;
			hit = memmem(c, n, needle[i], nlen[i]);
			if (hit) {
				offs[i] = pos + (hit - c) + 1;
				left--;
			}
		}
		if (pos + n == len)
			break;
		/* a name across the window's end is found in the next */
		pos += n - over + 1;
	}
	return 0;
}

/* the first struct of that name: its wanted fields' byte offsets */
static void take_struct(const struct btf_type *t, const struct btf_member *m,
			struct ksym_btf_struct *s, const uint32_t *fstr)
{
	uint32_t j;
	size_t k;

	s->found = true;
	s->size = t->size;
	for (j = 0; j < BTF_INFO_VLEN(t->info); j++) {
		uint32_t bits = BTF_INFO_KFLAG(t->info) ? m[j].offset & 0xffffff : m[j].offset;

		for (k = 0; k < s->field_cnt; k++)
			if (fstr[k] && m[j].name_off == fstr[k] && !(bits % 8))
				s->off[k] = bits / 8;
	}
}

/* The struct's members, in the window or (a struct larger than it) read apart. */
static int struct_members(struct win *w, uint64_t at, size_t extra,
			  const struct btf_type *t, struct ksym_btf_struct *s, const uint32_t *fstr)
{
	const char *m;
	char *big;
	int err = 0;

	if (extra <= WIN) {
		m = win_at(w, at, extra, &err);
		if (!m)
			return err ? err : -EBADMSG;
		take_struct(t, (const void *)m, s, fstr);
		return 0;
	}
	/* (5,462 members or more) */
	big = malloc(extra);
	if (!big)
		return -ENOMEM;
	for (size_t got = 0; got < extra && !err;) {
		ssize_t k = pread(w->fd, big + got, extra - got, at + got);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			err = k < 0 ? -errno : -EBADMSG;
		else
			got += k;
	}
	if (!err)
		take_struct(t, (const void *)big, s, fstr);
	free(big);
	return err;
}

/*
 * The strings first, then one walk of the types comparing name offsets, each
 * stopping once all is found.
 */
int ksym_btf__scan(const char *func, uint32_t *func_id, struct ksym_btf_struct *s, size_t cnt)
{
	int fd = open(BTF_PATH, O_RDONLY | O_CLOEXEC), err;

	if (fd < 0)
		return -errno;
	err = ksym_btf__scan_fd(fd, func, func_id, s, cnt);
	close(fd);
	return err;
}

int ksym_btf__scan_fd(int fd, const char *func, uint32_t *func_id, struct ksym_btf_struct *s,
		      size_t cnt)
{
	const char *names[SCAN_MAX_NAMES];
	uint32_t offs[SCAN_MAX_NAMES], *sstr = offs + 1, id;
	size_t i, k, n = 0, left = cnt + !!func;
	uint64_t tp, tend, sp;
	struct btf_header h;
	struct win *w;
	struct stat st;
	int err = 0;

	if (cnt > SCAN_MAX_STRUCTS)
		return -EINVAL;
	names[n++] = func ? func : "";
	for (i = 0; i < cnt; i++) {
		if (s[i].field_cnt > SCAN_MAX_FIELDS)
			return -EINVAL;
		s[i].found = false;
		names[n++] = s[i].name;
	}
	for (i = 0; i < cnt; i++)
		for (k = 0; k < s[i].field_cnt; k++) {
			s[i].off[k] = -1;
			names[n++] = s[i].fields[k];
		}
	if (func_id)
		*func_id = 0;
	w = malloc(sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->off = w->len = 0;
	w->fd = fd;
	if (fstat(w->fd, &st) || st.st_size <= 0 || (uint64_t)st.st_size > BTF_MAX ||
	    pread(w->fd, &h, sizeof(h), 0) != sizeof(h)) {
		err = -EBADMSG;
		goto out;
	}
	err = -EBADMSG;
	if (h.magic != BTF_MAGIC || h.hdr_len < sizeof(h) || h.hdr_len > st.st_size ||
	    h.type_off > st.st_size - h.hdr_len ||
	    h.type_len > st.st_size - h.hdr_len - h.type_off ||
	    h.str_off > st.st_size - h.hdr_len || h.str_len > st.st_size - h.hdr_len - h.str_off)
		goto out;
	sp = h.hdr_len + h.str_off;
	err = find_strings(w, sp, h.str_len, names, offs, n);
	if (err)
		goto out;
	/* a name the kernel has no string for is nowhere in its types */
	left -= func && !offs[0];
	for (i = 0; i < cnt; i++)
		left -= !sstr[i];
	tp = h.hdr_len + h.type_off;
	tend = tp + h.type_len;
	for (id = 1; left && tp + sizeof(struct btf_type) <= tend; id++) {
		const struct btf_type *pt = (const void *)win_at(w, tp, sizeof(*pt), &err);
		struct btf_type t;
		uint32_t kind;
		size_t extra;

		if (!pt)
			break;
		t = *pt;
		kind = BTF_INFO_KIND(t.info);
		extra = ksym_btf__extra(&t);
		if (extra == SIZE_MAX) {
			err = -EOPNOTSUPP;
			goto out;
		}
		if (tend - tp < sizeof(t) + extra)
			break;
		if (kind == BTF_KIND_FUNC && func && offs[0] && t.name_off == offs[0] && !*func_id) {
			*func_id = id;
			left--;
		}
		for (i = 0, k = 1 + cnt; i < cnt; k += s[i].field_cnt, i++) {
			if (kind != BTF_KIND_STRUCT || s[i].found || !sstr[i] || t.name_off != sstr[i])
				continue;
			err = struct_members(w, tp + sizeof(t), extra, &t, &s[i], offs + k);
			if (err)
				goto out;
			left--;
		}
		tp += sizeof(t) + extra;
	}
	err = err < 0 ? err : 0;
out:
	free(w);
	return err;
}
