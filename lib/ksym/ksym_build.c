// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The build cache: one kernel build's traceable functions, kept across boots.
 * KASLR slides vmlinux as a whole and places each module as a whole, so a
 * function's offset from its base (vmlinux's _text, its module's text) is the
 * same at every boot of a build. The file holds offsets only, never a boot's
 * addresses (they would tell its reader the slide), grouped by base: vmlinux,
 * then each module with its own build ID. A boot's first run finds its bases
 * (ksym_layout.c), adds them, and puts the groups in address order: the name
 * index in the file follows by a shift per group.
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

#include "ksym_internal.h"
#include "ksym_build.h"

#define BUILD_MAGIC "KSYMBLD1"
#define BUILD_VERSION 3	/* 2: anchors + 1 (_stext is at _text); 3: mod_btf */

struct build_hdr {
	char magic[8];
	uint32_t version;
	uint32_t ent_size;
	uint8_t id[KSYM_BUILD_ID_MAX];
	uint8_t id_len;
	uint8_t pad[3];
	char source[64];			/* what the functions were read from */
	uint64_t anchors[KSYM_ANCHOR_CNT];	/* offsets from _text + 1; 0: unknown */
	/* where struct module keeps its symbols in this build (-1: unknown) */
	int32_t mod_btf[KSYM_MOD_OFF_CNT];
	uint32_t slot_mask;
	uint32_t vm_cnt;			/* vmlinux's entries, first */
	uint64_t cnt, mod_cnt, nslots, buf_len;
	uint64_t payload_sum;
	uint64_t hdr_sum;
};

/* One per module, in the order of the entries' groups. */
struct build_mod {
	uint8_t id[KSYM_BUILD_ID_MAX];
	uint8_t id_len;
	uint8_t pad[3];
	uint32_t first, cnt;		/* its entries */
};

static size_t align8(size_t v)
{
	return (v + 7) & ~(size_t)7;
}

void ksym_build__name(const struct ksym_layout *l, char *buf, size_t len)
{
	size_t i, off = snprintf(buf, len, "build-");

	for (i = 0; i < l->id_len && off + 3 <= len; i++)
		off += snprintf(buf + off, len - off, "%02x", l->id[i]);
}

static const struct ksym_layout_mod *layout_mod(const struct ksym_layout *l, const char *name)
{
	size_t i;

	for (i = 0; i < l->mod_cnt; i++)
		if (!strcmp(l->mods[i].name, name))
			return &l->mods[i];
	return NULL;
}

static uint64_t build_hdr_sum(const struct build_hdr *h)
{
	return ksym_sum64(h, offsetof(struct build_hdr, hdr_sum));
}

/* ---- storing ---- */

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
		const struct ksym_layout_mod *m = layout_mod(l, t->buf + t->mods[i]);
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
	dl = align8(n * sizeof(uint32_t));
	total = ml + el + align8(c.mod_cnt * sizeof(uint32_t)) + sl + dl + align8(slen);
	err = -ENOMEM;
	pay = calloc(1, total);
	if (!pay)
		goto out;
	memcpy(pay, bm, ml);
	memcpy(pay + ml, c.ents, el);
	memcpy(pay + ml + el, c.mods, c.mod_cnt * sizeof(uint32_t));
	el += align8(c.mod_cnt * sizeof(uint32_t));
	memcpy(pay + ml + el, c.ix.slots, sl);
	memcpy(pay + ml + el + sl, c.ix.dup_next, n * sizeof(uint32_t));
	memcpy(pay + ml + el + sl + dl, c.buf, slen);
	h.payload_sum = ksym_sum64(pay, total);
	h.hdr_sum = build_hdr_sum(&h);
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

/* ---- loading ---- */

struct build_view {
	const struct build_hdr *h;
	const struct build_mod *mods;
	struct ksym_table t;		/* the file's table, offsets as addresses */
};

/*
 * What a file from elsewhere (an import) must hold besides: every slot names its
 * entry, every chain joins entries of one name, no entry is unresolved, no
 * module is nameless or there twice. A loaded file is root's own, checked as the /run cache
 * is (its offsets bounded: a forgery by root can mislead, never crash it).
 */
