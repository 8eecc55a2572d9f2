// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target for the vmlinux BTF scanner (kmem/btf.c): the input is the
 * file. It is scanned for what the iterator and the module reader ask (a
 * function, two structs' fields) through a window of a few hundred bytes (the
 * fuzz build's), twice: no crash, no read past the file, the same answer.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../../lib/ksym/kmem/ksym_kmem.h"

static const char *const iter_fields[] = { "pos", "value", "type", "name", "module_name",
					   "exported" };
static const char *const mod_fields[] = { "name", "kallsyms", "state" };

struct answer {
	int err;
	uint32_t id;
	int off[2][8];
	uint32_t size[2];
	bool found[2];
};

static void scan(int fd, struct answer *a)
{
	struct ksym_btf_struct s[2] = {
		{ .name = "kallsym_iter", .fields = iter_fields, .field_cnt = 6, .off = a->off[0] },
		{ .name = "module", .fields = mod_fields, .field_cnt = 3, .off = a->off[1] },
	};
	int i;

	memset(a, 0, sizeof(*a));
	a->err = ksym_btf__scan_fd(fd, "bpf_iter_ksym", &a->id, s, 2);
	for (i = 0; i < 2; i++) {
		a->size[i] = s[i].size;
		a->found[i] = s[i].found;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	struct answer a, b;

	if (fd < 0)
		fd = memfd_create("btf", 0);
	if (fd < 0 || ftruncate(fd, 0) || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	scan(fd, &a);
	scan(fd, &b);
	if (memcmp(&a, &b, sizeof(a)))
		abort();
	/* an id counts types of the file, each at least 12 bytes of it */
	if (a.id > size / 12)
		abort();
	return 0;
}
