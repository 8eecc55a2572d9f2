// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * What the running kernel can do, asked of the kernel itself (a symbol, a
 * sysfs file, a link it must refuse), never read off its version: kprobes,
 * kprobe.multi, bpf_get_func_ip() in kprobes. Each answer is kept for the
 * process: --compare and the daemon ask again and again.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <linux/capability.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <ksym/ksym.h>

#include "kernel.h"

/* Whether the running kernel has text symbol name: 1, 0, or -1 where it cannot tell. */
int kernel_has_symbol(const char *name)
{
	struct ksym_parse_opts po = { .sz = sizeof(po), .names = &name, .name_cnt = 1,
				      .text_only = true };
	struct ksym_table *t = ksym_table__load(KSYM_FMT_KALLSYMS, "/proc/kallsyms", &po);
	int has = t ? ksym_table__cnt(t) > 0 : -1;

	ksym_table__free(t);
	return has;
}

/*
 * Whether this kernel can probe a function at all: a kprobe PMU (classic
 * kprobes), or fprobe (kprobe.multi), which its own symbols tell. Asked first,
 * so that a kernel without either says so, not whichever file fails next.
 */
bool kernel_can_probe(void)
{
	static int known = -1;	/* the kernel's, once per process: resolve and attach ask */

	if (known < 0 && kernel_has_kprobes())
		known = 1;
	/* cannot tell: let the attach say what fails */
	if (known < 0)
		known = kernel_has_symbol("register_fprobe") != 0;
	return known;
}

/* The perf kprobe PMU: without it there are no kprobes to fall back on. */
bool kernel_has_kprobes(void)
{
	return !access("/sys/bus/event_source/devices/kprobe/type", F_OK);
}

/*
 * Debian's kernels add kernel.perf_event_paranoid=3 (their default), under
 * which perf_event_open(), and so every classic kprobe, needs CAP_SYS_ADMIN:
 * CAP_PERFMON is not enough there.
 */
bool kernel_kprobes_need_admin(void)
{
	int level = 0;
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");

	if (f) {
		if (fscanf(f, "%d", &level) != 1)
			level = 0;
		fclose(f);
	}
	return level > 2 && !ksym__capable(CAP_SYS_ADMIN);
}

/* The perf kprobe PMU's type (sysfs), or a negative errno. */
int kernel_kprobe_pmu(void)
{
	FILE *f = fopen("/sys/bus/event_source/devices/kprobe/type", "re");
	int type = -1;

	if (!f)
		return -errno;
	if (fscanf(f, "%d", &type) != 1)
		type = -EINVAL;
	fclose(f);
	return type;
}

/* "r0 = 0; exit", loaded by hand (no object, no BTF, no map) */
static int empty_prog(enum bpf_prog_type prog_type, struct bpf_prog_load_opts *po)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};

	return bpf_prog_load(prog_type, "ksa_floor", "GPL", insns, 2, po);
}

/* The floor's program, for links of type (0: classic kprobes). Its fd or -errno. */
int kernel_empty_prog(enum bpf_attach_type type)
{
	LIBBPF_OPTS(bpf_prog_load_opts, po, .expected_attach_type = type);

	return empty_prog(BPF_PROG_TYPE_KPROBE, &po);
}

int kernel_empty_tracing_prog(enum bpf_attach_type type, int btf_obj_fd)
{
	/* (no attach_btf_id: a multi link's functions come with the link) */
	LIBBPF_OPTS(bpf_prog_load_opts, po, .expected_attach_type = type,
		    .attach_btf_obj_fd = btf_obj_fd > 0 ? btf_obj_fd : 0);

	return empty_prog(BPF_PROG_TYPE_TRACING, &po);
}

/*
 * bpf_get_func_ip() in a classic kprobe's program came with Linux 5.15:
 * before, the counter keys on the IP the kprobe saved.
 */
bool kernel_kprobes_have_func_ip(void)
{
	static int known = -1;	/* once a process: --compare loads every round */

	/* an error (no permission) says nothing: the load will */
	if (known < 0)
		known = libbpf_probe_bpf_helper(BPF_PROG_TYPE_KPROBE, BPF_FUNC_get_func_ip, NULL) != 0;
	return known;
}

/*
 * kprobe.multi at all. A link of more functions than one may hold is E2BIG
 * where the kernel has it (EFAULT where it tries to read them all first), and
 * is refused before any is read; EOPNOTSUPP where the kernel was built
 * without CONFIG_FPROBE, EINVAL where it does not know the attach type
 * (before Linux 5.18). Asked before libbpf is given a pattern, which it
 * resolves in full before the kernel can say no, and where a first link
 * fails as a whole.
 */
bool kernel_has_multi(void)
{
	static const unsigned long addr;
	LIBBPF_OPTS(bpf_link_create_opts, lo, .kprobe_multi.addrs = &addr,
		    .kprobe_multi.cnt = MULTI_MAX + 1);
	static int known = -1;	/* once a process: --compare asks every round */
	int prog, fd;

	if (known < 0) {
		prog = kernel_empty_prog(BPF_TRACE_KPROBE_MULTI);
		if (prog < 0)
			return true;	/* cannot tell: the attach says */
		fd = bpf_link_create(prog, 0, BPF_TRACE_KPROBE_MULTI, &lo);
		known = fd >= 0 || errno == E2BIG || errno == EFAULT;
		if (fd >= 0)
			close(fd);
		close(prog);
	}
	return known;
}

const char *kernel_release(void)
{
	static struct utsname u;

	if (!u.release[0])
		uname(&u);
	return u.release;
}
