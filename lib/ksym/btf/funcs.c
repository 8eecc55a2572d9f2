// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A BTF object's FUNC types by name. One walk of the type section notes where
 * each type starts (the prototype check goes by id) and hashes each FUNC's
 * name into an open-addressed index; the file's bytes are kept and read in
 * place. libbpf's btf__parse() would answer the same, but it is not a
 * dependency of this library, and its index holds every type, not the FUNCs.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/btf.h>

#include "ksym_internal.h"
#include "ksym_bfuncs_int.h"

#define BFUNCS_FILE_MAX (64u << 20)

size_t ksym_btf__extra(const struct btf_type *t)
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

const char *ksym_bfuncs_str(const struct ksym_bfuncs *f, uint32_t off)
{
	if (f->base) {
		if (off < f->base->str_len)
			return f->base->strs + off;
		off -= f->base->str_len;
	}
	return off < f->str_len ? f->strs + off : NULL;
}

const struct btf_type *ksym_bfuncs_type(const struct ksym_bfuncs *f, uint32_t id)
{
	if (id < f->start_id)
		return f->base ? ksym_bfuncs_type(f->base, id) : NULL;
	if (id - f->start_id >= f->type_cnt)
		return NULL;
	return (const void *)(f->types + f->type_off[id - f->start_id]);
}

/* The header checked, each section within the file, the strings NUL-ended. */
static int take_header(struct ksym_bfuncs *f)
{
	struct btf_header h;

	if (f->len < sizeof(h))
		return -EBADMSG;
	memcpy(&h, f->data, sizeof(h));
	if (h.magic != BTF_MAGIC || h.hdr_len < sizeof(h) || h.hdr_len > f->len ||
	    h.type_off > f->len - h.hdr_len || h.type_len > f->len - h.hdr_len - h.type_off ||
	    h.str_off > f->len - h.hdr_len || h.str_len > f->len - h.hdr_len - h.str_off ||
	    (h.hdr_len | h.type_off | h.type_len) % 4)
		return -EBADMSG;
	f->types = f->data + h.hdr_len + h.type_off;
	f->types_len = h.type_len;
	f->strs = f->data + h.hdr_len + h.str_off;
	f->str_len = h.str_len;
	/* vmlinux's strings start with the empty one; a split's may be empty */
	if (f->str_len ? f->strs[f->str_len - 1] != '\0' : !f->base)
		return -EBADMSG;
	if (!f->base && f->strs[0] != '\0')
		return -EBADMSG;
	return 0;
}

/* Every type's offset, and the FUNCs in BTF order. */
static int walk_types(struct ksym_bfuncs *f)
{
	size_t at = 0, cap = 0, fcap = 0;

	while (at < f->types_len) {
		const struct btf_type *t = (const void *)(f->types + at);
		size_t extra;

		if (f->types_len - at < sizeof(*t))
			return -EBADMSG;
		extra = ksym_btf__extra(t);
		if (extra == SIZE_MAX || f->types_len - at - sizeof(*t) < extra)
			return -EBADMSG;
		if (f->type_cnt == cap) {
			uint32_t *v;

			cap = cap ? cap * 2 : 4096;
			v = realloc(f->type_off, cap * sizeof(*v));
			if (!v)
				return -ENOMEM;
			f->type_off = v;
		}
		if (f->start_id + f->type_cnt >= UINT32_MAX / 2)
			return -EBADMSG;
		if (BTF_INFO_KIND(t->info) == BTF_KIND_FUNC) {
			if (!ksym_bfuncs_str(f, t->name_off))
				return -EBADMSG;
			if (f->func_cnt == fcap) {
				uint32_t *v;

				fcap = fcap ? fcap * 2 : 1024;
				v = realloc(f->funcs, fcap * sizeof(*v));
				if (!v)
					return -ENOMEM;
				f->funcs = v;
			}
			f->funcs[f->func_cnt++] = f->start_id + f->type_cnt;
		}
		f->type_off[f->type_cnt++] = at;
		at += sizeof(*t) + extra;
	}
	return 0;
}

