/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The hit counter of bpf/ksa_common.bpf.h (count_hit), calls only, assembled
 * here and loaded with two syscalls: its map, then its program. Loading the libbpf
 * object instead costs a fresh process about twenty more (libbpf probes the
 * kernel's BTF and program features first), which is most of a boot's first
 * attach once its symbols are known. kprobe.multi and classic kprobes; the
 * session program's kfuncs keep the libbpf object.
 */
#ifndef KSA_HITPROG_H
#define KSA_HITPROG_H

#include <stddef.h>
#include <sys/types.h>
#include <linux/bpf.h>

/* loads a signal interrupts (EAGAIN from the verifier) tried again, as libbpf does */
#define HITPROG_LOAD_TRIES 5

/* Where the counter finds the function's entry IP, its key. */
enum hitprog_key {
	HITPROG_KEY_FUNC_IP,	/* bpf_get_func_ip() */
	HITPROG_KEY_REGS,	/* a classic kprobe's saved IP, as its trap left it */
};

struct hitprog {
	int prog_fd;	/* the program; -1 when not loaded */
	int map_fd;	/* its counters: HASH, entry IP -> calls (a __u64) */
	int armed_fd;	/* ARRAY of one __u64: nothing is counted while it is 0 */
	int *extra;	/* more programs over the same counters (hitprog__load_extra()) */
	size_t extra_cnt;
};

/*
 * tracing_multi's attach types (Linux 7.2; not in the UAPI header this build
 * has): programs of BPF_PROG_TYPE_TRACING, loaded with no attach_btf_id.
 */
#define KSA_TRACE_FENTRY_MULTI 59
#define KSA_TRACE_FEXIT_MULTI 60
#define KSA_TRACE_FSESSION_MULTI 61

/*
 * Loads the counter for attach type (BPF_TRACE_KPROBE_MULTI, 0 for a classic
 * kprobe, or one of tracing_multi's against vmlinux's BTF) with room for slots functions, not counting hits of
 * process self (0: none). HITPROG_KEY_REGS serves classic kprobes on kernels
 * whose kprobes lack bpf_get_func_ip() (before Linux 5.15). Returns 0 or a negative errno; a refused program's
 * verifier log, its last line, in log; -EAGAIN: HITPROG_LOAD_TRIES loads in a
 * row were interrupted.
 */
int hitprog__load(struct hitprog *hp, enum bpf_attach_type type, enum hitprog_key key,
		  size_t slots, pid_t self, char *log, size_t log_len);
/*
 * One more counter over hp's maps, of tracing_multi's attach type, loaded
 * against a module's BTF object (btf_obj_fd): a link of that module's BTF ids
 * takes it. Its fd (hp owns it), or a negative errno.
 */
int hitprog__load_extra(struct hitprog *hp, enum bpf_attach_type type, int btf_obj_fd,
			pid_t self);
/*
 * Counting starts: called once the links are made, so that the hits while
 * the kernel enables the sites (the attach's own, on any CPU) are not
 * counted. 0 or a negative errno.
 */
int hitprog__arm(struct hitprog *hp);
void hitprog__close(struct hitprog *hp);

#endif
