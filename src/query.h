/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The sym and addr commands: symbol lookups without attaching anything. */
#ifndef QUERY_H
#define QUERY_H

#include <ksym/ksym.h>
#include "format.h"

struct query_opts {
	size_t sz;
	enum report_format format;
	const char *kernel;			/* release string for the report */
	const struct ksym_db_opts *db;		/* sources; need is set by the command */
};

/* Each NAME ("mod:name" allowed): every address, type, size, module, traceable.
 * Returns the exit status: 0 when every name was found, 1 otherwise. */
int query__sym(const char *const *names, size_t cnt, const struct query_opts *opts);
/* Each ADDR (hex, 0x optional): "name+off/size [mod]". Same exit status. */
int query__addr(const char *const *addrs, size_t cnt, const struct query_opts *opts);

/*
 * Shell completion: the traceable functions whose name (or "mod:name") starts
 * with prefix, one a line, sorted, each once; from the symbol cache only, so
 * that a prompt never waits for the kernel's files. Nothing without a cache.
 */
int query__complete(const char *prefix, const struct query_opts *opts);

#endif
