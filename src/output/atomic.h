/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Output files replaced whole: written to a temporary file beside the target,
 * flushed to disk and renamed over it, so a reader (node_exporter, a script)
 * sees the old file or the new one, never a torn one; a crash mid-write leaves
 * at most a stray "NAME.tmp.XXXXXX", which the next write of NAME removes.
 */
#ifndef OUTPUT_ATOMIC_H
#define OUTPUT_ATOMIC_H

#include <stdio.h>
#include <sys/types.h>

/* fill writes the content; its negative return aborts. 0, or -errno. */
int atomic__write(const char *path, mode_t mode, int (*fill)(FILE *f, void *ctx), void *ctx);

#endif
