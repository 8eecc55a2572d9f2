/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The kernel's own name lookups, timed for this process while a window is
 * open: --compare's measure of what a tracing_multi link's creation spends in
 * kallsyms (the kernel looks up the name of every BTF id it is given).
 *
 *	kattach_lookups__open(&m, err, sizeof(err));
 *	opts.lookups = m;	the engine opens the window around its link calls
 *	kattach_lookups__read(m, &ns, &calls);
 *	kattach_lookups__free(m);
 *
 * The meter is an fentry/fexit pair on each lookup function the kernel's BTF
 * has, so it adds a trampoline's cost to every lookup it times: runs measured
 * with it are not the runs whose stalls are compared.
 */
#ifndef KSA_LOOKUPS_H
#define KSA_LOOKUPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct kattach_lookups;

/* 0, or a negative errno and the reason in err. */
int kattach_lookups__open(struct kattach_lookups **out, char *err, size_t errsz);
void kattach_lookups__window(struct kattach_lookups *m, bool open);
/* The sums since open or the last reset; the window closed. */
void kattach_lookups__read(const struct kattach_lookups *m, uint64_t *ns, uint64_t *calls);
void kattach_lookups__reset(struct kattach_lookups *m);
/* The functions timed, "a,b" */
const char *kattach_lookups__hooks(const struct kattach_lookups *m);
void kattach_lookups__free(struct kattach_lookups *m);

#endif
