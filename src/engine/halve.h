/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
#ifndef KSA_HALVE_H
#define KSA_HALVE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

/*
 * A kprobe.multi link fails as a whole for one address or name in it that the
 * kernel refuses (a jump label's look-alike of an ftrace site, a name with no
 * traceable function). halve__links() makes the links over items [i, i + n)
 * through ops and halves a refused link until each culprit stands alone: that
 * one is left out, the rest attached. ENOMEM halves too, leaving nothing out
 * (a smaller link may fit where a large one did not).
 *
 * No kernel here: the link is the caller's. The engine's resolvers and its
 * floor use it with bpf_link_create(); the unit test with a fake kernel.
 */
struct halve_ops {
	/*
	 * One link over items [i, i + n): its fd, or a negative errno (as the
	 * caller reads the kernel's answer). *cnt: how many functions it held,
	 * for the message of a failure.
	 */
	int (*link)(void *ctx, size_t i, size_t n, size_t *cnt);
	/* a link made: kept (0), or a negative errno that ends the attach */
	int (*keep)(void *ctx, int fd);
	/* whether err is how the kernel refuses one item of a link */
	bool (*refuses)(void *ctx, int err);
	/* item i stands alone and was refused with err (positive) */
	void (*leave_out)(void *ctx, size_t i, int err);
};

struct halve_opts {
	void *ctx;			/* passed to every op */
	bool no_halving;		/* a failure is the attach's (a link of one glob) */
	const volatile sig_atomic_t *stop;	/* set: -EINTR before the next link */
};

/*
 * The links over [i, i + n) as above. Returns 0 (every item attached or left
 * out), or the first failure that no halving answers as a negative errno,
 * with *cnt the functions of the link that failed; -EINTR when stopped.
 * Links already made stay with the caller (keep()) either way.
 */
int halve__links(const struct halve_ops *ops, const struct halve_opts *opts, size_t i, size_t n,
		 size_t *cnt);

#endif
