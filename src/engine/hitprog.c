// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The hit counter by hand: count_hit() of bpf/ksa_common.bpf.h reduced to
 * what a kprobe.multi or classic kprobe run counts, one number a function,
 * from the moment hitprog__arm() says the attach is over.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <asm/ptrace.h>

#include <bpf/bpf.h>

#include "hitprog.h"

#define INSN(c, d, s, o, i) ((struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s), \
						.off = (o), .imm = (i) })
#define MOVI(d, i)	INSN(BPF_ALU64 | BPF_MOV | BPF_K, d, 0, 0, i)
#define MOV(d, s)	INSN(BPF_ALU64 | BPF_MOV | BPF_X, d, s, 0, 0)
#define ADDI(d, i)	INSN(BPF_ALU64 | BPF_ADD | BPF_K, d, 0, 0, i)
#define CALL(f)		INSN(BPF_JMP | BPF_CALL, 0, 0, 0, f)
#define STDW(d, o, i)	INSN(BPF_ST | BPF_MEM | BPF_DW, d, 0, o, i)
#define STW(d, o, i)	INSN(BPF_ST | BPF_MEM | BPF_W, d, 0, o, i)
#define STXDW(d, s, o)	INSN(BPF_STX | BPF_MEM | BPF_DW, d, s, o, 0)
#define LDXDW(d, s, o)	INSN(BPF_LDX | BPF_MEM | BPF_DW, d, s, o, 0)
/* *(u64 *)(d + o) += s, atomically (BPF_ATOMIC's BPF_ADD, the old XADD) */
#define XADDDW(d, s, o)	INSN(BPF_STX | BPF_ATOMIC | BPF_DW, d, s, o, BPF_ADD)
#define R0 BPF_REG_0
#define R1 BPF_REG_1
#define R2 BPF_REG_2
#define R3 BPF_REG_3
#define R4 BPF_REG_4
#define R6 BPF_REG_6
#define R10 BPF_REG_10

/* the key at fp-8, a zeroed count below it for a function's first hit */
#define KEY_OFF (-8)
#define ZERO_OFF (-16)

struct prog {
	struct bpf_insn insn[64];	/* 41 at most */
	size_t n;
};

static void emit(struct prog *p, struct bpf_insn i)
{
	/* (a program that outgrew the buffer is this file's bug: assemble() is fixed) */
	if (p->n < sizeof(p->insn) / sizeof(p->insn[0]))
		p->insn[p->n++] = i;
	else
		abort();
}

static void emit_map(struct prog *p, int reg, int map_fd)
{
	emit(p, INSN(BPF_LD | BPF_DW | BPF_IMM, reg, BPF_PSEUDO_MAP_FD, 0, map_fd));
	emit(p, INSN(0, 0, 0, 0, 0));
}

static void emit_lookup(struct prog *p, int map_fd)
{
	emit_map(p, R1, map_fd);
	emit(p, MOV(R2, R10));
	emit(p, ADDI(R2, KEY_OFF));
	emit(p, CALL(BPF_FUNC_map_lookup_elem));
}

/*
 * Where a classic kprobe's handler finds the saved IP, and how far past the
 * probed address it is: x86-64's int3 leaves it one past, arm64's BRK at it.
 */
#if defined(__x86_64__)
#define REGS_IP_OFF offsetof(struct pt_regs, rip)
#define REGS_IP_PAST 1
#elif defined(__aarch64__)
#define REGS_IP_OFF offsetof(struct user_pt_regs, pc)
#define REGS_IP_PAST 0
#else
#error "the saved IP's place in struct pt_regs is not known for this architecture"
#endif

