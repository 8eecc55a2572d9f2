// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The ksym iterator's program, and the iterator opened with it.
 *
 * The program is a few dozen instructions assembled here and loaded with the
 * bpf syscall, not a libbpf object: an object's load probes kernel features
 * and parses all of vmlinux BTF for its relocations, which cost more than the
 * walk saves (75-105 ms in the project's TCG guest). What it needs from BTF is
 * one function's id and six field offsets (btf.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <linux/btf.h>

#include "ksym_internal.h"
#include "ksym_iter.h"
#include "ksym_kmem.h"

/* What the program needs to know of the running kernel: struct kallsym_iter's fields. */
enum { F_POS, F_VALUE, F_TYPE, F_NAME, F_MODULE, F_EXPORTED, F_CNT };

static const char *const field_names[F_CNT] = {
	[F_POS] = "pos", [F_VALUE] = "value", [F_TYPE] = "type", [F_NAME] = "name",
	[F_MODULE] = "module_name", [F_EXPORTED] = "exported",
};

struct iter_btf {
	uint32_t func_id;	/* FUNC bpf_iter_ksym: the iterator target */
	int off[F_CNT];		/* byte offsets; -1 unknown */
};

static int btf_find(struct iter_btf *b)
{
	struct ksym_btf_struct s = {
		.name = "kallsym_iter", .fields = field_names, .field_cnt = F_CNT, .off = b->off,
	};
	int err = ksym_btf__scan("bpf_iter_ksym", &b->func_id, &s, 1), i;

	if (err)
		return err;
	/* no such iterator in this kernel */
	if (!b->func_id || !s.found)
		return -EOPNOTSUPP;
	for (i = 0; i < F_CNT; i++)
		if (b->off[i] < 0)
			return -EOPNOTSUPP;
	return 0;
}

static long sys_bpf(int cmd, union bpf_attr *attr)
{
	long r = syscall(__NR_bpf, cmd, attr, sizeof(*attr));

	return r < 0 ? -errno : r;
}

#define ZEROS (REC + REC_HEAD + NAME_LEN + MOD_LEN + 8)
#define VALUE_LEN (ZEROS + FILL)

#define INSN(c, d, s, o, i) ((struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s), \
						.off = (o), .imm = (i) })
#define LDX(sz, d, s, o)	INSN(BPF_LDX | BPF_MEM | (sz), d, s, o, 0)
#define STX(sz, d, s, o)	INSN(BPF_STX | BPF_MEM | (sz), d, s, o, 0)
#define ST(sz, d, o, i)		INSN(BPF_ST | BPF_MEM | (sz), d, 0, o, i)
#define MOV(d, s)		INSN(BPF_ALU64 | BPF_MOV | BPF_X, d, s, 0, 0)
#define ALUI(op, d, i)		INSN(BPF_ALU64 | (op) | BPF_K, d, 0, 0, i)
#define ALU(op, d, s)		INSN(BPF_ALU64 | (op) | BPF_X, d, s, 0, 0)
#define JMPI(op, d, i)		INSN(BPF_JMP | (op) | BPF_K, d, 0, 0, i)	/* to "out" */
#define CALL(f)			INSN(BPF_JMP | BPF_CALL, 0, 0, 0, f)
#define R0 BPF_REG_0
#define R1 BPF_REG_1
#define R2 BPF_REG_2
#define R3 BPF_REG_3
#define R4 BPF_REG_4
#define R6 BPF_REG_6
#define R7 BPF_REG_7
#define R8 BPF_REG_8
#define R9 BPF_REG_9
#define R10 BPF_REG_10

struct prog {
	struct bpf_insn insn[96];	/* 66 at most */
	size_t n;
	size_t out[16];		/* jumps to the exit, patched last */
	size_t out_n;
};

static void emit(struct prog *p, struct bpf_insn i)
{
	p->insn[p->n++] = i;
}

static void emit_out(struct prog *p, struct bpf_insn i)
{
	p->out[p->out_n++] = p->n;
	emit(p, i);
}

