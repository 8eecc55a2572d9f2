/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The ksym iterator's program (iter_prog.c) and its reader
 * (iter.c) share the records the program writes.
 */
#ifndef KSYM_ITER_H
#define KSYM_ITER_H

#include "ksym_internal.h"

/*
 * The map's value: the first two bytes a filter allows (a bit each), then the
 * record being written: u64 addr, type, exported, u16 name size, u8 module
 * size, (pad), name\0, module\0. The sizes, NULs counted, spare the reader a
 * search for each end.
 */
#define BITMAP_LEN 8192
#define REC (BITMAP_LEN)
#define REC_NAME_SZ 10
#define REC_MOD_SZ 12
#define REC_HEAD 16
#define NAME_LEN 512		/* KSYM_NAME_LEN since 6.1; 128 before stops at its NUL */
#define MOD_LEN 64
/*
 * A read() of the iterator returns once its 32 KiB buffer is full: a filter
 * that keeps a few symbols would walk the whole table inside one read, deaf
 * to signals. Every FILL_EVERY symbols the program writes FILL zero bytes (a
 * record of sizes 0), so a read ends every ~16k symbols and the reader can
 * look at its stop flag.
 */
#define FILL_EVERY 1024
#define FILL 2048

/* The iterator open, its program loaded for the options' filters: read fd. */
struct ksym_iter {
	int map, prog, link, fd;
};

/* -EOPNOTSUPP: no ksym iterator in this kernel's BTF. */
int ksym_iter_open(struct ksym_iter *it, const struct ksym_parse_opts *o);
void ksym_iter_close(struct ksym_iter *it);

#endif /* KSYM_ITER_H */