static bool index_holds(const struct build_view *v)
{
	const struct ksym_table *t = &v->t;
	size_t i;

	for (i = 0; i <= t->ix.mask; i++) {
		uint32_t r = t->ix.slots[i].ref & KSYM_IX_IDX;

		if (r && strcmp(t->buf + t->ix.slots[i].name, t->buf + t->ents[r - 1].name))
			return false;
	}
	for (i = 0; i < t->cnt; i++) {
		uint32_t d = t->ix.dup_next[i] & KSYM_IX_IDX;

		if ((t->ents[i].flags & KSYM_F_UNRESOLVED) ||
		    (d && strcmp(t->buf + t->ents[i].name, t->buf + t->ents[d - 1].name)))
			return false;
	}
	for (i = 0; i < t->mod_cnt; i++) {
		size_t j;

		if (!t->buf[t->mods[i]])
			return false;
		for (j = 0; j < i; j++)	/* a few hundred modules at most */
			if (!strcmp(t->buf + t->mods[i], t->buf + t->mods[j]))
				return false;
	}
	return true;
}

/*
 * A mapped build cache checked whole: header, sizes, checksum, offsets, groups.
 * False where anything does not hold.
 */
static bool build_check(const char *map, size_t len, struct build_view *v, bool strict)
{
	const struct build_hdr *h = (const struct build_hdr *)map;
	size_t ml, el, xl, sl, dl, need, i, at;
	const char *p;

	if (len < sizeof(*h) || memcmp(h->magic, BUILD_MAGIC, 8) || h->version != BUILD_VERSION ||
	    h->ent_size != sizeof(struct ksym_ent) || h->hdr_sum != build_hdr_sum(h) ||
	    !h->id_len || h->id_len > KSYM_BUILD_ID_MAX || memchr(h->source, 0, sizeof(h->source)) == NULL)
		return false;
	if (h->cnt > KSYM_IX_MAX || h->mod_cnt > UINT16_MAX || h->nslots > (1ull << 32) ||
	    (h->nslots & (h->nslots - 1)) || h->slot_mask != h->nslots - 1 ||
	    h->nslots < h->cnt + 1 || !h->buf_len || h->buf_len > UINT32_MAX || h->vm_cnt > h->cnt)
		return false;
	ml = h->mod_cnt * sizeof(struct build_mod);
	el = h->cnt * sizeof(struct ksym_ent);
	xl = align8(h->mod_cnt * sizeof(uint32_t));
	sl = h->nslots * sizeof(struct ksym_slot);
	dl = align8(h->cnt * sizeof(uint32_t));
	need = sizeof(*h) + ml + el + xl + sl + dl + align8(h->buf_len);
	if (need != len || ksym_sum64(map + sizeof(*h), len - sizeof(*h)) != h->payload_sum)
		return false;
	p = map + sizeof(*h);
	memset(v, 0, sizeof(*v));
	v->h = h;
	v->mods = (const struct build_mod *)p;
	v->t.ents = (struct ksym_ent *)(p + ml);
	v->t.mods = (uint32_t *)(p + ml + el);
	v->t.ix.slots = (struct ksym_slot *)(p + ml + el + xl);
	v->t.ix.dup_next = (uint32_t *)(p + ml + el + xl + sl);
	v->t.buf = (char *)(p + ml + el + xl + sl + dl);
	v->t.len = h->buf_len;
	v->t.cnt = h->cnt;
	v->t.mod_cnt = h->mod_cnt;
	v->t.ix.mask = h->slot_mask;
	if (!ksym_cache_valid(&v->t, h->nslots))
		return false;
	/* vmlinux, then each module's group in turn, each group in offset order */
	for (i = 0, at = h->vm_cnt; i < h->mod_cnt; i++) {
		const struct build_mod *m = &v->mods[i];

		if (m->first != at || m->cnt > h->cnt - at || !m->id_len ||
		    m->id_len > KSYM_BUILD_ID_MAX)
			return false;
		at += m->cnt;
	}
	if (at != h->cnt)
		return false;
	return !strict || index_holds(v);
}

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

