// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Each architecture's reading of a function's entry (site/x86.c,
 * site/arm64.c), with bytes seen in real kernels' text; both are checked
 * on any machine. Whole kernels' entries against tracefs' lists are checked
 * in the VM tests.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <ksym/ksym.h>
#include "ksym_site.h"

static int x86(const unsigned char *text, size_t len, uint64_t addr, uint64_t *call)
{
	return ksym_site_x86_64.site(text, len, addr, call);
}

static int arm64(const unsigned char *text, size_t len, uint64_t addr, uint64_t *call)
{
	return ksym_site_arm64.site(text, len, addr, call);
}

/* x86-64: bytes seen in the 6.12 guest, and 5.10's on an emulated CPU. */
static void test_x86_64(void **state)
{
	static const unsigned char nop_at0[16] = { 0x0f, 0x1f, 0x44, 0x00, 0x00, 0x48, 0xba };
	static const unsigned char endbr_nop[16] = { 0xf3, 0x0f, 0x1e, 0xfa, 0x0f, 0x1f, 0x44,
						     0x00, 0x00, 0x55 };
	/* sealed ENDBR64 (osp nopl), then traced: call rel32 = 0x100 */
	static const unsigned char sealed_call[16] = { 0x66, 0x0f, 0x1f, 0x00, 0xe8, 0x00, 0x01,
						       0x00, 0x00 };
	/* traced at the entry, a call backwards: rel32 = -0x20 */
	static const unsigned char call_at0[16] = { 0xe8, 0xe0, 0xff, 0xff, 0xff, 0x90 };
	/* int3 over the NOP's first byte while it is being patched */
	static const unsigned char int3_nop[16] = { 0xf3, 0x0f, 0x1e, 0xfa, 0xcc, 0x1f, 0x44,
						    0x00, 0x00 };
	/* notrace: push %rbx; mov %rdi,%rbx; call (a call, but at +3, not a site) */
	static const unsigned char notrace[16] = { 0x53, 0x48, 0x89, 0xfb, 0xe9, 0x00, 0x00,
						   0x00, 0x00 };
	static const unsigned char label[16] = { 0x00, 0x00, 0x00, 0x00, 0x0f, 0x1f, 0x44, 0x00,
						 0x00, 0x53 };
	static const unsigned char ret_pad[16] = { 0xc3, 0xcc, 0xcc, 0xcc, 0xcc, 0x66, 0x66 };
	/* int3 over a call's first byte: patched in or out right now */
	static const unsigned char int3_call[16] = { 0xcc, 0x00, 0x01, 0x00, 0x00, 0x90 };
	/* 5.10 on an emulated CPU: K8's 5-byte NOP at the entry, no ENDBR64 */
	static const unsigned char k8_nop[16] = { 0x66, 0x66, 0x66, 0x66, 0x90, 0x55 };
	static const unsigned char int3_k8[16] = { 0xcc, 0x66, 0x66, 0x66, 0x90, 0x55 };
	uint64_t call;

	(void)state;
	assert_int_equal(x86(nop_at0, 16, 0x1000, &call), 0);
	assert_int_equal(call, 0);
	assert_int_equal(x86(endbr_nop, 16, 0x1000, &call), 4);
	assert_int_equal(call, 0);
	assert_int_equal(x86(sealed_call, 16, 0x1000, &call), 4);
	assert_int_equal(call, 0x1000 + 4 + 5 + 0x100);
	assert_int_equal(x86(call_at0, 16, 0x1000, &call), 0);
	assert_int_equal(call, 0x1000 + 5 - 0x20);
	assert_int_equal(x86(int3_nop, 16, 0x1000, &call), 4);
	assert_int_equal(call, 0);
	assert_int_equal(x86(int3_call, 16, 0x1000, &call), -EAGAIN);
	assert_int_equal(call, 0x1000 + 5 + 0x100);
	assert_int_equal(x86(k8_nop, 16, 0x1000, &call), 0);
	assert_int_equal(call, 0);
	assert_int_equal(x86(int3_k8, 16, 0x1000, &call), 0);
	assert_int_equal(call, 0);
	assert_int_equal(x86(notrace, 16, 0x1000, &call), -1);
	/* a label 4 bytes before a function: the function's site is not its own */
	assert_int_equal(x86(label, 16, 0x1000, &call), -1);
	/* ret, then int3 padding: no NOP's tail after the int3 */
	assert_int_equal(x86(ret_pad, 16, 0x1000, &call), -1);
	/* too short to hold a site past ENDBR64 */
	assert_int_equal(x86(endbr_nop, 8, 0x1000, &call), -1);
}

