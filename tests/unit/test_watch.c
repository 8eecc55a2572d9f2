// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The watcher's userspace (src/watch/decode.c, procs.c) fed events written by
 * hand: bpf() and perf_event_open() attributes as agents pass them, then the
 * table of processes built from them: bursts and stalls, a pid reused, a
 * nameless raw tracepoint open read through its program's load, the bound,
 * the running totals (src/watch/totals.c).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <linux/bpf.h>
#include <linux/perf_event.h>

#include "decode.h"
#include "procs.h"
#include "totals.h"

#define MS 1000000ull

static const struct ksw_layout layout = {
	.kprobe_pmu = 6,
	.tracing_multi = true,
	.tm_types = { 59, 60, 61 },
	.tm_cnt_off = 32,
};

static struct ksw_event ev(uint32_t type, uint32_t cmd, uint32_t pid, uint64_t ts, uint64_t dur,
			   int64_t ret)
{
	struct ksw_event e;

	memset(&e, 0, sizeof(e));
	e.type = type;
	e.cmd = cmd;
	e.tgid = pid;
	e.tid = pid;
	e.start_time = 1000 + pid;
	e.ts = ts;
	e.dur = dur;
	e.ret = ret;
	strcpy(e.comm, "agent");
	return e;
}

static void set_attr(struct ksw_event *e, const void *attr, size_t n)
{
	memcpy(e->attr, attr, n);
	e->attr_len = n;
}

static struct ksw_event link_kprobe_multi(uint32_t pid, uint64_t ts, uint64_t dur, bool names,
					  uint32_t cnt, int64_t ret)
{
	struct ksw_event e = ev(KSW_EV_BPF, BPF_LINK_CREATE, pid, ts, dur, ret);
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.link_create.prog_fd = 5;
	a.link_create.attach_type = BPF_TRACE_KPROBE_MULTI;
	a.link_create.kprobe_multi.cnt = cnt;
	if (names)
		a.link_create.kprobe_multi.syms = 0x7fff0000;
	else
		a.link_create.kprobe_multi.addrs = 0x7fff0000;
	set_attr(&e, &a, 64);
	return e;
}