static size_t assemble(struct prog *p, int map_fd, int armed_fd, enum hitprog_key key,
		       pid_t self)
{
	size_t to_inc, to_out[4], i;

	emit(p, MOV(R6, R1));
	/*
	 * Not armed yet: the link is still being made. Every site the kernel has
	 * enabled runs this program at once; those hits belong to the attach,
	 * not to the run the report counts.
	 */
	emit(p, STW(R10, KEY_OFF, 0));
	emit_lookup(p, armed_fd);
	to_out[2] = p->n;
	emit(p, INSN(BPF_JMP | BPF_JEQ | BPF_K, R0, 0, 0, 0));
	emit(p, LDXDW(R1, R0, 0));
	to_out[3] = p->n;
	emit(p, INSN(BPF_JMP | BPF_JEQ | BPF_K, R1, 0, 0, 0));
	if (self) {
		/* ksymattach's own work while attached is not what was asked for */
		emit(p, CALL(BPF_FUNC_get_current_pid_tgid));
		emit(p, INSN(BPF_ALU64 | BPF_RSH | BPF_K, R0, 0, 0, 32));
		to_out[0] = p->n;
		emit(p, INSN(BPF_JMP | BPF_JEQ | BPF_K, R0, 0, 0, self));
	}
	if (key == HITPROG_KEY_REGS) {
		/* a kprobe's handler sees the IP as its trap left it */
		emit(p, LDXDW(R0, R6, REGS_IP_OFF));
		if (REGS_IP_PAST)
			emit(p, ADDI(R0, -REGS_IP_PAST));
	} else {
		emit(p, MOV(R1, R6));
		emit(p, CALL(BPF_FUNC_get_func_ip));
	}
	emit(p, STXDW(R10, R0, KEY_OFF));
	emit_lookup(p, map_fd);
	to_inc = p->n;
	emit(p, INSN(BPF_JMP | BPF_JNE | BPF_K, R0, 0, 0, 0));
	emit(p, STDW(R10, ZERO_OFF, 0));
	emit_map(p, R1, map_fd);
	emit(p, MOV(R2, R10));
	emit(p, ADDI(R2, KEY_OFF));
	emit(p, MOV(R3, R10));
	emit(p, ADDI(R3, ZERO_OFF));
	emit(p, MOVI(R4, BPF_NOEXIST));
	emit(p, CALL(BPF_FUNC_map_update_elem));
	emit_lookup(p, map_fd);
	to_out[1] = p->n;
	emit(p, INSN(BPF_JMP | BPF_JEQ | BPF_K, R0, 0, 0, 0));
	p->insn[to_inc].off = p->n - to_inc - 1;
	/* (the map is shared by all CPUs: one atomic add) */
	emit(p, MOVI(R1, 1));
	emit(p, XADDDW(R0, R1, 0));
	for (i = self ? 0 : 1; i < 4; i++)
		p->insn[to_out[i]].off = p->n - to_out[i] - 1;
	emit(p, MOVI(R0, 0));
	emit(p, INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0));
	return p->n;
}

/*
 * The bpf syscall itself: libbpf's wrappers, first called in a process,
 * probe the kernel for memcg accounting and for object names by loading two
 * programs (in the fleet test's boot unit 41 ms of a 110 ms load). Every
 * kernel this program attaches on has names.
 */
static int sys_bpf(int cmd, union bpf_attr *a)
{
	int fd = syscall(__NR_bpf, cmd, a, sizeof(*a));

	return fd < 0 ? -errno : fd;
}

/*
 * One u64 a function in a plain hash, every slot made with the map. Not
 * per-CPU: preallocating per-CPU slots allocates each one apart (10,000 of
 * them were 90 ms of a warm run's load in the 7.3.4 guest). Not made at the
 * first hit (BPF_F_NO_PREALLOC): a cold run over the whole kernel on 7.3.4
 * then did not finish in minutes where preallocated slots take 8 s. (The
 * likely cause, not confirmed: the map's allocator refilling while its own
 * functions are attached and hit for the first time.)
 */
static int map_create(enum bpf_map_type type, size_t slots, const char *name)
{
	struct rlimit inf = { RLIM_INFINITY, RLIM_INFINITY };
	union bpf_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.map_type = type;
	a.key_size = type == BPF_MAP_TYPE_ARRAY ? sizeof(__u32) : sizeof(__u64);
	a.value_size = sizeof(__u64);
	a.max_entries = slots;
	snprintf(a.map_name, sizeof(a.map_name), "%s", name);
	fd = sys_bpf(BPF_MAP_CREATE, &a);
	/* before 5.11 maps were charged to RLIMIT_MEMLOCK: raised as libbpf would */
	if (fd == -EPERM && !setrlimit(RLIMIT_MEMLOCK, &inf))
		fd = sys_bpf(BPF_MAP_CREATE, &a);
	return fd;
}

static bool is_tracing(enum bpf_attach_type type)
{
	return type == KSA_TRACE_FENTRY_MULTI || type == KSA_TRACE_FEXIT_MULTI ||
	       type == KSA_TRACE_FSESSION_MULTI;
}

