// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The floor resolver, the last row of --compare: what a stall would be with
 * nothing to resolve and nothing to prepare.
 */
#include <errno.h>
#include <stdlib.h>

#include <bpf/bpf.h>

#include "engine.h"
#include "clock.h"
#include "kernel.h"

/* "r0 = 0; exit" loaded by hand, then links by address, in the layout asked for. */
int ka_attach_floor(struct kattach *a)
{
	enum bpf_attach_type type = ka_link_type(a);
	size_t i, step = a->opts.link_batch ? a->opts.link_batch : a->target_cnt;
	uint64_t t0 = now_ns();
	int err = 0;

	if (step > MULTI_MAX)
		step = MULTI_MAX;
	a->floor_prog = kernel_empty_prog(type);
	a->phase_ns[KATTACH_PH_LOAD] += now_ns() - t0;
	if (a->floor_prog < 0)
		return ka_attach_error(a, a->floor_prog, a->target_cnt);
	a->addrs = malloc(a->target_cnt * sizeof(*a->addrs));
	/* a refused address halves its link: at most one link per target */
	a->floor_links = calloc(a->target_cnt, sizeof(*a->floor_links));
	if (!a->addrs || !a->floor_links)
		return ka_fail(a, ENOMEM, "out of memory");
	ka_hand_over(a, ka_kernel_hand());
	t0 = now_ns();
	for (i = 0; i < a->target_cnt && !err; i += step)
		err = ka_attach_range(a, NULL, i, a->target_cnt - i < step ? a->target_cnt - i : step);
	a->phase_ns[KATTACH_PH_ATTACH] += now_ns() - t0;
	if (err == -EINTR)
		return ka_fail(a, EINTR, "interrupted while attaching");
	if (!err)
		a->attached = a->target_cnt - a->excluded;
	return err;
}
