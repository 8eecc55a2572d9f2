// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The order in which a load tries the sources of traceable functions, decided
 * from the options and from what the machine offers, with no I/O: the whole
 * decision is here, and tests/unit/test_ksym_plan.c checks it row by row.
 *
 * The default order is the cheapest first. /run's cache of this boot; the
 * build cache, rebased onto this boot; for the whole kernel, ftrace's records
 * in memory; kallsyms' text checked in kcore; and tracefs' lists, which the
 * kernel makes one lookup per record. Kcore's sources are tried only where
 * tracefs shows the kernel has dynamic ftrace.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ksym_plan.h"

static const char *const labels[KSYM_ORIG_CNT] = {
	[KSYM_ORIG_KCORE] = "kallsyms+kcore",
	[KSYM_ORIG_FTRACE] = "kmem+ftrace",
	[KSYM_ORIG_ADDRS] = "available_filter_functions_addrs",
	[KSYM_ORIG_JOIN] = "available_filter_functions+kallsyms",
	[KSYM_ORIG_UNKNOWN] = "kallsyms (traceability unknown)",
};

const char *ksym_origin__label(enum ksym_origin o)
{
	return o < KSYM_ORIG_CNT ? labels[o] : "none";
}

bool ksym_step__needs_kcore(enum ksym_step s)
{
	return s == KSYM_STEP_BUILD_CACHE || s == KSYM_STEP_FTRACE ||
	       s == KSYM_STEP_CANDIDATES || s == KSYM_STEP_ALL_CANDIDATES;
}

static void add(struct ksym_load_plan *p, enum ksym_step s, unsigned int origins, bool asked)
{
	if (p->cnt < KSYM_PLAN_MAX)
		p->steps[p->cnt++] = (struct ksym_plan_step){ s, origins, asked };
}

#define O(x) (1u << KSYM_ORIG_##x)

/* kallsyms' text checked in kcore, and what a kcore serves before it. */
static void kcore_steps(const struct ksym_plan_in *in, struct ksym_load_plan *p)
{
	/* a cache holds checked functions only: not every symbol, not a core file's */
	bool cache = !in->need_kallsyms && !in->kcore_file && !in->no_cache;
	bool whole = in->funcs_from == KSYM_FUNCS_AUTO && !in->need_kallsyms && !in->kcore_file &&
		     in->live_syms && in->whole;

	if (cache)
		add(p, KSYM_STEP_RUN_CACHE, O(KCORE) | O(FTRACE) | O(ADDRS), false);
	if (cache && !in->no_build_cache)
		add(p, KSYM_STEP_BUILD_CACHE, 0, false);
	if (whole)
		add(p, KSYM_STEP_FTRACE, 0, false);
	/*
	 * The whole table from tracefs' list of sites is exact and costs no more
	 * than every text symbol checked (7.3.4 guest, -p '*': 1.0 s against
	 * 1.6 s); the check's look-alikes (a NOP of another kind at a function's
	 * entry: 11 on 7.3.4) each fail a link, and the links halved around them
	 * made one attach 6.9x as long.
	 */
	if (whole && in->tracefs_addrs)
		return;
	add(p, in->need_kallsyms ? KSYM_STEP_ALL_CANDIDATES : KSYM_STEP_CANDIDATES, 0, false);
}

