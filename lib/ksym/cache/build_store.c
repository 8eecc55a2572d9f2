// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A build cache written: the functions at their sites, as offsets from their
 * bases (vmlinux's _text, each module's text), grouped by base, with the name
 * index of the file's own order and the anchors the site check needs.
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

struct order_ctx {
	const struct ksym_table *t;
	const uint32_t *group;		/* per module index of t: its group, 0 vmlinux */
};

static int order_cmp(const void *a, const void *b, void *arg)
{
	const struct order_ctx *c = arg;
	const struct ksym_ent *x = &c->t->ents[*(const uint32_t *)a];
	const struct ksym_ent *y = &c->t->ents[*(const uint32_t *)b];
	uint32_t gx = c->group[x->mod], gy = c->group[y->mod];

	if (gx != gy)
		return gx < gy ? -1 : 1;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

static int mod_base_cmp(const void *a, const void *b)
{
	const struct ksym_layout_mod *x = *(const struct ksym_layout_mod *const *)a;
	const struct ksym_layout_mod *y = *(const struct ksym_layout_mod *const *)b;

	return x->base < y->base ? -1 : x->base > y->base;
}

int ksym_build__store(const char *dir, const struct ksym_layout *l, const struct ksym_table *t,
		      const uint64_t anchors[KSYM_ANCHOR_CNT], const char *source)
{
	return ksym_build__store_as(dir, NULL, l, t, anchors, source);
}

int ksym_build__store_as(const char *dir, const char *file, const struct ksym_layout *l,
			 const struct ksym_table *t, const uint64_t anchors[KSYM_ANCHOR_CNT],
			 const char *source)
{
	struct ksym_table c = {};
	struct build_hdr h = {};
	struct build_mod *bm = NULL;
	uint32_t *group = NULL, *order = NULL;
	const struct ksym_layout_mod **lm = NULL;
	struct order_ctx oc;
	size_t i, n = 0, groups = 1, slen = 0, scap = 1, ml, el, sl, dl, total, at;
	char name[96], *pay = NULL;
	int err;

	if (!l->id_len)
		return -ENODATA;
	if (l->bases_hidden)
		return -EPERM;
	/* a module coming or going, or whose notes this process cannot read (a
	 * sandbox hiding /sys/module): a file without it would serve every boot
	 * without its functions */
	for (i = 0; i < l->mod_cnt; i++)
		if (!l->mods[i].id_len || l->mods[i].loading)
			return -EAGAIN;	/* (a loading one's init text has no offset to keep) */
	err = ksym_cache_dir(dir);
	if (err)
		return err;
	err = -ENOMEM;
	group = calloc(t->mod_cnt + 1, sizeof(*group));
	lm = calloc(l->mod_cnt + 1, sizeof(*lm));
	order = malloc((t->cnt ? t->cnt : 1) * sizeof(*order));
	if (!group || !lm || !order)
		goto out;
	/*
	 * Every module loaded now with a build ID gets a group, even one without a
	 * traceable function (else it would be unknown to every later boot); the
	 * table's others are left out. Groups go in this boot's address order: a
	 * boot that loads the modules in the same order uses the file in place.
	 */
	for (i = 0; i < l->mod_cnt && groups <= UINT16_MAX; i++)
		if (l->mods[i].id_len)
			lm[groups++] = &l->mods[i];
	qsort(lm + 1, groups - 1, sizeof(*lm), mod_base_cmp);
	for (i = 0; i < t->mod_cnt; i++) {
		const struct ksym_layout_mod *m = ksym_build_layout_mod(l, t->buf + t->mods[i]);
		size_t g;

		group[i + 1] = UINT32_MAX;
		for (g = 1; m && g < groups; g++)
			if (lm[g] == m)
				group[i + 1] = g;
	}
	for (i = 0; i < t->cnt; i++) {
		const struct ksym_ent *e = &t->ents[i];
		uint32_t g = group[e->mod];

		if (g == UINT32_MAX || (ksym_ent_flags(t, e) & KSYM_F_UNRESOLVED) ||
		    ksym_ent_addr(t, e) < (g ? lm[g]->base : l->text))
			continue;
		order[n++] = i;
		scap += strlen(ksym_ent_name(t, e)) + 1;
	}
	if (!n) {
		err = -ENODATA;
		goto out;
	}
	oc.t = t;
	oc.group = group;
	qsort_r(order, n, sizeof(*order), order_cmp, &oc);
	for (i = 1; i < groups; i++)
		scap += strlen(lm[i]->name) + 1;
	if (scap > UINT32_MAX)
		goto out;
	c.buf = malloc(scap);
	c.ents = malloc(n * sizeof(*c.ents));
	c.mods = calloc(groups, sizeof(*c.mods));
	bm = calloc(groups, sizeof(*bm));
	if (!c.buf || !c.ents || !c.mods || !bm)
		goto out;
	c.mod_cnt = groups - 1;
	for (i = 1; i < groups; i++) {
		c.mods[i - 1] = slen;
		memcpy(c.buf + slen, lm[i]->name, strlen(lm[i]->name) + 1);
		slen += strlen(lm[i]->name) + 1;
		memcpy(bm[i - 1].id, lm[i]->id, KSYM_BUILD_ID_MAX);
		bm[i - 1].id_len = lm[i]->id_len;
	}
	for (i = 0; i < n; i++) {
		const struct ksym_ent *e = &t->ents[order[i]];
		uint32_t g = group[e->mod];
		const char *nm = ksym_ent_name(t, e);

		c.ents[i] = *e;
		c.ents[i].flags |= KSYM_F_TRACEABLE;	/* sites, every one */
		c.ents[i].mod = g;
		c.ents[i].addr = ksym_ent_addr(t, e) - (g ? lm[g]->base : l->text);
		c.ents[i].name = slen;
		memcpy(c.buf + slen, nm, strlen(nm) + 1);
		slen += strlen(nm) + 1;
		if (g)
			bm[g - 1].cnt++;
		else
			h.vm_cnt++;
	}
	/* each group where it starts, empty ones too */
	for (i = 1, at = h.vm_cnt; i < groups; i++) {
		bm[i - 1].first = at;
		at += bm[i - 1].cnt;
	}
	c.buf[slen++] = '\0';
	c.cnt = n;
	err = ksym_index_build(&c.ix, &c);
	if (err)
		goto out;

	memcpy(h.magic, BUILD_MAGIC, 8);
	h.version = BUILD_VERSION;
	h.ent_size = sizeof(struct ksym_ent);
	memcpy(h.id, l->id, KSYM_BUILD_ID_MAX);
	h.id_len = l->id_len;
	snprintf(h.source, sizeof(h.source), "%s", source);
	for (i = 0; i < KSYM_ANCHOR_CNT; i++)
		h.anchors[i] = anchors[i] >= l->text ? anchors[i] - l->text + 1 : 0;
	for (i = 0; i < KSYM_MOD_OFF_CNT; i++)
		h.mod_btf[i] = l->mod_btf_known ? l->mod_btf.off[i] : -1;
	h.slot_mask = c.ix.mask;
	h.cnt = n;
	h.mod_cnt = c.mod_cnt;
	h.nslots = (uint64_t)c.ix.mask + 1;
	h.buf_len = slen;
	ml = c.mod_cnt * sizeof(*bm);
	el = n * sizeof(*c.ents);
	sl = h.nslots * sizeof(struct ksym_slot);
	dl = ksym_align8(n * sizeof(uint32_t));
	total = ml + el + ksym_align8(c.mod_cnt * sizeof(uint32_t)) + sl + dl + ksym_align8(slen);
	err = -ENOMEM;
	pay = calloc(1, total);
	if (!pay)
		goto out;
	memcpy(pay, bm, ml);
	memcpy(pay + ml, c.ents, el);
	memcpy(pay + ml + el, c.mods, c.mod_cnt * sizeof(uint32_t));
	el += ksym_align8(c.mod_cnt * sizeof(uint32_t));
	memcpy(pay + ml + el, c.ix.slots, sl);
	memcpy(pay + ml + el + sl, c.ix.dup_next, n * sizeof(uint32_t));
	memcpy(pay + ml + el + sl + dl, c.buf, slen);
	h.payload_sum = ksym_sum64(pay, total);
	h.hdr_sum = ksym_build_hdr_sum(&h);
	if (file)
		snprintf(name, sizeof(name), "%s", file);
	else
		ksym_build__name(l, name, sizeof(name));
	err = ksym_cache_write(dir, name, &h, sizeof(h), pay, total);
out:
	ksym_index_free(&c.ix);
	free(c.buf);
	free(c.ents);
	free(c.mods);
	free(bm);
	free(pay);
	free(order);
	free(lm);
	free(group);
	return err;
}
