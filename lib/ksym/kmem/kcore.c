// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Kernel memory through /proc/kcore (or a core file of the same form): its
 * ELF segments, read through a window that serves the next reads nearby.
 * The text read here answers whether a function has an ftrace site
 * (site/site.c), and the kernel's own tables are read from its data
 * (kallsyms.c, ftrace.c, modlive.c).
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ksym_internal.h"
#include "ksym_kmem.h"

#define KCORE_WIN 4096
/*
 * The kernel this build reads: its ELF machine (another's core would be
 * misread), and whether kcore lists its image as a segment of its own
 * (CONFIG_ARCH_PROC_KCORE_TEXT).
 */
#if defined(__x86_64__)
#define KCORE_MACHINE EM_X86_64
#define KSYM_KCORE_TEXT 1
#elif defined(__aarch64__)
#define KCORE_MACHINE EM_AARCH64
#define KSYM_KCORE_TEXT 0
#else
#define KSYM_KCORE_TEXT 0
#endif
#define KCORE_MAX_SEGS 64

struct kcore_seg {
	uint64_t vaddr, len, off;
};

struct ksym_kcore {
	int fd;
	size_t seg_cnt;
	struct kcore_seg seg[KCORE_MAX_SEGS];
	uint64_t note_off, note_len;	/* the PT_NOTE segment; 0 bytes: none */
	/* the last window read: candidates come in address order, many per page */
	uint64_t win_addr;
	size_t win_len;
	unsigned char win[KCORE_WIN + 64];
};

struct ksym_kcore *ksym_kcore__open(const char *path)
{
	/* the header and the program headers after it in one read: the kernel
	 * builds the whole ELF header (notes included) for each read of it */
	union {
		Elf64_Ehdr eh;
		unsigned char b[sizeof(Elf64_Ehdr) + KCORE_MAX_SEGS * sizeof(Elf64_Phdr)];
	} hdr;
	const Elf64_Ehdr *eh = &hdr.eh;
	Elf64_Phdr ph[KCORE_MAX_SEGS];
	struct ksym_kcore *kc;
	ssize_t got;
	size_t i, n;
	int err;

	kc = calloc(1, sizeof(*kc));
	if (!kc)
		return NULL;
	kc->fd = open(path ? path : "/proc/kcore", O_RDONLY | O_CLOEXEC);
	if (kc->fd < 0)
		goto err;
	got = pread(kc->fd, &hdr, sizeof(hdr), 0);
	if (got < (ssize_t)sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_phentsize != sizeof(Elf64_Phdr)
#ifdef KCORE_MACHINE
	    || eh->e_machine != KCORE_MACHINE
#endif
	    ) {
		errno = got < 0 ? errno : ENOEXEC;
		goto err;
	}
	n = eh->e_phnum < KCORE_MAX_SEGS ? eh->e_phnum : KCORE_MAX_SEGS;
	if (eh->e_phoff + n * sizeof(ph[0]) <= (size_t)got) {
		memcpy(ph, hdr.b + eh->e_phoff, n * sizeof(ph[0]));
	} else if (pread(kc->fd, ph, n * sizeof(ph[0]), eh->e_phoff) !=
		   (ssize_t)(n * sizeof(ph[0]))) {
		errno = ENOEXEC;
		goto err;
	}
	for (i = 0; i < n; i++) {
		if (ph[i].p_type == PT_LOAD && ph[i].p_memsz)
			kc->seg[kc->seg_cnt++] =
				(struct kcore_seg){ ph[i].p_vaddr, ph[i].p_memsz, ph[i].p_offset };
		if (ph[i].p_type == PT_NOTE && !kc->note_len) {
			kc->note_off = ph[i].p_offset;
			kc->note_len = ph[i].p_filesz;
		}
	}
	if (!kc->seg_cnt) {
		errno = ENOEXEC;
		goto err;
	}
	return kc;
err:
	err = errno;
	if (kc->fd >= 0)
		close(kc->fd);
	free(kc);
	errno = err;
	return NULL;
}

/*
 * The base the build cache's vmlinux offsets are from. x86-64: _text, where
 * kcore's own segment of the kernel image starts (fs/proc/kcore.c's
 * kcore_text, inside the 1 GiB above __START_KERNEL_map; modules start above
 * it). Elsewhere (arm64) kcore has no such segment, and the base is _stext,
 * which VMCOREINFO gives at its place in this boot. Either way it shows under
 * kptr_restrict=2, where /proc/kallsyms shows zeros.
 */
