// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * What each resolver is, as values the engine reads instead of asking which
 * one it is, and the names of the resolvers, the modes and the phases.
 */
#include "engine.h"

static const struct ka_resolver resolvers[] = {
	[KATTACH_RES_KSYM] = { .name = "ksym", .reresolves = true },
	[KATTACH_RES_LIBBPF] = { .name = "libbpf", .names = KA_NAMES_IF_PLAIN,
				 .libbpf_links = true, .prep_outside = true },
	[KATTACH_RES_KERNEL] = { .name = "kernel", .names = KA_NAMES_ALWAYS },
	[KATTACH_RES_FLOOR] = { .name = "floor", .empty_program = true, .prep_outside = true },
};

const struct ka_resolver *ka_resolver(const struct kattach *a)
{
	return &resolvers[a->opts.resolver];
}

const char *kattach__resolver_name(enum kattach_resolver r)
{
	return r < sizeof(resolvers) / sizeof(resolvers[0]) ? resolvers[r].name : "ksym";
}

static const char *const phase_names[KATTACH_PH_CNT] = {
	[KATTACH_PH_READ] = "read",	[KATTACH_PH_PARSE] = "parse",
	[KATTACH_PH_INDEX] = "index",	[KATTACH_PH_MATCH] = "match",
	[KATTACH_PH_LOAD] = "load",	[KATTACH_PH_ATTACH] = "attach",
	[KATTACH_PH_CACHE] = "cache",	[KATTACH_PH_DETACH] = "detach",
};

const char *kattach__phase_name(enum kattach_phase ph)
{
	return ph < KATTACH_PH_CNT ? phase_names[ph] : "?";
}

const char *kattach__mode_name(enum kattach_mode mode)
{
	switch (mode) {
	case KATTACH_SESSION:
		return "session";
	case KATTACH_FENTRY:
		return "fentry";
	case KATTACH_FEXIT:
		return "fexit";
	case KATTACH_FSESSION:
		return "fsession";
	default:
		return "multi";
	}
}

const char *kattach__link_kind(const struct kattach *a)
{
	if (kattach__fell_back(a))
		return "kprobe";
	switch (kattach__mode(a)) {
	case KATTACH_SESSION:
		return "kprobe.session";
	case KATTACH_FENTRY:
		return "fentry.multi";
	case KATTACH_FEXIT:
		return "fexit.multi";
	case KATTACH_FSESSION:
		return "fsession.multi";
	default:
		return "kprobe.multi";
	}
}

bool kattach__mode_has_latency(enum kattach_mode mode)
{
	return mode == KATTACH_SESSION || mode == KATTACH_FSESSION;
}
