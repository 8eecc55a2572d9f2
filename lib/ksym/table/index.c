// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The table's exact-name index: open addressing over slots that hold a name's
 * offset beside its entry (struct ksym_slot), built while a file is parsed or
 * on demand for a batch of lookups (ksym_table__batch_begin()).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ksym_internal.h"

int ksym_index_init(struct ksym_index *ix, size_t n)
{
	uint32_t nslots = 1024;

	while (nslots < n + n / 3)
		nslots <<= 1;
	memset(ix, 0, sizeof(*ix));
	ix->mask = nslots - 1;
	ix->slots = ksym_mem_alloc(nslots * sizeof(*ix->slots));
	ix->dup_cap = n > 1024 ? n : 1024;
	ix->dup_next = malloc(ix->dup_cap * sizeof(*ix->dup_next));
	if (!ix->slots || !ix->dup_next) {
		ksym_index_free(ix);
		return -ENOMEM;
	}
	return 0;
}

void ksym_index_free(struct ksym_index *ix)
{
	ksym_mem_free(ix->slots, (ix->mask + 1ul) * sizeof(*ix->slots));
	free(ix->dup_next);
	memset(ix, 0, sizeof(*ix));
}

/* Twice the slots; chains survive as they are (they live in dup_next). */
static int grow_slots(struct ksym_index *ix, const struct ksym_table *t)
{
	uint32_t nslots = (ix->mask + 1) * 2, s, n, m = nslots - 1;
	struct ksym_slot *slots = ksym_mem_alloc(nslots * sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (s = 0; s <= ix->mask; s++) {
		if (!ix->slots[s].ref)
			continue;
		for (n = ksym_hash(t->buf + ix->slots[s].name) & m; slots[n].ref; n = (n + 1) & m)
			;
		slots[n] = ix->slots[s];
	}
	ksym_mem_free(ix->slots, (ix->mask + 1ul) * sizeof(*ix->slots));
	ix->slots = slots;
	ix->mask = m;
	return 0;
}

static int index_add_hashed(struct ksym_index *ix, const struct ksym_table *t, uint32_t i,
			    uint32_t h)
{
	const char *name = t->buf + t->ents[i].name;
	uint32_t s, r, tag = h & KSYM_IX_TAG;
	int err;

	if (i >= KSYM_IX_MAX)
		return -E2BIG;
	if ((ix->used + 1) * 4 > (ix->mask + 1) * 3) {
		err = grow_slots(ix, t);
		if (err)
			return err;
	}
	if (i >= ix->dup_cap) {
		size_t ncap = ix->dup_cap * 2;
		uint32_t *n = realloc(ix->dup_next, ncap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		ix->dup_next = n;
		ix->dup_cap = ncap;
	}
	ix->dup_next[i] = 0;
	for (s = h & ix->mask; (r = ix->slots[s].ref); s = (s + 1) & ix->mask) {
		if ((r & KSYM_IX_TAG) == tag && !strcmp(t->buf + ix->slots[s].name, name)) {
			/* the new entry heads the chain: no tail to keep */
			ix->dup_next[i] = r & (KSYM_IX_IDX | KSYM_IX_MORE);
			ix->slots[s].ref = tag | KSYM_IX_MORE | (i + 1);
			ix->slots[s].name = t->ents[i].name;
			return 0;
		}
	}
	ix->slots[s].ref = tag | (i + 1);
	ix->slots[s].name = t->ents[i].name;
	ix->used++;
	return 0;
}

int ksym_index_add(struct ksym_index *ix, const struct ksym_table *t, uint32_t i)
{
	return index_add_hashed(ix, t, i, ksym_hash(t->buf + t->ents[i].name));
}

/*
 * The whole table at once: each name hashed and its slot fetched a few names
 * ahead of its insertion, so that the slots' misses overlap.
 */
#define IX_AHEAD 16

int ksym_index_build(struct ksym_index *ix, const struct ksym_table *t)
{
	uint32_t hs[IX_AHEAD];
	size_t i;
	int err = ksym_index_init(ix, t->cnt);

	for (i = 0; !err && i < t->cnt + IX_AHEAD; i++) {
		/* the name IX_AHEAD back leaves its place in the ring first */
		if (i >= IX_AHEAD)
			err = index_add_hashed(ix, t, i - IX_AHEAD, hs[i % IX_AHEAD]);
		if (i < t->cnt) {
			uint32_t h = ksym_hash(t->buf + t->ents[i].name);

			hs[i % IX_AHEAD] = h;
			__builtin_prefetch(&ix->slots[h & ix->mask], 1);
		}
	}
	if (err)
		ksym_index_free(ix);
	return err;
}

int ksym_table__batch_begin(struct ksym_table *t)
{
	int err;

	/* built while parsing, or a cached table: the index is already there */
	if (t->batch_refs++ || t->ix.slots)
		return 0;
	err = ksym_index_build(&t->ix, t);
	if (err)
		t->batch_refs = 0;
	return err;
}

void ksym_table__batch_end(struct ksym_table *t)
{
	if (t->batch_refs <= 0 || --t->batch_refs || t->map)
		return;
	ksym_index_free(&t->ix);
}
