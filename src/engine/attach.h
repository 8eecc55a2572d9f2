/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * kattach: resolve kernel functions through the ksym layer and attach BPF
 * programs to them by address, timing every phase.
 *
 *	a = kattach__new(&opts);
 *	kattach__resolve(a);	  read + parse symbol sources, match patterns
 *	kattach__attach(a);	  load BPF, create the link(s)
 *	... run ...
 *	kattach__collect(a);	  read the counters
 *	kattach__detach(a);	  idempotent; kattach__free() detaches too
 *
 * Errors are negative errno; kattach__errmsg() gives the one-line reason.
 */
#ifndef KATTACH_H
#define KATTACH_H

#include <stdbool.h>
#include <stddef.h>
#include <signal.h>
#include <stdint.h>
#include <sys/types.h>

#include <ksym/ksym.h>
#include "ksymattach.h"

struct kattach;
struct kattach_lookups;

enum kattach_mode {
	KATTACH_MULTI,		/* kprobe.multi: hit counts */
	KATTACH_SESSION,	/* kprobe.session: entry + return, latency */
	KATTACH_FENTRY,		/* fentry.multi (tracing_multi, BTF ids): hit counts */
	KATTACH_FEXIT,		/* fexit.multi: returns counted */
	KATTACH_FSESSION,	/* fsession.multi: entry + return, latency */
};

/* A mode of the tracing_multi link (BPF trampolines, BTF ids). */
bool kattach__mode_is_tracing(enum kattach_mode mode);
/* A mode that pairs entry and return: latency histograms. */
bool kattach__mode_has_latency(enum kattach_mode mode);

/* Kernels without kprobe.multi (CONFIG_FPROBE off): one classic kprobe each. */
enum kattach_fallback {
	KATTACH_FALLBACK_AUTO,	/* when kprobe.multi is missing, with a warning */
	KATTACH_FALLBACK_NEVER,
	KATTACH_FALLBACK_KPROBE,	/* always classic kprobes */
};

/* The fallback's cap: each classic kprobe is a perf event, a link and an fd. */
#define KATTACH_KPROBE_MAX 4096

/* Who turns names into addresses. */
enum kattach_resolver {
	KATTACH_RES_KSYM,	/* the lookup layer; the kernel gets addresses */
	KATTACH_RES_LIBBPF,	/* stock libbpf, given the pattern or each name */
	KATTACH_RES_KERNEL,	/* the kernel, given names (kprobe_multi.syms) */
	/*
	 * The physical limit: addresses known in advance (resolved outside the
	 * phases, as prep), an empty program loaded raw (no object, no BTF, no
	 * maps) and linked. Counts nothing.
	 */
	KATTACH_RES_FLOOR,
};

/* The first three are the lookup layer's (enum ksym_phase), in its order. */
enum kattach_phase {
	KATTACH_PH_READ,	/* reading the symbol sources, or the cache */
	KATTACH_PH_PARSE,
	KATTACH_PH_INDEX,	/* name index and the funcs/kallsyms join */
	KATTACH_PH_MATCH,	/* patterns against the traceable functions */
	KATTACH_PH_LOAD,	/* BPF object open + load */
	KATTACH_PH_ATTACH,
	KATTACH_PH_CACHE,	/* writing the symbol cache, once attached */
	KATTACH_PH_DETACH,
	KATTACH_PH_CNT,
};

/*
 * The pointers in the opts (patterns, excludes, skip_addrs, sources) are read
 * by kattach__resolve() and kattach__attach() only: they must live until those
 * return, not as long as the kattach.
 */
struct kattach_opts {
	size_t sz;		/* sizeof(struct kattach_opts) */
	const char *const *patterns;	/* globs or exact names, "mod:name" allowed */
	size_t pattern_cnt;
	enum kattach_mode mode;
	enum kattach_resolver resolver;
	enum kattach_fallback fallback;
	/*
	 * Targets per link: 0 one link for all (libbpf: one per pattern), 1 a
	 * link per function (how many agents attach), N batches of N.
	 */
	size_t link_batch;
	/* Symbol sources and cache (NULL: the live kernel's); need is set here. */
	const struct ksym_db_opts *sources;
	bool list_only;		/* resolve only: unreadable lists fall back to kallsyms */
	/* Nonzero (set by a signal handler) stops attaching; kattach__free() detaches. */
	const volatile sig_atomic_t *stop;
	/* Globs as patterns are: a function matching one is left out (not reported). */
	const char *const *excludes;
	size_t exclude_cnt;
	/* Addresses already attached elsewhere (sorted ascending): left out too. */
	const uint64_t *skip_addrs;
	size_t skip_cnt;
	/*
	 * A pattern that matches nothing is no error, and neither is nothing to
	 * attach (a daemon's module that is not loaded yet): kattach__attach()
	 * then attaches nothing and succeeds.
	 */
	bool allow_empty;
	/*
	 * --compare: the kernel's own name lookups timed while the tracing_multi
	 * links are made (lookups.h; NULL: not timed).
	 */
	struct kattach_lookups *lookups;
};

