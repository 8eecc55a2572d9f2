// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The persisted index. The file is the table itself (entries, module offsets,
 * name index, strings), mapped read-only and used in place: a warm start costs
 * an open, an mmap and one checksum pass, no parsing. After the table comes a
 * resolve section (resolve.c), from which a list of names is resolved
 * without the table. A list's answers, as a later run of the same list wants
 * them, are a file of their own (answers.c); it and the resolve section
 * hand answers back in the mapping they live in (struct ksym_answers, here).
 * The key is key.c's, and write.c writes the files.
 */
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ksym_internal.h"
#include "ksym_cachefile.h"
#include "ksym_build.h"
#include "ksym_res.h"

#define CACHE_MAGIC "KSYMIDX1"
#define CACHE_VERSION 12	/* 10: the resolve section; 11: its records packed, names
				   prefixed; 12: entries in address order, no by_addr */

struct cache_hdr {
	char magic[8];
	uint32_t version;
	uint32_t ent_size;	/* sizeof(struct ksym_ent): layout check */
	struct ksym_cache_key key;
	uint32_t fmt;
	uint32_t slot_mask;
	uint64_t cnt, mod_cnt, nslots, buf_len;	/* entries in address order */
	uint64_t payload_sum;	/* over the table, header to resolve section */
	/* the resolve section, 8-aligned after the table: head, then records */
	uint64_t res_len;
	uint64_t res_head_len;	/* bucket offsets, module names, prefixes: checked whole */
	uint64_t res_head_sum;
	uint32_t res_buckets;	/* a power of two */
	uint32_t res_mods;
	uint64_t hdr_sum;	/* over the header up to here */
};

/*
 * Fletcher-style over 64-bit words in four lanes: adds only, so it runs at
 * memory speed (a multiply per word cost more than the rest of a warm start).
 * Catches truncation, flipped bits and moved blocks, which is all it is for:
 * it is no defence against a root-owned forgery.
 */