/*
 * arm64: bytes seen in the 7.3.4 guest at vfs_read (0xffffad6f12fa8318),
 * untraced, traced by kprobe.multi (a bl to ftrace_caller at
 * 0xffffad6f12a4f2b8), and under a classic kprobe; a BTI before the mark is
 * written here (Debian's kernels are built without BTI).
 */
static void test_arm64(void **state)
{
	const uint64_t at = 0xffffad6f12fa8318ull;
	/* mov x9, x30; nop; paciasp; sub sp, sp, #0xa0 */
	static const unsigned char untraced[16] = { 0xe9, 0x03, 0x1e, 0xaa, 0x1f, 0x20, 0x03, 0xd5,
						    0x3f, 0x23, 0x03, 0xd5, 0xff, 0x83, 0x02, 0xd1 };
	/* mov x9, x30; bl ftrace_caller */
	static const unsigned char traced[16] = { 0xe9, 0x03, 0x1e, 0xaa, 0xe7, 0x9b, 0xea, 0x97,
						  0x3f, 0x23, 0x03, 0xd5 };
	/* brk #0x4 over the mov: a classic kprobe at the symbol */
	static const unsigned char kprobed[16] = { 0x80, 0x00, 0x20, 0xd4, 0x1f, 0x20, 0x03, 0xd5,
						   0x3f, 0x23, 0x03, 0xd5 };
	/* bti c; mov x9, x30; nop */
	static const unsigned char bti[16] = { 0x5f, 0x24, 0x03, 0xd5, 0xe9, 0x03, 0x1e, 0xaa,
					       0x1f, 0x20, 0x03, 0xd5 };
	/* bti c; mov x9, x30; bl forwards by 0x100 instructions */
	static const unsigned char bti_bl[16] = { 0x5f, 0x24, 0x03, 0xd5, 0xe9, 0x03, 0x1e, 0xaa,
						  0x00, 0x01, 0x00, 0x94 };
	/* notrace: paciasp; stp x29, x30, [sp, #-16]! */
	static const unsigned char notrace[16] = { 0x3f, 0x23, 0x03, 0xd5, 0xfd, 0x7b, 0xbf, 0xa9 };
	/* the compiler's two NOPs that ftrace never took (force_pte_mapping) */
	static const unsigned char untaken[16] = { 0x1f, 0x20, 0x03, 0xd5, 0x1f, 0x20, 0x03, 0xd5,
						   0x1f, 0x20, 0x03, 0xd5 };
	/* the mark, then no NOP and no bl */
	static const unsigned char mark_ret[16] = { 0xe9, 0x03, 0x1e, 0xaa, 0xc0, 0x03, 0x5f, 0xd6 };
	/* freed text: zeros */
	static const unsigned char zeros[16];
	uint64_t call;

	(void)state;
	assert_int_equal(arm64(untraced, 16, at, &call), 4);
	assert_int_equal(call, 0);
	assert_int_equal(arm64(traced, 16, at, &call), 4);
	assert_int_equal(call, 0xffffad6f12a4f2b8ull);
	assert_int_equal(arm64(kprobed, 16, at, &call), 4);
	assert_int_equal(call, 0);
	assert_int_equal(arm64(bti, 16, 0x1000, &call), 8);
	assert_int_equal(call, 0);
	assert_int_equal(arm64(bti_bl, 16, 0x1000, &call), 8);
	assert_int_equal(call, 0x1000 + 8 + 0x400);
	assert_int_equal(arm64(notrace, 16, at, &call), -1);
	assert_int_equal(arm64(untaken, 16, at, &call), -1);
	assert_int_equal(arm64(mark_ret, 16, at, &call), -1);
	assert_int_equal(arm64(zeros, 16, at, &call), -1);
	/* too short to hold the mark and the site */
	assert_int_equal(arm64(untraced, 4, at, &call), -1);
	assert_int_equal(arm64(bti, 8, 0x1000, &call), -1);
	/* x86-64's entries are no arm64 site, nor arm64's an x86-64 one */
	assert_int_equal(arm64((const unsigned char *)"\xf3\x0f\x1e\xfa\x0f\x1f\x44\x00\x00\x55\x48\x89",
			       16, 0x1000, &call), -1);
	assert_int_equal(x86(untraced, 16, at, &call), -1);
	assert_int_equal(x86(traced, 16, at, &call), -1);
}