static const char *func_name(const struct ksym_bfuncs *f, uint32_t id)
{
	return ksym_bfuncs_str(f, ksym_bfuncs_type(f, id)->name_off);
}

/* The FUNCs' names hashed: slot v holds a FUNC's position + 1 (0: empty). */
static int build_index(struct ksym_bfuncs *f)
{
	size_t n = 16, i;

	while (n < f->func_cnt * 2)
		n *= 2;
	f->slots = calloc(n, sizeof(*f->slots));
	if (!f->slots)
		return -ENOMEM;
	f->mask = n - 1;
	for (i = 0; i < f->func_cnt; i++) {
		uint32_t s = ksym_hash(func_name(f, f->funcs[i])) & f->mask;

		while (f->slots[s])
			s = (s + 1) & f->mask;
		f->slots[s] = i + 1;
	}
	return 0;
}

static struct ksym_bfuncs *parse(void *data, size_t len, bool mapped,
				  const struct ksym_bfuncs *base)
{
	struct ksym_bfuncs *f = calloc(1, sizeof(*f));
	int err;

	if (!f) {
		if (mapped)
			munmap(data, len);
		else
			free(data);
		errno = ENOMEM;
		return NULL;
	}
	f->data = data;
	f->len = len;
	f->mapped = mapped;
	f->base = base;
	f->start_id = base ? base->start_id + base->type_cnt : 1;
	err = take_header(f);
	if (!err)
		err = walk_types(f);
	if (!err)
		err = build_index(f);
	if (err) {
		ksym_bfuncs__free(f);
		errno = -err;
		return NULL;
	}
	return f;
}

struct ksym_bfuncs *ksym_bfuncs__parse(void *data, size_t len, const struct ksym_bfuncs *base)
{
	return parse(data, len, false, base);
}

/*
 * Mapped where sysfs lets it (vmlinux's BTF, Linux 6.16 and later): a fresh
 * process then copies none of its megabytes, and sysfs' reads come a page
 * each. Read whole elsewhere.
 */
struct ksym_bfuncs *ksym_bfuncs__load(const char *path, const struct ksym_bfuncs *base)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;
	struct stat st;
	size_t len;
	char *buf;
	void *map;

	if (fd < 0)
		return NULL;
	if (!fstat(fd, &st) && st.st_size > 0 && (uint64_t)st.st_size <= BFUNCS_FILE_MAX) {
		map = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (map != MAP_FAILED) {
			close(fd);
			return parse(map, st.st_size, true, base);
		}
	}
	close(fd);
	err = ksym__read_file_max(path, BFUNCS_FILE_MAX, &buf, &len);
	if (err) {
		errno = -err;
		return NULL;
	}
	return parse(buf, len, false, base);
}

void ksym_bfuncs__free(struct ksym_bfuncs *f)
{
	if (!f)
		return;
	free(f->slots);
	free(f->funcs);
	free(f->type_off);
	if (f->mapped)
		munmap(f->data, f->len);
	else
		free(f->data);
	free(f);
}

size_t ksym_bfuncs__cnt(const struct ksym_bfuncs *f)
{
	return f->func_cnt;
}

uint32_t ksym_bfuncs__start_id(const struct ksym_bfuncs *f)
{
	return f->start_id;
}

const char *ksym_bfuncs__at(const struct ksym_bfuncs *f, size_t i, uint32_t *id)
{
	*id = f->funcs[i];
	return func_name(f, f->funcs[i]);
}

size_t ksym_bfuncs__find(const struct ksym_bfuncs *f, const char *name, uint32_t *id)
{
	uint32_t s = ksym_hash(name) & f->mask, v;
	size_t n = 0;

	for (; (v = f->slots[s]); s = (s + 1) & f->mask) {
		uint32_t fid = f->funcs[v - 1];

		if (strcmp(func_name(f, fid), name))
			continue;
		if (!n++ || fid < *id)
			*id = fid;
	}
	return n;
}
