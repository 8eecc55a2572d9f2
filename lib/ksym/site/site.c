// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Whether a function has an ftrace site, and where. A list of sites
 * (tracefs', a cache's) says so itself. kallsyms' text symbols say nothing:
 * each is read in the kernel's text through kcore, 16 bytes, and the site is
 * what the architecture's compiler and ftrace leave there (x86.c,
 * arm64.c).
 * tracefs' lists cost the kernel an address-to-name lookup per line, while
 * /proc/kallsyms reads in about 0.7 of the time; the text answers the rest.
 * A call found at a site must go to a trampoline: what counts as one, and
 * which text is no function's (init text, __exit text), is decided here.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "ksym_site.h"

/*
 * The architecture whose entries are read. A build for one without a
 * ksym_site_<arch>.c reads no text, and joins tracefs' sites with kallsyms
 * by x86-64's offsets: at the symbol, or past an ENDBR64.
 */
#if KSYM_SITE_TEXT_CHECK
#define SITE_ARCH ksym_site_native
#else
#define SITE_ARCH (&ksym_site_x86_64)
#endif

int ksym__ftrace_site(const unsigned char *text, size_t len, uint64_t addr, uint64_t *call)
{
	*call = 0;
	return KSYM_SITE_TEXT_CHECK ? SITE_ARCH->site(text, len, addr, call) : -1;
}

/*
 * Whether kernel memory at addr can be code's start: mapped (kcore reads an
 * unmapped page as zeros) and no int3 fill.
 */
static bool is_code(const struct ksym_site_check *c, uint64_t addr)
{
	static const unsigned char zero[16];
	unsigned char b[16];

	return !ksym_kcore__read(c->kcore, addr, b, sizeof(b)) && memcmp(b, zero, sizeof(b)) &&
	       b[0] != 0xcc;
}

/*
 * A call (or jmp) at a site is ftrace's (its callers, or a trampoline it
 * made), a BPF trampoline's, or no site at all: a notrace function starting
 * with a call to a function, or a tail call. A target in the module area
 * where no symbol of the table starts, at a trampoline's alignment, was made
 * after the table was read (a tracer attached since), or is one the table
 * does not list: taken as a trampoline, and the kernel has the last word.
 */
static bool is_trampoline(const struct ksym_site_check *c, uint64_t addr, bool known)
{
	struct ksym s;

	/* a build cache holds sites only: ftrace's callers are its anchors */
	if (c->kind == KSYM_SITES_REBASED)
		return addr == c->anchors[KSYM_ANCHOR_FTRACE_CALLER] ||
		       addr == c->anchors[KSYM_ANCHOR_FTRACE_REGS_CALLER] ||
		       addr >= KSYM_X86_MODULE_AREA;
	if (ksym_table__addr(c->syms, addr, &s) || s.addr != addr) {
		/*
		 * The kernel's table in memory lists no trampoline: one is in the
		 * module area, where it was allocated (16-aligned, code there). A
		 * label before int3 padding reads as a call being patched in, its
		 * "rel32" the padding's bytes: under a high KASLR base such a
		 * target is in the module area too (seen on 6.1: __noinstr_text_end,
		 * entry_SYSRETL_compat_end), unaligned, or where nothing is
		 * mapped, or in the int3 fill of BPF's packs.
		 */
		if (known && c->no_trampolines)
			return addr >= KSYM_X86_MODULE_AREA && !(addr & 15) && is_code(c, addr);
		/*
		 * A whole instruction's target: a trampoline is allocated in the
		 * module area, ftrace's page-aligned, BPF's in a pack's 64-byte
		 * chunks; a notrace module function's jmp into its own body
		 * mostly is not 16-aligned.
		 */
		return !known && addr >= KSYM_X86_MODULE_AREA && !(addr & 15);
	}
	if (s.module)
		return !strcmp(s.module, "__builtin__ftrace") ||
		       (!strcmp(s.module, "bpf") && !strncmp(s.name, "bpf_trampoline_", 15));
	return !strcmp(s.name, "ftrace_caller") || !strcmp(s.name, "ftrace_regs_caller");
}

