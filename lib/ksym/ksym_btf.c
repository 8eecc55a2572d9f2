// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * What this library needs of the running kernel's types, from the raw
 * /sys/kernel/btf/vmlinux: a function's id (the ksym iterator's target) and
 * a few field offsets of a few structs. A scan of the type section finds them;
 * libbpf's BTF parser would index all ~100k types to answer the same.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <linux/btf.h>

#include "ksym_internal.h"

#define BTF_PATH "/sys/kernel/btf/vmlinux"
#define BTF_MAX (64u << 20)

/* offset of "\0name\0" + 1 in the string section, or 0 */
static uint32_t btf_str(const char *str, size_t len, const char *name)
{
	size_t n = strlen(name);
	const char *p = str, *end = str + len;

	while (p < end && (p = memmem(p, end - p, name, n + 1))) {
		if (p > str && p[-1] == '\0')
			return p - str;
		p++;
	}
	return 0;
}

/* bytes after a struct btf_type, by kind */
static size_t btf_extra(const struct btf_type *t)
{
	uint32_t vlen = BTF_INFO_VLEN(t->info);

	switch (BTF_INFO_KIND(t->info)) {
	case BTF_KIND_INT:
	case BTF_KIND_VAR:
	case 17:	/* DECL_TAG */
		return 4;
	case BTF_KIND_ARRAY:
		return sizeof(struct btf_array);
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		return vlen * sizeof(struct btf_member);
	case BTF_KIND_ENUM:
		return vlen * sizeof(struct btf_enum);
	case BTF_KIND_FUNC_PROTO:
		return vlen * sizeof(struct btf_param);
	case BTF_KIND_DATASEC:
		return vlen * sizeof(struct btf_var_secinfo);
	case 19:	/* ENUM64 */
		return vlen * 12;
	case BTF_KIND_PTR:
	case BTF_KIND_FWD:
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_FUNC:
	case 16:	/* FLOAT */
	case 18:	/* TYPE_TAG */
		return 0;
	default:	/* a kind after this code: its size is unknown, so is the rest */
		return SIZE_MAX;
	}
}

/*
 * The same bytes in one copy: sysfs gives a page per read() (1,346 reads on
 * 6.12), the bpf syscall the whole object. Id 1 is vmlinux's (a module's BTF
 * is made after it); it must say so, and be the size sysfs says, or sysfs is
 * read (a file bound over sysfs' is then what is used, as the tests want).
 */
static int read_btf_obj(char *buf, size_t size)
{
	struct bpf_btf_info info;
	union bpf_attr a;
	char name[16] = "";
	int fd, err = 0;

	memset(&a, 0, sizeof(a));
	a.btf_id = 1;
	fd = syscall(__NR_bpf, BPF_BTF_GET_FD_BY_ID, &a, sizeof(a));
	if (fd < 0)
		return -errno;
	memset(&info, 0, sizeof(info));
	info.btf = (uintptr_t)buf;
	info.btf_size = size;
	info.name = (uintptr_t)name;
	info.name_len = sizeof(name);
	memset(&a, 0, sizeof(a));
	a.info.bpf_fd = fd;
	a.info.info_len = sizeof(info);
	a.info.info = (uintptr_t)&info;
	if (syscall(__NR_bpf, BPF_OBJ_GET_INFO_BY_FD, &a, sizeof(a)))
		err = -errno;
	else if (!info.kernel_btf || info.btf_size != size || strcmp(name, "vmlinux"))
		err = -ENOENT;
	close(fd);
	return err;
}

/* sysfs knows the file's size: one buffer, no growing */
static int read_btf(char **bufp, size_t *lenp)
{
	int fd = open(BTF_PATH, O_RDONLY | O_CLOEXEC), err = 0;
	size_t len = 0;
	struct stat st;
	ssize_t n;
	char *buf;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || st.st_size <= 0 || (size_t)st.st_size > BTF_MAX) {
		close(fd);
		return -EBADMSG;
	}
	/* ~5 MB: in huge pages where the kernel allows, not a fault per 4 KiB */
	buf = ksym_mem_alloc(st.st_size);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	if (!read_btf_obj(buf, st.st_size))
		len = st.st_size;
	while (len < (size_t)st.st_size) {
		n = read(fd, buf + len, st.st_size - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err = n < 0 ? -errno : -EBADMSG;
			break;
		}
		len += n;
	}
	close(fd);
	if (err) {
		ksym_mem_free(buf, st.st_size);
		return err;
	}
	*bufp = buf;
	*lenp = len;
	return 0;
}