static void test_decode_links(void **state)
{
	struct ksw_event e;
	struct ksw_action a;
	union bpf_attr at;

	(void)state;
	e = link_kprobe_multi(1, 0, 0, false, 79, 7);
	ksw_decode(&e, &layout, &a);
	assert_int_equal(a.act, KSW_ACT_ATTACH);
	assert_int_equal(a.kind, KSW_K_KPROBE_MULTI);
	assert_int_equal(a.functions, 79);
	assert_int_equal(a.by, KSW_BY_ADDRS);
	assert_int_equal(a.err, 0);
	assert_int_equal(a.fd, 5);

	e = link_kprobe_multi(1, 0, 0, true, 79, 7);
	ksw_decode(&e, &layout, &a);
	assert_int_equal(a.by, KSW_BY_NAMES);

	/* refused: no function counted, the errno kept */
	e = link_kprobe_multi(1, 0, 0, true, 79, -ENOENT);
	ksw_decode(&e, &layout, &a);
	assert_int_equal(a.act, KSW_ACT_ATTACH);
	assert_int_equal(a.err, ENOENT);
	assert_int_equal(a.functions, 0);

	/* an attribute cut short reads as zeros, never past what was read */
	e = link_kprobe_multi(1, 0, 0, false, 79, 7);
	e.attr_len = 20;
	ksw_decode(&e, &layout, &a);
	assert_int_equal(a.kind, KSW_K_KPROBE_MULTI);
	assert_int_equal(a.functions, 0);
	assert_int_equal(a.by, 0);

	/* session; fentry by link; tracing_multi at the kernel's offsets */
	memset(&at, 0, sizeof(at));
	at.link_create.attach_type = BPF_TRACE_KPROBE_SESSION;
	at.link_create.kprobe_multi.cnt = 3;
	at.link_create.kprobe_multi.addrs = 1;
	e = ev(KSW_EV_BPF, BPF_LINK_CREATE, 1, 0, 0, 9);
	set_attr(&e, &at, 64);
	ksw_decode(&e, &layout, &a);
	assert_int_equal(a.kind, KSW_K_KPROBE_SESSION);
	assert_int_equal(a.functions, 3);

	at.link_create.attach_type = BPF_TRACE_FENTRY;
	set_attr(&e, &at, 64);
	ksw_decode(&e, &layout, &a);
	assert_int_equal(a.kind, KSW_K_TRAMPOLINE);
	assert_int_equal(a.functions, 1);
	assert_int_equal(a.by, KSW_BY_IDS);

	memset(&at, 0, sizeof(at));
	at.link_create.attach_type = 61;
	set_attr(&e, &at, 64);
	e.attr[32] = 0x10;	/* cnt = 4112 */
	e.attr[33] = 0x10;
	ksw_decode(&e, &layout, &a);
	assert_int_equal(a.kind, KSW_K_TRACING_MULTI);
	assert_int_equal(a.functions, 4112);
	assert_int_equal(a.by, KSW_BY_IDS);
	/* a kernel without tracing_multi: the same type is some other link */
	{
		struct ksw_layout old = layout;

		old.tracing_multi = false;
		ksw_decode(&e, &old, &a);
		assert_int_equal(a.kind, KSW_K_OTHER);
		assert_int_equal(a.functions, 0);
	}

	/* raw tracepoint open: a name is a tracepoint, none is the program's */
	memset(&at, 0, sizeof(at));
	at.raw_tracepoint.prog_fd = 8;
	e = ev(KSW_EV_BPF, BPF_RAW_TRACEPOINT_OPEN, 1, 0, 0, 9);
	set_attr(&e, &at, 16);
	ksw_decode(&e, &layout, &a);
	assert_int_equal(a.kind, KSW_K_BY_PROG);
	assert_int_equal(a.fd, 8);
	at.raw_tracepoint.name = 0x1234;
	set_attr(&e, &at, 16);
	ksw_decode(&e, &layout, &a);
	assert_int_equal(a.kind, KSW_K_RAW_TP);

	/* map updates and the like are nothing */
	e = ev(KSW_EV_BPF, BPF_MAP_UPDATE_ELEM, 1, 0, 0, 0);
	ksw_decode(&e, &layout, &a);
	assert_int_equal(a.act, KSW_ACT_NONE);
}

static void test_decode_load_perf_text(void **state)
{
	struct perf_event_attr pa;
	struct ksw_event e;
	struct ksw_action a;
	union bpf_attr at;

	(void)state;
	memset(&at, 0, sizeof(at));
	at.prog_type = BPF_PROG_TYPE_TRACING;
	at.expected_attach_type = BPF_TRACE_FEXIT;
	e = ev(KSW_EV_BPF, BPF_PROG_LOAD, 1, 0, 0, 12);
	set_attr(&e, &at, 120);
	ksw_decode(&e, &layout, &a);
	assert_int_equal(a.act, KSW_ACT_LOAD);
	assert_int_equal(a.fd, 12);
	assert_int_equal(a.attach_type, BPF_TRACE_FEXIT);
	assert_int_equal(ksw_kind_of_prog(a.attach_type), KSW_K_TRAMPOLINE);
	assert_int_equal(ksw_kind_of_prog(BPF_TRACE_RAW_TP), KSW_K_RAW_TP);

	/* perf: a kprobe by name, by address; a tracepoint; a cycles counter */
	memset(&pa, 0, sizeof(pa));
	pa.type = 6;
	pa.config1 = 0x7fff1234;	/* kprobe_func */
	e = ev(KSW_EV_PERF, 0, 1, 0, 0, 3);
	set_attr(&e, &pa, 72);
	ksw_decode(&e, &layout, &a);
	assert_int_equal(a.kind, KSW_K_KPROBE);
	assert_int_equal(a.by, KSW_BY_NAMES);
	assert_int_equal(a.functions, 1);
	pa.config1 = 0;
	pa.config2 = 0xffffffff81000000ull;	/* kprobe_addr */
	set_attr(&e, &pa, 72);
	ksw_decode(&e, &layout, &a);
	assert_int_equal(a.by, KSW_BY_ADDRS);
	pa.type = PERF_TYPE_TRACEPOINT;
	set_attr(&e, &pa, 72);
	ksw_decode(&e, &layout, &a);
	assert_int_equal(a.kind, KSW_K_TRACEPOINT);
	assert_int_equal(a.functions, 0);
	pa.type = PERF_TYPE_HARDWARE;
	set_attr(&e, &pa, 72);
	ksw_decode(&e, &layout, &a);
	assert_int_equal(a.act, KSW_ACT_NONE);
	/* a kernel without the kprobe PMU: type 6 is not a kprobe */
	{
		struct ksw_layout none = layout;

		pa.type = 6;
		set_attr(&e, &pa, 72);
		none.kprobe_pmu = 0;
		ksw_decode(&e, &none, &a);
		assert_int_equal(a.act, KSW_ACT_NONE);
	}

	/* kprobe_events: two probes (a name, an address), one removal */
	e = ev(KSW_EV_KPROBE_WRITE, KSW_F_KPROBE_EVENTS, 1, 0, 0, 0);
	{
		const char *t = "p:kprobes/a vfs_read\nr:b 0xffffffff81000000 $retval\n-:c\n";

		set_attr(&e, t, strlen(t));
	}
	ksw_decode(&e, &layout, &a);
	assert_int_equal(a.kind, KSW_K_KPROBE_EVENTS);
	assert_int_equal(a.functions, 2);
	assert_int_equal(a.by, KSW_BY_NAMES | KSW_BY_ADDRS);
	set_attr(&e, "-:c\n", 4);
	ksw_decode(&e, &layout, &a);
	assert_int_equal(a.act, KSW_ACT_NONE);

	/* a symbol file that did not open was not read */
	e = ev(KSW_EV_OPEN, KSW_F_KALLSYMS, 1, 0, 0, -EACCES);
	ksw_decode(&e, &layout, &a);
	assert_int_equal(a.act, KSW_ACT_NONE);
	e.ret = 3;
	ksw_decode(&e, &layout, &a);
	assert_int_equal(a.act, KSW_ACT_FILE_OPEN);
	assert_int_equal(a.file, KSW_F_KALLSYMS);
}

