// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target for the reader of the kernel's own kallsyms tables in its
 * memory (kmem/kallsyms.c): the input is that memory, mapped by a kcore-like
 * file whose VMCOREINFO note puts each table where kmem_image.h writes them,
 * and names them as a kernel of the address form the input's KIMG_ENC byte picks
 * does (kimg_build() writes its form there). The seed is such a table
 * (kimg_build() of a dozen symbols, a long name among them). Whatever the
 * bytes, the reader must stay in bounds, and every symbol it keeps must be
 * text, named, and found by its name.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../lib/ksym/kmem/ksym_kmem.h"
#include "../unit/kmem_image.h"

/* The image's file, unlinked once made: opened again through /proc by each run,
 * it goes when the fuzzer exits, however it exits. */
static char path[32];
static int fd = -1;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const prefixes[] = { "vfs_", "_" };
	struct ksym_parse_opts o = { .sz = sizeof(o), .text_only = true };
	struct ksym_kcore *kc;
	struct ksym_table *t;
	char info[1024];
	size_t i;

	if (!size || size > KIMG_MAX)
		return 0;
	if (fd < 0) {
		char tmpl[] = "/tmp/ksym-fuzz-kmem.XXXXXX";

		fd = mkstemp(tmpl);
		if (fd < 0 || unlink(tmpl))
			abort();
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	kimg_info(info, sizeof(info), KIMG_STEXT,
		  size > KIMG_ENC ? data[KIMG_ENC] % KIMG_ENC_CNT : KIMG_BASE_RELATIVE);
	if (kimg_write(fd, info, data, size))
		abort();
	/* the input's first byte picks a filter, as the tool's patterns would */
	if (data[0] & 1) {
		o.prefixes = prefixes;
		o.prefix_cnt = 2;
	}
	kc = ksym_kcore__open(path);
	if (!kc)
		abort();
	t = ksym_kmem__load(kc, &o);
	ksym_kcore__close(kc);
	if (!t) {
		if (errno != EFAULT && errno != EIO && errno != EBADMSG && errno != ESTALE &&
		    errno != EOPNOTSUPP && errno != ENOENT && errno != EPROTO &&
		    errno != ENOEXEC) {
			fprintf(stderr, "fuzz_kmem: unexpected error %d\n", errno);
			abort();
		}
		return 0;
	}
	for (i = 0; i < ksym_table__cnt(t); i++) {
		struct ksym s, g;

		ksym_table__at(t, i, &s);
		if (!s.name[0] || !ksym_type_is_text(s.type) ||
		    ksym_table__find(t, s.name, s.module ? s.module : "", &g, 1) < 1)
			abort();
	}
	ksym_table__free(t);
	return 0;
}
