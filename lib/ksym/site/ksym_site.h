/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Whether a function has an ftrace site, and where: looked up in a list of
 * sites, or read in the kernel's text through kcore (site.c), with the
 * architecture's facts about that text (x86.c, arm64.c).
 */
#ifndef KSYM_SITE_H
#define KSYM_SITE_H

#include <stdbool.h>
#include <stdint.h>

#include "ksym_internal.h"

/*
 * An architecture's function entries as its compiler and ftrace leave them
 * (ksym_site_<arch>.c). Each file is built everywhere, so that the tests on
 * one machine check every architecture's reading of real kernels' bytes.
 */
struct ksym_site_arch {
	const char *name;
	/*
	 * The site in the first len bytes of the function at addr, as
	 * ksym__ftrace_site() gives it: its offset, -1 for none, -EAGAIN while
	 * the text is being patched; *call where the site is a call.
	 */
	int (*site)(const unsigned char *text, size_t len, uint64_t addr, uint64_t *call);
	unsigned int off_min, off_max;	/* a site's offsets past its function's address */
	unsigned int lead;		/* bytes of the entry's mark before the site */
	bool calls_checked;		/* a call at a site must go to a trampoline */
};

extern const struct ksym_site_arch ksym_site_x86_64, ksym_site_arm64;

/*
 * This build's architecture, whose kernel it reads. Elsewhere a load takes
 * the sites the kernel lists (tracefs) and refuses the sources that read the
 * text: a site guessed from another architecture's code would be a wrong
 * answer.
 */
#if defined(__x86_64__)
#define KSYM_SITE_TEXT_CHECK 1
#define ksym_site_native (&ksym_site_x86_64)
#elif defined(__aarch64__)
#define KSYM_SITE_TEXT_CHECK 1
#define ksym_site_native (&ksym_site_arm64)
#else
#define KSYM_SITE_TEXT_CHECK 0
#define ksym_site_native ((const struct ksym_site_arch *)NULL)
#endif

/* x86-64: every ftrace and BPF trampoline is allocated in the module area. */
#define KSYM_X86_MODULE_AREA 0xffffffffc0000000ull

/* x86-64's ENDBR64: a site is at a function's entry, or this far past it. */
#define KSYM_ENDBR_LEN 4

/* The 4 bytes are ENDBR64 itself (not a form IBT sealing wrote over it). */
bool ksym_site__endbr64(const unsigned char p[KSYM_ENDBR_LEN]);

/* Where a text symbol's ftrace site check needs to know what is a trampoline. */
enum { KSYM_ANCHOR_STEXT, KSYM_ANCHOR_ETEXT, KSYM_ANCHOR_SINITTEXT, KSYM_ANCHOR_EINITTEXT,
       KSYM_ANCHOR_FTRACE_CALLER, KSYM_ANCHOR_FTRACE_REGS_CALLER, KSYM_ANCHOR_CNT };

enum ksym_site_kind {
	KSYM_SITES_LISTED,	/* the table is a list of sites (tracefs', a cache's) */
	KSYM_SITES_CANDIDATES,	/* kallsyms' text symbols: each read in the text */
	KSYM_SITES_REBASED,	/* the build cache's sites, rebased: each confirmed in the text */
};

/* What the check needs of a load: the table, the text, and the kernel's bounds. */
struct ksym_site_check {
	enum ksym_site_kind kind;
	const struct ksym_table *syms;	/* the functions, and the call targets looked up */
	struct ksym_kcore *kcore;
	bool no_trampolines;		/* syms are the kernel's table in memory: none listed */
	const uint64_t *anchors;	/* KSYM_ANCHOR_CNT: ftrace's callers, text bounds */
	uint64_t text_lo, text_hi;	/* [_stext, _etext) */
	uint64_t init_lo, init_hi;	/* [_sinittext, _einittext): freed after boot */
	bool bounds_known;
	unsigned int flux_waits;	/* re-reads of text caught mid-patch, bounded */
};

/* The bounds from the anchors (a build cache's table has no such symbols). */
void ksym_site__bounds_from(struct ksym_site_check *c, const uint64_t *anchors);

/*
 * Where a listed site's function starts, kept in the entry's flags as a site
 * table is written from kallsyms' symbols (load/flush.c): the architecture's
 * smaller or larger offset before the site (x86-64: 0 or ENDBR64's 4; arm64:
 * 4 or 8). Neither bit: not known, as in tracefs' list of sites.
 */
#define KSYM_F_ENTRY_OFF_MIN (1u << 6)
#define KSYM_F_ENTRY_OFF_MAX (1u << 7)

/* The entry flag of a site at loc whose function is at addr (0: neither offset). */
unsigned int ksym_site__entry_flag(uint64_t addr, uint64_t loc);
/*
 * The function's own address, kallsyms', of sym whose site is loc: sym's
 * address where sym is a symbol, else what its flags say; 0 where not known.
 */
uint64_t ksym_site__entry(const struct ksym *sym, uint64_t loc);

/*
 * sym's ftrace site in *loc: 1, or 0 where it has none; -ESTALE where a
 * rebased site is not where the build cache said (the file is wrong); else
 * kcore's error.
 */
int ksym_site__loc(struct ksym_site_check *c, const struct ksym *sym, uint64_t *loc);

#endif
