// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * An ELF symbol table (a vmlinux with symbols, e.g. from a -dbg package) as a
 * ksym table. The symbols are written out in kallsyms form and parsed by the one
 * parser, so every source obeys the same rules.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ksym/ksym.h>

/* nm-style letter: functions t/T, data d/D (b/B when NOBITS), weak w/W. */
static char type_of(Elf *elf, const GElf_Sym *s)
{
	int bind = GELF_ST_BIND(s->st_info), type = GELF_ST_TYPE(s->st_info);
	Elf_Scn *scn;
	GElf_Shdr sh;
	char c = 'd';

	if (type == STT_FUNC) {
		c = 't';
	} else if ((scn = elf_getscn(elf, s->st_shndx)) && gelf_getshdr(scn, &sh)) {
		if (sh.sh_type == SHT_NOBITS)
			c = 'b';
		else if (sh.sh_flags & SHF_EXECINSTR)
			c = 't';
		else if (!(sh.sh_flags & SHF_WRITE))
			c = 'r';
	}
	if (bind == STB_WEAK)
		return c == 't' ? 'W' : 'V';
	return bind == STB_GLOBAL ? c - 'a' + 'A' : c;
}

struct ksym_table *ksym_table__load_elf(const char *path, const struct ksym_parse_opts *opts)
{
	size_t len = 0, cap = 1 << 20, i, n;
	Elf_Scn *scn = NULL;
	char *buf = NULL, *nb;
	Elf *elf = NULL;
	int fd, err = 0;

	if (elf_version(EV_CURRENT) == EV_NONE) {
		errno = EINVAL;
		return NULL;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		err = ENOEXEC;
		goto out;
	}
	buf = malloc(cap);
	if (!buf) {
		err = ENOMEM;
		goto out;
	}
	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *data;
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize)
			continue;
		data = elf_getdata(scn, NULL);
		if (!data)
			continue;
		n = sh.sh_size / sh.sh_entsize;
		for (i = 1; i < n; i++) {
			const char *name;
			GElf_Sym s;
			int w;

			if (!gelf_getsym(data, i, &s) || s.st_shndx == SHN_UNDEF ||
			    GELF_ST_TYPE(s.st_info) == STT_SECTION ||
			    GELF_ST_TYPE(s.st_info) == STT_FILE)
				continue;
			name = elf_strptr(elf, sh.sh_link, s.st_name);
			if (!name || !*name)
				continue;
			if (cap - len < strlen(name) + 32) {
				cap = cap * 2 + strlen(name);
				nb = realloc(buf, cap);
				if (!nb) {
					err = ENOMEM;
					goto out;
				}
				buf = nb;
			}
			w = snprintf(buf + len, cap - len, "%016" PRIx64 " %c %s\n",
				     (uint64_t)s.st_value, type_of(elf, &s), name);
			len += w;
		}
	}
	if (!len) {
		err = ENODATA;	/* stripped: no symbol table */
		goto out;
	}
out:
	if (elf)
		elf_end(elf);
	close(fd);
	if (err) {
		free(buf);
		errno = err;
		return NULL;
	}
	return ksym_table__parse(KSYM_FMT_SYSTEM_MAP, buf, len, opts);
}
