// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The table: put in address order once parsed (ksym_table__finish()), its
 * address keys, its entries by position, and its end. Its lookups are
 * lookup.c, its name index index.c, tables made from tables
 * join.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "ksym_internal.h"

const char *ksym_version(void)
{
	return KSYM_VERSION;
}

/* ---- address order ---- */


static int addr_cmp_r(const void *a, const void *b, void *t)
{
	return ksym_addr_cmp(t, *(const uint32_t *)a, *(const uint32_t *)b);
}

/* A chain or slot reference (entry index + 1 in KSYM_IX_IDX) after the move. */
static uint32_t remap_ref(uint32_t v, size_t q, const uint32_t *inv)
{
	uint32_t i = v & KSYM_IX_IDX;

	if (!i || i - 1 < q)
		return v;
	return (v & ~KSYM_IX_IDX) | (inv[i - 1 - q] + 1);
}

/* An index built while parsing follows its entries: slots and chains renamed. */
static int remap_index(struct ksym_index *ix, size_t n, size_t q, const uint32_t *inv)
{
	uint32_t *next, s;
	size_t i;

	if (!ix->slots)
		return 0;
	next = malloc(ix->dup_cap * sizeof(*next));
	if (!next)
		return -ENOMEM;
	for (i = 0; i < q; i++)
		next[i] = remap_ref(ix->dup_next[i], q, inv);
	for (; i < n; i++)
		next[inv[i - q]] = remap_ref(ix->dup_next[i], q, inv);
	for (s = 0; s <= ix->mask; s++)
		ix->slots[s].ref = remap_ref(ix->slots[s].ref, q, inv);
	free(ix->dup_next);
	ix->dup_next = next;
	return 0;
}

/*
 * Entries into address order, stably: the first listed stays first at an
 * address. An address lookup then goes from its search straight to the entry,
 * not through a permutation, one dependent read fewer (6.12's saved table,
 * modules out of order: see README). /proc/kallsyms is vmlinux in address
 * order, then modules in no order: just the tail is sorted, then merged, and
 * the entries before the first that moves stay where they are.
 */
static int sort_by_addr(struct ksym_table *t)
{
	size_t p, q, m, i, a, b, n = t->cnt;
	uint32_t *tail, *out, *inv;
	uint8_t *done;
	int err;

	for (p = 1; p < n && t->ents[p - 1].addr <= t->ents[p].addr; p++)
		;
	if (p >= n)
		return 0;
	tail = malloc((n - p) * sizeof(*tail));
	if (!tail)
		return -ENOMEM;
	for (i = p; i < n; i++)
		tail[i - p] = i;
	qsort_r(tail, n - p, sizeof(*tail), addr_cmp_r, t);
	/* the prefix up to the first entry above the tail's lowest stays */
	for (a = 0, b = p; a < b;) {
		size_t mid = a + (b - a) / 2;

		if (t->ents[mid].addr <= t->ents[tail[0]].addr)
			a = mid + 1;
		else
			b = mid;
	}
	q = a;
	m = n - q;
	out = malloc(m * sizeof(*out));	/* new position q + k takes old out[k] */
	inv = malloc(m * sizeof(*inv));
	done = calloc(m, 1);
	if (!out || !inv || !done) {
		err = -ENOMEM;
		goto out;
	}
	for (a = q, b = 0, i = 0; i < m; i++) {
		if (b == n - p || (a < p && ksym_addr_cmp(t, a, tail[b]) < 0))
			out[i] = a++;
		else
			out[i] = tail[b++];
		inv[out[i] - q] = q + i;
	}
	/* the index first: it can fail, the move cannot */
	err = remap_index(&t->ix, n, q, inv);
	if (err)
		goto out;
	/* the moves as cycles: each entry moves once, with one held aside */
	for (i = 0; i < m; i++) {
		struct ksym_ent held;
		size_t j, src;

		if (done[i])
			continue;
		held = t->ents[q + i];
		for (j = i;; j = src) {
			done[j] = 1;
			src = out[j] - q;
			if (src == i) {
				t->ents[q + j] = held;
				break;
			}
			t->ents[q + j] = t->ents[q + src];
		}
	}
out:
	free(tail);
	free(out);
	free(inv);
	free(done);
	return err;
}

/* A table whose addresses span more than the keys can hold: no keys. */
static struct ksym_akeys akeys_none;

static void akeys_free(struct ksym_akeys *k)
{
	if (k != &akeys_none)
		free(k);
}

