// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The classic-kprobe fallback: one kprobe per function through the perf
 * kprobe PMU, for kernels without kprobe.multi (or where asked). By address,
 * or one per name for the resolvers that hand the kernel names.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <ksym/ksym.h>

#include "engine.h"
#include "clock.h"
#include "kernel.h"
#include "ksymattach.skel.h"

/*
 * Whether the kernel links a program to a perf event (BPF_PERF_EVENT, Linux
 * >= 5.15); before, the event takes the program by ioctl and its fd is the
 * link. -1: not asked yet.
 */
static int perf_links = -1;

/*
 * A classic kprobe at addr (or at name, where given) with the program linked
 * to it: the link's fd, or -errno; *at_link: the kprobe was made, the link was
 * refused (not the address's fault).
 */
static int kprobe_link(struct kattach *a, int pmu, uint64_t addr, const char *name,
		       bool *at_link)
{
	struct perf_event_attr pa = { .size = sizeof(pa), .type = pmu, .config2 = addr };
	int pfd, fd, err;

	/* by name: the kernel resolves it (kallsyms_lookup_name), offset 0 */
	if (name) {
		pa.config1 = (uint64_t)(unsigned long)name;
		pa.config2 = 0;
	}

	*at_link = false;
	/* no name, the address as the offset: as libbpf asks for a kprobe by address */
	pfd = syscall(__NR_perf_event_open, &pa, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	if (pfd < 0)
		return -errno;
	if (perf_links) {
		fd = bpf_link_create(a->prog_fd, pfd, BPF_PERF_EVENT, NULL);
		err = fd < 0 ? -errno : 0;
		/* no such attach type (asked once): the event takes the program */
		if (perf_links < 0 && err == -EINVAL && !ioctl(pfd, PERF_EVENT_IOC_SET_BPF, a->prog_fd)) {
			perf_links = 0;
			goto enable;
		}
		if (!err)
			perf_links = 1;
		*at_link = fd < 0;
		close(pfd);	/* the link holds the event */
		return fd < 0 ? err : fd;
	}
	if (ioctl(pfd, PERF_EVENT_IOC_SET_BPF, a->prog_fd))
		goto refused;
enable:
	/* the event is the link: closing it detaches the program */
	if (!ioctl(pfd, PERF_EVENT_IOC_ENABLE, 0))
		return pfd;
refused:
	err = -errno;
	*at_link = true;
	close(pfd);
	return err;
}

/*
 * How far before a function's ftrace site its classic kprobe goes. x86-64
 * puts kprobes on ftrace sites (through ftrace itself); arm64 has no kprobes
 * on ftrace sites and refuses one there, so it goes on the instruction before
 * the site, the "mov x9, x30" ftrace wrote at the entry.
 */
#if defined(__aarch64__)
#define KPROBE_BEFORE_SITE 4
#else
#define KPROBE_BEFORE_SITE 0
#endif

/* The resolvers that hand the kernel names: one classic kprobe per name. */
static bool kprobes_by_name(const struct kattach *a)
{
	return ka_resolver(a)->names != KA_NAMES_NEVER;
}

/*
 * The program classic kprobes are linked to, for the resolver: the counter
 * (by hand), libbpf's object (its kprobe program, libbpf attaching it by
 * name), or the floor's empty program.
 */
static int load_kprobe_prog(struct kattach *a, char *log, size_t log_len)
{
	bool func_ip = kernel_kprobes_have_func_ip();
	int err;

	/* a kprobe.multi program cannot serve: loaded again, for kprobes */
	hitprog__close(&a->hp);
	ksymattach_bpf__destroy(a->skel);
	a->skel = NULL;
	if (a->floor_prog >= 0)
		close(a->floor_prog);
	a->floor_prog = a->prog_fd = -1;
	if (ka_resolver(a)->empty_program) {
		a->floor_prog = kernel_empty_prog(0);
		if (a->floor_prog < 0)
			return a->floor_prog;
		a->prog_fd = a->floor_prog;
		return 0;
	}
	if (ka_resolver(a)->libbpf_links) {
		a->skel = ksymattach_bpf__open();
		if (!a->skel)
			return -errno;
		a->skel->rodata->self_tgid = getpid();
		bpf_map__set_max_entries(a->skel->maps.stats, a->target_cnt + 16);
		a->kprobe_prog = func_ip ? a->skel->progs.ksa_kprobe : a->skel->progs.ksa_kprobe_regs;
		bpf_program__set_autoload(a->skel->progs.ksa_multi, false);
		bpf_program__set_autoload(func_ip ? a->skel->progs.ksa_kprobe_regs
						  : a->skel->progs.ksa_kprobe, false);
		err = ksymattach_bpf__load(a->skel);
		if (!err)
			a->prog_fd = bpf_program__fd(a->kprobe_prog);
		return err;
	}
	err = hitprog__load(&a->hp, 0, func_ip ? HITPROG_KEY_FUNC_IP : HITPROG_KEY_REGS,
			    a->target_cnt + 16, getpid(), log, log_len);
	a->prog_fd = a->hp.prog_fd;
	return err;
}

/* libbpf's classic kprobe on name, kept as libbpf's link: 0 or -errno. */
static int libbpf_kprobe(struct kattach *a, const char *name)
{
	LIBBPF_OPTS(bpf_kprobe_opts, ko);
	struct bpf_link *l;

	if (a->blink_cnt == a->target_cnt)
		return -E2BIG;
	l = bpf_program__attach_kprobe_opts(a->kprobe_prog, name, &ko);
	if (!l)
		return -errno;
	a->blinks[a->blink_cnt++] = l;
	a->links_made++;
	return 0;
}

/* By address, kprobes may not go to the kprobe blacklist's functions: left out. */
static int blacklist(struct kattach *a)
{
	uint64_t t0 = now_ns();
	size_t i;
	int err;

	if (kprobes_by_name(a) || !a->db)
		return 0;
	err = ksym_db__load_more(a->db, KSYM_DB_BLACKLIST);
	a->phase_ns[KATTACH_PH_READ] += now_ns() - t0;
	if (err)
		return ka_fail(a, err, "%s", ksym_db__errmsg(a->db));
	for (i = 0; i < a->target_cnt; i++)
		if (ksym_db__blacklisted(a->db, a->targets[i].addr))
			a->targets[i].flags |= KSYM_F_BLACKLISTED;
	return 0;
}

/*
 * want file descriptors: the soft limit raised towards the hard one, as a
 * shell's or a unit's 1024 is below a few hundred classic kprobes (libbpf's
 * cost two each). Past the hard limit the EMFILE line says which to raise.
 */
static void more_fds(size_t want)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur >= want)
		return;
	rl.rlim_cur = rl.rlim_max != RLIM_INFINITY && rl.rlim_max < want ? rl.rlim_max : want;
	setrlimit(RLIMIT_NOFILE, &rl);
}

