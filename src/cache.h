/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KSA_CACHE_H
#define KSA_CACHE_H

#include <stddef.h>

struct ksym_db_opts;

/*
 * args: "export FILE" or "import FILE..." in sources->build_cache_dir (NULL:
 * KSYM_BUILD_CACHE_DIR); export reads the whole table first where no run has.
 * Exit code.
 */
int cache__cmd(const char *const *args, size_t n, const struct ksym_db_opts *sources);

#endif