void ksym_site__bounds_from(struct ksym_site_check *c, const uint64_t *a)
{
	c->bounds_known = true;
	c->text_lo = a[KSYM_ANCHOR_STEXT];
	c->text_hi = a[KSYM_ANCHOR_ETEXT];
	if (c->text_lo >= c->text_hi)
		c->text_lo = c->text_hi = 0;
	c->init_lo = a[KSYM_ANCHOR_SINITTEXT];
	c->init_hi = a[KSYM_ANCHOR_EINITTEXT];
	if (c->init_lo >= c->init_hi)
		c->init_lo = c->init_hi = 0;
}

/* The vmlinux text and init text bounds: one pass, names checked by their start. */
static void find_bounds(struct ksym_site_check *c)
{
	static const char *const names[4] = { "_stext", "_etext", "_sinittext", "_einittext" };
	const struct ksym_table *t = c->syms;
	uint64_t at[4] = { 0 };
	size_t i;
	int k;

	c->bounds_known = true;
	for (i = 0; i < t->cnt; i++) {
		const struct ksym_ent *e = &t->ents[i];
		const char *n = t->buf + e->name;

		if (n[0] != '_' || (n[1] != 's' && n[1] != 'e') || e->mod)
			continue;
		for (k = 0; k < 4; k++)
			if (!at[k] && !strcmp(n, names[k]))
				at[k] = ksym_ent_addr(t, e);
	}
	if (at[0] < at[1]) {
		c->text_lo = at[0];
		c->text_hi = at[1];
	}
	if (at[2] < at[3]) {
		c->init_lo = at[2];
		c->init_hi = at[3];
	}
}

/*
 * The first bytes of the text at addr and the ftrace site in them (*off as
 * ksym__ftrace_site() gives it). A call patched in or out finishes within
 * microseconds of its int3; int3 padding never does, so the waiting is
 * bounded. Returns kcore's error (-EFAULT: no live text there).
 */
static int text_site(struct ksym_site_check *c, uint64_t addr, unsigned char text[16], int *off,
		     uint64_t *call)
{
	int tries, err;

	for (tries = 0;; tries++) {
		err = ksym_kcore__read(c->kcore, addr, text, 16);
		if (err)
			return err;
		*off = SITE_ARCH->site(text, 16, addr, call);
		if (*off != -EAGAIN || tries == 3 || c->flux_waits >= 256)
			return 0;
		c->flux_waits++;
		ksym_kcore__forget(c->kcore);
		usleep(100);
	}
}

/*
 * A function rebased from the build cache is traceable if its ftrace site is
 * at its address, as the file says: the NOP (or an int3 over its first byte),
 * or a call to a trampoline (traced now), read with the mark the architecture
 * puts before it (arm64's "mov x9, x30"). Anything else means the rebase went
 * wrong. An int3 over int3 padding is no site.
 */
static int rebased_loc(struct ksym_site_check *c, const struct ksym *sym, uint64_t *loc)
{
	unsigned char text[16];
	uint64_t call = 0;
	int off, err;

	if (sym->flags & KSYM_F_UNRESOLVED)
		return 0;	/* its module is not loaded now */
	err = text_site(c, sym->addr - SITE_ARCH->lead, text, &off, &call);
	if (err && err != -EFAULT)
		return err;
	if (!err && (off == (int)SITE_ARCH->lead ||
		     (off == -EAGAIN && memcmp(text + 1, "\xcc\xcc\xcc\xcc", 4))) &&
	    (!call || !SITE_ARCH->calls_checked || is_trampoline(c, call, true))) {
		*loc = sym->addr;
		return 1;
	}
	return -ESTALE;
}

unsigned int ksym_site__entry_flag(uint64_t addr, uint64_t loc)
{
	if (loc == addr + SITE_ARCH->off_min)
		return KSYM_F_ENTRY_OFF_MIN;
	if (loc == addr + SITE_ARCH->off_max)
		return KSYM_F_ENTRY_OFF_MAX;
	return 0;
}

