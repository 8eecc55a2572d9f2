/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A kernel's kallsyms tables as kmem/kallsyms.c reads them, written into an
 * image of kernel memory, and that image as a kcore-like ELF file whose
 * VMCOREINFO note says where each table is: for the unit test and the fuzzer
 * of the reader (the module reader's fuzzer uses the file writer alone).
 * Names are compressed as scripts/kallsyms does, with a table of tokens (a
 * few of several bytes, the rest a byte for itself); the addresses are
 * written in any of the forms the kernels have used (enum kimg_enc).
 */
#ifndef KMEM_IMAGE_H
#define KMEM_IMAGE_H

#include <elf.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define KIMG_AT 0xffffffff82000000ull	/* where the image is mapped */
#define KIMG_STEXT 0xffffffff81000000ull
#define KIMG_NUM 0x0
#define KIMG_RELBASE 0x8
#define KIMG_ENC 0x10		/* the encoding kimg_build() wrote: for the fuzzer, no kernel's */
#define KIMG_MODULES 0x80	/* an empty list of modules: its head points at itself */
#define KIMG_TOKEN_TABLE 0x100
#define KIMG_TOKEN_INDEX 0x2000
#define KIMG_OFFSETS 0x2200	/* kallsyms_offsets, or kallsyms_addresses */
#define KIMG_NAMES 0x4200	/* room for 2048 offsets before it, or 1024 addresses */
#define KIMG_SYMS_MAX 2048
#define KIMG_MAX (1u << 20)

/* How a kernel's scripts/kallsyms.c writes the symbols' addresses. */
enum kimg_enc {
	KIMG_BASE_RELATIVE,	/* offsets from kallsyms_relative_base (4.6 to 6.19) */
	KIMG_ABS_PERCPU,	/* the same, the per-CPU symbols as themselves (x86-64 < 6.15) */
	KIMG_PLACE_RELATIVE,	/* each offset from its own slot; no relative_base (7.0 on) */
	KIMG_ABSOLUTE,		/* kallsyms_addresses (no CONFIG_KALLSYMS_BASE_RELATIVE) */
	KIMG_ENC_CNT
};

struct kimg_sym {
	uint64_t addr;
	char type;
	const char *name;
};

/* the tokens of several bytes; every other index is that byte (0: "zz") */
static const char *const kimg_long[] = { "tvfs_", "Tvfs_", "_read", "_write", "t__", "T_s" };

static inline const char *kimg_token(unsigned int i, char one[2])
{
	if (i >= 0x80 && i - 0x80 < sizeof(kimg_long) / sizeof(kimg_long[0]))
		return kimg_long[i - 0x80];
	if (!i)
		return "zz";
	one[0] = (char)i;
	one[1] = '\0';
	return one;
}

/*
 * Symbol i's entry (at e: 4 bytes, 8 for kallsyms_addresses) as enc writes
 * it, with base the relative base. KIMG_ABS_PERCPU takes an address below
 * 2 GiB for a per-CPU one. False: the address cannot be written so.
 */
static inline bool kimg_entry(unsigned char *e, uint64_t addr, uint32_t i, enum kimg_enc enc,
			      uint64_t base)
{
	uint64_t slot = KIMG_AT + KIMG_OFFSETS + 4ull * i;
	int64_t d;
	int32_t off;

	switch (enc) {
	case KIMG_ABSOLUTE:
		memcpy(e, &addr, 8);
		return true;
	case KIMG_BASE_RELATIVE:
		if (addr < base || addr - base > UINT32_MAX)
			return false;
		off = (int32_t)(uint32_t)(addr - base);
		break;
	case KIMG_ABS_PERCPU:
		if (addr < (1ull << 31)) {
			off = (int32_t)addr;
			break;
		}
		if (addr < base || addr - base > INT32_MAX)
			return false;
		off = (int32_t)(int64_t)(base - 1 - addr);
		break;
	default:
		d = (int64_t)(addr - slot);
		if (d < INT32_MIN || d > INT32_MAX)
			return false;
		off = (int32_t)d;
		break;
	}
	memcpy(e, &off, 4);
	return true;
}

/*
 * The tables for syms (in address order) into img (KIMG_MAX zeroed bytes),
 * the addresses written as enc writes them, base the relative base where
 * there is one. The image's length; 0: too many symbols, or an address enc
 * cannot write.
 */
static inline size_t kimg_build(unsigned char *img, const struct kimg_sym *s, uint32_t n,
				enum kimg_enc enc, uint64_t base)
{
	size_t at = 0, pos = KIMG_NAMES, width = enc == KIMG_ABSOLUTE ? 8 : 4, i, k;
	uint64_t head = KIMG_AT + KIMG_MODULES;
	uint16_t index[256];
	char one[2];

	if (n > KIMG_SYMS_MAX * 4 / width)
		return 0;
	memcpy(img + KIMG_NUM, &n, 4);
	if (enc == KIMG_BASE_RELATIVE || enc == KIMG_ABS_PERCPU)
		memcpy(img + KIMG_RELBASE, &base, 8);
	img[KIMG_ENC] = enc;
	memcpy(img + KIMG_MODULES, &head, 8);
	memcpy(img + KIMG_MODULES + 8, &head, 8);
	for (i = 0; i < 256; i++) {
		const char *t = kimg_token(i, one);

		index[i] = at;
		memcpy(img + KIMG_TOKEN_TABLE + at, t, strlen(t) + 1);
		at += strlen(t) + 1;
	}
	memcpy(img + KIMG_TOKEN_INDEX, index, sizeof(index));
	for (i = 0; i < n; i++) {
		unsigned char c[1024];
		char full[600];
		size_t len, p = 0, m = 0;

		if (!kimg_entry(img + KIMG_OFFSETS + width * i, s[i].addr, i, enc, base))
			return 0;
		len = (size_t)snprintf(full, sizeof(full), "%c%s", s[i].type, s[i].name);
		while (p < len) {
			/* the longest token that fits, else the byte itself */
			unsigned int best = (unsigned char)full[p];
			size_t best_len = 1;

			for (k = 0; k < sizeof(kimg_long) / sizeof(kimg_long[0]); k++) {
				size_t l = strlen(kimg_long[k]);

				if (l > best_len && !strncmp(full + p, kimg_long[k], l)) {
					best = 0x80 + k;
					best_len = l;
				}
			}
			c[m++] = best;
			p += best_len;
		}
		/* a length byte, or two for a long name (the high bit set in the first) */
		if (m < 0x80) {
			img[pos++] = m;
		} else {
			img[pos++] = 0x80 | (m & 0x7f);
			img[pos++] = m >> 7;
		}
		memcpy(img + pos, c, m);
		pos += m;
	}
	return pos;
}

/*
 * VMCOREINFO for the image: every table where kimg_build() writes it, named
 * as the kernels that write enc name them (kallsyms_relative_base only where
 * there is one, kallsyms_addresses instead of the offsets).
 */
static inline int kimg_info(char *buf, size_t len, uint64_t stext, enum kimg_enc enc)
{
	const unsigned long long offs = KIMG_AT + KIMG_OFFSETS;
	char addrs[128];

	if (enc == KIMG_ABSOLUTE)
		snprintf(addrs, sizeof(addrs), "SYMBOL(kallsyms_addresses)=%llx\n", offs);
	else if (enc == KIMG_PLACE_RELATIVE)
		snprintf(addrs, sizeof(addrs), "SYMBOL(kallsyms_offsets)=%llx\n", offs);
	else
		snprintf(addrs, sizeof(addrs),
			 "SYMBOL(kallsyms_offsets)=%llx\nSYMBOL(kallsyms_relative_base)=%llx\n",
			 offs, KIMG_AT + KIMG_RELBASE);
	return snprintf(buf, len,
			"OSRELEASE=%s\nPAGESIZE=4096\n"
			"SYMBOL(_stext)=%llx\n"
			"SYMBOL(kallsyms_names)=%llx\nSYMBOL(kallsyms_num_syms)=%llx\n"
			"SYMBOL(kallsyms_token_table)=%llx\nSYMBOL(kallsyms_token_index)=%llx\n"
			"%sKERNELOFFSET=0\n",
			enc == KIMG_PLACE_RELATIVE ? "7.3.4-test" :
			enc == KIMG_ABSOLUTE ? "6.6.0-test" : "6.12.0-test",
			(unsigned long long)stext, KIMG_AT + KIMG_NAMES, KIMG_AT + KIMG_NUM,
			KIMG_AT + KIMG_TOKEN_TABLE, KIMG_AT + KIMG_TOKEN_INDEX, addrs);
}

/* the machine of the kernels this build reads (kmem/kcore.c refuses others) */
#if defined(__aarch64__)
#define KIMG_MACHINE EM_AARCH64
#else
#define KIMG_MACHINE EM_X86_64
#endif

/*
 * A kcore-like file at fd: an ELF header, a PT_NOTE with a CORE note and the
 * VMCOREINFO one (info; NULL: none), a PT_LOAD mapping img at vaddr.
 */
static inline int kimg_write_at(int fd, const char *info, uint64_t vaddr,
				const unsigned char *img, size_t len)
{
	struct {
		Elf64_Ehdr eh;
		Elf64_Phdr ph[2];
	} h = {
		.eh = { .e_ident = { ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3, ELFCLASS64, ELFDATA2LSB,
				     EV_CURRENT },
			.e_type = ET_CORE, .e_machine = KIMG_MACHINE, .e_version = EV_CURRENT,
			.e_phoff = sizeof(Elf64_Ehdr), .e_ehsize = sizeof(Elf64_Ehdr),
			.e_phentsize = sizeof(Elf64_Phdr), .e_phnum = 2 },
	};
	unsigned char notes[8192] = {};
	size_t nl = 0, il = info ? strlen(info) : 0;
	Elf64_Nhdr nh = { .n_namesz = 5, .n_descsz = 8, .n_type = NT_PRSTATUS };

	/* a note before it, as kcore has */
	memcpy(notes, &nh, sizeof(nh));
	memcpy(notes + sizeof(nh), "CORE", 5);
	nl = sizeof(nh) + 8 + 8;
	if (info) {
		nh = (Elf64_Nhdr){ .n_namesz = 11, .n_descsz = il, .n_type = 0 };
		memcpy(notes + nl, &nh, sizeof(nh));
		memcpy(notes + nl + sizeof(nh), "VMCOREINFO", 11);
		memcpy(notes + nl + sizeof(nh) + 12, info, il);
		nl += sizeof(nh) + 12 + ((il + 3) & ~3ul);
	}
	h.ph[0] = (Elf64_Phdr){ .p_type = PT_NOTE, .p_offset = 4096, .p_filesz = nl };
	h.ph[1] = (Elf64_Phdr){ .p_type = PT_LOAD, .p_offset = 16384, .p_vaddr = vaddr,
				.p_filesz = len, .p_memsz = len };
	if (ftruncate(fd, 0) || pwrite(fd, &h, sizeof(h), 0) != sizeof(h) ||
	    pwrite(fd, notes, nl, 4096) != (ssize_t)nl ||
	    pwrite(fd, img, len, 16384) != (ssize_t)len)
		return -1;
	return 0;
}

/* The same with img at KIMG_AT, where the tables' VMCOREINFO puts them. */
static inline int kimg_write(int fd, const char *info, const unsigned char *img, size_t len)
{
	return kimg_write_at(fd, info, KIMG_AT, img, len);
}

#endif
