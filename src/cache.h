/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KSA_CACHE_H
#define KSA_CACHE_H

#include <stddef.h>

/* args: "export FILE" or "import FILE..."; dir NULL: KSYM_BUILD_CACHE_DIR. Exit code. */
int cache__cmd(const char *const *args, size_t n, const char *dir);

#endif