static void add(struct ksw_procs *t, struct ksw_event e)
{
	struct ksw_action a;

	ksw_decode(&e, &layout, &a);
	assert_int_equal(ksw_procs__add(t, &e, &a), 0);
}

static void test_bursts(void **state)
{
	struct ksw_procs *t = ksw_procs__new(5000 * MS, 16);
	struct ksw_event e;
	struct ksw_proc *p;

	(void)state;
	assert_non_null(t);
	/* burst 1: the file at 100 ms, closed at 400, a link 500..560 */
	e = ev(KSW_EV_OPEN, KSW_F_FUNCS, 7, 100 * MS, 1 * MS, 3);
	e.cpu1 = 10 * MS;
	add(t, e);
	e = ev(KSW_EV_CLOSE, KSW_F_FUNCS, 7, 100 * MS, 300 * MS, 0);
	e.cpu1 = 200 * MS;
	add(t, e);
	e = link_kprobe_multi(7, 500 * MS, 60 * MS, false, 79, 4);
	e.cpu0 = 300 * MS;
	e.cpu1 = 350 * MS;
	add(t, e);
	p = ksw_procs__find(t, 7);
	assert_non_null(p);
	assert_int_equal(ksw_proc_stall_ns(p), 460 * MS);
	assert_int_equal(ksw_proc_stall_cpu_ns(p), 340 * MS);
	assert_int_equal(p->functions, 79);
	assert_int_equal(p->by, KSW_BY_ADDRS);
	assert_int_equal(p->files_opened[KSW_F_FUNCS], 1);

	/* 10 s later a second, shorter burst: the longest stays */
	add(t, link_kprobe_multi(7, 10560 * MS, 100 * MS, true, 3, 5));
	assert_int_equal(ksw_proc_stall_ns(p), 460 * MS);
	assert_int_equal(p->bursts, 1);	/* the first ended, the second is under way */
	assert_int_equal(p->functions, 82);
	assert_int_equal(p->by, KSW_BY_ADDRS | KSW_BY_NAMES);

	/* a refusal within 5 s extends the burst but is no link */
	add(t, link_kprobe_multi(7, 12000 * MS, 10 * MS, true, 3, -EINVAL));
	assert_int_equal(p->refused, 1);
	assert_int_equal(p->last_errno, EINVAL);
	assert_int_equal(ksw_proc_made(p), 2);

	/* its exit: final, with the kernel's totals */
	e = ev(KSW_EV_EXIT, 0, 7, 13000 * MS, 0, 0);
	e.stat.resolve_ns = 42;
	add(t, e);
	assert_true(p->exited);
	assert_true(p->stat_final);
	assert_int_equal(p->stat.resolve_ns, 42);
	assert_int_equal(p->bursts, 2);
	assert_int_equal(ksw_proc_stall_ns(p), 460 * MS);

	/* the pid again, another process: a record of its own */
	e = link_kprobe_multi(7, 20000 * MS, 10 * MS, false, 1, 4);
	e.start_time = 99999;
	add(t, e);
	p = ksw_procs__find(t, 7);
	assert_int_equal(p->start_time, 99999);
	assert_int_equal(p->functions, 1);
	{
		size_t n;
		struct ksw_proc **v = ksw_procs__sorted(t, &n);

		assert_int_equal(n, 2);
		assert_int_equal(ksw_proc_stall_ns(v[0]), 460 * MS);	/* longest first */
	}
	ksw_procs__free(t);
}

