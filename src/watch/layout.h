/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The running kernel's facts that decoding needs (decode.h's ksw_layout). */
#ifndef WATCH_LAYOUT_H
#define WATCH_LAYOUT_H

#include "decode.h"

struct btf;

/* From sysfs and btf (the kernel's; NULL: what sysfs alone says). */
void ksw_layout_read(struct ksw_layout *l, const struct btf *btf);

#endif
