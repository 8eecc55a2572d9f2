// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Each architecture's reading of a function's entry (site/x86.c,
 * site/arm64.c), with bytes seen in real kernels' text; both are checked
 * on any machine. Whole kernels' entries against tracefs' lists are checked
 * in the VM tests.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <ksym/ksym.h>
#include "ksym_site.h"
#include "core_file.h"

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
	/*
	 * 7.3.4's vfs_read (0xffffffffac9cc790) under an fexit.multi link: a
	 * jmp to its BPF trampoline, bpf_trampoline_6442575054 [bpf] at
	 * 0xffffffffc0200780; under fentry.multi the same rel32 in a call
	 */
	static const unsigned char fexit[16] = { 0x0f, 0x1f, 0x40, 0xd6, 0xe9, 0xe7, 0x3f, 0x83,
						 0x13, 0x41, 0x57, 0x41, 0x56 };
	/* notrace: a tail call into vmlinux's text, rel32 = -0x20 */
	static const unsigned char tail[16] = { 0xe9, 0xe0, 0xff, 0xff, 0xff, 0xcc };
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
	assert_int_equal(x86(fexit, 16, 0xffffffffac9cc790ull, &call), 4);
	assert_true(call == 0xffffffffc0200780ull);
	/* tail calls into vmlinux's text, from vmlinux and from a module: no site */
	assert_int_equal(x86(tail, 16, 0xffffffff81001000ull, &call), -1);
	assert_int_equal(call, 0);
	assert_int_equal(x86(tail, 16, 0xffffffffc0000010ull, &call), -1);
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

/* An instruction with a rel32 at mem[off], as if at address from: to where it goes. */
static void put_rel32(unsigned char *mem, size_t off, unsigned char op, uint64_t from, uint64_t to)
{
	int32_t rel = (int32_t)(to - (from + 5));

	mem[off] = op;
	memcpy(mem + off + 1, &rel, 4);
}

static struct ksym_table *load_syms(const char *text)
{
	char path[] = "/tmp/ksym-site-ks.XXXXXX";
	struct ksym_table *t;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_true(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
	close(fd);
	t = ksym_table__load(KSYM_FMT_KALLSYMS, path, NULL);
	unlink(path);
	assert_non_null(t);
	return t;
}

/*
 * x86-64 candidates read through a core file while a BPF trampoline traces
 * them, as 7.3.4 leaves them: fentry.multi calls the trampoline, fexit.multi
 * jumps to it (it returns to the function's caller itself). The table is
 * /proc/kallsyms', which lists the trampoline, or the kernel's own in memory,
 * which does not; a build cache's site is checked in the text too. A tail
 * call to a function, or a module function's jmp into its own body, is no
 * site.
 */
static void test_x86_64_bpf_trampoline(void **state)
{
	const uint64_t T = 0xffffffff81000000ull, M = KSYM_X86_MODULE_AREA, tramp = M + 0x800;
	static const unsigned char nop5[5] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };
	static const unsigned char endbr[4] = { 0xf3, 0x0f, 0x1e, 0xfa };
	static const char vmlinux[] = "ffffffff81000000 T _stext\n"
				      "ffffffff81000100 T ftrace_caller\n"
				      "ffffffff81000200 T f_nop\n"
				      "ffffffff81000300 T f_fexit\n"
				      "ffffffff81000400 T f_fentry\n"
				      "ffffffff81000500 T f_fexit_new\n"
				      "ffffffff81000600 T f_tail\n"
				      "ffffffff81000700 T f_patching_jmp\n"
				      "ffffffff81000f00 T _etext\n"
				      "ffffffffc0000100 t m_tail\t[mymod]\n"
				      "ffffffffc0000200 t m_fn\t[mymod]\n"
				      "ffffffffc0000300 t m_loop\t[mymod]\n"
				      "ffffffffc0000400 t m_fexit\t[mymod]\n";
	static const struct {
		const char *name;
		int want, off;
	} cases[] = {
		{ "f_nop", 1, 0 },	  { "f_fexit", 1, 4 }, { "f_fentry", 1, 4 },
		{ "f_fexit_new", 1, 4 },  { "f_tail", 0, 0 },  { "f_patching_jmp", 1, 4 },
		{ "m_tail", 0, 0 },	  { "m_fn", 1, 0 },    { "m_loop", 0, 0 },
		{ "m_fexit", 1, 0 },
	};
	static unsigned char text[4096], mod[4096];
	const struct core_seg seg[2] = { { T, text, sizeof(text) }, { M, mod, sizeof(mod) } };
	char core[] = "/tmp/ksym-site-core.XXXXXX", syms[1024];
	uint64_t anchors[KSYM_ANCHOR_CNT] = { 0 };
	struct ksym sym;
	uint64_t loc;
	size_t i;
	int fd, kmem;

