// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A list's answers file: its lookups as a later run of the same list wants
 * them back, in list order, each with the query as asked (a run with another
 * list, even the same names reordered, does not match). A warm start of an
 * agent that resolves the same names each time then maps a few hundred KiB
 * and compares strings: no table, no lookup.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ksym_internal.h"
#include "ksym_cachefile.h"

#define ANSWERS_MAGIC "KSYMANS1"
#define ANSWERS_VERSION 1
#define NO_OFF UINT32_MAX

struct answers_hdr {
	char magic[8];
	uint32_t version;
	uint32_t rec_size;
	struct ksym_cache_key key;
	uint64_t n, buf_len;
	uint64_t payload_sum;
	uint64_t hdr_sum;
};

struct answer_rec {
	uint64_t addr;
	uint64_t size;
	uint32_t query;		/* offset of the name as asked */
	uint32_t module;	/* offset of its module's name, NO_OFF: vmlinux */
	uint32_t flags;		/* KSYM_F_*; NO_OFF: not found */
	char type;
	char pad[3];
};

static uint64_t answers_hdr_sum(const struct answers_hdr *h)
{
	return ksym_sum64(h, offsetof(struct answers_hdr, hdr_sum));
}

int ksym_cache__store_answers(const char *dir, const char *name, const struct ksym_cache_key *key,
			      const char *const *names, size_t n, const struct ksym *answers)
{
	struct answers_hdr h = {};
	struct answer_rec *rec;
	size_t blen = 1, i, total, off;
	char *pay, *buf;
	int err;

	err = ksym_cache_dir(dir);
	if (err)
		return err;
	for (i = 0; i < n; i++)
		blen += strlen(names[i]) + 1 +
			(answers[i].name && answers[i].module ? strlen(answers[i].module) + 1 : 0);
	if (blen > UINT32_MAX || n > UINT32_MAX)
		return -E2BIG;
	total = n * sizeof(*rec) + ksym_align8(blen);
	pay = calloc(1, total ? total : 1);
	if (!pay)
		return -ENOMEM;
	rec = (struct answer_rec *)pay;
	buf = pay + n * sizeof(*rec);
	for (i = 0, off = 0; i < n; i++) {
		const struct ksym *a = &answers[i];

		rec[i].query = off;
		memcpy(buf + off, names[i], strlen(names[i]) + 1);
		off += strlen(names[i]) + 1;
		rec[i].module = NO_OFF;
		rec[i].flags = NO_OFF;
		if (!a->name)
			continue;
		rec[i].addr = a->addr;
		rec[i].size = a->size;
		rec[i].flags = a->flags;
		rec[i].type = a->type;
		if (a->module) {
			rec[i].module = off;
			memcpy(buf + off, a->module, strlen(a->module) + 1);
			off += strlen(a->module) + 1;
		}
	}
	memcpy(h.magic, ANSWERS_MAGIC, 8);
	h.version = ANSWERS_VERSION;
	h.rec_size = sizeof(*rec);
	h.key = *key;
	h.n = n;
	h.buf_len = ksym_align8(blen);
	h.payload_sum = ksym_sum64(pay, total);
	h.hdr_sum = answers_hdr_sum(&h);

	err = ksym_cache_write(dir, name, &h, sizeof(h), pay, total);
	free(pay);
	return err;
}

struct ksym_answers *ksym_cache__load_answers(const char *dir, const char *name,
					      const struct ksym_cache_key *key,
					      const char *const *names, size_t n, struct ksym *out)
{
	const struct answers_hdr *h;
	const struct answer_rec *rec;
	const char *buf;
	struct stat st;
	char *map;
	size_t i;

	map = ksym_cache_map(dir, name, sizeof(*h), &st, true, false);
	if (!map)
		return NULL;
	h = (const struct answers_hdr *)map;
	if (memcmp(h->magic, ANSWERS_MAGIC, 8) || h->version != ANSWERS_VERSION ||
	    h->rec_size != sizeof(*rec) || h->hdr_sum != answers_hdr_sum(h))
		return ksym_unmap_err(map, st.st_size, EBADMSG), NULL;
	if (!ksym_cache_key_eq(&h->key, key) || h->n != n)
		return ksym_unmap_err(map, st.st_size, ESTALE), NULL;
	if (h->buf_len > UINT32_MAX || !h->buf_len || h->n > UINT32_MAX ||
	    sizeof(*h) + h->n * sizeof(*rec) + h->buf_len != (size_t)st.st_size ||
	    ksym_sum64(map + sizeof(*h), st.st_size - sizeof(*h)) != h->payload_sum)
		return ksym_unmap_err(map, st.st_size, EBADMSG), NULL;
	rec = (const struct answer_rec *)(map + sizeof(*h));
	buf = map + sizeof(*h) + n * sizeof(*rec);
	if (buf[h->buf_len - 1])
		return ksym_unmap_err(map, st.st_size, EBADMSG), NULL;
	for (i = 0; i < n; i++) {
		const struct answer_rec *r = &rec[i];
		const char *q, *colon;

		if (r->query >= h->buf_len || (r->module != NO_OFF && r->module >= h->buf_len))
			return ksym_unmap_err(map, st.st_size, EBADMSG), NULL;
		q = buf + r->query;
		/* the same list, name for name */
		if (strcmp(q, names[i]))
			return ksym_unmap_err(map, st.st_size, ESTALE), NULL;
		memset(&out[i], 0, sizeof(out[i]));
		if (r->flags == NO_OFF)
			continue;
		colon = strchr(q, ':');
		out[i].addr = r->addr;
		out[i].size = r->size;
		out[i].name = colon ? colon + 1 : q;
		out[i].module = r->module == NO_OFF ? NULL : buf + r->module;
		out[i].type = r->type;
		out[i].flags = r->flags;
	}
	return ksym_answers_of(map, st.st_size);
}

