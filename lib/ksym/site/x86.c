// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * x86-64's ftrace site: what the compiler and ftrace write at a function's
 * entry, read from the text. The compiler put "call __fentry__" at the entry
 * of every traceable function (past an ENDBR64 where the kernel is built with
 * IBT) and ftrace turned each into a 5-byte NOP, or a call to a trampoline
 * while something traces it (or a jmp to a BPF trampoline that returns to
 * the function's caller itself). Another architecture's site check is a file
 * like this one (arm64.c).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "ksym_internal.h"
#include "ksym_site.h"

/*
 * x86-64. At the entry, or past a 4-byte ENDBR64 (however IBT sealing rewrote
 * it), the NOP ftrace writes over "call __fentry__". A jump label compiled to
 * the same NOP at a function's start is the one look-alike: the kernel still
 * refuses it, and the attach engine leaves such a target out.
 */
static const unsigned char nop5[5] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };

/*
 * Before Linux 5.13 ftrace wrote the CPU's "ideal" NOP: the one above on
 * Intel and on AMD since family 0x10, K8's elsewhere (seen in QEMU's
 * emulated CPU under 5.10).
 */
static const unsigned char nop5_k8[5] = { 0x66, 0x66, 0x66, 0x66, 0x90 };

static bool is_nop5(const unsigned char *p)
{
	return !memcmp(p, nop5, 5) || !memcmp(p, nop5_k8, 5);
}

/* ENDBR64, and what IBT sealing writes over it in the kernels we know */
static const unsigned char endbr[][KSYM_ENDBR_LEN] = {
	{ 0xf3, 0x0f, 0x1e, 0xfa },	/* endbr64 */
	{ 0x66, 0x0f, 0x1f, 0x00 },	/* osp nopl (%rax) */
	{ 0x0f, 0x1f, 0x40, 0xd6 },	/* nopl -42(%rax) */
	{ 0x0f, 0x1f, 0x40, 0x00 },	/* nopl 0(%rax) */
};

static bool is_endbr(const unsigned char *p)
{
	size_t i;

	for (i = 0; i < sizeof(endbr) / sizeof(endbr[0]); i++)
		if (!memcmp(p, endbr[i], 4))
			return true;
	return false;
}

static int x86_site(const unsigned char *text, size_t len, uint64_t addr, uint64_t *call)
{
	int off;

	*call = 0;
	for (off = 0; off <= 4; off += 4) {
		const unsigned char *p = text + off;
		int32_t rel;

		/* past 4 bytes only when they are ENDBR64: a label just before a
		 * function would otherwise claim the function's site */
		if ((size_t)off + 5 > len || (off && !is_endbr(text)))
			break;
		if (is_nop5(p))
			return off;
		/* traced now: a call */
		if (p[0] == 0xe8) {
			memcpy(&rel, p + 1, 4);
			*call = addr + off + 5 + (int64_t)rel;
			return off;
		}
		/*
		 * Or a jmp, where a BPF trampoline alone traces the function and
		 * returns to its caller itself (fexit; seen on 7.3.4).
		 * It goes to the module area, where a notrace function's tail
		 * call seldom does; there the caller checks it as a call.
		 */
		if (p[0] == 0xe9) {
			memcpy(&rel, p + 1, 4);
			*call = addr + off + 5 + (int64_t)rel;
			if (*call >= KSYM_X86_MODULE_AREA)
				return off;
			*call = 0;
			return -1;
		}
		/*
		 * Mid-patch (text_poke_bp): int3 over the first byte, the tail
		 * still the NOP's (a site), or a call's or jmp's rel32 being
		 * patched in or out (a link detached just before is unpatched a
		 * grace period later): read again, this may be int3 padding as
		 * well.
		 */
		if (p[0] == 0xcc) {
			if (!memcmp(p + 1, nop5 + 1, 4) || !memcmp(p + 1, nop5_k8 + 1, 4))
				return off;
			memcpy(&rel, p + 1, 4);
			*call = addr + off + 5 + (int64_t)rel;
			return -EAGAIN;
		}
	}
	return -1;
}

bool ksym_site__endbr64(const unsigned char p[KSYM_ENDBR_LEN])
{
	return !memcmp(p, endbr[0], KSYM_ENDBR_LEN);
}

const struct ksym_site_arch ksym_site_x86_64 = {
	.name = "x86-64",
	.site = x86_site,
	.off_min = 0,
	.off_max = KSYM_ENDBR_LEN,
	.lead = 0,
	.calls_checked = true,
};
