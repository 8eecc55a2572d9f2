// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The kernel's refusals in one line each, naming the cause: what is missing
 * (a capability, a kernel feature, a file descriptor) and what to do about it.
 * Each sets the engine's message and returns the negative errno.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/capability.h>

#include <ksym/ksym.h>

#include "engine.h"
#include "hitprog.h"
#include "kernel.h"

/*
 * No bpf() at all: ENOSYS. Whether the kernel lacks it (CONFIG_BPF_SYSCALL off)
 * or something in between refuses it so (a seccomp filter), its symbols say.
 * 0: bpf() is there.
 */
int ka_no_bpf(struct kattach *a)
{
	static int enosys = -1;	/* once a process: resolve and attach ask */

	if (enosys < 0)
		enosys = syscall(__NR_bpf, -1, NULL, 0) < 0 && errno == ENOSYS;
	if (!enosys)
		return 0;
	/*
	 * kernel/bpf/syscall.c's, which only a kernel with the system call has
	 * (not __x64_sys_bpf: without it the kernel has a weak stub of that name;
	 * not __sys_bpf: Linux 5.14 made it)
	 */
	if (kernel_has_symbol("bpf_prog_put") > 0)
		return ka_fail(a, ENOSYS, "the bpf() system call fails with ENOSYS, though kernel %s "
				       "has it: something refuses it so (a seccomp filter?)",
			    kernel_release());
	return ka_fail(a, ENOSYS, "kernel %s has no BPF (no bpf() system call: CONFIG_BPF_SYSCALL "
			       "off): nothing can be attached here", kernel_release());
}

int ka_no_probes(struct kattach *a)
{
	return ka_fail(a, EOPNOTSUPP, "kernel %s has no kprobes at all (no kprobe PMU, no fprobe: "
				   "CONFIG_KPROBES and CONFIG_FPROBE are off): nothing can be "
				   "attached here", kernel_release());
}

int ka_attach_error(struct kattach *a, int err, size_t cnt)
{
	const char *lockdown;

	switch (-err) {
	case EPERM:
	case EACCES:
		/* name what is missing: under a unit's bounding set, it is that one */
		if (!ksym__capable(CAP_BPF) || !ksym__capable(CAP_PERFMON))
			return ka_fail(a, err, "not permitted to load or attach BPF programs: %s%s%s "
				    "missing (needs CAP_BPF and CAP_PERFMON)",
				    ksym__capable(CAP_BPF) ? "" : "CAP_BPF",
				    !ksym__capable(CAP_BPF) && !ksym__capable(CAP_PERFMON) ? " and " : "",
				    ksym__capable(CAP_PERFMON) ? "" : "CAP_PERFMON");
		if (geteuid())
			return ka_fail(a, err, "not permitted to attach: run as root "
					    "(needs CAP_BPF and CAP_PERFMON)");
		lockdown = ksym__lockdown();
		/* it allows kprobe.multi and kprobe.session, not classic kprobes */
		if (lockdown && !strcmp(lockdown, "confidentiality") && a->fell_back)
			return ka_fail(a, err, "kernel lockdown=confidentiality refuses classic "
				    "kprobes (kprobe.multi it allows, where the kernel has it)");
		if (lockdown)
			return ka_fail(a, err, "not permitted to attach, even with CAP_BPF and "
				    "CAP_PERFMON, under kernel lockdown=%s: a security policy?",
				    lockdown);
		return ka_fail(a, err, "not permitted to attach, even with CAP_BPF and CAP_PERFMON "
				    "(kernel lockdown or a security policy?)");
	case EOPNOTSUPP:
	case 524:	/* ENOTSUPP, kernel-internal */
		return ka_fail(a, err, "kernel %s has no kprobe.multi (Linux >= 5.18 built with "
				    "CONFIG_FPROBE has it)", kernel_release());
	case E2BIG:
		return ka_fail(a, err, "too many targets for one link (%zu)", cnt);
	case ENOMEM:
		/* with addresses, a kprobe.multi link has been halved down to this */
		if (a->fell_back)
			return ka_fail(a, err, "the kernel is out of memory: it refused a kprobe after "
				    "%zu were made (a memory cgroup's limit, MemoryMax=, or a node "
				    "short of memory)", a->links_made);
		return ka_fail(a, err, "the kernel is out of memory: it refused a link of %zu "
			    "function%s after %zu link%s were made (a memory cgroup's limit, "
			    "MemoryMax=, or a node short of memory)", cnt, cnt == 1 ? "" : "s",
			    a->links_made, a->links_made == 1 ? "" : "s");
	case ESRCH:
		return ka_fail(a, err, "the kernel found no traceable function of one of %zu names",
			    cnt);
	case EMFILE:
	case ENFILE: {
		struct rlimit rl = {};

		/* every link, program and map is a file descriptor */
		getrlimit(RLIMIT_NOFILE, &rl);
		return ka_fail(a, err, "out of file descriptors after %zu links (%s, open files "
			    "limit %llu): raise it (ulimit -n, LimitNOFILE=)%s", a->links_made,
			    err == -EMFILE ? "this process" : "the whole system",
			    (unsigned long long)rl.rlim_cur,
			    a->fell_back ? "" : " or put more functions in a link (--batch)");
	}
	default:
		return ka_fail(a, err, "cannot attach %s to %zu function%s: %s",
			    a->fell_back ? "a classic kprobe" : kattach__mode_name(a->opts.mode),
			    cnt, cnt == 1 ? "" : "s", strerror(-err));
	}
}

/* A program the kernel did not load; log: the verifier's last line, or empty. */
int ka_load_error(struct kattach *a, int err, const char *log)
{
	if ((err == -EPERM || err == -EACCES) && !log[0])
		return ka_attach_error(a, err, a->target_cnt);
	/* libbpf's loads give up after as many tries as ours */
	if (err == -EAGAIN)
		return ka_fail(a, err, "cannot load the BPF program: the kernel's verifier was "
			    "interrupted %d times in a row (signals)", HITPROG_LOAD_TRIES);
	if (log[0])
		return ka_fail(a, err, "cannot load the BPF program: %s (verifier: %s)",
			    strerror(-err), log);
	return ka_fail(a, err, "cannot load the BPF program: %s (-v shows the verifier log)",
		    strerror(-err));
}

/*
 * kprobe.session's program did not load: a kernel without its kfuncs
 * (before Linux 6.10) says so in its symbols. Asked only then, as the
 * question costs a walk of the kernel's table.
 */
int ka_session_missing(struct kattach *a)
{
	if (a->opts.mode != KATTACH_SESSION || kernel_has_symbol("bpf_session_cookie") != 0)
		return 0;
	return ka_fail(a, EOPNOTSUPP, "kprobe.session needs Linux >= 6.10: kernel %s has none "
		    "(no bpf_session_cookie kfunc)", kernel_release());
}

int ka_fail(struct kattach *a, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(a->err, sizeof(a->err), fmt, ap);
	va_end(ap);
	return err < 0 ? err : -err;
}

void ka_warn(const struct kattach *a, const char *fmt, ...)
{
	char msg[320];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (a->opts.sources && a->opts.sources->warn)
		a->opts.sources->warn(msg);
	else
		fprintf(stderr, "warning: %s\n", msg);
}