static int prog_load(const struct prog *p, size_t n, enum bpf_attach_type type, int btf_obj_fd,
		     char *log, size_t log_len)
{
	union bpf_attr a;
	int fd, tries = 0;

	memset(&a, 0, sizeof(a));
	a.prog_type = is_tracing(type) ? BPF_PROG_TYPE_TRACING : BPF_PROG_TYPE_KPROBE;
	a.expected_attach_type = type;
	/* tracing_multi: no function's id (the kernel's own dummy), a module's BTF or vmlinux's */
	a.attach_btf_obj_fd = btf_obj_fd;
	a.insns = (uintptr_t)p->insn;
	a.insn_cnt = n;
	a.license = (uintptr_t)"Dual BSD/GPL";
	memcpy(a.prog_name, "ksa_hits", 9);
	if (log) {
		a.log_buf = (uintptr_t)log;
		a.log_size = log_len;
		a.log_level = 1;
	}
	/* the verifier gives up with EAGAIN when a signal comes (a reload's SIGHUP) */
	do
		fd = sys_bpf(BPF_PROG_LOAD, &a);
	while (fd == -EAGAIN && ++tries < HITPROG_LOAD_TRIES);
	return fd;
}

/* The log's last non-empty line: the verifier's reason. */
static void last_line(char *log, size_t len)
{
	char *end = log + strnlen(log, len), *s;

	while (end > log && (end[-1] == '\n' || end[-1] == ' '))
		*--end = '\0';
	s = memrchr(log, '\n', end - log);
	if (s)
		memmove(log, s + 1, strlen(s + 1) + 1);
}

int hitprog__load(struct hitprog *hp, enum bpf_attach_type type, enum hitprog_key key,
		  size_t slots, pid_t self, char *log, size_t log_len)
{
	struct prog p = {};
	size_t n;
	int err;

	hp->prog_fd = hp->armed_fd = -1;
	hp->extra = NULL;
	hp->extra_cnt = 0;
	hp->map_fd = map_create(BPF_MAP_TYPE_HASH, slots, "stats");
	if (hp->map_fd < 0) {
		err = hp->map_fd;
		hp->map_fd = -1;
		return err;
	}
	/* one u64, 0 until hitprog__arm() */
	hp->armed_fd = map_create(BPF_MAP_TYPE_ARRAY, 1, "armed");
	if (hp->armed_fd < 0) {
		err = hp->armed_fd;
		hp->armed_fd = -1;
		hitprog__close(hp);
		return err;
	}
	n = assemble(&p, hp->map_fd, hp->armed_fd, key, self);
	hp->prog_fd = prog_load(&p, n, type, 0, NULL, 0);
	if (hp->prog_fd >= 0)
		return 0;
	err = hp->prog_fd;
	if (log && log_len && (err == -EINVAL || err == -EACCES)) {
		/* again, for the reason */
		log[0] = '\0';
		hp->prog_fd = prog_load(&p, n, type, 0, log, log_len);
		if (hp->prog_fd >= 0) {
			close(hp->prog_fd);
			hp->prog_fd = -1;
		}
		last_line(log, log_len);
	}
	hitprog__close(hp);
	return err;
}

int hitprog__load_extra(struct hitprog *hp, enum bpf_attach_type type, int btf_obj_fd,
			pid_t self)
{
	struct prog p = {};
	size_t n = assemble(&p, hp->map_fd, hp->armed_fd, HITPROG_KEY_FUNC_IP, self);
	int *v = realloc(hp->extra, (hp->extra_cnt + 1) * sizeof(*v)), fd;

	if (!v)
		return -ENOMEM;
	hp->extra = v;
	fd = prog_load(&p, n, type, btf_obj_fd, NULL, 0);
	if (fd >= 0)
		hp->extra[hp->extra_cnt++] = fd;
	return fd;
}

int hitprog__arm(struct hitprog *hp)
{
	__u32 key = 0;
	__u64 on = 1;
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_fd = hp->armed_fd;
	a.key = (uintptr_t)&key;
	a.value = (uintptr_t)&on;
	a.flags = BPF_ANY;
	return hp->armed_fd < 0 ? -EBADF : sys_bpf(BPF_MAP_UPDATE_ELEM, &a);
}

void hitprog__close(struct hitprog *hp)
{
	if (hp->prog_fd >= 0)
		close(hp->prog_fd);
	if (hp->map_fd >= 0)
		close(hp->map_fd);
	if (hp->armed_fd >= 0)
		close(hp->armed_fd);
	while (hp->extra_cnt)
		close(hp->extra[--hp->extra_cnt]);
	free(hp->extra);
	hp->extra = NULL;
	hp->prog_fd = hp->map_fd = hp->armed_fd = -1;
}