uint64_t ksym_site__entry(const struct ksym *sym, uint64_t loc)
{
	/* a kallsyms symbol (a candidate, or joined with a list of names) */
	if (!(sym->flags & KSYM_F_TRACEABLE))
		return sym->addr;
	if (sym->flags & KSYM_F_ENTRY_OFF_MIN)
		return loc - SITE_ARCH->off_min;
	if (sym->flags & KSYM_F_ENTRY_OFF_MAX)
		return loc - SITE_ARCH->off_max;
	return 0;
}

/*
 * A list of sites: a function is listed, or a kallsyms symbol is, there or
 * as far past it as its architecture puts a site (x86-64's ENDBR64, arm64's
 * "mov x9, x30" and BTI).
 */
static int listed_loc(const struct ksym_site_check *c, const struct ksym *sym, uint64_t *loc)
{
	struct ksym f;

	if (sym->flags & KSYM_F_TRACEABLE) {
		*loc = sym->addr;
		return 1;
	}
	if (sym->type && !ksym_type_is_text(sym->type))
		return 0;
	if (!ksym_table__addr(c->syms, sym->addr + SITE_ARCH->off_max, &f) &&
	    (f.addr == sym->addr + SITE_ARCH->off_min || f.addr == sym->addr + SITE_ARCH->off_max)) {
		*loc = f.addr;
		return 1;
	}
	return 0;
}

/* A text symbol: its site read in the text, if it has one. */
static int candidate_loc(struct ksym_site_check *c, const struct ksym *sym, uint64_t *loc)
{
	unsigned char text[16];
	uint64_t call;
	int off, err;

	if (!ksym_type_is_text(sym->type))
		return 0;
	/* BPF programs, ftrace and kprobe trampolines are listed as modules */
	if (sym->module && (!strcmp(sym->module, "bpf") || !strncmp(sym->module, "__builtin__", 11)))
		return 0;
	if (!c->bounds_known)
		find_bounds(c);
	if (sym->addr >= c->init_lo && sym->addr < c->init_hi)
		return 0;
	/* vmlinux's functions are in [_stext, _etext); its __exit ones, freed after boot, not */
	if (!sym->module && c->text_hi && (sym->addr < c->text_lo || sym->addr >= c->text_hi))
		return 0;
	err = text_site(c, sym->addr, text, &off, &call);
	if (err == -EFAULT)
		return 0;	/* no live text there */
	if (err)
		return err;
	/*
	 * Still mid-patch: a site if the call being patched in or out goes to a
	 * trampoline the table lists. A link detached just before is unpatched
	 * when its last reference goes, which under emulation can take longer
	 * than the waits above; an int3 a kprobe put over other code gives a
	 * "target" that is no trampoline's. (x86-64 only: arm64 patches whole
	 * instructions.)
	 */
	if (off == -EAGAIN) {
		if (!is_trampoline(c, call, true))
			return 0;
		off = text[0] == 0xcc ? 0 : KSYM_ENDBR_LEN;	/* at the entry, or past ENDBR64 */
	} else if (off < 0 || (call && SITE_ARCH->calls_checked && !is_trampoline(c, call, false))) {
		return 0;
	}
	*loc = sym->addr + off;
	return 1;
}

int ksym_site__loc(struct ksym_site_check *c, const struct ksym *sym, uint64_t *loc)
{
	switch (c->kind) {
	case KSYM_SITES_LISTED:
		return listed_loc(c, sym, loc);
	case KSYM_SITES_REBASED:
		/* a module the build cache did not know was read live: a candidate */
		if (sym->flags & KSYM_F_TRACEABLE)
			return rebased_loc(c, sym, loc);
		return candidate_loc(c, sym, loc);
	case KSYM_SITES_CANDIDATES:
		return candidate_loc(c, sym, loc);
	}
	return -EINVAL;
}