/*
 * One classic kprobe per function through the perf kprobe PMU: by address,
 * or, for the resolvers that hand over names, one per name, which the kernel
 * resolves (libbpf's own call for the libbpf resolver).
 */
int ka_attach_kprobes(struct kattach *a)
{
	bool by_name = kprobes_by_name(a), at_link;
	char log[256] = "";
	uint64_t t0 = now_ns();
	ssize_t n = a->target_cnt;
	int err, pmu, fd;
	size_t i;

	if (!kernel_has_kprobes())
		return ka_fail(a, EOPNOTSUPP, "kernel %s has no kprobes (no perf kprobe PMU: "
					   "CONFIG_KPROBES off?)", kernel_release());
	if (a->target_cnt > KATTACH_KPROBE_MAX)
		return ka_fail(a, E2BIG, "%zu functions exceed the classic-kprobe fallback's cap of %d: "
				      "narrow the patterns", a->target_cnt, KATTACH_KPROBE_MAX);
	pmu = kernel_kprobe_pmu();
	if (pmu < 0)
		return ka_fail(a, pmu, "cannot read the perf kprobe PMU's type: %s", strerror(-pmu));
	err = load_kprobe_prog(a, log, sizeof(log));
	a->phase_ns[KATTACH_PH_LOAD] += now_ns() - t0;
	if (err)
		return ka_load_error(a, err, log);
	a->fell_back = true;
	err = blacklist(a);
	if (err)
		return err;
	t0 = now_ns();
	if (by_name && (n = ka_distinct_names(a)) < 0)
		return ka_fail(a, ENOMEM, "out of memory");
	more_fds(16 + (ka_resolver(a)->libbpf_links ? 2 : 1) * (size_t)n);
	if (ka_resolver(a)->libbpf_links && !a->blinks &&
	    !(a->blinks = calloc(a->target_cnt, sizeof(*a->blinks))))
		return ka_fail(a, ENOMEM, "out of memory");
	for (i = 0; i < (size_t)n && !err; i++) {
		/* by name, i counts names: the target's address is not used */
		const char *name = by_name ? a->names[i] : NULL;

		if (a->opts.stop && *a->opts.stop) {
			err = -EINTR;
			break;
		}
		/* kprobes may not go there at all */
		if (!by_name && a->targets[i].flags & KSYM_F_BLACKLISTED) {
			ka_exclude(a, &a->targets[i], EPERM);
			continue;
		}
		if (ka_resolver(a)->libbpf_links) {
			/* libbpf does not say which call refused: taken as the name's */
			fd = libbpf_kprobe(a, name);
			at_link = false;
		} else {
			const struct kattach_target *t = &a->targets[i];

			fd = kprobe_link(a, pmu, t->addr - (t->flags & KSYM_F_TRACEABLE ?
							    KPROBE_BEFORE_SITE : 0),
					 name, &at_link);
		}
		/* by name, a name several functions have is refused (EADDRNOTAVAIL) */
		if (!at_link && (fd == -EINVAL || fd == -EILSEQ || fd == -ENOENT ||
				 (by_name && fd == -EADDRNOTAVAIL))) {
			if (by_name)
				ka_exclude_name(a, name, -fd);
			else
				ka_exclude(a, &a->targets[i], -fd);
			continue;
		}
		if ((fd == -EACCES || fd == -EPERM) && kernel_kprobes_need_admin())
			err = ka_fail(a, -fd, "classic kprobes refused: kernel.perf_event_paranoid=3 "
				   "(a Debian kernel's) allows perf_event_open only with CAP_SYS_ADMIN, "
				   "which is missing");
		else if (ka_resolver(a)->libbpf_links)
			err = fd < 0 ? ka_attach_error(a, fd, 1) : 0;
		else
			err = fd >= 0 ? ka_push_link(a, fd) : ka_attach_error(a, fd, 1);
	}
	a->phase_ns[KATTACH_PH_ATTACH] += now_ns() - t0;
	if (err == -EINTR)
		return ka_fail(a, EINTR, "interrupted while attaching");
	if (err == -ENOMEM && !a->err[0])
		return ka_fail(a, ENOMEM, "out of memory");
	if (!err && a->excluded == a->target_cnt)
		err = ka_fail(a, EINVAL, "the kernel refused every one of %zu kprobe%s", (size_t)n,
			   n == 1 ? "" : "s");
	if (!err)
		err = ka_arm(a);
	/* by name, one kprobe a name, whichever function the kernel took */
	if (!err)
		a->attached = by_name ? a->link_cnt + a->blink_cnt : a->target_cnt - a->excluded;
	return err;
}

/* The kernel has no kprobe.multi (EOPNOTSUPP: no CONFIG_FPROBE), nothing is attached yet. */
bool ka_can_fall_back(const struct kattach *a, int err, size_t links)
{
	return (err == -EOPNOTSUPP || err == -524) && a->opts.mode == KATTACH_MULTI &&
	       a->opts.fallback == KATTACH_FALLBACK_AUTO && !links && kernel_has_kprobes();
}

int ka_fall_back(struct kattach *a)
{
	/* once a process: --compare and the daemon attach again and again */
	static bool warned;

	/* over the cap: ka_attach_kprobes() says so, with no warning before it */
	if (!warned && a->target_cnt <= KATTACH_KPROBE_MAX) {
		ka_warn(a, "kernel %s has no kprobe.multi; attaching classic kprobes to %zu "
			"function%s instead (--no-fallback refuses)", kernel_release(), a->target_cnt,
			a->target_cnt == 1 ? "" : "s");
		warned = true;
	}
	a->err[0] = '\0';
	return ka_attach_kprobes(a);
}
