/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A cgroup v2 id, as bpf_get_current_cgroup_id() gives it, named: its path
 * under the cgroup2 mount and the systemd unit that path says (the deepest
 * ".service" or ".scope"). The id is the cgroup directory's inode number, so
 * the names come from a walk of the mount, kept and walked again on a miss (at
 * most once a second): a process that has ended is still named while its unit's
 * cgroup lives.
 */
#ifndef WATCH_UNITS_H
#define WATCH_UNITS_H

#include <stdint.h>

struct ksw_units;

/* root: the cgroup2 mount ("/sys/fs/cgroup" when NULL). NULL on no memory. */
struct ksw_units *ksw_units__new(const char *root);
void ksw_units__free(struct ksw_units *u);

/* The path ("/system.slice/x.service") and unit ("x.service") of id; NULL for
 * either when unknown (no cgroup2 mount, a cgroup gone, or no unit in the path).
 * The strings are the table's own, valid until it is freed. */
void ksw_units__name(struct ksw_units *u, uint64_t id, uint64_t now_ns, const char **path,
		     const char **unit);

#endif
