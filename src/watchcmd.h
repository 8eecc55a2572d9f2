/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
#ifndef KSA_WATCHCMD_H
#define KSA_WATCHCMD_H

#include <signal.h>
#include <stdbool.h>

#include "format.h"

struct watch_cmd_opts {
	size_t sz;
	double duration;	/* 0: until a signal */
	enum report_format format;
	bool verbose;		/* the watcher's own calls shown too */
	size_t max_procs;	/* records kept at most (0: the watcher's default) */
	const char *kernel;	/* the release, for the report */
	const volatile sig_atomic_t *stop;
};

/*
 * ksymattach watch: every process's attach until the duration ends or a signal
 * comes, then the report (redrawn every second meanwhile where stdout is a
 * terminal and the format is text). Exit code: 0, or 1 with one line on stderr.
 */
int watch__cmd(const struct watch_cmd_opts *opts);

#endif
