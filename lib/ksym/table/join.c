// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Tables made from tables: available_filter_functions' names joined with
 * kallsyms' addresses (ksym_table__resolve()), two tables merged, and a
 * symbol printed as name+0xoff/0xsize.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ksym_internal.h"

static bool same_mod(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static int u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Appends v to *a (n used of *cap), doubling it when full. */
static int u32_push(uint32_t **a, size_t *n, size_t *cap, uint32_t v)
{
	if (*n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 64;
		uint32_t *g = realloc(*a, ncap * sizeof(*g));

		if (!g)
			return -ENOMEM;
		*a = g;
		*cap = ncap;
	}
	(*a)[(*n)++] = v;
	return 0;
}

/*
 * Entry i's group: its same-named, same-module entries, in file order (in a
 * function list, ftrace's order, which must not move as entries get their
 * addresses). *grp grows to hold them; returns how many.
 */
static ssize_t group_of(const struct ksym_table *t, uint32_t i, uint32_t **grp, size_t *cap)
{
	const struct ksym_ent *e = &t->ents[i];
	const char *name = ksym_ent_name(t, e);
	size_t n = 0;
	uint32_t v;

	for (v = ksym_index_first(t, name, ksym_hash(name)); v; v = ksym_index_next(t, v)) {
		uint32_t j = (v & KSYM_IX_IDX) - 1;

		if (t->ents[j].mod == e->mod && u32_push(grp, &n, cap, j))
			return -ENOMEM;
	}
	qsort(*grp, n, sizeof(**grp), u32_cmp);
	return n;
}

int ksym_table__resolve(struct ksym_table *funcs, struct ksym_table *kallsyms)
{
	size_t i, r, unresolved = 0, cap = 0, ccap = 0;
	uint32_t *grp = NULL, *cand = NULL;
	uint8_t *done;
	ssize_t cnt;
	int err;

	if (funcs->map)
		return -EROFS;
	done = calloc(funcs->cnt ? funcs->cnt : 1, 1);
	if (!done)
		return -ENOMEM;
	/* funcs has no addresses yet: address order is file order, as ftrace lists */
	err = ksym_table__batch_begin(kallsyms);
	if (!err)
		err = ksym_table__batch_begin(funcs);
	if (err) {
		ksym_table__batch_end(kallsyms);
		free(done);
		return err;
	}
	/*
	 * A group at a time, at its first entry: the n-th of a name in the
	 * list takes the n-th lowest text symbol of the name in the module.
	 * Once per group, as a name may be listed 100,000 times over.
	 */
	for (i = 0; i < funcs->cnt && !err; i++) {
		struct ksym_ent *f = &funcs->ents[i];
		const char *name = ksym_ent_name(funcs, f);
		const char *mod = ksym_ent_mod(funcs, f);
		size_t k = 0;
		uint32_t v;

		if (done[i] || !(f->flags & KSYM_F_UNRESOLVED))
			continue;
		cnt = group_of(funcs, i, &grp, &cap);
		if (cnt < 0) {
			err = cnt;
			break;
		}
		for (v = ksym_index_first(kallsyms, name, ksym_hash(name)); v && !err;
		     v = ksym_index_next(kallsyms, v)) {
			const struct ksym_ent *e = &kallsyms->ents[(v & KSYM_IX_IDX) - 1];

			if (ksym_type_is_text(e->type) && same_mod(mod, ksym_ent_mod(kallsyms, e)))
				err = u32_push(&cand, &k, &ccap, (v & KSYM_IX_IDX) - 1);
		}
		if (err)
			break;
		/* a finished table's entry order is its address order */
		qsort(cand, k, sizeof(*cand), u32_cmp);
		for (r = 0; r < (size_t)cnt; r++) {
			struct ksym_ent *g = &funcs->ents[grp[r]];

			done[grp[r]] = 1;
			if (!(g->flags & KSYM_F_UNRESOLVED))
				continue;
			if (r < k) {
				const struct ksym_ent *e = &kallsyms->ents[cand[r]];

				g->addr = e->addr;
				g->type = e->type;
				g->flags &= ~KSYM_F_UNRESOLVED;
			}
			/* more text symbols of the name than ftrace lists: which is which is a guess */
			if (k != (size_t)cnt)
				g->flags |= KSYM_F_AMBIGUOUS;
			unresolved += !!(g->flags & KSYM_F_UNRESOLVED);
		}
	}
	free(grp);
	free(cand);
	free(done);
	ksym_table__batch_end(funcs);
	ksym_table__batch_end(kallsyms);
	if (!err)
		err = ksym_table__finish(funcs);
	return err ? err : (int)unresolved;
}

int ksym__snprint(char *buf, size_t len, const struct ksym *sym, uint64_t addr)
{
	char mod[80] = "";

	if (sym->module)
		snprintf(mod, sizeof(mod), " [%s]", sym->module);
	if (sym->size)
		return snprintf(buf, len, "%s+0x%llx/0x%llx%s", sym->name,
				(unsigned long long)(addr - sym->addr),
				(unsigned long long)sym->size, mod);
	return snprintf(buf, len, "%s+0x%llx%s", sym->name,
			(unsigned long long)(addr - sym->addr), mod);
}

struct ksym_table *ksym_table__merge(const struct ksym_table *a, const struct ksym_table *b)
{
	struct ksym_table *t = calloc(1, sizeof(*t));
	size_t i, n = a->cnt + b->cnt;
	int err = -ENOMEM;

	if (!t)
		return NULL;
	if (a->len + b->len > UINT32_MAX || n > KSYM_IX_MAX || a->mod_cnt + b->mod_cnt > UINT16_MAX) {
		err = -E2BIG;
		goto fail;
	}
	t->len = a->len + b->len;
	t->buf = malloc(t->len ? t->len : 1);
	t->mods = malloc((a->mod_cnt + b->mod_cnt + 1) * sizeof(*t->mods));
	t->ent_cap = n ? n : 1;
	t->ents = ksym_mem_alloc(t->ent_cap * sizeof(*t->ents));
	if (!t->buf || !t->mods || !t->ents)
		goto fail;
	memcpy(t->buf, a->buf, a->len);
	memcpy(t->buf + a->len, b->buf, b->len);
	memcpy(t->mods, a->mods, a->mod_cnt * sizeof(*t->mods));
	for (i = 0; i < b->mod_cnt; i++)
		t->mods[a->mod_cnt + i] = b->mods[i] + a->len;
	t->mod_cnt = a->mod_cnt + b->mod_cnt;
	for (i = 0; i < a->cnt; i++) {
		t->ents[i] = a->ents[i];
		t->ents[i].addr = ksym_ent_addr(a, &a->ents[i]);
		t->ents[i].flags = ksym_ent_flags(a, &a->ents[i]);
	}
	for (i = 0; i < b->cnt; i++) {
		struct ksym_ent *e = &t->ents[a->cnt + i];

		*e = b->ents[i];
		e->addr = ksym_ent_addr(b, &b->ents[i]);
		e->name += a->len;
		if (e->mod)
			e->mod += a->mod_cnt;
	}
	t->cnt = n;
	t->fmt = a->fmt;
	err = ksym_table__finish(t);
	if (!err)
		err = ksym_index_build(&t->ix, t);
	if (!err)
		return t;
fail:
	ksym_table__free(t);
	errno = -err;
	return NULL;
}
