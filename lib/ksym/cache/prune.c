// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The cache directories kept small: the newest files of a kind are kept, the
 * rest removed. A build's pattern sets go with its whole file.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ksym_internal.h"
#include "ksym_build.h"

/* The newest first: builds booted lately are the ones booted again. */
struct aged {
	int64_t mtime;	/* ns: sets written in one second are still ordered */
	char name[96];
};

static int aged_cmp(const void *a, const void *b)
{
	const struct aged *x = a, *y = b;

	return x->mtime > y->mtime ? -1 : x->mtime < y->mtime;
}

struct aged_list {
	struct aged *v;
	size_t n, cap;
};

static void aged_add(struct aged_list *l, const char *name, int64_t mtime)
{
	if (l->n == l->cap) {
		struct aged *nv = realloc(l->v, (l->cap ? l->cap * 2 : 16) * sizeof(*nv));

		if (!nv)
			return;
		l->v = nv;
		l->cap = l->cap ? l->cap * 2 : 16;
	}
	l->v[l->n].mtime = mtime;
	memcpy(l->v[l->n++].name, name, strlen(name) + 1);	/* length checked */
}

static int64_t mtime_ns(const struct stat *st)
{
	return (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
}

void ksym_prune_newest(const char *dir, const char *prefix, size_t keep)
{
	struct aged_list l = {};
	struct dirent *d;
	DIR *dp = opendir(dir);
	size_t i;

	if (!dp)
		return;
	while ((d = readdir(dp))) {
		struct stat st;

		if (strncmp(d->d_name, prefix, strlen(prefix)) ||
		    strlen(d->d_name) >= sizeof(l.v->name) ||
		    fstatat(dirfd(dp), d->d_name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode))
			continue;
		aged_add(&l, d->d_name, mtime_ns(&st));
	}
	if (l.n)
		qsort(l.v, l.n, sizeof(*l.v), aged_cmp);
	for (i = keep; i < l.n; i++)
		unlinkat(dirfd(dp), l.v[i].name, 0);
	closedir(dp);
	free(l.v);
}

/* "match-<id>-<patterns>" is of the build "build-<id>" */
static bool match_of(const char *match, const char *build)
{
	size_t n = strlen(build) - 6;

	return !strncmp(match + 6, build + 6, n) && match[6 + n] == '-';
}

void ksym_build__prune(const char *dir, const char *keep_name, int keep)
{
	struct aged_list b = {}, m = {};
	size_t i, j, kept_m = 0;
	struct dirent *d;
	DIR *dp = opendir(dir);

	if (!dp)
		return;
	while ((d = readdir(dp))) {
		bool build = !strncmp(d->d_name, "build-", 6), match = !strncmp(d->d_name, "match-", 6);
		struct stat st;
		int64_t mtime;

		if (fstatat(dirfd(dp), d->d_name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode) ||
		    strlen(d->d_name) >= sizeof(b.v->name))
			continue;
		/* a writer killed between its temporary and the rename: gone after an hour */
		if ((!strncmp(d->d_name, ".build-", 7) || !strncmp(d->d_name, ".match-", 7)) &&
		    st.st_mtime < time(NULL) - 3600) {
			unlinkat(dirfd(dp), d->d_name, 0);
			continue;
		}
		mtime = mtime_ns(&st);
		if (build && strcmp(d->d_name, keep_name))
			aged_add(&b, d->d_name, mtime);
		else if (match)
			aged_add(&m, d->d_name, mtime);
	}
	/* the one just written counts as one of those kept */
	if (b.n)
		qsort(b.v, b.n, sizeof(*b.v), aged_cmp);	/* (v is NULL where none was found) */
	for (i = keep > 0 ? keep - 1 : 0; i < b.n; i++)
		unlinkat(dirfd(dp), b.v[i].name, 0);
	/* a pattern set's file goes with its build, and only so many are kept */
	if (m.n)
		qsort(m.v, m.n, sizeof(*m.v), aged_cmp);
	for (i = 0; i < m.n; i++) {
		bool gone = false;

		for (j = keep > 0 ? keep - 1 : 0; j < b.n && !gone; j++)
			gone = match_of(m.v[i].name, b.v[j].name);
		if (gone || kept_m >= KSYM_MATCH_CACHE_KEEP)
			unlinkat(dirfd(dp), m.v[i].name, 0);
		else
			kept_m++;
	}
	closedir(dp);
	free(b.v);
	free(m.v);
}
