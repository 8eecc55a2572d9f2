// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Links halved around what the kernel refuses (halve.h). */
#include <errno.h>

#include "halve.h"

int halve__links(const struct halve_ops *ops, const struct halve_opts *opts, size_t i, size_t n,
		 size_t *cnt)
{
	bool halves = !opts->no_halving;
	int fd, err;

	if (opts->stop && *opts->stop)
		return -EINTR;
	fd = ops->link(opts->ctx, i, n, cnt);
	if (fd >= 0)
		return ops->keep(opts->ctx, fd);
	if (halves && n > 1 && (ops->refuses(opts->ctx, fd) || fd == -ENOMEM)) {
		err = halve__links(ops, opts, i, n / 2, cnt);
		return err ? err : halve__links(ops, opts, i + n / 2, n - n / 2, cnt);
	}
	if (halves && n == 1 && ops->refuses(opts->ctx, fd)) {
		ops->leave_out(opts->ctx, i, -fd);
		return 0;
	}
	return fd;
}
