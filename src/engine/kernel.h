/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
#ifndef KSA_KERNEL_H
#define KSA_KERNEL_H

#include <stdbool.h>
#include <linux/bpf.h>

/*
 * What the running kernel can do (kernel.c), each asked of the kernel once a
 * process. A question that cannot be answered (no permission) answers so that
 * the attach itself says what fails.
 */

/* The kernel's link limit is 1 << 20 targets (MAX_KPROBE_MULTI_CNT). */
#define MULTI_MAX (1u << 20)

/* uname's release, for the messages that name what a kernel lacks */
const char *kernel_release(void);
/* Whether the running kernel has text symbol name: 1, 0, or -1 where it cannot tell. */
int kernel_has_symbol(const char *name);
/* A kprobe PMU or fprobe: anything at all to probe a function with */
bool kernel_can_probe(void);
/* The perf kprobe PMU (classic kprobes) */
bool kernel_has_kprobes(void);
/* Its type (sysfs), or a negative errno */
int kernel_kprobe_pmu(void);
/* perf_event_paranoid=3 (Debian's): perf_event_open needs CAP_SYS_ADMIN */
bool kernel_kprobes_need_admin(void);
/* bpf_get_func_ip() in a classic kprobe's program */
bool kernel_kprobes_have_func_ip(void);
/* The kprobe.multi attach type at all */
bool kernel_has_multi(void);
/* "r0 = 0; exit" for links of type (0: classic kprobes): its fd, or -errno */
int kernel_empty_prog(enum bpf_attach_type type);
/* The same for a tracing_multi link of type, against a module's BTF (0: vmlinux's) */
int kernel_empty_tracing_prog(enum bpf_attach_type type, int btf_obj_fd);

#endif
