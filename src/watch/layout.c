// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * What decoding needs to know of the running kernel, read from it: the kprobe
 * PMU's perf type from sysfs, and the tracing_multi link (its attach types and
 * where its count sits in bpf_attr) from the kernel's BTF, since the UAPI copy
 * this build has predates it.
 */
#include <stdio.h>
#include <string.h>

#include <bpf/btf.h>

#include "layout.h"

#define KPROBE_PMU_TYPE "/sys/bus/event_source/devices/kprobe/type"

static uint32_t read_pmu_type(const char *path)
{
	unsigned int v = 0;
	FILE *f = fopen(path, "r");

	if (!f)
		return 0;
	if (fscanf(f, "%u", &v) != 1)
		v = 0;
	fclose(f);
	return v;
}

/* An enum's value by name; -1 when the kernel has none. */
static long long enum_value(const struct btf *btf, const char *type, const char *name)
{
	int id = btf__find_by_name_kind(btf, type, BTF_KIND_ENUM);
	const struct btf_type *t;
	const struct btf_enum *e;
	int i;

	if (id < 0)
		return -1;
	t = btf__type_by_id(btf, id);
	e = btf_enum(t);
	for (i = 0; i < btf_vlen(t); i++, e++)
		if (!strcmp(btf__name_by_offset(btf, e->name_off), name))
			return e->val;
	return -1;
}

/* The byte offset of a member named name in type id, looking inside anonymous
 * members too; -1 when none. */
static long member_off(const struct btf *btf, int id, const char *name, int *type_id)
{
	const struct btf_type *t = btf__type_by_id(btf, btf__resolve_type(btf, id));
	const struct btf_member *m;
	int i;

	if (!t || (!btf_is_struct(t) && !btf_is_union(t)))
		return -1;
	m = btf_members(t);
	for (i = 0; i < btf_vlen(t); i++, m++) {
		const char *n = btf__name_by_offset(btf, m->name_off);
		long off = btf_member_bit_offset(t, i) / 8, in;

		if (n && *n) {
			if (!strcmp(n, name)) {
				*type_id = m->type;
				return off;
			}
			continue;
		}
		in = member_off(btf, m->type, name, type_id);
		if (in >= 0)
			return off + in;
	}
	return -1;
}

void ksw_layout_read(struct ksw_layout *l, const struct btf *btf)
{
	static const char *const types[3] = {
		"BPF_TRACE_FENTRY_MULTI", "BPF_TRACE_FEXIT_MULTI", "BPF_TRACE_FSESSION_MULTI",
	};
	long lc, tm, cnt;
	int attr, id, i;

	memset(l, 0, sizeof(*l));
	l->kprobe_pmu = read_pmu_type(KPROBE_PMU_TYPE);
	if (!btf)
		return;
	for (i = 0; i < 3; i++) {
		long long v = enum_value(btf, "bpf_attach_type", types[i]);

		if (v < 0)
			return;
		l->tm_types[i] = (uint32_t)v;
	}
	attr = btf__find_by_name_kind(btf, "bpf_attr", BTF_KIND_UNION);
	if (attr < 0)
		return;
	lc = member_off(btf, attr, "link_create", &id);
	if (lc < 0)
		return;
	tm = member_off(btf, id, "tracing_multi", &id);
	if (tm < 0)
		return;
	cnt = member_off(btf, id, "cnt", &id);
	if (cnt < 0)
		return;
	l->tm_cnt_off = lc + tm + cnt;
	l->tracing_multi = true;
}
