// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target for the reader of a module's symbols in kernel memory
 * (kmem/modlive.c): the input is that memory. A kcore-like ELF file maps it at
 * a module-area address; the harness writes the module's name where the
 * layout says (else the reader stops at its first check), and takes the
 * input's first bytes as the pointers and the count inside struct
 * mod_kallsyms, so that mutations reach the symbol table, types and names.
 * Whatever is read must be bounded, and every symbol kept found by its name.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../lib/ksym/kmem/ksym_kmem.h"
#include "../unit/kmem_image.h"

#define BASE 0xffffffffc0400000ull
#define IMG_MIN 1024
#define IMG_MAX (1u << 20)
#define KALLSYMS_AT 256		/* where the harness puts struct mod_kallsyms */

static const struct ksym_mod_btf layout = { .off = { 24, 96, 0, 8, 16, 24 } };
/* The image's file, unlinked once made: opened again through /proc by each run,
 * it goes when the fuzzer exits, however it exits. */
static char path[32];
static int fd = -1;

static void put64(unsigned char *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ksym_parse_opts o = { .text_only = true };
	unsigned char *img;
	struct ksym_kcore *kc;
	struct ksym_feed *f;
	struct ksym_table *t;
	uint16_t sym_off, str_off, type_off, num;
	size_t len, i;
	int err;

	if (size < 8)
		return 0;
	memcpy(&sym_off, data, 2);
	memcpy(&str_off, data + 2, 2);
	memcpy(&type_off, data + 4, 2);
	memcpy(&num, data + 6, 2);
	len = size - 8 < IMG_MIN ? IMG_MIN : size - 8 > IMG_MAX ? IMG_MAX : size - 8;
	img = calloc(1, len);
	if (!img)
		abort();
	memcpy(img, data + 8, size - 8 < len ? size - 8 : len);
	/* the module's name, and its symbol tables (an offset past the image: unmapped) */
	memcpy(img + layout.off[KSYM_MOD_NAME], "fz", 3);
	put64(img + layout.off[KSYM_MOD_KALLSYMS], BASE + KALLSYMS_AT);
	put64(img + KALLSYMS_AT + layout.off[KSYM_MODK_SYMTAB], BASE + sym_off);
	put64(img + KALLSYMS_AT + layout.off[KSYM_MODK_STRTAB], BASE + str_off);
	put64(img + KALLSYMS_AT + layout.off[KSYM_MODK_TYPETAB], BASE + type_off);
	memcpy(img + KALLSYMS_AT + layout.off[KSYM_MODK_NUM], &(uint32_t){ num }, 4);
	if (fd < 0) {
		char tmpl[] = "/tmp/ksym-fuzz-kcore.XXXXXX";

		fd = mkstemp(tmpl);
		if (fd < 0 || unlink(tmpl))
			abort();
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (kimg_write_at(fd, NULL, BASE, img, len))
		abort();
	free(img);
	kc = ksym_kcore__open(path);
	f = ksym_feed__new(&o, 64, 4096);
	if (!kc || !f)
		abort();
	err = ksym_modlive__read_at(kc, &layout, "fz", BASE, NULL, f);
	t = ksym_feed__end(f, err);
	ksym_kcore__close(kc);
	if (!t) {
		if (errno != EFAULT && errno != EIO && errno != EBADMSG && errno != ESTALE &&
		    errno != EFBIG && errno != EPERM) {	/* EPERM: every address 0 */
			fprintf(stderr, "fuzz_modlive: unexpected error %d\n", errno);
			abort();
		}
		return 0;
	}
	/* each kept: a text symbol of this module, found by its name */
	for (i = 0; i < ksym_table__cnt(t); i++) {
		struct ksym s, g;

		ksym_table__at(t, i, &s);
		if (!s.module || strcmp(s.module, "fz") || !s.name[0] ||
		    !ksym_type_is_text(s.type) ||
		    ksym_table__find(t, s.name, "fz", &g, 1) < 1)
			abort();
	}
	ksym_table__free(t);
	return 0;
}