uint64_t ksym_kcore__text_base(const struct ksym_kcore *kc)
{
	static const char key[] = "SYMBOL(_stext)=";
	uint64_t a = 0;
	char *info, *p, *end;
	size_t i;

	if (KSYM_KCORE_TEXT) {
		for (i = 0; i < kc->seg_cnt; i++)
			if (kc->seg[i].vaddr >= 0xffffffff80000000ull &&
			    kc->seg[i].vaddr < 0xffffffffc0000000ull)
				return kc->seg[i].vaddr;
		return 0;
	}
	if (ksym_kcore__vmcoreinfo(kc, &info))
		return 0;
	for (p = info; (p = strstr(p, key)); p++)
		if (p == info || p[-1] == '\n') {
			a = strtoull(p + sizeof(key) - 1, &end, 16);
			if (end == p + sizeof(key) - 1 || (*end && *end != '\n'))
				a = 0;
			break;
		}
	free(info);
	return a;
}

/* far above the kernel's: its notes are a few registers and 4 KiB of vmcoreinfo */
#define KCORE_NOTES_MAX (1u << 20)

int ksym_kcore__vmcoreinfo(const struct ksym_kcore *kc, char **text)
{
	static const char name[] = "VMCOREINFO";
	size_t off = 0, len = kc->note_len;
	char *b;
	int err = -ENOENT;

	*text = NULL;
	if (!len || len > KCORE_NOTES_MAX)
		return len ? -EFBIG : -ENOENT;
	b = malloc(len);
	if (!b)
		return -ENOMEM;
	if (pread(kc->fd, b, len, kc->note_off) != (ssize_t)len) {
		free(b);
		return -EIO;
	}
	while (len - off >= sizeof(Elf64_Nhdr)) {
		Elf64_Nhdr nh;
		size_t nsz, dsz;

		memcpy(&nh, b + off, sizeof(nh));
		nsz = (nh.n_namesz + 3ull) & ~3ull;
		dsz = (nh.n_descsz + 3ull) & ~3ull;
		if (nsz > len - off - sizeof(nh) || dsz > len - off - sizeof(nh) - nsz)
			break;
		if (nh.n_namesz == sizeof(name) && !memcmp(b + off + sizeof(nh), name, sizeof(name))) {
			*text = malloc(nh.n_descsz + 1);
			err = *text ? 0 : -ENOMEM;
			if (*text) {
				memcpy(*text, b + off + sizeof(nh) + nsz, nh.n_descsz);
				(*text)[nh.n_descsz] = '\0';
			}
			break;
		}
		off += sizeof(nh) + nsz + dsz;
	}
	free(b);
	return err;
}

void ksym_kcore__close(struct ksym_kcore *kc)
{
	if (!kc)
		return;
	close(kc->fd);
	free(kc);
}

void ksym_kcore__forget(struct ksym_kcore *kc)
{
	kc->win_len = 0;
}

int ksym_kcore__read(struct ksym_kcore *kc, uint64_t addr, void *buf, size_t len)
{
	const struct kcore_seg *s = NULL;
	uint64_t base, end;
	ssize_t n;
	size_t i;

	if (len > sizeof(kc->win) - KCORE_WIN)
		return -EINVAL;
	if (kc->win_len && addr >= kc->win_addr && addr + len <= kc->win_addr + kc->win_len) {
		memcpy(buf, kc->win + (addr - kc->win_addr), len);
		return 0;
	}
	for (i = 0; i < kc->seg_cnt; i++)
		if (addr >= kc->seg[i].vaddr && addr - kc->seg[i].vaddr + len <= kc->seg[i].len) {
			s = &kc->seg[i];
			break;
		}
	if (!s)
		return -EFAULT;
	/* the aligned page holding addr and a little more, clipped to the segment */
	base = addr & ~(uint64_t)(KCORE_WIN - 1);
	if (base < s->vaddr)
		base = s->vaddr;
	end = base + sizeof(kc->win);
	if (end > s->vaddr + s->len)
		end = s->vaddr + s->len;
	kc->win_len = 0;
	n = pread(kc->fd, kc->win, end - base, s->off + (base - s->vaddr));
	if (n < 0)
		return -errno;
	if ((uint64_t)n < addr - base + len)
		return -EIO;
	kc->win_addr = base;
	kc->win_len = n;
	memcpy(buf, kc->win + (addr - base), len);
	return 0;
}

int ksym_kcore__read_bulk(struct ksym_kcore *kc, uint64_t addr, void *buf, size_t len)
{
	const struct kcore_seg *s = NULL;
	size_t i, got = 0;
	ssize_t n;

	for (i = 0; i < kc->seg_cnt; i++)
		if (addr >= kc->seg[i].vaddr && len <= kc->seg[i].len &&
		    addr - kc->seg[i].vaddr <= kc->seg[i].len - len) {
			s = &kc->seg[i];
			break;
		}
	if (!s)
		return -EFAULT;
	while (got < len) {
		n = pread(kc->fd, (char *)buf + got, len - got, s->off + (addr - s->vaddr) + got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		got += n;
	}
	return 0;
}
