// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The attributes a process handed bpf() and perf_event_open(), read at the
 * offsets of the UAPI (libbpf's copy of linux/bpf.h: these offsets never move)
 * or, for what this copy lacks (tracing_multi), of the running kernel's BTF.
 */
#include <stddef.h>
#include <string.h>

#include <linux/bpf.h>
#include <linux/perf_event.h>

#include "decode.h"

static uint64_t get_u64(const struct ksw_event *e, size_t off)
{
	uint64_t v = 0;

	if (off + sizeof(v) <= e->attr_len)
		memcpy(&v, e->attr + off, sizeof(v));
	return v;
}

static uint32_t get_u32(const struct ksw_event *e, size_t off)
{
	uint32_t v = 0;

	if (off + sizeof(v) <= e->attr_len)
		memcpy(&v, e->attr + off, sizeof(v));
	return v;
}

#define ATTR_OFF(field) offsetof(union bpf_attr, field)

unsigned int ksw_kind_of_prog(uint32_t attach_type)
{
	switch (attach_type) {
	case BPF_TRACE_FENTRY:
	case BPF_TRACE_FEXIT:
	case BPF_MODIFY_RETURN:
	case BPF_LSM_MAC:
		return KSW_K_TRAMPOLINE;
	case BPF_TRACE_RAW_TP:
		return KSW_K_RAW_TP;
	default:
		return KSW_K_OTHER;
	}
}

static void decode_link(const struct ksw_event *e, const struct ksw_layout *l,
			struct ksw_action *a)
{
	uint32_t type = get_u32(e, ATTR_OFF(link_create.attach_type));

	a->act = KSW_ACT_ATTACH;
	a->fd = (int)get_u32(e, ATTR_OFF(link_create.prog_fd));
	switch (type) {
	case BPF_TRACE_KPROBE_MULTI:
	case BPF_TRACE_KPROBE_SESSION:
		a->kind = type == BPF_TRACE_KPROBE_MULTI ? KSW_K_KPROBE_MULTI :
							   KSW_K_KPROBE_SESSION;
		a->functions = get_u32(e, ATTR_OFF(link_create.kprobe_multi.cnt));
		/* the kernel takes names where it is given no addresses */
		if (get_u64(e, ATTR_OFF(link_create.kprobe_multi.addrs)))
			a->by = KSW_BY_ADDRS;
		else if (get_u64(e, ATTR_OFF(link_create.kprobe_multi.syms)))
			a->by = KSW_BY_NAMES;
		return;
	case BPF_TRACE_FENTRY:
	case BPF_TRACE_FEXIT:
	case BPF_MODIFY_RETURN:
	case BPF_LSM_MAC:
		a->kind = KSW_K_TRAMPOLINE;
		a->functions = 1;
		a->by = KSW_BY_IDS;
		return;
	case BPF_TRACE_RAW_TP:
		a->kind = KSW_K_RAW_TP;
		return;
	case BPF_PERF_EVENT:
		a->kind = KSW_K_PERF_LINK;
		return;
	}
	if (l->tracing_multi &&
	    (type == l->tm_types[0] || type == l->tm_types[1] || type == l->tm_types[2])) {
		a->kind = KSW_K_TRACING_MULTI;
		a->functions = get_u32(e, l->tm_cnt_off);
		a->by = KSW_BY_IDS;
		return;
	}
	a->kind = KSW_K_OTHER;
}

static void decode_bpf(const struct ksw_event *e, const struct ksw_layout *l,
		       struct ksw_action *a)
{
	switch (e->cmd) {
	case BPF_PROG_LOAD:
		a->act = KSW_ACT_LOAD;
		a->fd = e->ret >= 0 ? (int)e->ret : -1;
		a->attach_type = get_u32(e, ATTR_OFF(expected_attach_type));
		return;
	case BPF_LINK_CREATE:
		decode_link(e, l, a);
		return;
	case BPF_RAW_TRACEPOINT_OPEN:
		a->act = KSW_ACT_ATTACH;
		a->fd = (int)get_u32(e, ATTR_OFF(raw_tracepoint.prog_fd));
		/* a name: a raw tracepoint; none: whatever the program was loaded for */
		if (get_u64(e, ATTR_OFF(raw_tracepoint.name))) {
			a->kind = KSW_K_RAW_TP;
		} else {
			a->kind = KSW_K_BY_PROG;
		}
		return;
	}
}

/* perf_event_open(): a kprobe by the kprobe PMU (its function by name in
 * config1, else by address in config2), or a tracepoint's event. */
static void decode_perf(const struct ksw_event *e, const struct ksw_layout *l,
			struct ksw_action *a)
{
	uint32_t type = get_u32(e, offsetof(struct perf_event_attr, type));

	if (e->attr_len < offsetof(struct perf_event_attr, config2) + sizeof(uint64_t))
		return;
	if (l->kprobe_pmu && type == l->kprobe_pmu) {
		a->act = KSW_ACT_ATTACH;
		a->kind = KSW_K_KPROBE;
		a->functions = 1;
		a->by = get_u64(e, offsetof(struct perf_event_attr, config1)) ? KSW_BY_NAMES :
										KSW_BY_ADDRS;
	} else if (type == PERF_TYPE_TRACEPOINT) {
		a->act = KSW_ACT_ATTACH;
		a->kind = KSW_K_TRACEPOINT;
	}
}

/* tracefs' kprobe_events: "p[:[GRP/]EVENT] SYM[+OFF]|ADDR ...", "r...", "-:EVENT";
 * a write may hold several lines (the event keeps its first bytes). */
static void decode_kprobe_text(const struct ksw_event *e, struct ksw_action *a)
{
	const char *s = (const char *)e->attr, *end = s + e->attr_len;

	a->act = KSW_ACT_ATTACH;
	a->kind = KSW_K_KPROBE_EVENTS;
	while (s < end) {
		const char *nl = memchr(s, '\n', end - s), *t;

		if (!nl)
			nl = end;
		if (s < nl && (*s == 'p' || *s == 'r')) {
			/* the target: the second word */
			t = s;
			while (t < nl && *t != ' ' && *t != '\t')
				t++;
			while (t < nl && (*t == ' ' || *t == '\t'))
				t++;
			if (t < nl) {
				a->functions++;
				a->by |= (*t >= '0' && *t <= '9') ? KSW_BY_ADDRS : KSW_BY_NAMES;
			}
		}
		s = nl + 1;
	}
	if (!a->functions)
		a->act = KSW_ACT_NONE;	/* a removal, or nothing this reads */
}

void ksw_decode(const struct ksw_event *e, const struct ksw_layout *l, struct ksw_action *a)
{
	memset(a, 0, sizeof(*a));
	a->fd = -1;
	switch (e->type) {
	case KSW_EV_BPF:
		decode_bpf(e, l, a);
		break;
	case KSW_EV_PERF:
		decode_perf(e, l, a);
		break;
	case KSW_EV_KPROBE_WRITE:
		decode_kprobe_text(e, a);
		return;	/* a write's errors are not seen: its enter alone is hooked */
	case KSW_EV_OPEN:
		if (e->ret < 0)
			return;	/* a file that did not open was not read */
		a->act = KSW_ACT_FILE_OPEN;
		a->file = e->cmd;
		return;
	case KSW_EV_CLOSE:
		a->act = KSW_ACT_FILE_CLOSE;
		a->file = e->cmd;
		return;
	case KSW_EV_EXIT:
		a->act = KSW_ACT_EXIT;
		return;
	}
	if (a->act != KSW_ACT_NONE && e->ret < 0) {
		a->err = (int)-e->ret;
		a->functions = 0;
	}
}

static const char *const kind_names[KSW_K_NR] = {
	[KSW_K_KPROBE_MULTI] = "kprobe_multi",	 [KSW_K_KPROBE_SESSION] = "kprobe_session",
	[KSW_K_TRAMPOLINE] = "trampoline",	 [KSW_K_TRACING_MULTI] = "tracing_multi",
	[KSW_K_KPROBE] = "kprobe",		 [KSW_K_KPROBE_EVENTS] = "kprobe_events",
	[KSW_K_RAW_TP] = "raw_tracepoint",	 [KSW_K_TRACEPOINT] = "tracepoint",
	[KSW_K_PERF_LINK] = "perf_link",	 [KSW_K_OTHER] = "other",
};

const char *ksw_kind_name(unsigned int kind)
{
	return kind < KSW_K_NR ? kind_names[kind] : "?";
}

static const char *const file_names[KSW_F_NR] = {
	[KSW_F_NONE] = "none",
	[KSW_F_KALLSYMS] = "kallsyms",
	[KSW_F_FUNCS] = "available_filter_functions",
	[KSW_F_FUNCS_ADDRS] = "available_filter_functions_addrs",
	[KSW_F_BTF] = "btf",
	[KSW_F_KCORE] = "kcore",
	[KSW_F_KPROBE_EVENTS] = "kprobe_events",
};

const char *ksw_file_name(unsigned int file)
{
	return file < KSW_F_NR ? file_names[file] : "?";
}
