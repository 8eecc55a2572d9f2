// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * What the caller's patterns can match. A read goes by a filter made from
 * them (exact names, name prefixes), so a partial table holds only what they
 * can match; a cache keeps the share of a table they match, under a hash of
 * the patterns.
 */
#include <errno.h>
#include <inttypes.h>
#include <search.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ksym_db.h"

/* The patterns, in their order, named by a hash of them. */
void ksym_db_match_hash(struct ksym_db *db)
{
	uint64_t h = ksym_fmix64(db->opts.pattern_cnt);
	size_t i;

	for (i = 0; i < db->opts.pattern_cnt; i++) {
		const char *c;

		/* each ends in NUL: "ab","c" and "a","bc" differ */
		for (c = db->opts.patterns[i]; *c; c++)
			h = (h ^ (unsigned char)*c) * 0x100000001b3ull;
		h = ksym_fmix64(h ^ 0xff);
	}
	snprintf(db->match_hash, sizeof(db->match_hash), "%016" PRIx64, h);
	snprintf(db->run_match, sizeof(db->run_match), "funcs-%s", db->match_hash);
}

/*
 * Marks t's entries the patterns match. Plain names (an agent's list of
 * thousands) go into a hash table and t is passed once; each glob passes it
 * once (ksym_table__mark()). glibc's hsearch_r() is the hash table: names are
 * looked up, never removed, and it is freed whole.
 */
static int mark_patterns(const struct ksym_db *db, const struct ksym_table *t, uint8_t *marks)
{
	struct hsearch_data h = {};
	size_t i, names = 0, cnt = ksym_table__cnt(t);
	ENTRY e, *found;
	bool hashed;
	int err = 0;

	for (i = 0; i < db->opts.pattern_cnt; i++)
		names += ksym_glob_is_name(db->opts.patterns[i]);
	/* (a few names are as quick a pass each) */
	hashed = names > 16;
	if (hashed && !hcreate_r(names * 2, &h))
		return -errno;
	for (i = 0; i < db->opts.pattern_cnt && !err; i++) {
		const char *p = db->opts.patterns[i];

		if (hashed && ksym_glob_is_name(p)) {
			e.key = (char *)p;
			e.data = NULL;
			if (!hsearch_r(e, ENTER, &found, &h))
				err = -errno;
			continue;
		}
		err = ksym_table__mark(t, p, marks);
	}
	for (i = 0; hashed && i < cnt && !err; i++) {
		struct ksym sym;

		ksym_table__at(t, i, &sym);
		e.key = (char *)sym.name;
		if (hsearch_r(e, FIND, &found, &h))
			marks[i / 8] |= 1u << (i % 8);
	}
	if (hashed)
		hdestroy_r(&h);
	return err;
}

/*
 * What t's entries the patterns match, as a table of its own; NULL with errno,
 * 0 where that is most of a whole table (which serves as well then). A share
 * (t read as far as the patterns go) is always kept: no whole table is.
 */
struct ksym_table *ksym_db_pattern_subset(const struct ksym_db *db, const struct ksym_table *t,
					  bool share)
{
	size_t i, n = 0, cnt = ksym_table__cnt(t);
	uint8_t *marks = calloc(cnt / 8 + 1, 1);
	struct ksym_table *s = NULL;
	int err = 0;

	if (!marks)
		return NULL;
	err = mark_patterns(db, t, marks);
	for (i = 0; i <= cnt / 8; i++)
		n += __builtin_popcount(marks[i]);
	if (!err && (db->extent == KSYM_EXT_MATCHED || share || n <= cnt / 2))
		s = ksym_table__select(t, marks);	/* (errno set where it fails) */
	else
		errno = -err;
	free(marks);
	return s;
}

/*
 * What the patterns can match: exact names for those without wildcards, name
 * prefixes for the others (nothing at all: anything), plus the symbols the
 * kcore check itself looks up: text bounds and trampolines.
 */
int ksym_db_make_filter(struct ksym_db *db)
{
	static const char *const own[] = { "_stext", "_etext", "_sinittext", "_einittext",
					   "ftrace_", "bpf_trampoline_" };
	const size_t n_own = sizeof(own) / sizeof(own[0]);
	size_t i, n = db->opts.pattern_cnt, globs = 0;

	for (i = 0; i < n; i++) {
		const char *g = db->opts.patterns[i], *colon = strchr(g, ':');

		g = colon ? colon + 1 : g;
		if (!g[strcspn(g, "*?[")])
			continue;
		/* a leading wildcard: no prefix to go by */
		if (!strcspn(g, "*?["))
			return 0;
		globs++;
	}
	/* past a few dozen prefixes, filtering costs more per line than it saves */
	if (!n || globs > 64)
		return 0;
	db->prefixes = calloc(globs + n_own, sizeof(*db->prefixes));
	db->names = calloc(n - globs + 1, sizeof(*db->names));
	if (!db->prefixes || !db->names)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const char *p = db->opts.patterns[i], *colon = strchr(p, ':');
		const char *g = colon ? colon + 1 : p;
		size_t len = strcspn(g, "*?[");

		if (!g[len]) {
			db->names[db->name_cnt++] = p;
			continue;
		}
		db->prefixes[db->own_prefixes] = strndup(g, len);
		if (!db->prefixes[db->own_prefixes])
			return -ENOMEM;
		db->own_prefixes++;
	}
	for (i = 0; i < n_own; i++)
		db->prefixes[globs + i] = (char *)own[i];
	db->prefix_cnt = globs + n_own;
	return 0;
}

/* A glob over vmlinux with no prefix (or no pattern): the whole table; not mod:*. */
bool ksym_db_whole_patterns(const struct ksym_db *db)
{
	bool all = !db->opts.pattern_cnt;
	size_t i;

	for (i = 0; i < db->opts.pattern_cnt && !all; i++)
		all = !strchr(db->opts.patterns[i], ':') && !strcspn(db->opts.patterns[i], "*?[");
	return all;
}