void ksym_plan__make(const struct ksym_plan_in *in, struct ksym_load_plan *p)
{
	enum ksym_origin o;
	unsigned int tried = 0;
	size_t i;

	memset(p, 0, sizeof(*p));
	if (in->cache_only) {
		/*
		 * Whichever source last filled it; else what this build's runs
		 * kept. Both are the running kernel's: not a given file's.
		 */
		bool live = in->live_syms && !in->kcore_file && !in->addrs_file &&
			    !in->names_file;
		/* (without a text check no run made the others, and none is confirmed) */
		unsigned int run = in->no_text_check ? O(ADDRS) | O(JOIN) :
				   O(KCORE) | O(FTRACE) | O(ADDRS) | O(JOIN);

		if (!in->no_cache && live)
			add(p, KSYM_STEP_RUN_CACHE, run, false);
		if (!in->no_cache && !in->no_build_cache && live && !in->no_text_check)
			add(p, KSYM_STEP_BUILD_CACHE, 0, false);
		p->end = KSYM_REFUSE_NO_CACHE;
		return;
	}
	/* every kcore step reads the kernel's text (or names sites by it) */
	if (in->no_text_check && (in->funcs_from == KSYM_FUNCS_FTRACE ||
				  in->funcs_from == KSYM_FUNCS_KALLSYMS || in->kcore_file)) {
		p->refusal = KSYM_REFUSE_NO_TEXT_CHECK;
		return;
	}
	if (in->funcs_from == KSYM_FUNCS_FTRACE) {
		if (!in->live_syms || in->kcore_file || in->addrs_file || in->names_file) {
			p->refusal = KSYM_REFUSE_FTRACE_FILES;
			return;
		}
		if (!in->no_cache)
			add(p, KSYM_STEP_RUN_CACHE, O(FTRACE), false);
		add(p, KSYM_STEP_FTRACE, 0, true);
		p->kcore_required = true;
		return;
	}
	if ((in->funcs_from == KSYM_FUNCS_KALLSYMS || in->kcore_file) &&
	    !(in->kcore_file ? in->kallsyms_file : in->live_syms)) {
		p->refusal = KSYM_REFUSE_KCORE_PAIR;
		return;
	}
	/* given lists say what they list; kcore by default only where tracefs shows ftrace */
	if (!in->addrs_file && !in->names_file && !in->no_text_check &&
	    (in->kcore_file ||
	     (in->live_syms && (in->funcs_from == KSYM_FUNCS_KALLSYMS ||
				(in->funcs_from == KSYM_FUNCS_AUTO && in->tracefs))))) {
		kcore_steps(in, p);
		/* asked for (or a core file): kcore's refusal is the error */
		if (in->funcs_from != KSYM_FUNCS_AUTO || in->kcore_file) {
			p->kcore_required = true;
			return;
		}
	}
	if (in->addrs_file || in->names_file) {
		add(p, in->addrs_file ? KSYM_STEP_FILE_ADDRS : KSYM_STEP_FILE_JOIN, 0, false);
		return;
	}
	/*
	 * A symbol file: this kernel's lists describe this kernel's symbols, not
	 * necessarily the file's (another kernel, another boot's KASLR).
	 */
	if (!in->live_syms || !in->tracefs) {
		p->refusal = !in->live_syms ? KSYM_REFUSE_NO_LIST : KSYM_REFUSE_TRACEFS;
		if (in->allow_unknown)
			add(p, KSYM_STEP_UNKNOWN, 0, false);
		return;
	}
	o = in->tracefs_addrs ? KSYM_ORIG_ADDRS : KSYM_ORIG_JOIN;
	for (i = 0; i < p->cnt; i++)
		if (p->steps[i].step == KSYM_STEP_RUN_CACHE)
			tried |= p->steps[i].origins;
	if (!in->no_cache && !(tried & 1u << o))
		add(p, KSYM_STEP_RUN_CACHE, 1u << o, false);
	add(p, KSYM_STEP_TRACEFS, 1u << o, false);
	/* a list the kernel refuses to read */
	if (in->allow_unknown)
		add(p, KSYM_STEP_UNKNOWN, 0, false);
}

int ksym_plan__str(const struct ksym_load_plan *p, char *buf, size_t len)
{
	static const char *const steps[KSYM_STEP_CNT] = {
		[KSYM_STEP_RUN_CACHE] = "run", [KSYM_STEP_BUILD_CACHE] = "build",
		[KSYM_STEP_FTRACE] = "ftrace", [KSYM_STEP_CANDIDATES] = "candidates",
		[KSYM_STEP_ALL_CANDIDATES] = "all-candidates", [KSYM_STEP_TRACEFS] = "tracefs",
		[KSYM_STEP_FILE_ADDRS] = "file-addrs", [KSYM_STEP_FILE_JOIN] = "file-join",
		[KSYM_STEP_UNKNOWN] = "unknown",
	};
	static const char *const origins[KSYM_ORIG_CNT] = {
		[KSYM_ORIG_KCORE] = "kcore", [KSYM_ORIG_FTRACE] = "ftrace",
		[KSYM_ORIG_ADDRS] = "addrs", [KSYM_ORIG_JOIN] = "join",
		[KSYM_ORIG_UNKNOWN] = "unknown",
	};
	static const char *const refusals[] = {
		[KSYM_REFUSE_NONE] = "", [KSYM_REFUSE_FTRACE_FILES] = "ftrace-files",
		[KSYM_REFUSE_KCORE_PAIR] = "kcore-pair", [KSYM_REFUSE_NO_LIST] = "no-list",
		[KSYM_REFUSE_TRACEFS] = "tracefs", [KSYM_REFUSE_NO_CACHE] = "no-cache",
		[KSYM_REFUSE_NO_TEXT_CHECK] = "no-text-check",
	};
	size_t i, off = 0;
	int k;

#define PUT(...) (off += snprintf(buf + off, off < len ? len - off : 0, __VA_ARGS__))
	if (len)
		buf[0] = '\0';
	if (p->refusal)
		PUT("refuse:%s", refusals[p->refusal]);
	for (i = 0; i < p->cnt; i++) {
		const struct ksym_plan_step *s = &p->steps[i];
		const char *sep = "(";

		PUT("%s%s%s", off ? " " : "", steps[s->step], s->asked ? "!" : "");
		for (k = 0; k < KSYM_ORIG_CNT; k++) {
			if (s->origins & 1u << k) {
				PUT("%s%s", sep, origins[k]);
				sep = ",";
			}
		}
		if (s->origins)
			PUT(")");
	}
	if (p->end)
		PUT("%send:%s", off ? " " : "", refusals[p->end]);
	if (p->kcore_required)
		PUT("%skcore-required", off ? " " : "");
#undef PUT
	return off < len ? 0 : -ENOSPC;
}
