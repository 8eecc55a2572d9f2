/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
#ifndef KSA_ENGINE_H
#define KSA_ENGINE_H

/*
 * The engine's state and the helpers its files share: resolve.c (patterns
 * to targets), attach.c (the run: load, links, counters, detach), links.c
 * (the links and what they leave out), kprobes.c (the classic-kprobe
 * fallback), floor.c (the floor resolver), errors.c (messages, and the
 * kernel's refusals as messages), resolvers.c (what each resolver is). Not
 * for the engine's users: attach.h is theirs.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "attach.h"
#include "hitprog.h"

struct bpf_program;
struct bpf_link;
struct ksymattach_bpf;
struct ksymattach_session_bpf;
struct ksymattach_fsession_bpf;
struct tmulti18;

/*
 * What a link of addresses is given for each target: the function's own
 * address, which the kernel maps to its ftrace site and bpftool names (where
 * the source knows it), or the site itself. The first link tries functions'
 * addresses on a kernel not yet seen to take them (links.c).
 */
enum ka_hand {
	KA_HAND_ENTRY_UNTRIED,	/* functions' addresses, none accepted yet */
	KA_HAND_ENTRY,		/* functions' addresses: the kernel took them */
	KA_HAND_SITE,		/* sites: the kernel refused functions' addresses */
};

struct kattach {
	struct kattach_opts opts;
	struct ksym_db *db;
	struct ksym_db *db2;		/* a re-resolution's (reresolve runs once) */
	struct ksym_table *funcs;	/* traceable functions, with addresses (db's) */
	struct kattach_target *targets;
	size_t target_cnt;
	struct ksa_stat *stats;	/* the targets' counters, made by the first collect */
	unsigned long *addrs;
	/*
	 * The program: the hit counter loaded by hand (kprobe.multi, classic
	 * kprobes), or a libbpf object: kprobe.session's, or the one libbpf
	 * attaches by pattern (the libbpf resolver).
	 */
	struct hitprog hp;
	struct ksymattach_bpf *skel;
	struct ksymattach_session_bpf *sskel;
	/* fsession.multi: an object per BTF object, the first's counters shared (tmulti.c) */
	struct ksymattach_fsession_bpf **fskels;
	size_t fskel_cnt;
	struct tmulti18 *l18;		/* LIBBPF, tracing_multi: libbpf 1.8's object and links */
	int prog_fd;			/* whichever it is */
	int *links;			/* link fds */
	size_t link_cnt;		/* alive now */
	size_t links_made;		/* for the report, after detach too */
	/* what links of addresses hold (addrs[]): functions' own, or sites */
	enum ka_hand hand;
	const char **names;	/* by_name: distinct names, per link */
	/* links of names: the kernel resolver, or libbpf given names, not globs */
	bool by_name;
	size_t attached;
	const char *source;
	uint64_t phase_ns[KATTACH_PH_CNT];
	uint64_t prep_ns;	/* libbpf mode: our own resolution, outside the phases */
	ssize_t confirmed;	/* targets the kernel lists in its links; -1: not told */
	size_t links_cap;
	size_t excluded;
	bool fell_back;
	struct bpf_program *kprobe_prog;	/* LIBBPF, classic kprobes: the object's */
	struct bpf_link **blinks;	/* LIBBPF, classic kprobes: libbpf's own links */
	size_t blink_cnt;
	int floor_prog;		/* FLOOR: the raw program's fd, its links' below (-1: none) */
	int *floor_links;
	size_t floor_link_cnt;
	char err[320];
};


/*
 * A tracing_multi link's info (Linux 7.2; not in the UAPI header this build
 * has): struct bpf_link_info's head, then the link's own part.
 */
#define KSA_LINK_TYPE_TRACING_MULTI 15
struct tm_link_info {
	__u32 type;
	__u32 id;
	__u32 prog_id;
	__u32 pad;
	__u32 attach_type;
	__u32 count;		/* in: the arrays' room; out: the link's functions */
	__u32 btf_obj_id;
	__u32 pad2;
	__u64 ids;		/* __u32[count], by id */
	__u64 addrs;		/* __u64[count]: the functions' addresses */
	__u64 cookies;
};

