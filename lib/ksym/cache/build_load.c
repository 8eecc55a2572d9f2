// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A build cache read for this boot: mapped, checked (ksym_build_check()), and
 * each group of entries moved to its base's address now, the groups put in
 * address order; the name index follows by a shift per group.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ksym_build_fmt.h"
#include "ksym_cachefile.h"

/*
 * Each entry in its module's group, in offset order: what moving the groups
 * (and their index references) by a shift each relies on. Apart from the
 * checks above, as a table used in place needs only its offsets in bounds.
 */
static bool groups_hold(const struct build_view *v)
{
	const struct build_hdr *h = v->h;
	size_t i;

	for (i = 0; i < h->cnt; i++) {
		const struct ksym_ent *e = &v->t.ents[i], *prev = e - 1;

		/* entries of group g: its module index, in offset order */
		if (i < h->vm_cnt ? e->mod != 0 : !e->mod || v->mods[e->mod - 1].first > i ||
						  i - v->mods[e->mod - 1].first >= v->mods[e->mod - 1].cnt)
			return false;
		if (i && prev->mod == e->mod && prev->addr > e->addr)
			return false;
	}
	return true;
}

/*
 * Groups in address order, vmlinux (mod 0) among the modules by its base:
 * below every module on x86-64, above them on arm64.
 */
struct group_pos {
	uint64_t base;
	uint32_t mod;
};

static int group_cmp(const void *a, const void *b)
{
	const struct group_pos *x = a, *y = b;

	return x->base < y->base ? -1 : x->base > y->base;
}

/* A reference (entry index + 1 in KSYM_IX_IDX) moved with its entry's group. */
/*
 * Every module of the file loaded, in the file's order: the table is used
 * where it is mapped, each entry's base added as it is read (nothing is
 * written, no page copied), and the index in the file holds as it is.
 */
static bool in_place(const struct build_view *v, const struct group_pos *gp, size_t gcnt)
{
	size_t i;

	if (gcnt != v->h->mod_cnt + 1)
		return false;
	for (i = 0; i < gcnt; i++)
		if (gp[i].mod != i)
			return false;
	return true;
}

struct ksym_table *ksym_build__load(const char *dir, struct ksym_layout *l,
				    uint64_t anchors[KSYM_ANCHOR_CNT], size_t *unknown, char *names,
				    size_t names_len)
{
	return ksym_build__load_as(dir, NULL, l, anchors, unknown, names, names_len);
}

