/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What a load of the traceable functions tries, in what order: a pure
 * function of the options and of what the machine offers (plan.c).
 * load/db.c gathers the facts, asks for the plan and runs its steps; each
 * step loads the table or says "not mine" (-EAGAIN) and the next is tried.
 */
#ifndef KSYM_PLAN_H
#define KSYM_PLAN_H

#include <stdbool.h>
#include <stddef.h>

#include <ksym/ksym.h>

/* Where a table of traceable functions comes from: one value, its cache label too. */
enum ksym_origin {
	KSYM_ORIG_KCORE,	/* kallsyms' text symbols, each checked in kcore's text */
	KSYM_ORIG_FTRACE,	/* ftrace's records in memory, named from the kernel's table */
	KSYM_ORIG_ADDRS,	/* tracefs' available_filter_functions_addrs */
	KSYM_ORIG_JOIN,		/* tracefs' available_filter_functions joined with kallsyms */
	KSYM_ORIG_UNKNOWN,	/* kallsyms' text symbols, traceability unknown (never cached) */
	KSYM_ORIG_CNT,
};

/* The cache label of each origin (/run's files name the source they hold). */
const char *ksym_origin__label(enum ksym_origin o);

enum ksym_step {
	KSYM_STEP_RUN_CACHE,	/* /run's table from one of the origins in .origins */
	KSYM_STEP_BUILD_CACHE,	/* the build cache, rebased onto this boot (kcore) */
	KSYM_STEP_FTRACE,	/* ftrace's records in memory (kcore) */
	KSYM_STEP_CANDIDATES,	/* kallsyms' text as far as the patterns go, checked in kcore */
	KSYM_STEP_ALL_CANDIDATES, /* every kallsyms symbol (wanted anyway), checked in kcore */
	KSYM_STEP_TRACEFS,	/* tracefs' list of the origin in .origins, live */
	KSYM_STEP_FILE_ADDRS,	/* a given available_filter_functions_addrs file */
	KSYM_STEP_FILE_JOIN,	/* a given available_filter_functions file, joined */
	KSYM_STEP_UNKNOWN,	/* kallsyms' text symbols, traceability unknown */
	KSYM_STEP_CNT,
};

/* Why a load cannot go as asked: an error, or the reason the unknown step gives. */
enum ksym_refusal {
	KSYM_REFUSE_NONE,
	KSYM_REFUSE_FTRACE_FILES,	/* ftrace's records with given files */
	KSYM_REFUSE_KCORE_PAIR,		/* kcore's check without a kallsyms of its kernel */
	KSYM_REFUSE_NO_LIST,		/* a symbol file and no function list */
	KSYM_REFUSE_TRACEFS,		/* tracefs not mounted, or not accessible */
	KSYM_REFUSE_NO_CACHE,		/* cache only, and no cache served */
	KSYM_REFUSE_NO_TEXT_CHECK,	/* a source that reads the text, and no reader of it */
};

/* The options and the machine, as the plan sees them. */
struct ksym_plan_in {
	enum ksym_funcs_from funcs_from;
	bool cache_only;
	bool addrs_file;	/* --funcs-addrs (it wins over --funcs) */
	bool names_file;	/* --funcs */
	bool live_syms;		/* no kallsyms, System.map or vmlinux file given */
	bool kallsyms_file;	/* a kallsyms file given, neither System.map nor vmlinux */
	bool kcore_file;	/* a core file given with it */
	bool need_kallsyms;	/* every symbol wanted too */
	bool whole;		/* a glob over vmlinux without a prefix (or no pattern) */
	bool allow_unknown;
	bool no_cache;
	bool no_build_cache;
	/* this build reads no function entry of its architecture (ksym_site.h) */
	bool no_text_check;
	/* the machine: tracefs found (else why not), and whether it lists addresses */
	bool tracefs;
	bool tracefs_denied;	/* there, but not accessible to this user */
	bool tracefs_addrs;
};

#define KSYM_PLAN_MAX 8

struct ksym_plan_step {
	enum ksym_step step;
	unsigned int origins;	/* 1 << KSYM_ORIG_*: RUN_CACHE's labels, TRACEFS' list */
	bool asked;		/* the source asked for by name: its refusal is the error */
};

struct ksym_load_plan {
	struct ksym_plan_step steps[KSYM_PLAN_MAX];
	size_t cnt;
	/* reported first: with no step, the error; else the unknown step's reason */
	enum ksym_refusal refusal;
	/* what no step serving means (KSYM_REFUSE_NONE: the last step's error) */
	enum ksym_refusal end;
	bool kcore_required;	/* /proc/kcore unreadable: an error, not the next step */
};

void ksym_plan__make(const struct ksym_plan_in *in, struct ksym_load_plan *plan);
/* Whether a step reads kernel memory or text through kcore. */
bool ksym_step__needs_kcore(enum ksym_step s);
/* The plan in one line, for -v and the tests: "run(kcore,ftrace,addrs) build ftrace ..." */
int ksym_plan__str(const struct ksym_load_plan *plan, char *buf, size_t len);

#endif