static void test_by_prog_and_exit_unknown(void **state)
{
	struct ksw_procs *t = ksw_procs__new(5000 * MS, 16);
	struct ksw_event e;
	union bpf_attr at;
	struct ksw_proc *p;
	size_t n;

	(void)state;
	/* an exit of a process never seen makes no record */
	add(t, ev(KSW_EV_EXIT, 0, 3, 0, 0, 0));
	ksw_procs__sorted(t, &n);
	assert_int_equal(n, 0);

	/* fexit loaded as fd 12, then attached by a nameless raw tracepoint open */
	memset(&at, 0, sizeof(at));
	at.expected_attach_type = BPF_TRACE_FEXIT;
	e = ev(KSW_EV_BPF, BPF_PROG_LOAD, 3, 0, 20 * MS, 12);
	set_attr(&e, &at, 120);
	add(t, e);
	memset(&at, 0, sizeof(at));
	at.raw_tracepoint.prog_fd = 12;
	e = ev(KSW_EV_BPF, BPF_RAW_TRACEPOINT_OPEN, 3, 30 * MS, 5 * MS, 13);
	set_attr(&e, &at, 16);
	add(t, e);
	/* an fd never loaded: another link */
	at.raw_tracepoint.prog_fd = 40;
	e = ev(KSW_EV_BPF, BPF_RAW_TRACEPOINT_OPEN, 3, 40 * MS, 5 * MS, 14);
	set_attr(&e, &at, 16);
	add(t, e);
	p = ksw_procs__find(t, 3);
	assert_int_equal(p->progs, 1);
	assert_int_equal(p->load_ns, 20 * MS);
	assert_int_equal(p->made[KSW_K_TRAMPOLINE], 1);
	assert_int_equal(p->made[KSW_K_OTHER], 1);
	assert_int_equal(p->functions, 1);
	assert_int_equal(p->by, KSW_BY_IDS);
	assert_int_equal(ksw_proc_stall_ns(p), 45 * MS);
	ksw_procs__free(t);
}

static void test_bound(void **state)
{
	struct ksw_procs *t = ksw_procs__new(5000 * MS, 8);
	struct ksw_proc **v;
	uint32_t pid;
	size_t n, i;

	(void)state;
	/* one long-stalled agent that ended, then a thousand short readers */
	add(t, link_kprobe_multi(1, 0, 900 * MS, false, 5, 4));
	add(t, ev(KSW_EV_EXIT, 0, 1, 1000 * MS, 0, 0));
	for (pid = 100; pid < 1100; pid++) {
		add(t, ev(KSW_EV_OPEN, KSW_F_KALLSYMS, pid, pid * MS, 1, 3));
		add(t, ev(KSW_EV_EXIT, 0, pid, pid * MS + 1, 0, 0));
	}
	v = ksw_procs__sorted(t, &n);
	assert_int_equal(n, 8);
	assert_int_equal(ksw_procs__evicted(t), 1001 - 8);
	/* the agent that stalled is what stays */
	assert_int_equal(v[0]->pid, 1);
	/* and each record left is found by its pid */
	for (i = 0; i < n; i++)
		assert_ptr_equal(ksw_procs__find(t, v[i]->pid), v[i]);
	ksw_procs__free(t);
	assert_null(ksw_procs__new(1, 0));
}