uint64_t ksym_sum64(const void *p, size_t len)
{
	const uint64_t K1 = 0x9e3779b97f4a7c15ull;
	const unsigned char *b = p;
	uint64_t a[8] = { 0 }, c[8] = { 0 }, w, h;
	size_t i = 0;
	int j;

	/* eight lanes: four left the loop compute-bound, at half memory speed */
	for (; i + 64 <= len; i += 64) {
		for (j = 0; j < 8; j++) {
			memcpy(&w, b + i + 8 * j, 8);
			a[j] += w;
			c[j] += a[j];
		}
	}
	h = ksym_fmix64(len * K1);
	for (; i < len; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	/*
	 * Each sum through a full-avalanche bijection: a flipped high bit leaves
	 * both sums differing only in their top bits, where multiply-and-xor
	 * mixing let the two differences cancel.
	 */
	for (j = 0; j < 8; j++) {
		h = ksym_fmix64(h ^ a[j]);
		h = ksym_fmix64(h ^ c[j]);
	}
	return h;
}

static uint64_t hdr_sum(const struct cache_hdr *h)
{
	return ksym_sum64(h, offsetof(struct cache_hdr, hdr_sum));
}

/* The table's end in the file (header included); false if the sizes cannot be. */
static bool table_len(const struct cache_hdr *h, size_t *need)
{
	/* each bounded before it is multiplied */
	if (h->cnt > UINT32_MAX || h->mod_cnt > UINT16_MAX || h->nslots > (1ull << 32) ||
	    h->buf_len > UINT32_MAX || !h->buf_len || (h->nslots & (h->nslots - 1)) ||
	    h->slot_mask != h->nslots - 1 || h->nslots < h->cnt + 1)
		return false;
	*need = sizeof(*h) + h->cnt * sizeof(struct ksym_ent) +
		ksym_align8(h->mod_cnt * sizeof(uint32_t)) + h->nslots * sizeof(struct ksym_slot) +
		ksym_align8(h->cnt * sizeof(uint32_t)) + h->buf_len;
	return true;
}

/* The zeros between the table and the resolve section: no byte goes unchecked. */
static bool gap_zero(const char *map, size_t need)
{
	for (; need & 7; need++)
		if (map[need])
			return false;
	return true;
}

/*
 * Every offset inside its array, every chain going backwards: a file that
 * passed the checksum can still have been written by someone else. One
 * branch-free pass per array, as these run at memory speed.
 */
bool ksym_cache_valid(const struct ksym_table *t, uint64_t nslots)
{
	const struct ksym_slot *sl = t->ix.slots;
	const uint32_t *dup = t->ix.dup_next;
	uint32_t len = t->len, cnt = t->cnt, mods = t->mod_cnt;
	unsigned int bad = 0;
	size_t i;

	if (t->buf[t->len - 1])
		return false;	/* the strings end in a NUL */
	for (i = 0; i < t->mod_cnt; i++)
		bad |= t->mods[i] >= len;
	for (i = 0; i < cnt; i++)
		bad |= (t->ents[i].name >= len) | (t->ents[i].mod > mods);
	for (i = 0; i < cnt; i++) {
		uint32_t d = dup[i], di = d & KSYM_IX_IDX;

		bad |= ((d & ~(KSYM_IX_IDX | KSYM_IX_MORE)) != 0) | (di > i) | (d && !di);
	}
	for (i = 0; i < nslots; i++) {
		uint32_t r = sl[i].ref, ri = r & KSYM_IX_IDX;

		bad |= (ri > cnt) | (sl[i].name >= len) | (r && !ri);
	}
	return !bad;
}

/*
 * dir/name mapped read-only if it is a regular file of ours, closed to others
 * and at least min bytes long; NULL with errno (EPERM, EBADMSG, ENOENT...).
 */
char *ksym_cache_map(const char *dir, const char *name, size_t min, struct stat *st,
		     bool populate, bool writable)
{
	char path[512], *map;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return ksym_unmap_err(NULL, 0, errno == ELOOP ? EPERM : errno), NULL;
	if (fstat(fd, st) || !S_ISREG(st->st_mode) || st->st_uid != geteuid() ||
	    (st->st_mode & 0077)) {
		close(fd);
		return ksym_unmap_err(NULL, 0, EPERM), NULL;
	}
	if ((size_t)st->st_size < min) {
		close(fd);
		return ksym_unmap_err(NULL, 0, EBADMSG), NULL;
	}
	map = mmap(NULL, st->st_size, PROT_READ | (writable ? PROT_WRITE : 0),
		   MAP_PRIVATE | (populate ? MAP_POPULATE : 0),
		   fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return ksym_unmap_err(NULL, 0, errno), NULL;
	return map;
}

void *ksym_unmap_err(void *map, size_t len, int err)
{
	if (map)
		munmap(map, len);
	errno = err;
	return NULL;
}

/*
 * A cache file mapped with its header checked (magic, version, layout, header
 * checksum, key) and its size what the header says; *need: the table's end.
 * NULL with errno as ksym_cache__load() documents.
 */
static const struct cache_hdr *map_cache(const char *dir, const char *name,
					 const struct ksym_cache_key *key, bool populate,
					 struct stat *st, size_t *need)
{
	const struct cache_hdr *h;
	char *map;

	map = ksym_cache_map(dir, name, sizeof(*h), st, populate, false);
	if (!map)
		return NULL;
	h = (const struct cache_hdr *)map;
	if (memcmp(h->magic, CACHE_MAGIC, 8) || h->version != CACHE_VERSION ||
	    h->ent_size != sizeof(struct ksym_ent) || h->hdr_sum != hdr_sum(h))
		return ksym_unmap_err(map, st->st_size, EBADMSG), NULL;
	if (!ksym_cache_key_eq(&h->key, key))
		return ksym_unmap_err(map, st->st_size, ESTALE), NULL;
	if (!table_len(h, need) || h->res_len > UINT32_MAX ||
	    ksym_align8(*need) + h->res_len != (size_t)st->st_size || !gap_zero(map, *need))
		return ksym_unmap_err(map, st->st_size, EBADMSG), NULL;
	return h;
}

struct ksym_table *ksym_cache__load(const char *dir, const char *name,
				    const struct ksym_cache_key *key)
{
	size_t ents_len, mods_len, slots_len, dups_len, need;
	const struct cache_hdr *h;
	struct ksym_table *t;
	struct stat st;
	char *p, *map;

	h = map_cache(dir, name, key, true, &st, &need);
	if (!h)
		return NULL;
	map = (char *)h;
	/* the resolve section is checked where it is used, not here */
	if (ksym_sum64(map + sizeof(*h), need - sizeof(*h)) != h->payload_sum)
		return ksym_unmap_err(map, st.st_size, EBADMSG);
	ents_len = h->cnt * sizeof(struct ksym_ent);
	mods_len = ksym_align8(h->mod_cnt * sizeof(uint32_t));
	slots_len = h->nslots * sizeof(struct ksym_slot);
	dups_len = ksym_align8(h->cnt * sizeof(uint32_t));

	t = calloc(1, sizeof(*t));
	if (!t)
		return ksym_unmap_err(map, st.st_size, ENOMEM);
	p = map + sizeof(*h);
	t->ents = (struct ksym_ent *)p;
	p += ents_len;
	t->mods = (uint32_t *)p;
	p += mods_len;
	t->ix.slots = (struct ksym_slot *)p;
	p += slots_len;
	t->ix.dup_next = (uint32_t *)p;
	p += dups_len;
	t->buf = p;
	t->len = h->buf_len;
	t->cnt = h->cnt;
	t->mod_cnt = h->mod_cnt;
	t->ix.mask = h->slot_mask;
	t->fmt = h->fmt;
	t->map = map;
	t->map_len = st.st_size;
	if (!ksym_cache_valid(t, h->nslots))
		goto corrupt;
	return t;
corrupt:
	ksym_table__free(t);
	errno = EBADMSG;
	return NULL;
}

int ksym_cache__store(const char *dir, const char *name, const struct ksym_cache_key *key,
		      const struct ksym_table *t)
{
	struct ksym_table c = {};	/* the compacted copy that goes to the file */
	struct ksym_res_plan rp = {};
	struct cache_hdr h = {};
	size_t slen = 0, scap = 1, el, ml, sl, dl, total, roff, i;
	char *pay = NULL;
	int err;

	err = ksym_cache_dir(dir);
	if (err)
		return err;
	/* strings compacted: names and module names only, no address text */
	for (i = 0; i < t->cnt; i++)
		scap += strlen(ksym_ent_name(t, &t->ents[i])) + 1;
	for (i = 0; i < t->mod_cnt; i++)
		scap += strlen(t->buf + t->mods[i]) + 1;
	err = -ENOMEM;
	if (scap > UINT32_MAX)
		goto out;
	c.buf = malloc(scap);
	c.ents = malloc((t->cnt ? t->cnt : 1) * sizeof(*c.ents));
	c.mods = calloc(t->mod_cnt + 2, sizeof(*c.mods));
	if (!c.buf || !c.ents || !c.mods)
		goto out;
	c.cnt = t->cnt;
	c.mod_cnt = t->mod_cnt;
	for (i = 0; i < t->mod_cnt; i++) {
		const char *m = t->buf + t->mods[i];

		c.mods[i] = slen;
		memcpy(c.buf + slen, m, strlen(m) + 1);
		slen += strlen(m) + 1;
	}
	/* a finished table's entries are in address order already */
	for (i = 0; i < t->cnt; i++) {
		const struct ksym_ent *e = &t->ents[i];
		const char *n = ksym_ent_name(t, e);
		size_t l = strlen(n) + 1;

		c.ents[i] = *e;
		c.ents[i].addr = ksym_ent_addr(t, e);	/* a build cache's: this boot's */
		c.ents[i].name = slen;
		memcpy(c.buf + slen, n, l);
		slen += l;
	}
	c.buf[slen++] = '\0';	/* never empty */
	err = ksym_index_build(&c.ix, &c);
	if (err)
		goto out;

	memcpy(h.magic, CACHE_MAGIC, 8);
	h.version = CACHE_VERSION;
	h.ent_size = sizeof(struct ksym_ent);
	h.key = *key;
	h.fmt = t->fmt;
	h.slot_mask = c.ix.mask;
	h.cnt = t->cnt;
	h.mod_cnt = t->mod_cnt;
	h.nslots = (uint64_t)c.ix.mask + 1;
	h.buf_len = slen;
	/* the checksum runs over the payload as laid out in the file */
	el = t->cnt * sizeof(*c.ents);
	ml = ksym_align8(t->mod_cnt * sizeof(uint32_t));
	sl = h.nslots * sizeof(struct ksym_slot);
	dl = ksym_align8(t->cnt * sizeof(uint32_t));
	total = el + ml + sl + dl + slen;
	err = ksym_res__plan(&c, &rp);
	if (err)
		goto out;
	/* the resolve section starts 8-aligned in the file, after the table */
	roff = ksym_align8(sizeof(h) + total) - sizeof(h);
	err = -ENOMEM;
	pay = calloc(1, roff + rp.len);
	if (!pay)
		goto out;
	ksym_res__write(&c, &rp, pay + roff);
	h.res_len = rp.len;
	h.res_head_len = rp.head_len;
	h.res_head_sum = ksym_sum64(pay + roff, rp.head_len);
	h.res_buckets = rp.buckets;
	h.res_mods = rp.mods;
	memcpy(pay, c.ents, el);
	memcpy(pay + el, c.mods, t->mod_cnt * sizeof(uint32_t));
	memcpy(pay + el + ml, c.ix.slots, sl);
	memcpy(pay + el + ml + sl, c.ix.dup_next, t->cnt * sizeof(uint32_t));
	memcpy(pay + el + ml + sl + dl, c.buf, slen);
	h.payload_sum = ksym_sum64(pay, total);
	h.hdr_sum = hdr_sum(&h);

	err = ksym_cache_write(dir, name, &h, sizeof(h), pay, roff + rp.len);
out:
	ksym_res__plan_free(&rp);
	ksym_index_free(&c.ix);
	free(c.buf);
	free(c.ents);
	free(c.mods);
	free(pay);
	return err;
}

/* A list's answers, as the mapping they live in. */
struct ksym_answers {
	void *map;
	size_t len;
};

/* The mapping that answers live in, held until ksym_answers__free(). */
struct ksym_answers *ksym_answers_of(char *map, size_t len)
{
	struct ksym_answers *a = malloc(sizeof(*a));

	if (!a)
		return ksym_unmap_err(map, len, ENOMEM), NULL;
	a->map = map;
	a->len = len;
	return a;
}

void ksym_answers__free(struct ksym_answers *a)
{
	if (!a)
		return;
	munmap(a->map, a->len);
	free(a);
}

struct ksym_answers *ksym_cache__resolve(const char *dir, const char *name,
					 const struct ksym_cache_key *key,
					 const char *const *names, size_t n, struct ksym *out)
{
	const struct cache_hdr *h;
	struct ksym_res x;
	struct stat st;
	size_t need;
	char *map, *sec;

	/* no populate: a list needs a fraction of the records, and none of the table */
	h = map_cache(dir, name, key, false, &st, &need);
	if (!h)
		return NULL;
	map = (char *)h;
	/* the head whole, the records each where they are used */
	sec = map + ksym_align8(need);
	if (h->res_mods > UINT16_MAX || h->res_head_len > h->res_len ||
	    ksym_sum64(sec, h->res_head_len) != h->res_head_sum ||
	    ksym_res__open(&x, sec, h->res_len, h->res_head_len, h->res_buckets, h->res_mods) ||
	    ksym_res__find_many(&x, names, n, out) < 0)
		return ksym_unmap_err(map, st.st_size, EBADMSG), NULL;
	return ksym_answers_of(map, st.st_size);
}
