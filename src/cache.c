// SPDX-License-Identifier: GPL-2.0
/*
 * ksymattach cache export FILE | import FILE...: the build cache from node to
 * node. Every node that boots a build computes the same file; configuration
 * management can ship one node's to the others, and none of them pays a cold
 * first run. A run keeps only what its patterns matched: where no run has read
 * the whole table yet, export reads it first (once per build).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <ksym/ksym.h>

#include "cache.h"

static const char *why(int err)
{
	switch (err) {
	case -ENOENT:
		return "no build cache for the running kernel";
	case -ESTALE:
		return "another kernel build's cache (not the running kernel's build ID)";
	case -EBADMSG:
		return "not a ksymattach build cache, or damaged (truncated, altered)";
	case -EPERM:
		return "not permitted: the cache directory or file is not root's and private, "
		       "or the kernel hides its addresses (run as root)";
	case -ENAMETOOLONG:
		return "path too long";
	default:
		return strerror(-err);
	}
}

/*
 * The running build's whole table into the build cache: a load of every
 * traceable function, past this boot's /run cache, written by its flush.
 */
static int fill(const struct ksym_db_opts *sources)
{
	struct ksym_db_opts o = *sources;
	struct ksym_db *db;
	int err;

	o.need = KSYM_DB_FUNCS;
	o.funcs_from = KSYM_FUNCS_KALLSYMS;	/* what the build cache holds */
	o.patterns = NULL;
	o.pattern_cnt = 0;
	o.no_run_cache = true;
	db = ksym_db__new(&o);
	if (!db)
		return -errno;
	err = ksym_db__load(db);
	if (err)
		fprintf(stderr, "ksymattach: no build cache for the running kernel, and its "
				"functions cannot be read to write one: %s\n", ksym_db__errmsg(db));
	ksym_db__free(db);	/* (flushes: the build cache is written) */
	return err ? 1 : 0;
}

int cache__cmd(const char *const *args, size_t n, const struct ksym_db_opts *sources)
{
	const char *dir = sources->build_cache_dir;
	size_t i;
	int err, rc = 0;

	if (!n || (strcmp(args[0], "export") && strcmp(args[0], "import")) ||
	    (!strcmp(args[0], "export") && n != 2) || n < 2) {
		fprintf(stderr, "ksymattach: usage: ksymattach cache export FILE | "
				"cache import FILE...\n");
		return 64;	/* EX_USAGE */
	}
	if (!strcmp(args[0], "export")) {
		err = ksym_build__export(dir, args[1]);
		if (err == -ENOENT) {
			/* runs kept only their patterns' share so far */
			if (fill(sources))
				return 1;
			err = ksym_build__export(dir, args[1]);
		}
		if (err) {
			fprintf(stderr, "ksymattach: cannot export the build cache to %s: %s\n",
				args[1], why(err));
			return 1;
		}
		return 0;
	}
	for (i = 1; i < n; i++) {
		err = ksym_build__import(dir, args[i]);
		if (err == -ENOENT || err == -EACCES || err == -EISDIR)
			fprintf(stderr, "ksymattach: cannot read %s: %s\n", args[i], strerror(-err));
		else if (err)
			fprintf(stderr, "ksymattach: %s: refused: %s\n", args[i], why(err));
		rc |= !!err;
	}
	return rc;
}