static struct ksym_akeys *akeys_build(const struct ksym_table *t)
{
	struct ksym_akeys *k;
	size_t first = 0, i;
	uint64_t top;

	if (!t->cnt)
		return &akeys_none;
	/*
	 * The keys cover the top 4 GiB of the used addresses: the kernel and its
	 * modules. Below them (per-cpu offsets, unresolved names) the entries
	 * are searched themselves.
	 */
	top = ksym_ent_addr(t, ksym_ent_at(t, t->cnt - 1));
	for (; first < t->cnt; first++) {
		const struct ksym_ent *e = ksym_ent_at(t, first);

		if (!(ksym_ent_flags(t, e) & KSYM_F_UNRESOLVED) && top - ksym_ent_addr(t, e) <= UINT32_MAX)
			break;
	}
	if (first == t->cnt)
		return &akeys_none;
	k = malloc(sizeof(*k) + (t->cnt - first) * sizeof(k->k[0]));
	if (!k)
		return NULL;
	k->first = first;
	k->base = ksym_ent_addr(t, ksym_ent_at(t, first));
	for (i = first; i < t->cnt; i++)
		k->k[i - first] = ksym_ent_addr(t, ksym_ent_at(t, i)) - k->base;
	return k;
}

/*
 * The keys, built by the first lookup that needs them. A lookup is a reader
 * of a const table, possibly beside others: whoever publishes first wins.
 * NULL: search the entries (no keys for this table, or no memory now).
 */
const struct ksym_akeys *ksym_akeys_get(const struct ksym_table *t)
{
	struct ksym_akeys **slot = &((struct ksym_table *)t)->akeys;
	struct ksym_akeys *k = __atomic_load_n(slot, __ATOMIC_ACQUIRE), *none = NULL;

	if (!k) {
		k = akeys_build(t);
		if (!k)
			return NULL;
		if (!__atomic_compare_exchange_n(slot, &none, k, false, __ATOMIC_ACQ_REL,
						 __ATOMIC_ACQUIRE)) {
			akeys_free(k);
			k = none;
		}
	}
	return k == &akeys_none ? NULL : k;
}

int ksym_table__finish(struct ksym_table *t)
{
	uint64_t next = 0;	/* the next higher address in the module, 0: none */
	struct ksym_ent *e, *n;
	size_t i;
	int err;

	err = sort_by_addr(t);
	if (err)
		return err;
	/*
	 * size: distance to the next higher address in the same module (for a
	 * function list, the next traceable one: an upper bound). A blacklist
	 * brings its own sizes. Backwards, so a run at one address takes the
	 * same next address without looking ahead for each of its symbols.
	 */
	for (i = t->cnt; i-- > 0 && t->fmt != KSYM_FMT_BLACKLIST;) {
		e = &t->ents[i];
		if (e->flags & KSYM_F_UNRESOLVED)
			break;	/* they sort first */
		n = i + 1 < t->cnt ? &t->ents[i + 1] : NULL;
		if (!n || n->mod != e->mod)
			next = 0;
		else if (n->addr > e->addr)
			next = n->addr;
		e->size = !next ? 0 : next - e->addr > UINT32_MAX ? UINT32_MAX : next - e->addr;
	}
	/* addresses may have changed (the join): the keys are built again when asked */
	akeys_free(t->akeys);
	t->akeys = NULL;
	return 0;
}

void ksym_table__free(struct ksym_table *t)
{
	if (!t)
		return;
	akeys_free(t->akeys);
	if (t->map) {
		/* a rebased build cache: its own entries and index over mapped strings */
		if (t->ent_cap) {
			ksym_index_free(&t->ix);
			ksym_mem_free(t->ents, t->ent_cap * sizeof(*t->ents));
		}
		free(t->mod_base);
		free(t->order);
		munmap(t->map, t->map_len);
		free(t);
		return;
	}
	ksym_index_free(&t->ix);
	ksym_mem_free(t->ents, t->ent_cap * sizeof(*t->ents));
	free(t->mods);
	if (t->buf_cap)
		ksym_mem_free(t->buf, t->buf_cap);
	else
		free(t->buf);
	free(t);
}

size_t ksym_table__cnt(const struct ksym_table *t)
{
	return t->cnt;
}


int ksym_table__at(const struct ksym_table *t, size_t i, struct ksym *out)
{
	if (i >= t->cnt)
		return -ERANGE;
	ksym_fill(t, ksym_ent_at(t, i), out);
	return 0;
}