/* the first struct of that name: its wanted fields' byte offsets */
static void take_struct(const struct btf_type *t, struct ksym_btf_struct *s, const uint32_t *fstr)
{
	const struct btf_member *m = (const void *)(t + 1);
	uint32_t j;
	size_t k;

	s->found = true;
	s->size = t->size;
	for (j = 0; j < BTF_INFO_VLEN(t->info); j++) {
		uint32_t bits = BTF_INFO_KFLAG(t->info) ? m[j].offset & 0xffffff : m[j].offset;

		for (k = 0; k < s->field_cnt; k++)
			if (fstr[k] && m[j].name_off == fstr[k] && !(bits % 8))
				s->off[k] = bits / 8;
	}
}

#define SCAN_MAX_STRUCTS 4
#define SCAN_MAX_FIELDS 8

int ksym_btf__scan(const char *func, uint32_t *func_id, struct ksym_btf_struct *s, size_t cnt)
{
	uint32_t func_str = 0, sstr[SCAN_MAX_STRUCTS], fstr[SCAN_MAX_STRUCTS][SCAN_MAX_FIELDS];
	size_t len = 0, i, k, left = cnt + !!func;
	const struct btf_header *h;
	const char *str, *p, *end;
	char *buf = NULL;
	uint32_t id;
	int err;

	if (cnt > SCAN_MAX_STRUCTS)
		return -EINVAL;
	for (i = 0; i < cnt; i++) {
		if (s[i].field_cnt > SCAN_MAX_FIELDS)
			return -EINVAL;
		s[i].found = false;
		for (k = 0; k < s[i].field_cnt; k++)
			s[i].off[k] = -1;
	}
	if (func_id)
		*func_id = 0;
	err = read_btf(&buf, &len);
	if (err)
		return err;
	h = (const void *)buf;
	err = -EBADMSG;
	if (len < sizeof(*h) || h->magic != BTF_MAGIC || h->hdr_len > len ||
	    h->type_off > len - h->hdr_len || h->type_len > len - h->hdr_len - h->type_off ||
	    h->str_off > len - h->hdr_len || h->str_len > len - h->hdr_len - h->str_off)
		goto out;
	str = buf + h->hdr_len + h->str_off;
	if (func && !(func_str = btf_str(str, h->str_len, func)))
		left--;
	for (i = 0; i < cnt; i++) {
		sstr[i] = btf_str(str, h->str_len, s[i].name);
		left -= !sstr[i];
		for (k = 0; k < s[i].field_cnt; k++)
			fstr[i][k] = btf_str(str, h->str_len, s[i].fields[k]);
	}
	p = buf + h->hdr_len + h->type_off;
	end = p + h->type_len;
	for (id = 1; left && p + sizeof(struct btf_type) <= end; id++) {
		const struct btf_type *t = (const void *)p;
		size_t extra = btf_extra(t);
		uint32_t kind = BTF_INFO_KIND(t->info);

		if (extra == SIZE_MAX) {
			err = -EOPNOTSUPP;
			goto out;
		}
		if ((size_t)(end - p) < sizeof(*t) + extra)
			break;
		if (kind == BTF_KIND_FUNC && func_str && t->name_off == func_str && !*func_id) {
			*func_id = id;
			left--;
		}
		for (i = 0; kind == BTF_KIND_STRUCT && i < cnt; i++)
			if (sstr[i] && t->name_off == sstr[i] && !s[i].found) {
				take_struct(t, &s[i], fstr[i]);
				left--;
			}
		p += sizeof(*t) + extra;
	}
	err = 0;
out:
	ksym_mem_free(buf, len);
	return err;
}
