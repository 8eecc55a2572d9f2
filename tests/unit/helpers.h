/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Unit-test helpers shared by the test programs (after cmocka.h and ksym.h). */
#ifndef TEST_HELPERS_H
#define TEST_HELPERS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ksym/ksym.h>

/*
 * A file loaded through a pipe that a child fills in odd-sized pieces, so that
 * lines break across reads (the loader's reader-thread path).
 */
static inline struct ksym_table *load_piped(enum ksym_format fmt, const char *path,
				     const struct ksym_parse_opts *o)
{
	char dir[] = "/tmp/ksym-pipe.XXXXXX", p[64];
	struct ksym_table *t;
	int status;
	pid_t pid;

	assert_non_null(mkdtemp(dir));
	snprintf(p, sizeof(p), "%s/p", dir);
	assert_int_equal(mkfifo(p, 0600), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		FILE *in = fopen(path, "r"), *out = fopen(p, "w");
		char chunk[4099];
		size_t got;

		if (!in || !out)
			_exit(1);
		setvbuf(out, NULL, _IONBF, 0);
		while ((got = fread(chunk, 1, sizeof(chunk), in)))
			if (fwrite(chunk, 1, got, out) != got)
				_exit(1);
		_exit(0);
	}
	t = ksym_table__load(fmt, p, o);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && !WEXITSTATUS(status));
	unlink(p);
	rmdir(dir);
	return t;
}

/* got holds what ref holds, symbol for symbol in address order, and finds names[] as ref does. */
static inline void assert_same_table(const struct ksym_table *ref, const struct ksym_table *got,
			      const char *const *names, size_t n)
{
	struct ksym a, b;
	size_t i;

	assert_int_equal(ksym_table__cnt(got), ksym_table__cnt(ref));
	for (i = 0; i < ksym_table__cnt(ref); i++) {
		assert_int_equal(ksym_table__at(ref, i, &a), 0);
		assert_int_equal(ksym_table__at(got, i, &b), 0);
		assert_int_equal(a.addr, b.addr);
		assert_int_equal(a.size, b.size);
		assert_int_equal(a.type, b.type);
		assert_string_equal(a.name, b.name);
		assert_true(a.module == b.module ||
			    (a.module && b.module && !strcmp(a.module, b.module)));
	}
	for (i = 0; i < n; i++)
		assert_int_equal(ksym_table__find(got, names[i], NULL, &a, 1),
				 ksym_table__find(ref, names[i], NULL, &b, 1));
}

/* The same answers, name for name (NULL names: not found), as find_many gives them. */
static inline bool same_answers(const struct ksym *want, const struct ksym *got, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		const struct ksym *a = &want[i], *b = &got[i];

		if (!a->name != !b->name)
			return false;
		if (a->name && (strcmp(a->name, b->name) || a->addr != b->addr || a->size != b->size ||
				a->type != b->type || a->flags != b->flags || !a->module != !b->module ||
				(a->module && strcmp(a->module, b->module))))
			return false;
	}
	return true;
}

#endif