	(void)state;
	/* the candidates are read with this build's architecture's reading */
	if (KSYM_SITE_TEXT_CHECK && ksym_site_native != &ksym_site_x86_64)
		skip();
	memset(text, 0x90, sizeof(text));
	memset(mod, 0x90, sizeof(mod));
	memcpy(text + 0x200, nop5, 5);
	memcpy(text + 0x300, endbr, 4);
	put_rel32(text, 0x304, 0xe9, T + 0x304, tramp);
	memcpy(text + 0x400, endbr, 4);
	put_rel32(text, 0x404, 0xe8, T + 0x404, tramp);
	memcpy(text + 0x500, endbr, 4);
	put_rel32(text, 0x504, 0xe9, T + 0x504, tramp + 0x40);	/* listed nowhere */
	memcpy(text + 0x600, endbr, 4);
	put_rel32(text, 0x604, 0xe9, T + 0x604, T + 0x200);
	memcpy(text + 0x700, endbr, 4);
	put_rel32(text, 0x704, 0xcc, T + 0x704, tramp);
	put_rel32(mod, 0x100, 0xe9, M + 0x100, M + 0x200);
	memcpy(mod + 0x200, nop5, 5);
	put_rel32(mod, 0x300, 0xe9, M + 0x300, M + 0x3a7);
	put_rel32(mod, 0x400, 0xe9, M + 0x400, tramp);
	fd = mkstemp(core);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(write_core_segs(core, seg, 2), 0);

	for (kmem = 0; kmem <= 1; kmem++) {
		struct ksym_site_check c = { .kind = KSYM_SITES_CANDIDATES,
					     .no_trampolines = kmem };

		snprintf(syms, sizeof(syms), "%s%s", vmlinux,
			 kmem ? "" : "ffffffffc0000800 t bpf_trampoline_6442575054\t[bpf]\n");
		c.syms = load_syms(syms);
		c.kcore = ksym_kcore__open(core);
		assert_non_null(c.kcore);
		for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			assert_int_equal(ksym_table__find(c.syms, cases[i].name, NULL, &sym, 1), 1);
			loc = 0;
			if (ksym_site__loc(&c, &sym, &loc) != cases[i].want)
				fail_msg("%s (%s): a site is %s, the check says otherwise",
					 cases[i].name, kmem ? "kmem" : "kallsyms",
					 cases[i].want ? "there" : "not there");
			if (cases[i].want)
				assert_true(loc == sym.addr + cases[i].off);
		}
		ksym_kcore__close(c.kcore);
		ksym_table__free((struct ksym_table *)c.syms);
	}

	/* a build cache's sites, rebased: the jmp is at the site, a tail call is not */
	{
		struct ksym_site_check c = { .kind = KSYM_SITES_REBASED, .anchors = anchors };
		struct ksym site = { .addr = T + 0x304, .name = "f_fexit", .type = 'T',
				     .flags = KSYM_F_TRACEABLE };

		anchors[KSYM_ANCHOR_STEXT] = T;
		anchors[KSYM_ANCHOR_ETEXT] = T + 0xf00;
		anchors[KSYM_ANCHOR_FTRACE_CALLER] = T + 0x100;
		ksym_site__bounds_from(&c, anchors);
		c.syms = load_syms(vmlinux);
		c.kcore = ksym_kcore__open(core);
		assert_non_null(c.kcore);
		assert_int_equal(ksym_site__loc(&c, &site, &loc), 1);
		assert_true(loc == T + 0x304);
		site.addr = T + 0x604;
		site.name = "f_tail";
		assert_int_equal(ksym_site__loc(&c, &site, &loc), -ESTALE);
		ksym_kcore__close(c.kcore);
		ksym_table__free((struct ksym_table *)c.syms);
	}
	unlink(core);
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
		cmocka_unit_test(test_x86_64_bpf_trampoline),
		cmocka_unit_test(test_offsets),
		cmocka_unit_test(test_entry),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