/*
 * What a resolver is, as values the engine reads instead of asking which one
 * it is (resolvers[] in resolvers.c).
 */
enum ka_names {
	KA_NAMES_NEVER,		/* the kernel gets addresses */
	KA_NAMES_ALWAYS,	/* the kernel gets names and resolves them */
	KA_NAMES_IF_PLAIN,	/* names where every pattern is a plain name, else globs */
};

/* tracing_multi: left out, its name leading the kernel's lookup to another function */
#define KATTACH_F_BTF_OTHER (1u << 18)

struct ka_resolver {
	const char *name;
	enum ka_names names;
	bool libbpf_links;	/* libbpf makes the links: its object, its attach calls */
	bool empty_program;	/* the floor's "r0 = 0; exit", no counters */
	bool prep_outside;	/* our resolution only serves the report: out of the stall */
	bool reresolves;	/* a module function refused: looked up once more */
};

const struct ka_resolver *ka_resolver(const struct kattach *a);

/* The link type of a's mode: a session link, or a kprobe.multi one. */
static inline enum bpf_attach_type ka_link_type(const struct kattach *a)
{
	return a->opts.mode == KATTACH_SESSION ? BPF_TRACE_KPROBE_SESSION : BPF_TRACE_KPROBE_MULTI;
}

/* The engine's message from fmt; returns err as a negative errno (errors.c). */
int ka_fail(struct kattach *a, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void ka_warn(const struct kattach *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Targets and picks by address, their first member (resolve.c) */
int ka_addr_cmp(const void *x, const void *y);

/* Links and the targets they leave out (links.c) */
void ka_hand_over(struct kattach *a, enum ka_hand hand);
enum ka_hand ka_kernel_hand(void);
int ka_push_link(struct kattach *a, int fd);
void ka_exclude(struct kattach *a, struct kattach_target *t, int err);
void ka_exclude_name(struct kattach *a, const char *name, int err);
ssize_t ka_distinct_names(struct kattach *a);
int ka_attach_range(struct kattach *a, struct bpf_program *prog, size_t i, size_t n);
int ka_no_multi(struct kattach *a, int err);
int ka_arm(struct kattach *a);
/* the target an IP the kernel reports belongs to (attach.c); NULL: none */
struct kattach_target *ka_target_of(struct kattach *a, uint64_t ip);
/*
 * The links are made: counting starts, and the targets the kernel lists in
 * its links are flagged KATTACH_F_CONFIRMED (attach.c)
 */
int ka_attached(struct kattach *a);
/* How the kernel refuses a link for an address that is no ftrace location */
bool ka_refuses_address(int err);

/* The kernel's refusals (errors.c) */
int ka_attach_error(struct kattach *a, int err, size_t cnt);
int ka_load_error(struct kattach *a, int err, const char *log);
int ka_no_bpf(struct kattach *a);
int ka_no_probes(struct kattach *a);
int ka_session_missing(struct kattach *a);

/* Classic kprobes (kprobes.c) */
int ka_attach_kprobes(struct kattach *a);
bool ka_can_fall_back(const struct kattach *a, int err, size_t links);
int ka_fall_back(struct kattach *a);

/* The floor (floor.c) */
int ka_attach_floor(struct kattach *a);
/* tmulti.c: fentry.multi and fexit.multi, a link of BTF ids per BTF object */
int ka_attach_tracing(struct kattach *a);
/* the one line that says what the kernel lacks for them; 0: nothing */
int ka_no_tracing_multi(struct kattach *a);
/* fsession.multi's counters (-1: none), and its objects destroyed */
int ka_fsession_stats_fd(const struct kattach *a);
void ka_fsession_destroy(struct kattach *a);

#endif /* KSA_ENGINE_H */
