// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The traceable functions from ftrace's own records, read through /proc/kcore.
 *
 * The kernel makes available_filter_functions_addrs by naming each of its
 * ftrace records with a kallsyms lookup: for the whole list that took
 * 430-505 ms in the project's TCG guest, most of a cold whole-kernel run's
 * resolution. The records are arrays in kernel memory, chained from
 * ftrace_pages_start (struct ftrace_page, struct dyn_ftrace; their layouts
 * from the kernel's BTF), and the names are the kernel's own table, which
 * kallsyms.c reads in the same walk that finds the chain's head.
 *
 * A record is named as the kernel's list names it: the text symbol at or
 * before its address (the first of several at one address), at most an
 * ENDBR before it where the kernel is built with them (x86-64), or the
 * entry's "mov x9, x30" and a BTI (arm64). The kernel lists a
 * record further into a symbol as "__ftrace_invalid_address___", the body of
 * a weak function that another replaced, which no link can take; it is left
 * out here.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ksym_internal.h"
#include "ksym_kmem.h"
#include "ksym_site.h"

#define PAGES_MAX 65536		/* groups of records: ~200 in a 2026 kernel with its modules */
#define RECS_MAX (4u << 20)	/* records: ~50k there */
#define REC_SIZE_MAX 64
int ksym_ftrace__layout(struct ksym_ftrace_layout *l)
{
	static const char *const pg_fields[] = { "next", "records", "index" };
	static const char *const rec_fields[] = { "ip" };
	int pg[3], rec[1], err, i;
	struct ksym_btf_struct s[2] = {
		{ .name = "ftrace_page", .fields = pg_fields, .field_cnt = 3, .off = pg },
		{ .name = "dyn_ftrace", .fields = rec_fields, .field_cnt = 1, .off = rec },
	};

	/* no BTF, or none to read: the layouts are not known */
	err = ksym_btf__scan(NULL, NULL, s, 2);
	if (err)
		return err == -ENOMEM || err == -EINTR ? err : -ENOEXEC;
	if (!s[0].found || !s[1].found || s[0].size > KSYM_FTRACE_PAGE_MAX || !s[1].size ||
	    s[1].size > REC_SIZE_MAX || s[1].size % 8)
		return -ENOEXEC;
	for (i = 0; i < 3; i++)
		if (pg[i] < 0 || (uint32_t)pg[i] + (i == 2 ? 4 : 8) > s[0].size)
			return -ENOEXEC;
	if (rec[0] < 0 || (uint32_t)rec[0] + 8 > s[1].size)
		return -ENOEXEC;
	l->pg_next = pg[0];
	l->pg_records = pg[1];
	l->pg_index = pg[2];
	l->rec_ip = rec[0];
	l->pg_size = s[0].size;
	l->rec_size = s[1].size;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int ksym_ftrace__read(struct ksym_kcore *kc, const struct ksym_ftrace_layout *l, uint64_t head,
		      const volatile sig_atomic_t *stop, uint64_t **out, size_t *cnt)
{
	unsigned char pg[KSYM_FTRACE_PAGE_MAX], *recs = NULL;
	size_t n = 0, cap = 0, rcap = 0, pages, i;
	uint64_t at, *ips = NULL;
	int err = ksym_kcore__read_bulk(kc, head, &at, sizeof(at));

	for (pages = 0; !err && at; pages++) {
		uint64_t records;
		int32_t index;

		if (pages == PAGES_MAX) {
			err = -EBADMSG;
			break;
		}
		if (stop && *stop) {
			err = -EINTR;
			break;
		}
		err = ksym_kcore__read_bulk(kc, at, pg, l->pg_size);
		if (err)
			break;
		memcpy(&index, pg + l->pg_index, 4);
		records = ksym_get64(pg, l->pg_records);
		at = ksym_get64(pg, l->pg_next);
		if (index < 0 || (size_t)index > RECS_MAX - n) {
			err = -EBADMSG;
			break;
		}
		if (!index)
			continue;
		if ((size_t)index * l->rec_size > rcap) {
			unsigned char *r = realloc(recs, (size_t)index * l->rec_size);

			if (!r) {
				err = -ENOMEM;
				break;
			}
			recs = r;
			rcap = (size_t)index * l->rec_size;
		}
		if (n + index > cap) {
			size_t ncap = cap ? cap : 65536;
			uint64_t *v;

			while (ncap < n + index)
				ncap *= 2;
			v = realloc(ips, ncap * sizeof(*v));
			if (!v) {
				err = -ENOMEM;
				break;
			}
			ips = v;
			cap = ncap;
		}
		err = ksym_kcore__read_bulk(kc, records, recs, (size_t)index * l->rec_size);
		if (err)
			break;
		for (i = 0; i < (size_t)index; i++)
			ips[n++] = ksym_get64(recs + i * l->rec_size, l->rec_ip);
	}
	free(recs);
	if (err) {
		free(ips);
		return err == -EFAULT ? -ESTALE : err;
	}
	if (n)
		qsort(ips, n, sizeof(*ips), cmp_u64);
	*out = ips;
	*cnt = n;
	return 0;
}

/* The last symbol at or below ip from pos on (ips come in order); its address in *a. */
static size_t sym_below(const struct ksym_table *syms, size_t pos, uint64_t ip, uint64_t *a)
{
	while (pos + 1 < syms->cnt && ksym_ent_addr(syms, ksym_ent_at(syms, pos + 1)) <= ip)
		pos++;
	*a = syms->cnt ? ksym_ent_addr(syms, ksym_ent_at(syms, pos)) : UINT64_MAX;
	return pos;
}

/*
 * How far into a function the kernel names a record (FTRACE_MCOUNT_MAX_OFFSET),
 * from its text: past an ENDBR64 where the kernel is built with them (x86's
 * IBT: 6.12 and 7.x at Debian, not 6.1), else at its start only. The first
 * record that far past a symbol decides: ENDBR64 at the symbol, or not.
 */
static int site_bound(struct ksym_kcore *kc, const struct ksym_table *syms, const uint64_t *ips,
		      size_t n, unsigned int *bound)
{
	unsigned char text[KSYM_ENDBR_LEN];
	size_t i, pos = 0;
	uint64_t a;
	int err;

	*bound = 0;
	/* arm64: every site is past the entry's mark, so no symbol's record is at it */
	if (KSYM_SITE_TEXT_CHECK && ksym_site_native->lead) {
		*bound = ksym_site_native->off_max;
		return 0;
	}
	for (i = 0; i < n; i++) {
		pos = sym_below(syms, pos, ips[i], &a);
		if (a > ips[i] || ips[i] - a != KSYM_ENDBR_LEN)
			continue;
		err = ksym_kcore__read(kc, a, text, sizeof(text));
		if (err == -EFAULT)
			continue;	/* (a module's init text, freed since) */
		if (err)
			return err;
		if (ksym_site__endbr64(text))
			*bound = KSYM_ENDBR_LEN;
		return 0;
	}
	return 0;
}

int ksym_ftrace__name(const struct ksym_table *syms, const uint64_t *ips, size_t n,
		      unsigned int bound, struct ksym_feed *f)
{
	size_t i, pos = 0, named = 0;
	int err = 0;

	for (i = 0; i < n && !err; i++) {
		const struct ksym_ent *e;
		uint64_t a;
		size_t j;

		pos = sym_below(syms, pos, ips[i], &a);
		if (a > ips[i] || ips[i] - a > bound)
			continue;
		/* the kernel names an address by the first of its aliases */
		for (j = pos; j && ksym_ent_addr(syms, ksym_ent_at(syms, j - 1)) == a; j--)
			;
		e = ksym_ent_at(syms, j);
		err = ksym_feed__add(f, ips[i], 0, ksym_ent_name(syms, e),
				     strlen(ksym_ent_name(syms, e)), ksym_ent_mod(syms, e),
				     e->mod ? strlen(ksym_ent_mod(syms, e)) : 0);
		named++;
	}
	/* records none of whose addresses is a function's: not the kernel's */
	return err ? err : n && !named ? -EBADMSG : 0;
}

struct ksym_table *ksym_ftrace__load(struct ksym_kcore *kc, const struct ksym_parse_opts *opts,
				     struct ksym_table **syms_out)
{
	struct ksym_kmem_var head = { .name = "ftrace_pages_start" };
	struct ksym_parse_opts o = {}, so = { .sz = sizeof(so), .text_only = true };
	struct ksym_parse_stats local, *st;
	struct ksym_table *syms, *t;
	struct ksym_feed *f = NULL;
	uint64_t t0 = ksym_now_ns(), *ips = NULL;
	struct ksym_ftrace_layout l;
	unsigned int bound;
	size_t n = 0;
	int err;

	st = ksym_opts_copy(&o, opts, &local);
	memset(st, 0, sizeof(*st));
	if (syms_out)
		*syms_out = NULL;
	/* the layouts first: a kernel without them is refused before the walk */
	err = ksym_ftrace__layout(&l);
	if (err) {
		errno = -err;
		return NULL;
	}
	so.stop = o.stop;
	syms = ksym_kmem__load_vars(kc, &so, &head, 1);
	if (!syms)
		return NULL;
	/* a kernel without dynamic ftrace has no records to read */
	err = !head.addr ? -ENODATA : head.addr == UINT64_MAX ? -EBADMSG : 0;
	if (!err)
		err = ksym_ftrace__read(kc, &l, head.addr, o.stop, &ips, &n);
	if (!err) {
		f = ksym_feed__new_fmt(KSYM_FMT_FUNCS_ADDRS, &o, n + 64, n * 24 + 4096);
		if (!f)
			err = -ENOMEM;
	}
	if (!err)
		err = site_bound(kc, syms, ips, n, &bound);
	if (!err)
		err = ksym_ftrace__name(syms, ips, n, bound, f);
	free(ips);
	st->read_ns = ksym_now_ns() - t0;
	t = f ? ksym_feed__end(f, err) : NULL;
	if (!f)
		errno = -err;
	err = errno;
	if (t && syms_out)
		*syms_out = syms;
	else
		ksym_table__free(syms);
	errno = err;
	return t;
}
