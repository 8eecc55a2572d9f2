/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Reports of a run: human text or one JSON object. */
#ifndef REPORT_H
#define REPORT_H

#include <stdio.h>

#include "attach.h"
#include "format.h"

struct report_opts {
	size_t sz;
	enum report_format format;
	const char *kernel;	/* release string; NULL: symbols from a file, no kernel's */
	const char *version;	/* ksymattach's, for build_info */
	bool list_only;		/* resolved, not attached: no hit counts */
	size_t top;		/* text: functions shown, 0 = all */
	bool addrs_only;	/* text: one address a line, for scripts (resolve) */
};

void report__print(FILE *f, const struct kattach *a, const struct report_opts *opts);

#endif