/* Groups in address order: vmlinux below every module on x86-64, modules by base. */
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

	if (gcnt != v->h->mod_cnt)
		return false;
	for (i = 0; i < gcnt; i++)
		if (gp[i].mod != i + 1)
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
	if (!build_check(map, st.st_size, &v, false)) {
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
	for (i = 0; i < v.h->mod_cnt; i++) {
		const struct ksym_layout_mod *m = layout_mod(l, v.t.buf + v.t.mods[i]);
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
	 * unresolved first, then vmlinux, then the modules by base).
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
		for (g = 0; g < v.h->vm_cnt; g++)
			t->order[at++] = g;
		for (i = 0; i < gcnt; i++) {
			const struct build_mod *b = &v.mods[gp[i].mod - 1];

			for (g = 0; g < b->cnt; g++)
				t->order[at++] = b->first + g;
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
	/* modules above vmlinux, apart from each other: else the order is not this */
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

/* ---- across nodes ---- */

/*
 * The running build's ID alone: export, import and have() name and check files
 * by it, and need neither /proc/kallsyms nor a sysfs read per module.
 */
static int live_id(struct ksym_layout *l)
{
	memset(l, 0, sizeof(*l));
	return ksym_build_id_file("/sys/kernel/notes", l->id, &l->id_len);
}

/*
 * The running build's file in dir, mapped and checked (as a load checks it,
 * its build ID the kernel's); NULL with *err.
 */
static char *map_running(const char *dir, struct stat *st, int *err)
{
	struct ksym_layout l;
	struct build_view v;
	char name[64], *map;

	*err = live_id(&l);
	if (*err)
		return NULL;
	ksym_build__name(&l, name, sizeof(name));
	map = ksym_cache_map(dir ? dir : KSYM_BUILD_CACHE_DIR, name, sizeof(struct build_hdr), st,
			     true, false);
	if (!map)
		*err = -errno;
	else if (!build_check(map, st->st_size, &v, false))
		*err = -EBADMSG;
	else if (v.h->id_len != l.id_len || memcmp(v.h->id, l.id, l.id_len))
		*err = -ESTALE;
	if (*err && map) {
		munmap(map, st->st_size);
		map = NULL;
	}
	ksym_layout__free(&l);
	return map;
}

int ksym_build__export(const char *dir, const char *path)
{
	char pdir[512], *map, *slash;
	struct stat st;
	int err;

	if ((size_t)snprintf(pdir, sizeof(pdir), "%s", path) >= sizeof(pdir))
		return -ENAMETOOLONG;
	map = map_running(dir, &st, &err);
	if (!map)
		return err;
	slash = strrchr(pdir, '/');
	if (slash)
		*slash = '\0';
	err = ksym_file_write(slash ? (pdir[0] ? pdir : "/") : ".", slash ? slash + 1 : path,
			      map, st.st_size);
	munmap(map, st.st_size);
	return err;
}

int ksym_build__import(const char *dir, const char *path)
{
	struct ksym_layout l;
	struct build_view v;
	char name[64], *buf = NULL;
	size_t len;
	int err;

	if (!dir)
		dir = KSYM_BUILD_CACHE_DIR;
	err = live_id(&l);
	if (err)
		return err;
	err = ksym__read_file(path, &buf, &len);
	if (err)
		goto out;
	/* another build's file is told by its header: no need to check the rest */
	if (len >= sizeof(*v.h) && !memcmp(buf, BUILD_MAGIC, 8) &&
	    (((struct build_hdr *)buf)->id_len != l.id_len ||
	     memcmp(((struct build_hdr *)buf)->id, l.id, l.id_len))) {
		err = -ESTALE;
		goto out;
	}
	if (!build_check(buf, len, &v, true)) {
		err = -EBADMSG;
		goto out;
	}
	if (v.h->id_len != l.id_len || memcmp(v.h->id, l.id, l.id_len)) {
		err = -ESTALE;
		goto out;
	}
	err = ksym_cache_dir(dir);
	if (!err) {
		ksym_build__name(&l, name, sizeof(name));
		err = ksym_cache_write(dir, name, buf, len, NULL, 0);
	}
	if (!err)
		ksym_build__prune(dir, name, KSYM_BUILD_CACHE_KEEP);
out:
	free(buf);
	ksym_layout__free(&l);
	return err;
}


bool ksym_build__valid(const char *buf, size_t len)
{
	struct build_view v;

	return build_check(buf, len, &v, true);
}

bool ksym_build__have(const char *dir)
{
	struct stat st;
	char *map;
	int err;

	map = map_running(dir, &st, &err);
	if (map)
		munmap(map, st.st_size);
	return map != NULL;
}
