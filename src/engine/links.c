// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The links: targets [i, i + n) handed to the kernel in kprobe.multi or
 * kprobe.session links, halved around what it refuses (halve.c), and the
 * targets a refusal leaves out. The run (attach.c), the classic-kprobe
 * fallback (kprobes.c) and the floor (floor.c) make their links here.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "engine.h"
#include "halve.h"
#include "kernel.h"

static int name_cmp(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* The names of targets t[0, n), each once, sorted, into v: their count. */
static size_t unique_names(const char **v, const struct kattach_target *t, size_t n)
{
	size_t i, k;

	for (i = 0; i < n; i++)
		v[i] = t[i].name;
	qsort(v, n, sizeof(*v), name_cmp);
	for (i = k = n ? 1 : 0; i < n; i++)
		if (strcmp(v[i], v[k - 1]))
			v[k++] = v[i];
	return k;
}

/*
 * One link over targets [i, i + n), handed over as the resolver wants: its fd,
 * or a negative errno.
 */
static int attach_one(struct kattach *a, struct bpf_program *prog, size_t i, size_t n,
		      size_t *cnt)
{
	enum bpf_attach_type type = ka_link_type(a);
	LIBBPF_OPTS(bpf_kprobe_multi_opts, mo);
	LIBBPF_OPTS(bpf_link_create_opts, lo);
	struct bpf_link *l;
	const char *pattern;
	int fd;

	*cnt = n;
	if (ka_resolver(a)->libbpf_links) {
		mo.session = a->opts.mode == KATTACH_SESSION;
		if (a->by_name) {
			/* names: libbpf hands them to the kernel, which resolves them */
			mo.syms = a->names + i;
			mo.cnt = n;
			l = bpf_program__attach_kprobe_multi_opts(prog, NULL, &mo);
		} else {
			/* libbpf resolves a pattern itself, re-reading the kernel's list */
			pattern = a->opts.link_batch ? a->targets[i].name : a->opts.patterns[i];
			*cnt = 1;
			l = bpf_program__attach_kprobe_multi_opts(prog, pattern, &mo);
		}
		if (!l)
			return -errno;
		/* its fd kept, the wrapper gone: every link is an fd here */
		fd = bpf_link__fd(l);
		bpf_link__disconnect(l);
		bpf_link__destroy(l);
		return fd;
	}
	/* names [i, i + n) of the targets' distinct names (attach_all()), or addresses */
	if (a->by_name)
		lo.kprobe_multi.syms = a->names + i;
	else
		lo.kprobe_multi.addrs = a->addrs + i;
	lo.kprobe_multi.cnt = n;
	fd = bpf_link_create(a->prog_fd, 0, type, &lo);
	return fd < 0 ? -errno : fd;
}

int ka_push_link(struct kattach *a, int fd)
{
	if (a->link_cnt == a->links_cap) {
		size_t ncap = a->links_cap ? a->links_cap * 2 : 16;
		int *n = realloc(a->links, ncap * sizeof(*n));

		if (!n) {
			close(fd);
			return -ENOMEM;
		}
		a->links = n;
		a->links_cap = ncap;
	}
	a->links[a->link_cnt++] = fd;
	a->links_made++;
	return 0;
}

void ka_exclude(struct kattach *a, struct kattach_target *t, int err)
{
	t->flags |= KATTACH_F_EXCLUDED;
	t->excluded_errno = err;
	a->excluded++;
}

/*
 * How the kernel refuses a link for one of its addresses that is no ftrace
 * location (a jump label's NOP at a function's start looks like one):
 * EINVAL, or ENOENT from Linux 7.x's fprobe (seen on 7.3 for `-p '*'`).
 */
bool ka_refuses_address(int err)
{
	return err == -EINVAL || err == -ENOENT;
}

/* How the kernel refuses one name of a link: none of its functions is traceable to it. */
static bool refuses(const struct kattach *a, int err)
{
	return ka_refuses_address(err) || (a->by_name && err == -ESRCH);
}

/*
 * What this kernel's links of addresses take, once a link has shown it: kept
 * for the process (--compare's rows and the daemon attach again and again).
 */
static enum ka_hand kernel_hand = KA_HAND_ENTRY_UNTRIED;

enum ka_hand ka_kernel_hand(void)
{
	return kernel_hand;
}

/* addrs[] as hand says: each function's own address where known, else its site. */
void ka_hand_over(struct kattach *a, enum ka_hand hand)
{
	size_t i;

	a->hand = hand;
	for (i = 0; i < a->target_cnt; i++) {
		const struct kattach_target *t = &a->targets[i];

		a->addrs[i] = hand != KA_HAND_SITE && t->entry ? t->entry : t->addr;
	}
}

static bool any_entry(const struct kattach *a, size_t i, size_t n)
{
	for (; n; i++, n--)
		if (a->targets[i].entry && a->targets[i].entry != a->targets[i].addr)
			return true;
	return false;
}

static bool verbose(const struct kattach *a)
{
	return a->opts.sources && a->opts.sources->verbose;
}

/*
 * halve__links()' ops over the targets (the kernel resolver: names [i, i + n),
 * each name once in all): the resolvers' links through attach_one(), or the
 * floor's, made by hand.
 */
struct range_ctx {
	struct kattach *a;
	struct bpf_program *prog;
	enum bpf_attach_type type;
	bool floor;
};

static int make_link(struct range_ctx *rc, size_t i, size_t n, size_t *cnt)
{
	struct kattach *a = rc->a;
	int fd;

	if (!rc->floor)
		return attach_one(a, rc->prog, i, n, cnt);

	LIBBPF_OPTS(bpf_link_create_opts, lo, .kprobe_multi.addrs = a->addrs + i,
		    .kprobe_multi.cnt = n);

	*cnt = n;
	fd = bpf_link_create(a->floor_prog, 0, rc->type, &lo);
	return fd < 0 ? -errno : fd;
}

/*
 * The first link of functions' own addresses on a kernel not yet seen to
 * take them. Refused as an address is: the same link of sites, and if the
 * kernel takes that, sites from then on. Refused again: the refusal is not
 * about functions' addresses, which stay.
 */
static int first_by_entry(struct range_ctx *rc, size_t i, size_t n, size_t *cnt)
{
	struct kattach *a = rc->a;
	int fd = make_link(rc, i, n, cnt), fd2;

	if (fd >= 0) {
		kernel_hand = a->hand = KA_HAND_ENTRY;
		return fd;
	}
	if (!ka_refuses_address(fd))
		return fd;
	ka_hand_over(a, KA_HAND_SITE);
	fd2 = make_link(rc, i, n, cnt);
	if (fd2 < 0) {
		ka_hand_over(a, KA_HAND_ENTRY);
		return fd;
	}
	kernel_hand = KA_HAND_SITE;
	if (verbose(a))
		ka_warn(a, "this kernel's %s links refused the functions' own addresses and "
			"took their ftrace sites: links hold sites, which bpftool does not name",
			a->opts.mode == KATTACH_SESSION ? "kprobe.session" : "kprobe.multi");
	return fd2;
}

static int range_link(void *ctx, size_t i, size_t n, size_t *cnt)
{
	struct range_ctx *rc = ctx;
	struct kattach *a = rc->a;
	bool by_addr = rc->floor || (!ka_resolver(a)->libbpf_links && !a->by_name);
	int fd;

	if (by_addr && a->hand == KA_HAND_ENTRY_UNTRIED && any_entry(a, i, n))
		fd = first_by_entry(rc, i, n, cnt);
	else
		fd = make_link(rc, i, n, cnt);
	return fd < 0 ? ka_no_multi(a, fd) : fd;
}

static int range_keep(void *ctx, int fd)
{
	struct range_ctx *rc = ctx;
	struct kattach *a = rc->a;

	if (!rc->floor)
		return ka_push_link(a, fd);
	a->floor_links[a->floor_link_cnt++] = fd;	/* (one slot per target) */
	a->links_made++;
	return 0;
}

static bool range_refuses(void *ctx, int err)
{
	struct range_ctx *rc = ctx;

	return rc->floor ? ka_refuses_address(err) : refuses(rc->a, err);
}

static void range_leave_out(void *ctx, size_t i, int err)
{
	struct range_ctx *rc = ctx;

	if (rc->a->by_name && !rc->floor)
		ka_exclude_name(rc->a, rc->a->names[i], err);
	else
		ka_exclude(rc->a, &rc->a->targets[i], err);
}

static const struct halve_ops range_ops = {
	.link = range_link,
	.keep = range_keep,
	.refuses = range_refuses,
	.leave_out = range_leave_out,
};

/*
 * Targets [i, i + n) in links halved around what the kernel refuses: a
 * resolver's that hands over addresses or names (not libbpf's globs, which
 * it resolves itself), or the floor's (prog NULL).
 */
int ka_attach_range(struct kattach *a, struct bpf_program *prog, size_t i, size_t n)
{
	struct range_ctx rc = {
		.a = a, .prog = prog, .floor = ka_resolver(a)->empty_program,
		.type = ka_link_type(a),
	};
	struct halve_opts ho = {
		.ctx = &rc, .stop = a->opts.stop,
		.no_halving = ka_resolver(a)->libbpf_links && !a->by_name,
	};
	size_t cnt = n;
	int err = halve__links(&range_ops, &ho, i, n, &cnt);

	return err && err != -EINTR ? ka_attach_error(a, err, cnt) : err;
}

/* The targets' names, each once, sorted, in a->names: their count, or -ENOMEM. */
ssize_t ka_distinct_names(struct kattach *a)
{
	free(a->names);
	a->names = malloc(a->target_cnt * sizeof(*a->names));
	if (!a->names)
		return -ENOMEM;
	return unique_names(a->names, a->targets, a->target_cnt);
}

/* Every target of that name left out, as the kernel refused the name. */
void ka_exclude_name(struct kattach *a, const char *name, int err)
{
	size_t i;

	for (i = 0; i < a->target_cnt; i++)
		if (!strcmp(a->targets[i].name, name))
			ka_exclude(a, &a->targets[i], err);
}

/*
 * A first link refused as a whole with EINVAL, as a refused address makes
 * it: on a kernel without the attach type, that is no kprobe.multi at all.
 */
int ka_no_multi(struct kattach *a, int err)
{
	return err == -EINVAL && !a->links_made && !kernel_has_multi() ? -EOPNOTSUPP : err;
}

/* The hand-made counter counts from here on (hitprog__arm()); others always do. */
int ka_arm(struct kattach *a)
{
	int err = a->hp.armed_fd >= 0 ? hitprog__arm(&a->hp) : 0;

	return err ? ka_fail(a, err, "cannot start counting: %s", strerror(-err)) : 0;
}