/* The architectures' offsets, which tracefs' sites are joined with kallsyms by. */
static void test_offsets(void **state)
{
	unsigned char b[16] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };
	uint64_t call;

	(void)state;
	assert_int_equal(ksym_site_x86_64.off_min, 0);
	assert_int_equal(ksym_site_x86_64.off_max, 4);
	assert_int_equal(ksym_site_x86_64.lead, 0);
	assert_int_equal(ksym_site_arm64.off_min, 4);
	assert_int_equal(ksym_site_arm64.off_max, 8);
	assert_int_equal(ksym_site_arm64.lead, 4);
	/* the public reading is this build's architecture's */
#if KSYM_SITE_TEXT_CHECK
	assert_int_equal(ksym__ftrace_site(b, 16, 0x1000, &call),
			 ksym_site_native->site(b, 16, 0x1000, &call));
#else
	assert_int_equal(ksym__ftrace_site(b, 16, 0x1000, &call), -1);
#endif
}

/*
 * Where a listed site's function starts: kept in two flags as a site table is
 * written from kallsyms' symbols, read back as the function's own address.
 */
static void test_entry(void **state)
{
	const struct ksym_site_arch *A = KSYM_SITE_TEXT_CHECK ? ksym_site_native : &ksym_site_x86_64;
	const uint64_t f = 0xffffffff81200000ull;
	struct ksym sym = { .addr = f, .name = "vfs_read", .type = 'T' };
	unsigned int off[2] = { A->off_min, A->off_max }, i;

	(void)state;
	assert_int_equal(ksym_site__entry_flag(f, f + A->off_min), KSYM_F_ENTRY_OFF_MIN);
	assert_int_equal(ksym_site__entry_flag(f, f + A->off_max), KSYM_F_ENTRY_OFF_MAX);
	assert_int_equal(ksym_site__entry_flag(f, f + A->off_max + 1), 0);
	assert_int_equal(ksym_site__entry_flag(f, f - 4), 0);
	/* a kallsyms symbol is its function's address, wherever its site is */
	assert_true(ksym_site__entry(&sym, f + A->off_max) == f);
	for (i = 0; i < 2; i++) {
		/* a site of a table: its flag says how far back the function starts */
		struct ksym site = { .addr = f + off[i], .name = "vfs_read",
				     .flags = KSYM_F_TRACEABLE | ksym_site__entry_flag(f, f + off[i]) };

		assert_true(ksym_site__entry(&site, site.addr) == f);
		/* tracefs' list says nothing of it: not known */
		site.flags = KSYM_F_TRACEABLE;
		assert_true(ksym_site__entry(&site, site.addr) == 0);
	}
	/* the bits are none of the public ones */
	assert_int_equal((KSYM_F_ENTRY_OFF_MIN | KSYM_F_ENTRY_OFF_MAX) &
			 (KSYM_F_UNRESOLVED | KSYM_F_TRACEABLE | KSYM_F_BLACKLISTED | KSYM_F_AMBIGUOUS), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_x86_64),
		cmocka_unit_test(test_arm64),
		cmocka_unit_test(test_offsets),
		cmocka_unit_test(test_entry),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