/* ctx: struct bpf_iter__ksym { meta; ksym } */
static size_t assemble(struct prog *p, const struct iter_btf *b, int map_fd, bool text_only,
		       bool filter)
{
	size_t i;

	emit(p, LDX(BPF_DW, R6, R1, 0));	/* meta */
	emit(p, LDX(BPF_DW, R7, R1, 8));	/* ksym (NULL it cannot be, the verifier cannot know) */
	emit_out(p, JMPI(BPF_JEQ, R7, 0));
	/* the map's value, addressed directly: no helper call per symbol */
	emit(p, INSN(BPF_LD | BPF_DW | BPF_IMM, R8, BPF_PSEUDO_MAP_VALUE, 0, map_fd));
	emit(p, INSN(0, 0, 0, 0, 0));
	emit(p, LDX(BPF_DW, R2, R7, b->off[F_POS]));
	emit(p, ALUI(BPF_AND, R2, FILL_EVERY - 1));
	emit(p, INSN(BPF_JMP | BPF_JNE | BPF_K, R2, 0, 5, 0));	/* over the filler */
	emit(p, LDX(BPF_DW, R1, R6, 0));	/* meta->seq */
	emit(p, MOV(R2, R8));
	emit(p, ALUI(BPF_ADD, R2, ZEROS));
	emit(p, INSN(BPF_ALU64 | BPF_MOV | BPF_K, R3, 0, 0, FILL));
	emit(p, CALL(BPF_FUNC_seq_write));
	if (text_only) {
		/* t, T, w, W */
		emit(p, LDX(BPF_B, R2, R7, b->off[F_TYPE]));
		emit(p, ALUI(BPF_OR, R2, 0x20));
		emit(p, INSN(BPF_JMP | BPF_JEQ | BPF_K, R2, 0, 1, 't'));
		emit_out(p, JMPI(BPF_JNE, R2, 'w'));
	}
	if (filter) {
		/* bit name[0] << 8 | name[1] of the bitmap */
		emit(p, LDX(BPF_B, R2, R7, b->off[F_NAME]));
		emit(p, LDX(BPF_B, R3, R7, b->off[F_NAME] + 1));
		emit(p, ALUI(BPF_LSH, R2, 8));
		emit(p, ALU(BPF_OR, R2, R3));
		emit(p, ALUI(BPF_AND, R2, 0xffff));	/* 6.1's verifier loses the bounds of an OR */
		emit(p, MOV(R3, R2));
		emit(p, ALUI(BPF_RSH, R3, 3));
		emit(p, MOV(R4, R8));
		emit(p, ALU(BPF_ADD, R4, R3));
		emit(p, LDX(BPF_B, R4, R4, 0));
		emit(p, ALUI(BPF_AND, R2, 7));
		emit(p, ALU(BPF_RSH, R4, R2));
		emit(p, ALUI(BPF_AND, R4, 1));
		emit_out(p, JMPI(BPF_JEQ, R4, 0));
	}
	emit(p, LDX(BPF_DW, R2, R7, b->off[F_VALUE]));
	emit(p, STX(BPF_DW, R8, R2, REC));
	emit(p, LDX(BPF_B, R2, R7, b->off[F_TYPE]));
	emit(p, STX(BPF_B, R8, R2, REC + 8));
	emit(p, LDX(BPF_W, R2, R7, b->off[F_EXPORTED]));
	emit(p, STX(BPF_B, R8, R2, REC + 9));
	emit(p, MOV(R1, R8));
	emit(p, ALUI(BPF_ADD, R1, REC + REC_HEAD));
	emit(p, INSN(BPF_ALU64 | BPF_MOV | BPF_K, R2, 0, 0, NAME_LEN));
	emit(p, MOV(R3, R7));
	emit(p, ALUI(BPF_ADD, R3, b->off[F_NAME]));
	emit(p, CALL(BPF_FUNC_probe_read_kernel_str));
	emit_out(p, JMPI(BPF_JSLT, R0, 1));	/* its NUL included */
	emit_out(p, JMPI(BPF_JSGT, R0, NAME_LEN));
	emit(p, STX(BPF_H, R8, R0, REC + REC_NAME_SZ));
	emit(p, MOV(R9, R0));
	emit(p, MOV(R1, R8));
	emit(p, ALUI(BPF_ADD, R1, REC + REC_HEAD));
	emit(p, ALU(BPF_ADD, R1, R9));
	emit(p, INSN(BPF_ALU64 | BPF_MOV | BPF_K, R2, 0, 0, MOD_LEN));
	emit(p, MOV(R3, R7));
	emit(p, ALUI(BPF_ADD, R3, b->off[F_MODULE]));
	emit(p, CALL(BPF_FUNC_probe_read_kernel_str));
	emit_out(p, JMPI(BPF_JSLT, R0, 1));
	emit_out(p, JMPI(BPF_JSGT, R0, MOD_LEN));
	emit(p, STX(BPF_B, R8, R0, REC + REC_MOD_SZ));
	emit(p, ALU(BPF_ADD, R9, R0));
	emit(p, ALUI(BPF_ADD, R9, REC_HEAD));
	emit(p, LDX(BPF_DW, R1, R6, 0));	/* meta->seq */
	emit(p, MOV(R2, R8));
	emit(p, ALUI(BPF_ADD, R2, REC));
	emit(p, MOV(R3, R9));
	emit(p, CALL(BPF_FUNC_seq_write));
	for (i = 0; i < p->out_n; i++)
		p->insn[p->out[i]].off = p->n - p->out[i] - 1;
	emit(p, INSN(BPF_ALU64 | BPF_MOV | BPF_K, R0, 0, 0, 0));
	emit(p, INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0));
	return p->n;
}

