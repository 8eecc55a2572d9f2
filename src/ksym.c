// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* ksym queries: address order, batch name index, globs, the funcs join. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "ksym_internal.h"

static int ent_cmp(const void *a, const void *b)
{
	const struct ksym_ent *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Address order and sizes; /proc/kallsyms is mostly sorted, so check first. */
void ksym_table__finish(struct ksym_table *t)
{
	size_t i, j;

	for (i = 1; i < t->cnt; i++)
		if (ent_cmp(&t->ents[i - 1], &t->ents[i]) > 0)
			break;
	if (i < t->cnt)
		qsort(t->ents, t->cnt, sizeof(*t->ents), ent_cmp);

	/*
	 * size: distance to the next higher address in the same module (for a
	 * function list, the next traceable one: an upper bound). A blacklist
	 * brings its own sizes.
	 */
	for (i = 0; i < t->cnt && t->fmt != KSYM_FMT_BLACKLIST; i++) {
		struct ksym_ent *e = &t->ents[i];
		uint64_t d = 0;

		if (!e->addr)
			continue;
		for (j = i + 1; j < t->cnt; j++) {
			if (t->ents[j].mod != e->mod)
				break;
			if (t->ents[j].addr > e->addr) {
				d = t->ents[j].addr - e->addr;
				break;
			}
		}
		e->size = d > UINT32_MAX ? UINT32_MAX : d;
	}
}

void ksym_table__free(struct ksym_table *t)
{
	if (!t)
		return;
	if (t->map) {
		munmap(t->map, t->map_len);
		free(t);
		return;
	}
	free(t->slots);
	free(t->dup_next);
	free(t->ents);
	free(t->mods);
	free(t->buf);
	free(t);
}

size_t ksym_table__cnt(const struct ksym_table *t)
{
	return t->cnt;
}

static void fill(const struct ksym_table *t, const struct ksym_ent *e, struct ksym *out)
{
	out->addr = e->addr;
	out->size = e->size;
	out->name = ksym_ent_name(t, e);
	out->module = ksym_ent_mod(t, e);
	out->type = e->type;
	out->flags = e->flags;
}

int ksym_table__at(const struct ksym_table *t, size_t i, struct ksym *out)
{
	if (i >= t->cnt)
		return -ERANGE;
	fill(t, &t->ents[i], out);
	return 0;
}

int ksym_build_index(const struct ksym_ent *ents, size_t cnt, const char *buf,
		     struct ksym_slot **slotsp, uint32_t **dup_nextp, uint32_t *mask)
{
	uint32_t nslots = 16, m, i, *tail, *dup_next;
	struct ksym_slot *slots;

	while (nslots < cnt + cnt / 3)
		nslots <<= 1;
	slots = calloc(nslots, sizeof(*slots));
	dup_next = calloc(cnt ? cnt : 1, sizeof(*dup_next));
	tail = calloc(nslots, sizeof(*tail));	/* per slot: last entry of its chain */
	if (!slots || !dup_next || !tail) {
		free(slots);
		free(dup_next);
		free(tail);
		return -ENOMEM;
	}
	m = nslots - 1;
	/* entries go in in address order, so every chain is in address order */
	for (i = 0; i < cnt; i++) {
		const char *name = buf + ents[i].name;
		uint32_t h = ksym_hash(name), s = h & m;

		for (; slots[s].idx; s = (s + 1) & m)
			if (slots[s].hash == h && !strcmp(buf + ents[slots[s].idx - 1].name, name))
				break;
		if (slots[s].idx) {
			dup_next[tail[s] - 1] = i + 1;
		} else {
			slots[s].hash = h;
			slots[s].idx = i + 1;
		}
		tail[s] = i + 1;
	}
	free(tail);
	*slotsp = slots;
	*dup_nextp = dup_next;
	*mask = m;
	return 0;
}

int ksym_table__batch_begin(struct ksym_table *t)
{
	int err;

	/* a cached table carries its index for good */
	if (t->batch_refs++ || t->map)
		return 0;
	err = ksym_build_index(t->ents, t->cnt, t->buf, &t->slots, &t->dup_next, &t->slot_mask);
	if (err)
		t->batch_refs = 0;
	return err;
}

void ksym_table__batch_end(struct ksym_table *t)
{
	if (t->batch_refs <= 0 || --t->batch_refs || t->map)
		return;
	free(t->slots);
	free(t->dup_next);
	t->slots = NULL;
	t->dup_next = NULL;
	t->slot_mask = 0;
}

static bool mod_ok(const struct ksym_table *t, const struct ksym_ent *e, const char *module)
{
	if (!module)
		return true;
	if (!*module)
		return e->mod == 0;
	return e->mod && !strcmp(ksym_ent_mod(t, e), module);
}

int ksym_table__find(const struct ksym_table *t, const char *name, const char *module,
		     struct ksym *out, size_t max)
{
	char modbuf[64];
	const char *colon = strchr(name, ':');
	size_t n = 0, i;

	if (colon) {
		size_t ml = colon - name;

		if (ml >= sizeof(modbuf))
			return -ENAMETOOLONG;
		memcpy(modbuf, name, ml);
		modbuf[ml] = '\0';
		module = modbuf;
		name = colon + 1;
	}
	if (t->slots) {
		uint32_t i1;

		for (i1 = ksym_index_first(t, name, ksym_hash(name)); i1; i1 = t->dup_next[i1 - 1]) {
			const struct ksym_ent *e = &t->ents[i1 - 1];

			if (!mod_ok(t, e, module))
				continue;
			if (n < max)
				fill(t, e, &out[n]);
			n++;
		}
		return n;
	}
	/* No index: one scan, first byte checked before the call. */
	for (i = 0; i < t->cnt; i++) {
		const struct ksym_ent *e = &t->ents[i];
		const char *en = ksym_ent_name(t, e);

		if (en[0] != name[0] || strcmp(en, name) || !mod_ok(t, e, module))
			continue;
		if (n < max)
			fill(t, e, &out[n]);
		n++;
	}
	return n;
}

int ksym_table__addr(const struct ksym_table *t, uint64_t addr, struct ksym *out)
{
	size_t lo = 0, hi = t->cnt;

	/* first entry with ent.addr > addr, then step back */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->ents[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || (t->ents[lo - 1].flags & KSYM_F_UNRESOLVED))
		return -ENOENT;
	/* several symbols at one address: report the first one listed */
	while (lo > 1 && t->ents[lo - 2].addr == t->ents[lo - 1].addr)
		lo--;
	fill(t, &t->ents[lo - 1], out);
	return 0;
}

int ksym_table__match(const struct ksym_table *t, const char *glob, ksym_fn fn, void *ctx)
{
	const char *colon = strchr(glob, ':');
	char module[64];
	size_t plen, i;
	struct ksym sym;
	int ret;

	if (colon) {
		if ((size_t)(colon - glob) >= sizeof(module))
			return -ENAMETOOLONG;
		memcpy(module, glob, colon - glob);
		module[colon - glob] = '\0';
		glob = colon + 1;
	}
	plen = strcspn(glob, "*?[");
	for (i = 0; i < t->cnt; i++) {
		const struct ksym_ent *e = &t->ents[i];
		const char *name = ksym_ent_name(t, e);

		/* literal prefix first: most names fail in the first byte or two */
		if (strncmp(name, glob, plen) || !ksym_glob_match(glob + plen, name + plen) ||
		    (colon && !mod_ok(t, e, module)))
			continue;
		fill(t, e, &sym);
		ret = fn(&sym, ctx);
		if (ret)
			return ret;
	}
	return 0;
}

static bool is_text(char type)
{
	return type == 't' || type == 'T' || type == 'w' || type == 'W';
}

/* Of the entries named like entry i in its module: how many precede it, and all. */
static void rank_of(const struct ksym_table *t, size_t i, uint32_t *rank, uint32_t *cnt)
{
	const struct ksym_ent *e = &t->ents[i];
	const char *name = ksym_ent_name(t, e);
	uint32_t i1;

	*rank = *cnt = 0;
	for (i1 = ksym_index_first(t, name, ksym_hash(name)); i1; i1 = t->dup_next[i1 - 1]) {
		if (t->ents[i1 - 1].mod != e->mod)
			continue;
		*rank += i1 - 1 < i;
		(*cnt)++;
	}
}

static bool same_mod(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

int ksym_table__resolve(struct ksym_table *funcs, struct ksym_table *kallsyms)
{
	size_t i, unresolved = 0;
	int err;

	if (funcs->map)
		return -EROFS;
	/* funcs is still in input order (all addresses 0), so ranks follow the file */
	err = ksym_table__batch_begin(kallsyms);
	if (!err)
		err = ksym_table__batch_begin(funcs);
	if (err) {
		ksym_table__batch_end(kallsyms);
		return err;
	}
	for (i = 0; i < funcs->cnt; i++) {
		struct ksym_ent *f = &funcs->ents[i];
		const char *name = ksym_ent_name(funcs, f);
		const char *mod = ksym_ent_mod(funcs, f);
		uint32_t i1, k = 0, rank, cnt;

		if (!(f->flags & KSYM_F_UNRESOLVED))
			continue;
		rank_of(funcs, i, &rank, &cnt);
		for (i1 = ksym_index_first(kallsyms, name, ksym_hash(name)); i1;
		     i1 = kallsyms->dup_next[i1 - 1]) {
			const struct ksym_ent *e = &kallsyms->ents[i1 - 1];

			if (!is_text(e->type) || !same_mod(mod, ksym_ent_mod(kallsyms, e)))
				continue;
			if (k++ == rank) {
				f->addr = e->addr;
				f->type = e->type;
				f->flags &= ~KSYM_F_UNRESOLVED;
			}
		}
		/* more text symbols of the name than ftrace lists: which is which is a guess */
		if (k != cnt)
			f->flags |= KSYM_F_AMBIGUOUS;
		unresolved += !!(f->flags & KSYM_F_UNRESOLVED);
	}
	ksym_table__batch_end(funcs);
	ksym_table__batch_end(kallsyms);
	ksym_table__finish(funcs);
	return unresolved;
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
