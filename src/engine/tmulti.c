// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * fentry.multi, fexit.multi and fsession.multi: the tracing_multi link (Linux
 * 7.2), which takes BTF FUNC ids instead of addresses and puts a BPF
 * trampoline on each function. libksym gives the ids (ksym_db__btf_ids()) and
 * says why a matched function is left out; a link is made per BTF object,
 * vmlinux's and each module's, each with its program loaded against that
 * object: the hit counter by hand (fentry, fexit), or fsession's libbpf object
 * (its kfuncs). libbpf 1.5 has neither the attach types nor the link's
 * attribute: the link goes by the bpf() syscall, and fsession's section by a
 * handler registered here.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "engine.h"
#include "clock.h"
#include "kernel.h"
#include "lookups.h"
#include "tmulti18.h"
#include "ksymattach_fsession.skel.h"

bool kattach__mode_is_tracing(enum kattach_mode mode)
{
	return mode == KATTACH_FENTRY || mode == KATTACH_FEXIT || mode == KATTACH_FSESSION;
}

static enum bpf_attach_type attach_type(const struct kattach *a)
{
	switch (a->opts.mode) {
	case KATTACH_FEXIT:
		return KSA_TRACE_FEXIT_MULTI;
	case KATTACH_FSESSION:
		return KSA_TRACE_FSESSION_MULTI;
	default:
		return KSA_TRACE_FENTRY_MULTI;
	}
}

/*
 * fsession.multi's object for one BTF object (btf_fd; 0: vmlinux), its
 * counters the first object's: its program's fd, or a negative errno.
 */