/* kattach_target.flags beyond the KSYM_F_* ones */
#define KATTACH_F_CONFIRMED (1u << 16)	/* the kernel lists it in a link */
#define KATTACH_F_EXCLUDED (1u << 17)	/* left out: see excluded_errno */

struct kattach_target {
	uint64_t addr;		/* its ftrace site (classic kprobes: the probe goes by it) */
	/*
	 * The function's own address (0: the source knows only the site): what
	 * a link of kprobe.multi or kprobe.session is given, where the kernel
	 * takes it (kattach__by_entry()), so that bpftool names the function.
	 */
	uint64_t entry;
	const char *name;
	const char *module;	/* NULL: vmlinux */
	unsigned int flags;	/* KSYM_F_TRACEABLE, _BLACKLISTED, _AMBIGUOUS, KATTACH_F_* */
	/* why it was left out: the kernel's refusal (EINVAL, ENOENT), EPERM:
	 * blacklisted, ENODEV: its module went (kattach__excluded_reason()) */
	int excluded_errno;
	const char *why;	/* or the reason in words, where libksym gave one */
	uint32_t btf_id;	/* tracing_multi: its BTF FUNC id in its object (0: none) */
	struct ksa_stat *stat;	/* summed over CPUs by kattach__collect(); NULL before */
};

/* t's counters: zero before kattach__collect() */
const struct ksa_stat *kattach_target__stat(const struct kattach_target *t);

/* NULL and errno: ENOMEM, or EINVAL for a resolver not in enum kattach_resolver. */
struct kattach *kattach__new(const struct kattach_opts *opts);
void kattach__free(struct kattach *a);

int kattach__resolve(struct kattach *a);
int kattach__attach(struct kattach *a);
int kattach__collect(struct kattach *a);
int kattach__detach(struct kattach *a);

size_t kattach__target_cnt(const struct kattach *a);
/* Targets in address order; stats valid after kattach__collect(). */
const struct kattach_target *kattach__targets(const struct kattach *a);
size_t kattach__attached_cnt(const struct kattach *a);
/* Targets the kernel's link info lists (Linux >= 6.6); -1 when it does not say. */
ssize_t kattach__confirmed_cnt(const struct kattach *a);
/* Why a target was left out, in words. */
const char *kattach__excluded_reason(const struct kattach_target *t);
/* Whether classic kprobes stood in for kprobe.multi. */
bool kattach__fell_back(const struct kattach *a);
/* Targets left out: refused by the kernel, or kprobe-blacklisted for the fallback. */
size_t kattach__excluded_cnt(const struct kattach *a);
size_t kattach__link_cnt_total(const struct kattach *a);	/* created by this run */
enum kattach_resolver kattach__resolver(const struct kattach *a);
const char *kattach__resolver_name(enum kattach_resolver r);
/* Nanoseconds spent per phase (0 for a phase that did not run). */
uint64_t kattach__phase_ns(const struct kattach *a, enum kattach_phase ph);
/* The stall a resolver causes: read, parse, index, match, load and attach. */
uint64_t kattach__stall_ns(const struct kattach *a);
const char *kattach__phase_name(enum kattach_phase ph);
/*
 * With the libbpf resolver, libbpf resolves inside the attach call; the lookup
 * layer's own resolution (for the report) is kept out of the phases and
 * counted here instead.
 */
uint64_t kattach__prep_ns(const struct kattach *a);
/* Which files the targets came from, e.g. "available_filter_functions_addrs". */
const char *kattach__source(const struct kattach *a);
/* Whether the kprobe blacklist could be read (KSYM_F_BLACKLISTED means something). */
bool kattach__blacklist_known(const struct kattach *a);
/* False when the function lists were unreadable and --list fell back to kallsyms. */
bool kattach__traceability_known(const struct kattach *a);
/* Whether the symbols came from the cache (no kernel file read). */
/* The functions came from the build cache (a boot's first run of a known build). */
bool kattach__from_build_cache(const struct kattach *a);
bool kattach__from_cache(const struct kattach *a);
enum kattach_mode kattach__mode(const struct kattach *a);
const char *kattach__mode_name(enum kattach_mode mode);
/* What its links are: "kprobe.multi", "kprobe.session", "fentry.multi", ... */
const char *kattach__link_kind(const struct kattach *a);
/* The reason for the last failure, one line, no trailing newline. */
const char *kattach__errmsg(const struct kattach *a);

#endif
