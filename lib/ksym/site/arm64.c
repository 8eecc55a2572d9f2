// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * arm64's ftrace site: what the compiler and ftrace write at a function's
 * entry, read from the text. The kernel is built with
 * -fpatchable-function-entry, so every traceable function starts with two
 * NOPs (after a "bti c" where the kernel is built with BTI). When ftrace takes
 * the function's record at boot or module load it turns the first into
 * "mov x9, x30" and leaves the second, the site, a NOP until something traces
 * the function, when it becomes a "bl" to ftrace's caller or a trampoline.
 * With CALL_OPS two more NOPs before the symbol hold a pointer (data, never
 * read here).
 *
 * "mov x9, x30" at a function's entry is ftrace's own mark: no compiler
 * starts a function by saving its link register in a scratch register, and a
 * function whose record ftrace dropped keeps its two NOPs. So unlike x86-64's
 * a call found at the site needs no check of where it goes.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "ksym_site.h"

#define A64_NOP		0xd503201fu
#define A64_BTI_C	0xd503245fu
#define A64_BTI_JC	0xd50324dfu
#define A64_MOV_X9_LR	0xaa1e03e9u	/* orr x9, xzr, x30 */
#define A64_BRK_KPROBE	0xd4200080u	/* brk #0x4: a classic kprobe at the entry */
#define A64_BL_MASK	0xfc000000u
#define A64_BL		0x94000000u

/* The instruction at p (arm64 kernels run little-endian). */
static uint32_t insn(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static int arm64_site(const unsigned char *text, size_t len, uint64_t addr, uint64_t *call)
{
	uint32_t first, site;
	int off = 0;

	*call = 0;
	if (len >= 4 && (insn(text) == A64_BTI_C || insn(text) == A64_BTI_JC))
		off = 4;
	if ((size_t)off + 8 > len)
		return -1;
	first = insn(text + off);
	site = insn(text + off + 4);
	/*
	 * A classic kprobe at the symbol puts its BRK over "mov x9, x30" (arm64
	 * has no kprobes on ftrace sites): the NOP or call after it still says
	 * whose site this is.
	 */
	if (first != A64_MOV_X9_LR && first != A64_BRK_KPROBE)
		return -1;
	off += 4;
	if (site == A64_NOP)
		return off;
	if ((site & A64_BL_MASK) == A64_BL) {
		/* imm26, in instructions, signed */
		int64_t rel = (int64_t)((site & 0x03ffffffu) ^ 0x02000000u) - 0x02000000;

		*call = addr + off + rel * 4;
		return off;
	}
	return -1;
}

const struct ksym_site_arch ksym_site_arm64 = {
	.name = "arm64",
	.site = arm64_site,
	.off_min = 4,
	.off_max = 8,
	.lead = 4,
	.calls_checked = false,
};