static void bit_set(unsigned char *bm, unsigned int k)
{
	bm[k / 8] |= 1 << (k % 8);
}

/* The first two bytes of every prefix and name a parse with o keeps; false: all. */
static bool fill_bitmap(unsigned char *bm, const struct ksym_parse_opts *o)
{
	unsigned int c;
	size_t i;

	for (i = 0; o->prefixes && i < o->prefix_cnt; i++) {
		const unsigned char *s = (const void *)o->prefixes[i];

		if (!s[0])
			return false;
		if (s[1]) {
			bit_set(bm, s[0] << 8 | s[1]);
			continue;
		}
		for (c = 0; c < 256; c++)
			bit_set(bm, s[0] << 8 | c);
	}
	for (i = 0; o->names && i < o->name_cnt; i++) {
		const char *n = o->names[i], *colon = strchr(n, ':');
		const unsigned char *s = (const void *)(colon ? colon + 1 : n);

		bit_set(bm, s[0] << 8 | (s[0] ? s[1] : 0));
	}
	return true;
}

void ksym_iter_close(struct ksym_iter *it)
{
	if (it->fd >= 0)
		close(it->fd);
	if (it->link >= 0)
		close(it->link);
	if (it->prog >= 0)
		close(it->prog);
	if (it->map >= 0)
		close(it->map);
}

int ksym_iter_open(struct ksym_iter *it, const struct ksym_parse_opts *o)
{
	bool filter = (o->prefixes && o->prefix_cnt) || (o->names && o->name_cnt);
	struct iter_btf b;
	union bpf_attr a;
	struct prog p = {};
	unsigned char *val;
	uint32_t key = 0;
	int err;

	err = btf_find(&b);
	if (err)
		return err;
	memset(&a, 0, sizeof(a));
	a.map_type = BPF_MAP_TYPE_ARRAY;
	a.key_size = 4;
	a.value_size = VALUE_LEN;
	a.max_entries = 1;
	memcpy(a.map_name, "ksym_iter", 10);
	it->map = sys_bpf(BPF_MAP_CREATE, &a);
	if (it->map < 0)
		return it->map;
	if (filter) {
		val = calloc(1, VALUE_LEN);
		if (!val)
			return -ENOMEM;
		if (fill_bitmap(val, o)) {
			memset(&a, 0, sizeof(a));
			a.map_fd = it->map;
			a.key = (uintptr_t)&key;
			a.value = (uintptr_t)val;
			err = sys_bpf(BPF_MAP_UPDATE_ELEM, &a);
		} else {
			filter = false;
		}
		free(val);
		if (err)
			return err;
	}
	memset(&a, 0, sizeof(a));
	a.prog_type = BPF_PROG_TYPE_TRACING;
	a.expected_attach_type = BPF_TRACE_ITER;
	a.attach_btf_id = b.func_id;
	a.insns = (uintptr_t)p.insn;
	a.insn_cnt = assemble(&p, &b, it->map, o->text_only, filter);
	a.license = (uintptr_t)"GPL";	/* the helpers that read kernel memory are GPL-only */
	memcpy(a.prog_name, "ksym_iter", 10);
	it->prog = sys_bpf(BPF_PROG_LOAD, &a);
	if (it->prog < 0)
		return it->prog;
	memset(&a, 0, sizeof(a));
	a.link_create.prog_fd = it->prog;
	a.link_create.attach_type = BPF_TRACE_ITER;
	it->link = sys_bpf(BPF_LINK_CREATE, &a);
	if (it->link < 0)
		return it->link;
	memset(&a, 0, sizeof(a));
	a.iter_create.link_fd = it->link;
	it->fd = sys_bpf(BPF_ITER_CREATE, &a);
	return it->fd < 0 ? it->fd : 0;
}
