/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The build cache (build.c): this boot's layout (layout.c), the
 * anchors the site check needs, the file's store and load, and the pruning of
 * the cache directories (prune.c).
 */
#ifndef KSYM_BUILD_H
#define KSYM_BUILD_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "ksym_internal.h"
#include "ksym_kmem.h"
#include "ksym_site.h"

/*
 * This boot's layout (build.c): the kernel's build ID and where its text
 * and each module's text start now. Everything else about a build is the same
 * at every boot.
 */
#define KSYM_BUILD_ID_MAX 20

struct ksym_layout_mod {
	char name[64];
	uint8_t id[KSYM_BUILD_ID_MAX];
	uint8_t id_len;		/* 0: no build ID, never cached */
	uint64_t base;		/* /proc/modules: the start of its text */
	bool loading;		/* its init not done: init text is listed too */
	bool in_file;		/* ksym_build__load(): the file has it, of this build */
};

struct ksym_layout {
	uint8_t id[KSYM_BUILD_ID_MAX];
	uint8_t id_len;
	uint64_t text;		/* _text */
	struct ksym_layout_mod *mods;
	size_t mod_cnt;
	/* kernel.kptr_restrict=2: /proc/modules shows every base as 0 (mods' base 0) */
	bool bases_hidden;
	/* the build's struct module layout: stored with the file, read back from it */
	struct ksym_mod_btf mod_btf;
	bool mod_btf_known;
};

/* The text base from kc where kc is given (no kallsyms read), else from /proc/kallsyms. */
int ksym_layout__live(struct ksym_layout *l, const struct ksym_kcore *kc);
/* The same from /proc/modules' text as read already (one read where a run needs both). */
int ksym_layout__live_from(struct ksym_layout *l, const struct ksym_kcore *kc, const char *modules);
/* The GNU build ID of an ELF notes file (/sys/kernel/notes, a module's note). */
int ksym_build_id_file(const char *path, uint8_t *id, uint8_t *id_len);
void ksym_layout__free(struct ksym_layout *l);

/*
 * The build cache of l's build from dir, rebased onto l: a table of the
 * traceable functions at their ftrace sites, in address order, its index
 * built; anchors[] rebased (0: unknown). A module whose base is hidden is
 * treated as one not loaded: its entries stay unresolved. *unknown: loaded
 * modules the cache has not (or not of this build: in_file false), the first
 * of them named in names; l->mod_btf as the file has it. NULL with errno as
 * ksym_cache__load().
 */
struct ksym_table *ksym_build__load(const char *dir, struct ksym_layout *l,
				    uint64_t anchors[KSYM_ANCHOR_CNT], size_t *unknown, char *names,
				    size_t names_len);
/* t (functions at their sites, this boot's addresses) stored for l's build;
 * -EPERM where l's module bases are hidden (they would be stored as offsets from 0). */
int ksym_build__store(const char *dir, const struct ksym_layout *l, const struct ksym_table *t,
		      const uint64_t anchors[KSYM_ANCHOR_CNT], const char *source);
/* The same two under another file name (NULL: l's build's): a pattern set's file. */
int ksym_build__store_as(const char *dir, const char *file, const struct ksym_layout *l,
			 const struct ksym_table *t, const uint64_t anchors[KSYM_ANCHOR_CNT],
			 const char *source);
struct ksym_table *ksym_build__load_as(const char *dir, const char *file, struct ksym_layout *l,
				       uint64_t anchors[KSYM_ANCHOR_CNT], size_t *unknown,
				       char *names, size_t names_len);
/* A build cache from elsewhere checked as an import checks it (buf 8-aligned). */
bool ksym_build__valid(const char *buf, size_t len);
/*
 * Removes all but the newest keep build caches in dir (keep_name counts as
 * one), the pattern sets' files of those removed, and all but the newest
 * KSYM_MATCH_CACHE_KEEP of the rest.
 */
void ksym_build__prune(const char *dir, const char *keep_name, int keep);
/* Removes all but the keep newest regular files of dir whose names start with prefix. */
void ksym_prune_newest(const char *dir, const char *prefix, size_t keep);
/* l's build's cache file name in the cache directory ("build-<hex id>"). */
void ksym_build__name(const struct ksym_layout *l, char *buf, size_t len);

#endif
