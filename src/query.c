// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "query.h"

#define MAX_DUPS 64

static struct ksym_db *open_db(const struct query_opts *o, unsigned int need)
{
	struct ksym_db_opts dbo = *o->db;
	struct ksym_db *db;

	dbo.sz = sizeof(dbo);
	dbo.need = need;
	dbo.allow_unknown_traceability = true;
	db = ksym_db__new(&dbo);
	if (!db) {
		fprintf(stderr, "ksymattach: out of memory\n");
		return NULL;
	}
	if (ksym_db__load(db)) {
		fprintf(stderr, "ksymattach: %s\n", ksym_db__errmsg(db));
		ksym_db__free(db);
		return NULL;
	}
	return db;
}

static const char *traceable(struct ksym_db *db, const struct ksym *s)
{
	uint64_t loc;
	int tr = ksym_db__ftrace_loc(db, s, &loc);

	return tr < 0 ? NULL : tr ? "true" : "false";
}

int query__sym(const char *const *names, size_t cnt, const struct query_opts *o)
{
	struct ksym_db *db = open_db(o, KSYM_DB_KALLSYMS | KSYM_DB_FUNCS | KSYM_DB_BLACKLIST);
	struct ksym_table *t;
	struct ksym m[MAX_DUPS];
	size_t i;
	int n, j, missing = 0;
	bool json = o->format == REPORT_JSON;

	if (!db)
		return 1;
	t = ksym_db__kallsyms(db);
	ksym_table__batch_begin(t);
	if (json) {
		fputs("{\"kernel\":", stdout);
		report__json_str(stdout, o->kernel);
		fputs(",\"symbols\":[", stdout);
	} else {
		printf("%-16s %s %-10s %-36s %-12s %s\n", "ADDR", "T", "SIZE", "NAME", "MODULE",
		       "TRACEABLE");
	}
	for (i = 0; i < cnt; i++) {
		n = ksym_table__find(t, names[i], NULL, m, MAX_DUPS);
		if (n <= 0) {
			missing++;
			if (!json)
				fprintf(stderr, "ksymattach: %s: no such symbol\n", names[i]);
		}
		if (json) {
			printf("%s{\"query\":", i ? "," : "");
			report__json_str(stdout, names[i]);
			fputs(",\"matches\":[", stdout);
		}
		for (j = 0; j < n && j < MAX_DUPS; j++) {
			const char *tr = traceable(db, &m[j]);
			bool bl = ksym_db__blacklisted(db, m[j].addr);

			if (!json) {
				printf("%016" PRIx64 " %c 0x%-8" PRIx64 " %-36s %-12s %s%s\n",
				       m[j].addr, m[j].type ? m[j].type : '?', m[j].size,
				       m[j].name, m[j].module ? m[j].module : "-",
				       tr ? (*tr == 't' ? "yes" : "no") : "unknown",
				       bl ? " (kprobe-blacklisted)" : "");
				continue;
			}
			printf("%s{\"name\":", j ? "," : "");
			report__json_str(stdout, m[j].name);
			printf(",\"addr\":\"0x%" PRIx64 "\",\"type\":\"%c\",\"size\":%" PRIu64
			       ",\"module\":", m[j].addr, m[j].type ? m[j].type : '?', m[j].size);
			report__json_str(stdout, m[j].module);
			printf(",\"traceable\":%s,\"blacklisted\":%s}", tr ? tr : "null",
			       bl ? "true" : "false");
		}
		if (json)
			fputs("]}", stdout);
	}
	if (json)
		printf("],\"missing\":%d}\n", missing);
	ksym_table__batch_end(t);
	ksym_db__free(db);
	return missing ? 1 : 0;
}

static bool parse_addr(const char *s, uint64_t *v)
{
	char *end;

	if (!strncmp(s, "0x", 2) || !strncmp(s, "0X", 2))
		s += 2;
	if (!*s || strlen(s) > 16)
		return false;
	errno = 0;
	*v = strtoull(s, &end, 16);
	return !errno && !*end;
}