static int fsession_load(struct kattach *a, int btf_fd, size_t slots)
{
	static int handler;	/* libbpf's id of the section's handler, once a process */
	struct ksymattach_fsession_bpf *s, **v;
	int err;

	if (handler <= 0) {
		LIBBPF_OPTS(libbpf_prog_handler_opts, ho);

		handler = libbpf_register_prog_handler("fsession.multi", BPF_PROG_TYPE_TRACING,
						       KSA_TRACE_FSESSION_MULTI, &ho);
		if (handler < 0)
			return handler;
	}
	v = realloc(a->fskels, (a->fskel_cnt + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	a->fskels = v;
	s = ksymattach_fsession_bpf__open();
	if (!s)
		return -errno;
	a->fskels[a->fskel_cnt++] = s;
	s->rodata->self_tgid = getpid();
	err = bpf_map__set_max_entries(s->maps.stats, slots);
	if (!err && a->fskel_cnt > 1)
		err = bpf_map__reuse_fd(s->maps.stats, bpf_map__fd(a->fskels[0]->maps.stats));
	/* (libbpf passes the fd in attach_prog_fd, which shares its place with the BTF's) */
	if (!err && btf_fd > 0)
		err = bpf_program__set_attach_target(s->progs.ksa_fsession, btf_fd, NULL);
	if (!err)
		err = ksymattach_fsession_bpf__load(s);
	return err ? err : bpf_program__fd(s->progs.ksa_fsession);
}

int ka_fsession_stats_fd(const struct kattach *a)
{
	return a->fskel_cnt ? bpf_map__fd(a->fskels[0]->maps.stats) : -1;
}

void ka_fsession_destroy(struct kattach *a)
{
	while (a->fskel_cnt)
		ksymattach_fsession_bpf__destroy(a->fskels[--a->fskel_cnt]);
	free(a->fskels);
	a->fskels = NULL;
}

/* The program for one BTF object's link: its fd, or a negative errno. */
static int load_for(struct kattach *a, enum bpf_attach_type type, int btf_fd, size_t slots,
		    char *log, size_t log_len)
{
	int err;

	if (ka_resolver(a)->empty_program)
		return kernel_empty_tracing_prog(type, btf_fd);
	if (a->opts.mode == KATTACH_FSESSION)
		return fsession_load(a, btf_fd, slots);
	if (btf_fd > 0)
		return hitprog__load_extra(&a->hp, type, btf_fd, getpid());
	err = hitprog__load(&a->hp, type, HITPROG_KEY_FUNC_IP, slots, getpid(), log, log_len);
	return err ? err : a->hp.prog_fd;
}

/*
 * link_create for tracing_multi, as Linux 7.3's union bpf_attr lays it out:
 * the common head, then the ids, the cookies (none) and their count.
 */
struct tm_link_attr {
	__u32 prog_fd;
	__u32 target_fd;
	__u32 attach_type;
	__u32 flags;
	__u64 ids;
	__u64 cookies;
	__u32 cnt;
};

static int link_create(int prog_fd, enum bpf_attach_type type, const __u32 *ids, size_t cnt)
{
	union {
		union bpf_attr attr;
		struct tm_link_attr tm;
	} u;
	int fd;

	memset(&u, 0, sizeof(u));
	u.tm.prog_fd = prog_fd;
	u.tm.attach_type = type;
	u.tm.ids = (uintptr_t)ids;
	u.tm.cnt = cnt;
	fd = syscall(__NR_bpf, BPF_LINK_CREATE, &u, sizeof(u.attr));
	return fd < 0 ? -errno : fd;
}

/* The kernel's BTF object of a module, by its name: an fd, or a negative errno. */
static int module_btf_fd(const char *module)
{
	__u32 id = 0;
	int err;

	while (!(err = bpf_btf_get_next_id(id, &id))) {
		struct bpf_btf_info info = {};
		__u32 len = sizeof(info);
		char name[64] = "";
		int fd = bpf_btf_get_fd_by_id(id);

		if (fd < 0)
			continue;
		info.name = (uintptr_t)name;
		info.name_len = sizeof(name);
		if (!bpf_btf_get_info_by_fd(fd, &info, &len) && info.kernel_btf &&
		    !strcmp(name, module))
			return fd;
		close(fd);
	}
	return err == -ENOENT ? -ENOENT : err;
}

static bool verbose_of(const struct kattach *a)
{
	return a->opts.sources && a->opts.sources->verbose;
}

/* One link's ids: a BTF object's (module NULL: vmlinux). */
struct id_set {
	const char *module;
	uint32_t *ids;
	size_t cnt;
};

static void sets_free(struct id_set *v, size_t n)
{
	while (n--)
		free(v[n].ids);
	free(v);
}

static int cmp_u32(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;

	return a < b ? -1 : a > b;
}

static bool same_module(const char *x, const char *y)
{
	return x == y || (x && y && !strcmp(x, y));
}

/*
 * The targets a link takes, by their resolution's verdict (kattach__resolve()
 * walked them once, with ids and reasons): the others excluded, named; the
 * ids grouped by BTF object, vmlinux's first, each sorted and once.
 */
static int make_sets(struct kattach *a, struct id_set **out, size_t *cnt)
{
	struct id_set *v = NULL;
	size_t i, k, n = 0, other = 0;

	for (i = 0; i < a->target_cnt; i++) {
		struct kattach_target *t = &a->targets[i];

		if (t->flags & KATTACH_F_EXCLUDED)
			continue;
		if (t->why || !t->btf_id) {
			ka_exclude(a, t, EINVAL);
			if (!t->why)
				t->why = "no BTF id";
			if (!(t->flags & KATTACH_F_BTF_OTHER))
				continue;
			other++;
			if (verbose_of(a))
				ka_warn(a, "%s%s%s left out: %s", t->name, t->module ? " in " : "",
					t->module ?: "", t->why);
			continue;
		}
		for (k = 0; k < n && !same_module(v[k].module, t->module); k++)
			;
		if (k == n) {
			struct id_set *nv = realloc(v, (n + 1) * sizeof(*nv));

			if (!nv)
				goto nomem;
			v = nv;
			v[n++] = (struct id_set){ .module = t->module };
			/* vmlinux's first: the counters are its program's */
			if (!t->module && k) {
				struct id_set x = v[k];

				memmove(v + 1, v, k * sizeof(*v));
				v[0] = x;
				k = 0;
			}
		}
		if (!(v[k].cnt & (v[k].cnt + 1))) {	/* at 0, 1, 3, 7 ...: room doubled */
			uint32_t *ids = realloc(v[k].ids, (2 * v[k].cnt + 1) * sizeof(*ids));

			if (!ids)
				goto nomem;
			v[k].ids = ids;
		}
		v[k].ids[v[k].cnt++] = t->btf_id;
	}
	if (other && !verbose_of(a))
		ka_warn(a, "%zu functions left out: the kernel's lookup of each one's name finds "
			"another function of that name (-v names them)", other);
	for (k = 0; k < n; k++) {
		size_t j;

		qsort(v[k].ids, v[k].cnt, sizeof(*v[k].ids), cmp_u32);
		for (i = j = 0; i < v[k].cnt; i++)
			if (!j || v[k].ids[j - 1] != v[k].ids[i])
				v[k].ids[j++] = v[k].ids[i];
		v[k].cnt = j;
	}
	*out = v;
	*cnt = n;
	return 0;
nomem:
	sets_free(v, n);
	return ka_fail(a, ENOMEM, "out of memory");
}

/* What the kernel lacks for these links, in one line; 0 where it has them. */
int ka_no_tracing_multi(struct kattach *a)
{
	int has = kernel_has_symbol("bpf_tracing_multi_attach");

	if (!has)
		return ka_fail(a, EOPNOTSUPP, "this kernel (%s) has no tracing_multi link: "
			       "fentry.multi, fexit.multi and fsession.multi need Linux 7.2 or later",
			       kernel_release());
	/* the link is there, its trampolines only where the architecture has them */
	if (has > 0 && !kernel_has_symbol("bpf_trampoline_multi_attach"))
		return ka_fail(a, EOPNOTSUPP, "this kernel (%s) has the tracing_multi link but not "
			       "on this architecture (x86-64 only)", kernel_release());
	return 0;
}

/*
 * The kernel's refusal of one link, named: it refuses the whole link for one
 * function, and says no more than an errno.
 */
static int link_error(struct kattach *a, int err, const struct id_set *set)
{
	const char *why;

	switch (-err) {
	case ENOENT:
		why = "a function's name did not lead the kernel to an ftrace site";
		break;
	case EINVAL:
		why = "a function is on a deny list or its prototype is refused";
		break;
	case EBUSY:
		why = "a function has this program on it already";
		break;
	case E2BIG:
		why = "a function's trampoline is full, or the link too long";
		break;
	case EPERM:
	case EACCES:
		return ka_attach_error(a, err, set->cnt);
	default:
		why = strerror(-err);
	}
	return ka_fail(a, -err, "the kernel refused the %s link of %zu functions (%s): %s (%s)",
		       kattach__link_kind(a), set->cnt, set->module ?: "vmlinux",
		       strerror(-err), why);
}

/*
 * libbpf 1.8's row: its own object, loaded and linked by its own calls, given
 * the globs (a link each), or where every pattern is a plain name, the names
 * of vmlinux's functions ksym's link would hold (an agent's list), for its
 * BTF lookup to find.
 */
static int attach_libbpf18(struct kattach *a)
{
	struct tmulti18_req req = {
		.sz = sizeof(req), .patterns = a->opts.patterns, .pattern_cnt = a->opts.pattern_cnt,
		.by_name = a->by_name, .slots = a->target_cnt + 16, .self_tgid = getpid(),
		.verbose = verbose_of(a),
		.mode = a->opts.mode == KATTACH_FEXIT ? TMULTI18_FEXIT :
			a->opts.mode == KATTACH_FSESSION ? TMULTI18_FSESSION : TMULTI18_FENTRY,
	};
	const char **names = NULL;
	char msg[256] = "";
	size_t i, n = 0;
	int *fds;
	uint64_t t0;
	int err;

	if (a->by_name) {
		names = malloc(a->target_cnt * sizeof(*names));
		if (!names)
			return ka_fail(a, ENOMEM, "out of memory");
		for (i = 0; i < a->target_cnt; i++) {
			const struct kattach_target *t = &a->targets[i];

			/* (its lookup is in vmlinux's BTF: a module's function is none it finds) */
			if (!(t->flags & KATTACH_F_EXCLUDED) && !t->why && t->btf_id && !t->module)
				names[n++] = t->name;
			else if (!(t->flags & KATTACH_F_EXCLUDED))
				ka_exclude(a, &a->targets[i], EINVAL);
		}
		req.patterns = names;
		req.pattern_cnt = n;
	}
	t0 = now_ns();
	err = tmulti18__open(&req, &a->l18, msg, sizeof(msg));
	a->phase_ns[KATTACH_PH_LOAD] += now_ns() - t0;
	if (!err) {
		t0 = now_ns();
		kattach_lookups__window(a->opts.lookups, true);
		err = tmulti18__attach(a->l18, msg, sizeof(msg));
		kattach_lookups__window(a->opts.lookups, false);
		a->phase_ns[KATTACH_PH_ATTACH] += now_ns() - t0;
	}
	free(names);
	if (err)
		return ka_fail(a, -err, "%s", msg);
	n = tmulti18__take_links(a->l18, &fds);
	/* (ka_push_link() closes the fd it cannot keep) */
	for (i = 0; i < n; i++)
		if (err)
			close(fds[i]);
		else
			err = ka_push_link(a, fds[i]);
	free(fds);
	if (err)
		return ka_fail(a, ENOMEM, "out of memory");
	return ka_attached(a);
}

int ka_attach_tracing(struct kattach *a)
{
	enum bpf_attach_type type = attach_type(a);
	struct id_set *sets = NULL;
	size_t i, n = 0, slots = a->target_cnt + 16;
	uint64_t t0;
	char log[256] = "";
	int err, prog;

	if (a->opts.resolver == KATTACH_RES_KERNEL)
		return ka_fail(a, EINVAL, "a tracing_multi link takes BTF ids, never names: "
			       "the kernel looks up every id's name whoever resolves");
	err = ka_no_tracing_multi(a);
	if (err)
		return err;
	if (ka_resolver(a)->libbpf_links)
		return attach_libbpf18(a);
	err = make_sets(a, &sets, &n);
	if (err)
		return err;
	if (!n) {
		sets_free(sets, n);
		return a->opts.allow_empty ? 0 :
		       ka_fail(a, ENOENT, "no function the patterns match can be attached by BTF id "
			       "(%zu matched: see -v or -o json for why each is left out)",
			       a->target_cnt);
	}

	/* vmlinux's program first, even where no link is vmlinux's: the counters are its */
	t0 = now_ns();
	prog = load_for(a, type, 0, slots, log, sizeof(log));
	a->phase_ns[KATTACH_PH_LOAD] += now_ns() - t0;
	if (prog < 0) {
		sets_free(sets, n);
		return ka_load_error(a, prog, log);
	}
	a->prog_fd = prog;
	if (ka_resolver(a)->empty_program)
		a->floor_prog = prog;	/* (no object holds it: detach closes it) */
	for (i = 0; i < n && !err; i++) {
		if (sets[i].module) {
			int btf = module_btf_fd(sets[i].module);

			if (btf < 0) {
				err = ka_fail(a, -btf, "cannot find the BTF of module %s: %s",
					      sets[i].module, strerror(-btf));
				break;
			}
			t0 = now_ns();
			prog = load_for(a, type, btf, slots, NULL, 0);
			a->phase_ns[KATTACH_PH_LOAD] += now_ns() - t0;
			close(btf);
			if (prog < 0) {
				err = ka_fail(a, -prog, "cannot load the program for module %s: %s",
					      sets[i].module, strerror(-prog));
				break;
			}
		} else {
			prog = a->prog_fd;
		}
		t0 = now_ns();
		kattach_lookups__window(a->opts.lookups, true);
		err = link_create(prog, type, sets[i].ids, sets[i].cnt);
		kattach_lookups__window(a->opts.lookups, false);
		a->phase_ns[KATTACH_PH_ATTACH] += now_ns() - t0;
		/* a module's empty program: its link holds it */
		if (prog != a->prog_fd && ka_resolver(a)->empty_program)
			close(prog);
		if (err < 0) {
			err = link_error(a, err, &sets[i]);
			break;
		}
		err = ka_push_link(a, err);
		if (err)
			err = ka_fail(a, ENOMEM, "out of memory");
		if (a->opts.stop && *a->opts.stop)
			err = ka_fail(a, EINTR, "interrupted while attaching");
	}
	sets_free(sets, n);
	return err ? err : ka_attached(a);
}