struct ksym_table *ksym_build__load_as(const char *dir, const char *file, struct ksym_layout *l,
				       uint64_t anchors[KSYM_ANCHOR_CNT], size_t *unknown,
				       char *names, size_t names_len)
{
	struct group_pos *gp = NULL;
	struct build_view v;
	struct ksym_table *t = NULL;
	uint64_t *base = NULL;
	size_t i, g, gcnt = 0, at, dropped = 0;
	char name[96], *map;
	struct stat st;
	int err = ENOMEM;

	if (!l->id_len) {
		errno = ENODATA;
		return NULL;
	}
	if (file)
		snprintf(name, sizeof(name), "%s", file);
	else
		ksym_build__name(l, name, sizeof(name));
	map = ksym_cache_map(dir, name, sizeof(struct build_hdr), &st, true, false);
	if (!map)
		return NULL;
	if (!ksym_build_check(map, st.st_size, &v, false)) {
		err = EBADMSG;
		goto fail;
	}
	if (v.h->id_len != l->id_len || memcmp(v.h->id, l->id, l->id_len)) {
		err = ESTALE;	/* a file renamed from another build's */
		goto fail;
	}
	base = calloc(v.h->mod_cnt + 1, sizeof(*base));
	gp = calloc(v.h->mod_cnt + 1, sizeof(*gp));
	t = calloc(1, sizeof(*t));
	if (!base || !gp || !t)
		goto fail;
	base[0] = l->text;
	gp[gcnt].base = l->text;
	gp[gcnt++].mod = 0;
	for (i = 0; i < v.h->mod_cnt; i++) {
		const struct ksym_layout_mod *m = ksym_build_layout_mod(l, v.t.buf + v.t.mods[i]);
		const struct build_mod *b = &v.mods[i];

		/* not loaded now, another build of it, or where it is hidden: its
		 * entries stay unresolved */
		if (!m || m->id_len != b->id_len || memcmp(m->id, b->id, b->id_len) || !m->base) {
			base[i + 1] = KSYM_BASE_NONE;
			dropped += b->cnt;
			continue;
		}
		base[i + 1] = m->base;
		gp[gcnt].base = m->base;
		gp[gcnt++].mod = i + 1;
	}
	/* the loaded modules no group of the file is (of this build) */
	*unknown = 0;
	if (names_len)
		names[0] = '\0';
	for (i = 0; i < l->mod_cnt; i++) {
		const struct ksym_layout_mod *m = &l->mods[i];
		size_t j, used;

		for (j = 0; j < v.h->mod_cnt; j++)
			if (m->id_len && !strcmp(v.t.buf + v.t.mods[j], m->name) &&
			    m->id_len == v.mods[j].id_len && !memcmp(m->id, v.mods[j].id, m->id_len))
				break;
		l->mods[i].in_file = j < v.h->mod_cnt;
		if (l->mods[i].in_file)
			continue;
		++*unknown;
		used = names_len ? strlen(names) : 0;
		if (names_len && used + strlen(m->name) + 6 < names_len)
			snprintf(names + used, names_len - used, "%s%s", used ? ", " : "", m->name);
	}
	qsort(gp, gcnt, sizeof(*gp), group_cmp);
	/*
	 * Used where it is mapped either way: in the file's order where this boot
	 * placed the groups so, else through an order of positions (the
	 * unresolved first, then vmlinux and the modules by base).
	 */
	if (dropped || !in_place(&v, gp, gcnt)) {
		if (!groups_hold(&v)) {
			err = EBADMSG;
			goto fail;
		}
		t->order = malloc((v.h->cnt ? v.h->cnt : 1) * sizeof(*t->order));
		if (!t->order)
			goto fail;
		at = 0;
		for (i = 0; i < v.h->mod_cnt; i++)
			for (g = 0; base[i + 1] == KSYM_BASE_NONE && g < v.mods[i].cnt; g++)
				t->order[at++] = v.mods[i].first + g;
		for (i = 0; i < gcnt; i++) {
			const struct build_mod *b = gp[i].mod ? &v.mods[gp[i].mod - 1] : NULL;

			for (g = 0; g < (b ? b->cnt : v.h->vm_cnt); g++)
				t->order[at++] = (b ? b->first : 0) + g;
		}
	}
	t->ents = v.t.ents;
	t->ix = v.t.ix;
	t->mod_base = base;
	base = NULL;
	for (i = 0; i < KSYM_ANCHOR_CNT; i++)
		anchors[i] = v.h->anchors[i] ? v.h->anchors[i] - 1 + l->text : 0;
	l->mod_btf_known = true;
	for (i = 0; i < KSYM_MOD_OFF_CNT; i++) {
		l->mod_btf.off[i] = v.h->mod_btf[i];
		l->mod_btf_known &= v.h->mod_btf[i] >= 0;
	}
	t->buf = v.t.buf;
	t->len = v.t.len;
	t->mods = v.t.mods;
	t->mod_cnt = v.t.mod_cnt;
	t->cnt = v.h->cnt;
	t->fmt = KSYM_FMT_FUNCS_ADDRS;
	t->map = map;
	t->map_len = st.st_size;
	free(gp);
	/* the groups apart from each other: else the order is not this */
	for (i = dropped + 1; i < t->cnt; i++)
		if (ksym_ent_addr(t, ksym_ent_at(t, i - 1)) > ksym_ent_addr(t, ksym_ent_at(t, i))) {
			ksym_table__free(t);
			errno = ESTALE;
			return NULL;
		}
	return t;
fail:
	if (t)
		free(t->order);
	free(t);
	free(base);
	free(gp);
	munmap(map, st.st_size);
	errno = err;
	return NULL;
}