int query__addr(const char *const *addrs, size_t cnt, const struct query_opts *o)
{
	struct ksym_db *db = open_db(o, KSYM_DB_KALLSYMS);
	struct ksym_table *t;
	char text[640];
	size_t i;
	int bad = 0, shown = 0;
	bool json = o->format == REPORT_JSON;

	if (!db)
		return 1;
	t = ksym_db__kallsyms(db);
	if (json) {
		fputs("{\"kernel\":", stdout);
		report__json_str(stdout, o->kernel);
		fputs(",\"addresses\":[", stdout);
	}
	for (i = 0; i < cnt; i++) {
		struct ksym s;
		uint64_t a;
		bool found;

		if (!parse_addr(addrs[i], &a)) {
			fprintf(stderr, "ksymattach: '%s' is not a hex address\n", addrs[i]);
			bad++;
			continue;
		}
		found = !ksym_table__addr(t, a, &s);
		if (found)
			ksym__snprint(text, sizeof(text), &s, a);
		else
			bad++;
		if (!json) {
			if (found)
				printf("%016" PRIx64 " %s\n", a, text);
			else
				fprintf(stderr, "ksymattach: 0x%" PRIx64 ": below every symbol\n", a);
			continue;
		}
		printf("%s{\"addr\":\"0x%" PRIx64 "\"", shown++ ? "," : "", a);
		if (found) {
			fputs(",\"name\":", stdout);
			report__json_str(stdout, s.name);
			printf(",\"offset\":%" PRIu64 ",\"size\":%" PRIu64 ",\"module\":",
			       a - s.addr, s.size);
			report__json_str(stdout, s.module);
			fputs(",\"text\":", stdout);
			report__json_str(stdout, text);
		} else {
			fputs(",\"name\":null", stdout);
		}
		fputc('}', stdout);
	}
	if (json)
		printf("]}\n");
	ksym_db__free(db);
	return bad ? 1 : 0;
}

/* Completion candidates: names, or "mod:name" when the prefix names a module. */
struct names {
	char **v;
	size_t n, cap;
	bool with_module;
};

static int add_name(const struct ksym *s, void *ctx)
{
	struct names *l = ctx;
	char *name;

	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 256;
		char **v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	if (l->with_module && s->module) {
		if (asprintf(&name, "%s:%s", s->module, s->name) < 0)
			name = NULL;
	} else {
		name = strdup(s->name);
	}
	if (!name)
		return -ENOMEM;
	l->v[l->n++] = name;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int query__complete(const char *prefix, const struct query_opts *o)
{
	struct ksym_db_opts dbo = *o->db;
	struct names l = { .with_module = strchr(prefix, ':') != NULL };
	struct ksym_db *db;
	char glob[600];
	size_t i;
	int err = -ENAMETOOLONG;

	dbo.sz = sizeof(dbo);
	dbo.need = KSYM_DB_FUNCS;
	dbo.cache_only = true;
	db = ksym_db__new(&dbo);
	if (!db)
		return 1;
	/* no cache: no candidates, and no word of it in the middle of a prompt */
	if (ksym_db__load(db))
		goto out;
	if (snprintf(glob, sizeof(glob), "%s*", prefix) >= (int)sizeof(glob))
		goto out;
	err = ksym_table__match(ksym_db__funcs(db), glob, add_name, &l);
	if (err < 0)
		goto out;
	/* static functions repeat a name: each candidate once */
	if (l.n > 1)
		qsort(l.v, l.n, sizeof(*l.v), cmp_str);
	for (i = 0; i < l.n; i++)
		if (!i || strcmp(l.v[i], l.v[i - 1]))
			puts(l.v[i]);
	err = 0;
out:
	for (i = 0; i < l.n; i++)
		free(l.v[i]);
	free(l.v);
	ksym_db__free(db);
	return err ? 1 : 0;
}
