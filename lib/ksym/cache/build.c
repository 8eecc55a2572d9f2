// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The build cache: one kernel build's traceable functions, kept across boots.
 * KASLR slides vmlinux as a whole and places each module as a whole, so a
 * function's offset from its base (vmlinux's _text, its module's text) is the
 * same at every boot of a build. The file holds offsets only, never a boot's
 * addresses (they would tell its reader the slide), grouped by base: vmlinux,
 * then each module with its own build ID. A boot's first run finds its bases
 * (layout.c), adds them, and puts the groups in address order: the name
 * index in the file follows by a shift per group.
 *
 * Here: the file's name and checks, and its export and import across nodes.
 * The store is build_store.c, the load build_load.c, the format
 * they share ksym_build_fmt.h.
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
#include "ksym_cachefile.h"
#include "ksym_build_fmt.h"

void ksym_build__name(const struct ksym_layout *l, char *buf, size_t len)
{
	size_t i, off = snprintf(buf, len, "build-");

	for (i = 0; i < l->id_len && off + 3 <= len; i++)
		off += snprintf(buf + off, len - off, "%02x", l->id[i]);
}

const struct ksym_layout_mod *ksym_build_layout_mod(const struct ksym_layout *l, const char *name)
{
	size_t i;

	for (i = 0; i < l->mod_cnt; i++)
		if (!strcmp(l->mods[i].name, name))
			return &l->mods[i];
	return NULL;
}

uint64_t ksym_build_hdr_sum(const struct build_hdr *h)
{
	return ksym_sum64(h, offsetof(struct build_hdr, hdr_sum));
}

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
bool ksym_build_check(const char *map, size_t len, struct build_view *v, bool strict)
{
	const struct build_hdr *h = (const struct build_hdr *)map;
	size_t ml, el, xl, sl, dl, need, i, at;
	const char *p;

	if (len < sizeof(*h) || memcmp(h->magic, BUILD_MAGIC, 8) || h->version != BUILD_VERSION ||
	    h->ent_size != sizeof(struct ksym_ent) || h->hdr_sum != ksym_build_hdr_sum(h) ||
	    !h->id_len || h->id_len > KSYM_BUILD_ID_MAX || memchr(h->source, 0, sizeof(h->source)) == NULL)
		return false;
	if (h->cnt > KSYM_IX_MAX || h->mod_cnt > UINT16_MAX || h->nslots > (1ull << 32) ||
	    (h->nslots & (h->nslots - 1)) || h->slot_mask != h->nslots - 1 ||
	    h->nslots < h->cnt + 1 || !h->buf_len || h->buf_len > UINT32_MAX || h->vm_cnt > h->cnt)
		return false;
	ml = h->mod_cnt * sizeof(struct build_mod);
	el = h->cnt * sizeof(struct ksym_ent);
	xl = ksym_align8(h->mod_cnt * sizeof(uint32_t));
	sl = h->nslots * sizeof(struct ksym_slot);
	dl = ksym_align8(h->cnt * sizeof(uint32_t));
	need = sizeof(*h) + ml + el + xl + sl + dl + ksym_align8(h->buf_len);
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
	else if (!ksym_build_check(map, st->st_size, &v, false))
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
	if (!ksym_build_check(buf, len, &v, true)) {
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

	return ksym_build_check(buf, len, &v, true);
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
