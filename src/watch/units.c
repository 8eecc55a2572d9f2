// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * cgroup ids named by a walk of the cgroup2 mount with nftw(3). Entries are
 * only added: a cgroup removed keeps its name (an ended agent's unit is still
 * its unit), and the table is bounded by what the node's cgroups were.
 */
#define _XOPEN_SOURCE 700
#include <ftw.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "units.h"

/* A walk stops here: a node with more cgroups names the rest "unknown". */
#define UNITS_MAX 65536
#define WALK_EVERY_NS 1000000000ull
/* Ids a walk did not find, remembered so that each is walked for once at once
 * (a unit's cgroup is gone soon after its last process) and then only as often
 * as WALK_EVERY_NS allows. */
#define MISSED_MAX 64

struct unit {
	uint64_t id;
	char *path;
	const char *unit;	/* in path, or NULL */
};

struct ksw_units {
	char *root;
	size_t root_len;
	struct unit *v;
	size_t cnt, cap;
	uint64_t walked_at;
	bool walked;
	uint64_t missed[MISSED_MAX];
	size_t missed_next;
};

struct ksw_units *ksw_units__new(const char *root)
{
	struct ksw_units *u = calloc(1, sizeof(*u));

	if (!u)
		return NULL;
	u->root = strdup(root ? root : "/sys/fs/cgroup");
	if (!u->root) {
		free(u);
		return NULL;
	}
	u->root_len = strlen(u->root);
	return u;
}

void ksw_units__free(struct ksw_units *u)
{
	size_t i;

	if (!u)
		return;
	for (i = 0; i < u->cnt; i++)
		free(u->v[i].path);
	free(u->v);
	free(u->root);
	free(u);
}

static struct unit *find(struct ksw_units *u, uint64_t id)
{
	size_t i;

	for (i = 0; i < u->cnt; i++)
		if (u->v[i].id == id)
			return &u->v[i];
	return NULL;
}

/* The deepest component that names a service or a scope. */
static const char *unit_of(const char *path)
{
	const char *best = NULL, *c = path;

	while (c && *c) {
		const char *end = strchr(c + 1, '/'), *dot;
		size_t n;

		if (*c == '/')
			c++;
		n = end ? (size_t)(end - c) : strlen(c);
		dot = memrchr(c, '.', n);
		if (dot && ((size_t)(c + n - dot) == 8 && !strncmp(dot, ".service", 8)))
			best = c;
		else if (dot && ((size_t)(c + n - dot) == 6 && !strncmp(dot, ".scope", 6)))
			best = c;
		c = end;
	}
	return best;
}

/* nftw has no context argument: the walk in progress. */
static struct ksw_units *walking;

static int visit(const char *fpath, const struct stat *st, int flag, struct FTW *ftw)
{
	struct ksw_units *u = walking;
	const char *rel = fpath + u->root_len;
	struct unit *e;
	char *slash;

	(void)ftw;
	if (flag != FTW_D)
		return 0;
	if (find(u, st->st_ino))
		return 0;
	if (u->cnt == UNITS_MAX)
		return 1;
	if (u->cnt == u->cap) {
		size_t cap = u->cap ? 2 * u->cap : 64;
		struct unit *v = realloc(u->v, cap * sizeof(*v));

		if (!v)
			return 1;
		u->v = v;
		u->cap = cap;
	}
	e = &u->v[u->cnt];
	e->id = st->st_ino;
	e->path = strdup(*rel ? rel : "/");
	if (!e->path)
		return 1;
	e->unit = unit_of(e->path);
	/* a unit's own name ends at the next slash: keep that alone */
	if (e->unit && (slash = strchr(e->unit, '/'))) {
		char *name = strndup(e->unit, slash - e->unit);

		if (name) {
			/* the path keeps its full form; the unit points into a copy */
			size_t plen = strlen(e->path);
			char *both = realloc(e->path, plen + 1 + strlen(name) + 1);

			if (both) {
				strcpy(both + plen + 1, name);
				e->path = both;
				e->unit = both + plen + 1;
			} else {
				e->unit = NULL;
			}
			free(name);
		} else {
			e->unit = NULL;
		}
	}
	u->cnt++;
	return 0;
}

static bool missed_before(struct ksw_units *u, uint64_t id)
{
	size_t i;

	for (i = 0; i < MISSED_MAX; i++)
		if (u->missed[i] == id)
			return true;
	u->missed[u->missed_next++ % MISSED_MAX] = id;
	return false;
}

void ksw_units__name(struct ksw_units *u, uint64_t id, uint64_t now_ns, const char **path,
		     const char **unit)
{
	struct unit *e = find(u, id);

	if (!e && (!u->walked || !missed_before(u, id) || now_ns - u->walked_at >= WALK_EVERY_NS)) {
		walking = u;
		nftw(u->root, visit, 16, FTW_PHYS | FTW_MOUNT);
		walking = NULL;
		u->walked = true;
		u->walked_at = now_ns;
		e = find(u, id);
	}
	*path = e ? e->path : NULL;
	*unit = e ? e->unit : NULL;
}
