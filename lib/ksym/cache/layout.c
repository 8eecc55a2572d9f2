// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * This boot's layout, what the build cache is rebased by: the kernel's build
 * ID, where its text is (kcore's mapping or VMCOREINFO, else a page of
 * /proc/kallsyms), and each module's base and build ID (/proc/modules, sysfs).
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ksym_internal.h"
#include "ksym_build.h"

/* The GNU build ID among the ELF notes in buf (the kernel's notes sections). */
static int find_build_id(const char *buf, size_t len, uint8_t *id, uint8_t *id_len)
{
	size_t off = 0;

	while (off + sizeof(Elf64_Nhdr) <= len) {
		Elf64_Nhdr n;
		size_t name, desc;

		memcpy(&n, buf + off, sizeof(n));
		name = off + sizeof(n);
		desc = name + ((n.n_namesz + 3) & ~3u);
		if (desc > len || n.n_descsz > len - desc)
			break;
		if (n.n_type == NT_GNU_BUILD_ID && n.n_namesz == 4 && !memcmp(buf + name, "GNU", 4) &&
		    n.n_descsz && n.n_descsz <= KSYM_BUILD_ID_MAX) {
			memcpy(id, buf + desc, n.n_descsz);
			*id_len = n.n_descsz;
			return 0;
		}
		off = desc + ((n.n_descsz + 3) & ~3u);
	}
	return -ENODATA;
}

int ksym_build_id_file(const char *path, uint8_t *id, uint8_t *id_len)
{
	char buf[4096];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n < 0)
		return -errno;
	return find_build_id(buf, n, id, id_len);
}

/*
 * The text base (ksym_kcore__text_base()'s symbol) from the head of
 * /proc/kallsyms: the kernel formats only what is read, and vmlinux's text
 * starts after a few hundred per-CPU symbols.
 */
#define HEAD_MAX (1u << 20)
#if defined(__x86_64__)
#define TEXT_BASE "_text"
#else
#define TEXT_BASE "_stext"
#endif

static int live_text(uint64_t *text)
{
	size_t len = 0, scan = 0, cap = 16 << 10;
	char *buf = malloc(cap + 1);
	int fd, err = -ENOENT;

	if (!buf)
		return -ENOMEM;
	fd = open("/proc/kallsyms", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		free(buf);
		return -errno;
	}
	for (;;) {
		/* a page a read: the kernel formats no more than is asked for */
		ssize_t n = read(fd, buf + len, cap - len < 4096 ? cap - len : 4096);
		char *nl;

		if (n <= 0) {
			err = n < 0 ? -errno : -ENOENT;
			break;
		}
		len += n;
		buf[len] = '\0';
		while ((nl = memchr(buf + scan, '\n', len - scan))) {
			unsigned long long a;
			char type, name[16];

			*nl = '\0';
			if (sscanf(buf + scan, "%llx %c %15s", &a, &type, name) == 3 &&
			    !strcmp(name, TEXT_BASE)) {
				*text = a;
				err = a ? 0 : -EPERM;	/* kptr_restrict: zeros */
				goto out;
			}
			scan = nl + 1 - buf;
		}
		/* keep the partial line, drop the rest */
		memmove(buf, buf + scan, len - scan);
		len -= scan;
		scan = 0;
		if (lseek(fd, 0, SEEK_CUR) > HEAD_MAX || len == cap)
			break;
	}
out:
	close(fd);
	free(buf);
	return err;
}

void ksym_layout__free(struct ksym_layout *l)
{
	free(l->mods);
	memset(l, 0, sizeof(*l));
}

int ksym_layout__live(struct ksym_layout *l, const struct ksym_kcore *kc)
{
	return ksym_layout__live_from(l, kc, NULL);
}

int ksym_layout__live_from(struct ksym_layout *l, const struct ksym_kcore *kc, const char *modules)
{
	char *buf, *line, *save = NULL;
	size_t len, cap = 0;
	int err;

	memset(l, 0, sizeof(*l));
	err = ksym_build_id_file("/sys/kernel/notes", l->id, &l->id_len);
	if (!err && (!kc || !(l->text = ksym_kcore__text_base(kc))))
		err = live_text(&l->text);
	if (err)
		return err;
	if (modules ? !(buf = strdup(modules)) : ksym__read_file("/proc/modules", &buf, &len))
		return modules ? -ENOMEM : 0;	/* (unreadable: no modules) */
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		struct ksym_layout_mod *m;
		char state[16], path[128];
		unsigned long long addr;

		if (l->mod_cnt == cap) {
			struct ksym_layout_mod *n = realloc(l->mods, (cap ? cap * 2 : 64) * sizeof(*n));

			if (!n) {
				err = -ENOMEM;
				break;
			}
			l->mods = n;
			cap = cap ? cap * 2 : 64;
		}
		m = &l->mods[l->mod_cnt];
		memset(m, 0, sizeof(*m));
		/* name size refcount deps state addr ("-" refcount: no module unloading) */
		if (sscanf(line, "%63s %*u %*s %*s %15s %llx", m->name, state, &addr) != 3) {
			err = -EINVAL;
			break;
		}
		/* going: its functions are not to be attached to (Live and Loading are) */
		if (!strcmp(state, "Unloading"))
			continue;
		l->mod_cnt++;
		m->loading = !strcmp(state, "Loading");
		/* kptr_restrict=2 hides where modules are: vmlinux can still be rebased */
		l->bases_hidden |= !addr;
		m->base = addr;
		snprintf(path, sizeof(path), "/sys/module/%s/notes/.note.gnu.build-id", m->name);
		if (ksym_build_id_file(path, m->id, &m->id_len))
			m->id_len = 0;
	}
	free(buf);
	if (err)
		ksym_layout__free(l);
	return err;
}