static const struct ksw_total *row_of(struct ksw_totals *c, const char *comm, const char *unit)
{
	const struct ksw_total *r;
	size_t i, n;

	r = ksw_totals__rows(c, &n);
	for (i = 0; i < n; i++)
		if (!strcmp(r[i].comm, comm) && !strcmp(r[i].unit, unit))
			return &r[i];
	return NULL;
}

static void test_totals(void **state)
{
	struct ksw_procs *t = ksw_procs__new(5000 * MS, 4);
	const struct ksw_total *r;
	struct ksw_totals *c;
	struct ksw_event e;
	struct ksw_proc *p;
	uint32_t pid;
	size_t n;

	(void)state;
	/* an agent's link under way: its burst counts already */
	add(t, link_kprobe_multi(7, 0, 100 * MS, false, 79, 4));
	p = ksw_procs__find(t, 7);
	p->unit = "agent.service";
	c = ksw_procs__totals(t);
	r = row_of(c, "agent", "agent.service");
	assert_non_null(r);
	assert_int_equal(r->sums.procs, 1);
	assert_int_equal(r->sums.attaches, 1);
	assert_int_equal(r->sums.stall_ns, 100 * MS);
	assert_int_equal(r->sums.functions, 79);
	ksw_totals__free(c);

	/* it ends; it restarts as pid 8 and attaches again, in two bursts */
	e = ev(KSW_EV_EXIT, 0, 7, 200 * MS, 0, 0);
	e.stat.resolve_ns = 42;
	add(t, e);
	add(t, link_kprobe_multi(8, 300 * MS, 50 * MS, true, 3, 4));
	ksw_procs__find(t, 8)->unit = "agent.service";
	add(t, link_kprobe_multi(8, 9000 * MS, 10 * MS, true, 3, 5));
	c = ksw_procs__totals(t);
	r = row_of(c, "agent", "agent.service");
	assert_int_equal(r->sums.procs, 2);
	assert_int_equal(r->sums.attaches, 3);
	assert_int_equal(r->sums.stall_ns, 160 * MS);
	assert_int_equal(r->sums.functions, 85);
	assert_int_equal(r->sums.links, 3);
	assert_int_equal(r->sums.resolve_ns, 42);
	ksw_totals__free(c);

	/* it ends; a crowd of agents that stall longer pushes both out of the
	 * table of 4: the totals keep what they had (a counter never goes down) */
	add(t, ev(KSW_EV_EXIT, 0, 8, 9500 * MS, 0, 0));
	for (pid = 100; pid < 700; pid++) {
		e = link_kprobe_multi(pid, 10000 * MS, 200 * MS, false, 1, 4);
		snprintf(e.comm, sizeof(e.comm), "r%u", pid);
		add(t, e);
		e = ev(KSW_EV_EXIT, 0, pid, 10300 * MS, 0, 0);
		snprintf(e.comm, sizeof(e.comm), "r%u", pid);
		add(t, e);
	}
	assert_null(ksw_procs__find(t, 7));
	assert_null(ksw_procs__find(t, 8));
	c = ksw_procs__totals(t);
	r = row_of(c, "agent", "agent.service");
	assert_non_null(r);
	assert_int_equal(r->sums.procs, 2);
	assert_int_equal(r->sums.attaches, 3);
	assert_int_equal(r->sums.functions, 85);
	/* 600 comms in rows of 512: the last row sums the rest */
	ksw_totals__rows(c, &n);
	assert_int_equal(n, 512);
	r = row_of(c, "", "");
	assert_non_null(r);
	assert_int_equal(r->sums.procs, 600 - (512 - 2));
	ksw_totals__free(c);
	ksw_procs__free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decode_links),
		cmocka_unit_test(test_decode_load_perf_text),
		cmocka_unit_test(test_bursts),
		cmocka_unit_test(test_by_prog_and_exit_unknown),
		cmocka_unit_test(test_bound),
		cmocka_unit_test(test_totals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
