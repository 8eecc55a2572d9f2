/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* A core file as /proc/kcore lays one out, for the tests that read kernel text (after cmocka.h). */
#ifndef TEST_CORE_FILE_H
#define TEST_CORE_FILE_H

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct core_seg {
	uint64_t vaddr;
	const unsigned char *bytes;
	size_t len;
};

/*
 * A core file as /proc/kcore lays one out: an ELF header, program headers (a
 * note, then a load per segment), the memory behind them from 4 KiB on.
 */
static inline int write_core_segs(const char *path, const struct core_seg *seg, int n)
{
	size_t off = 4096, total = 4096, i;
	unsigned char *img;
	Elf64_Ehdr *eh;
	Elf64_Phdr *ph;
	int fd, ok, k;

	for (k = 0; k < n; k++)
		total += seg[k].len;
	img = calloc(1, total);
	assert_non_null(img);
	eh = (Elf64_Ehdr *)img;
	ph = (Elf64_Phdr *)(img + sizeof(*eh));
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_type = ET_CORE;
	eh->e_machine = EM_X86_64;	/* the tests' sites are x86-64's */
	eh->e_phoff = sizeof(*eh);
	eh->e_phentsize = sizeof(*ph);
	eh->e_phnum = n + 1;
	ph[0] = (Elf64_Phdr){ .p_type = PT_NOTE, .p_offset = 1024, .p_filesz = 16 };
	for (k = 0; k < n; k++) {
		ph[k + 1] = (Elf64_Phdr){ .p_type = PT_LOAD, .p_vaddr = seg[k].vaddr,
					  .p_offset = off, .p_filesz = seg[k].len,
					  .p_memsz = seg[k].len };
		for (i = 0; i < seg[k].len; i++)
			img[off + i] = seg[k].bytes[i];
		off += seg[k].len;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	ok = write(fd, img, total) == (ssize_t)total;
	close(fd);
	free(img);
	return ok ? 0 : -EIO;
}

#endif
