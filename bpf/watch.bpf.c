// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ksymattach watch: what every other process does to attach probes, seen from
 * the kernel. The syscall tracepoints catch bpf() and perf_event_open() with
 * their attributes, and the opens, reads and closes of the symbol files; an
 * fentry/fexit pair on each kallsyms lookup the kernel has times its name
 * resolution per process. Userspace (src/watch/) decodes and accounts.
 *
 * Only the bpf(), perf_event_open() and symbol-file calls send an event; a
 * read of a symbol file adds to the process's totals in the kernel, and every
 * other open, read or write costs one string compare or one hash lookup.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "watch.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* Set before load: the watcher itself (left out unless -v) and the kprobe
 * PMU's type, from sysfs (0: the kernel has none). */
const volatile __u32 self_tgid = 0;

#define MAX_PROCS 16384
#define MAX_THREADS 16384
#define LOOKUP_THREADS MAX_THREADS
#include "lookup_time.bpf.h"

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20);
} events SEC(".maps");

/* Events the ring buffer had no room for: counted, never silent. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} dropped SEC(".maps");

/* Per process: what the kernel did on its behalf. LRU: a process that ends
 * between two refreshes without its exit seen cannot grow the map. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, MAX_PROCS);
	__type(key, __u32);
	__type(value, struct ksw_stat);
} stats SEC(".maps");

/* A bpf() or perf_event_open() call under way, per thread. */
struct call {
	__u64 ts;
	__u64 cpu0;
	__u32 cmd;
	__u32 attr_len;
	__u8 attr[KSW_ATTR_MAX];
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, MAX_THREADS);
	__type(key, __u32);
	__type(value, struct call);
} calls SEC(".maps");

/* An open of a symbol file under way, per thread: its kind. */
struct opening {
	__u64 ts;
	__u32 kind;
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, MAX_THREADS);
	__type(key, __u32);
	__type(value, struct opening);
} openings SEC(".maps");

/* The open symbol files, by process and descriptor. */
struct fd_key {
	__u32 tgid;
	__u32 fd;
};

struct fd_val {
	__u64 ts;	/* opened at */
	__u32 kind;
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, MAX_PROCS);
	__type(key, struct fd_key);
	__type(value, struct fd_val);
} fds SEC(".maps");

/* A read of a symbol file under way, per thread. */
struct reading {
	__u64 ts;
	__u32 kind;
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, MAX_THREADS);
	__type(key, __u32);
	__type(value, struct reading);
} readings SEC(".maps");


/* A link being freed, per thread: since when. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, MAX_THREADS);
	__type(key, __u32);
	__type(value, __u64);
} freeing SEC(".maps");

static __always_inline bool is_self(__u32 tgid)
{
	return self_tgid && tgid == self_tgid;
}

static __always_inline __u64 thread_cpu(void)
{
	struct task_struct *t = (struct task_struct *)bpf_get_current_task();

	return BPF_CORE_READ(t, se.sum_exec_runtime);
}

static __always_inline struct ksw_stat *stat_of(__u32 tgid)
{
	struct ksw_stat *s, zero = {};

	s = bpf_map_lookup_elem(&stats, &tgid);
	if (s)
		return s;
	bpf_map_update_elem(&stats, &tgid, &zero, BPF_NOEXIST);
	return bpf_map_lookup_elem(&stats, &tgid);
}

static __always_inline void drop(void)
{
	__u32 k = 0;
	__u64 *n = bpf_map_lookup_elem(&dropped, &k);

	if (n)
		__sync_fetch_and_add(n, 1);
}

/* A new event with who sent it; NULL (and a drop counted) when full. */
static __always_inline struct ksw_event *event_new(__u32 type, __u32 cmd, __u64 ts)
{
	struct task_struct *t = (struct task_struct *)bpf_get_current_task();
	__u64 id = bpf_get_current_pid_tgid();
	struct ksw_event *e;

	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		drop();
		return NULL;
	}
	e->type = type;
	e->cmd = cmd;
	e->tgid = id >> 32;
	e->tid = (__u32)id;
	e->start_time = BPF_CORE_READ(t, group_leader, start_time);
	e->cgroup = bpf_get_current_cgroup_id();
	e->ts = ts;
	e->dur = 0;
	e->ret = 0;
	e->cpu0 = 0;
	e->cpu1 = BPF_CORE_READ(t, se.sum_exec_runtime);
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	e->attr_len = 0;
	return e;
}

/* bpf() and perf_event_open(): the attribute read at entry, sent at return. */
static __always_inline int call_enter(__u32 cmd, const void *uattr, __u64 size)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)id;
	struct call *c;
	struct call zero = {};

	if (is_self(id >> 32))
		return 0;
	if (bpf_map_update_elem(&calls, &tid, &zero, BPF_ANY))
		return 0;
	c = bpf_map_lookup_elem(&calls, &tid);
	if (!c)
		return 0;
	c->ts = bpf_ktime_get_ns();
	c->cpu0 = thread_cpu();
	c->cmd = cmd;
	if (size > KSW_ATTR_MAX)
		size = KSW_ATTR_MAX;
	/* (a short or unreadable attribute: the call's own EFAULT or EINVAL) */
	if (uattr && !bpf_probe_read_user(c->attr, size, uattr))
		c->attr_len = size;
	return 0;
}

static __always_inline int call_exit(__u32 type, long ret)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)id;
	struct ksw_event *e;
	struct call *c;
	__u64 now;

	c = bpf_map_lookup_elem(&calls, &tid);
	if (!c)
		return 0;
	now = bpf_ktime_get_ns();
	e = event_new(type, c->cmd, c->ts);
	if (e) {
		e->dur = now - c->ts;
		e->ret = ret;
		e->cpu0 = c->cpu0;
		e->attr_len = c->attr_len;
		__builtin_memcpy(e->attr, c->attr, sizeof(e->attr));
		bpf_ringbuf_submit(e, 0);
	}
	bpf_map_delete_elem(&calls, &tid);
	return 0;
}

/* The bpf() commands that load or attach; the rest (map updates, lookups,
 * info queries) are left in the kernel. */
static __always_inline bool bpf_cmd_kept(__u64 cmd)
{
	return cmd == 5 /* BPF_PROG_LOAD */ || cmd == 17 /* BPF_RAW_TRACEPOINT_OPEN */ ||
	       cmd == 28 /* BPF_LINK_CREATE */;
}

SEC("tracepoint/syscalls/sys_enter_bpf")
int ksw_bpf_enter(struct trace_event_raw_sys_enter *ctx)
{
	__u64 cmd = ctx->args[0];

	if (!bpf_cmd_kept(cmd))
		return 0;
	return call_enter(cmd, (const void *)ctx->args[1], ctx->args[2]);
}

SEC("tracepoint/syscalls/sys_exit_bpf")
int ksw_bpf_exit(struct trace_event_raw_sys_exit *ctx)
{
	return call_exit(KSW_EV_BPF, ctx->ret);
}

SEC("tracepoint/syscalls/sys_enter_perf_event_open")
int ksw_perf_enter(struct trace_event_raw_sys_enter *ctx)
{
	/* PERF_ATTR_SIZE_VER1: type, config, and config1/config2 (a kprobe's
	 * function name or address) */
	return call_enter(0, (const void *)ctx->args[0], 72);
}

SEC("tracepoint/syscalls/sys_exit_perf_event_open")
int ksw_perf_exit(struct trace_event_raw_sys_exit *ctx)
{
	return call_exit(KSW_EV_PERF, ctx->ret);
}

/*
 * A fixed prefix at a fixed place of the path read: every byte compared
 * without a branch and one test at the end. A branch a byte would hand the
 * verifier a path for every byte of every literal that could differ.
 */
#define HAS(buf, off, lit) has(buf, off, lit, sizeof(lit) - 1)
static __always_inline bool has(const char *buf, int off, const char *lit, int n)
{
	char d = 0;

#pragma unroll
	for (int i = 0; i < 40; i++)
		if (i < n)
			d |= buf[off + i] ^ lit[i];
	return !d;
}

#define PATH_MAX_READ 80

/* Which symbol file a path names, from its absolute path alone. */
static __always_inline __u32 file_kind(const char *p)
{
	int t;

	if (HAS(p, 0, "/proc/kallsyms\0"))
		return KSW_F_KALLSYMS;
	if (HAS(p, 0, "/proc/kcore\0"))
		return KSW_F_KCORE;
	if (HAS(p, 0, "/sys/kernel/btf/"))
		return KSW_F_BTF;
	if (HAS(p, 0, "/sys/kernel/tracing/"))
		t = 20;
	else if (HAS(p, 0, "/sys/kernel/debug/tracing/"))
		t = 26;
	else
		return KSW_F_NONE;
	if (t == 20) {
		if (HAS(p, 20, "available_filter_functions_addrs\0"))
			return KSW_F_FUNCS_ADDRS;
		if (HAS(p, 20, "available_filter_functions\0"))
			return KSW_F_FUNCS;
		if (HAS(p, 20, "kprobe_events\0"))
			return KSW_F_KPROBE_EVENTS;
	} else {
		if (HAS(p, 26, "available_filter_functions_addrs\0"))
			return KSW_F_FUNCS_ADDRS;
		if (HAS(p, 26, "available_filter_functions\0"))
			return KSW_F_FUNCS;
		if (HAS(p, 26, "kprobe_events\0"))
			return KSW_F_KPROBE_EVENTS;
	}
	return KSW_F_NONE;
}

static __always_inline int open_enter(const char *upath)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)id;
	char path[PATH_MAX_READ] = {};
	struct opening o = {};

	if (is_self(id >> 32))
		return 0;
	/* the cheap test first: every open on the machine passes here */
	if (bpf_probe_read_user(path, 6, upath) || path[0] != '/' ||
	    (path[1] != 'p' && path[1] != 's'))
		return 0;
	if (bpf_probe_read_user_str(path, sizeof(path), upath) < 0)
		return 0;
	o.kind = file_kind(path);
	if (o.kind == KSW_F_NONE)
		return 0;
	o.ts = bpf_ktime_get_ns();
	bpf_map_update_elem(&openings, &tid, &o, BPF_ANY);
	return 0;
}

SEC("tracepoint/syscalls/sys_enter_openat")
int ksw_openat_enter(struct trace_event_raw_sys_enter *ctx)
{
	return open_enter((const char *)ctx->args[1]);
}

static __always_inline int open_exit(long ret)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)id;
	struct opening *o;
	struct ksw_event *e;

	o = bpf_map_lookup_elem(&openings, &tid);
	if (!o)
		return 0;
	if (ret >= 0) {
		struct fd_key k = { .tgid = id >> 32, .fd = ret };
		struct fd_val v = { .ts = o->ts, .kind = o->kind };

		bpf_map_update_elem(&fds, &k, &v, BPF_ANY);
	}
	e = event_new(KSW_EV_OPEN, o->kind, o->ts);
	if (e) {
		e->dur = bpf_ktime_get_ns() - o->ts;
		e->ret = ret;
		bpf_ringbuf_submit(e, 0);
	}
	bpf_map_delete_elem(&openings, &tid);
	return 0;
}

SEC("tracepoint/syscalls/sys_exit_openat")
int ksw_openat_exit(struct trace_event_raw_sys_exit *ctx)
{
	return open_exit(ctx->ret);
}

static __always_inline int read_enter(__u64 fd)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct fd_key k = { .tgid = id >> 32, .fd = fd };
	__u32 tid = (__u32)id;
	struct reading r = {};
	struct fd_val *v;

	v = bpf_map_lookup_elem(&fds, &k);
	if (!v || v->kind == KSW_F_KPROBE_EVENTS)
		return 0;
	r.ts = bpf_ktime_get_ns();
	r.kind = v->kind;
	bpf_map_update_elem(&readings, &tid, &r, BPF_ANY);
	return 0;
}

static __always_inline int read_exit(long ret)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)id;
	struct ksw_stat *s;
	struct reading *r;
	__u32 kind;

	r = bpf_map_lookup_elem(&readings, &tid);
	if (!r)
		return 0;
	kind = r->kind;
	s = stat_of(id >> 32);
	if (s && kind < KSW_F_NR) {
		__sync_fetch_and_add(&s->read_ns[kind], bpf_ktime_get_ns() - r->ts);
		__sync_fetch_and_add(&s->reads[kind], 1);
		if (ret > 0)
			__sync_fetch_and_add(&s->read_bytes[kind], ret);
	}
	bpf_map_delete_elem(&readings, &tid);
	return 0;
}

/* read() and pread64() (kcore is read at offsets): one pair each. */
#define READ_PAIR(sc)                                                   \
	SEC("tracepoint/syscalls/sys_enter_" #sc)                       \
	int ksw_##sc##_enter(struct trace_event_raw_sys_enter *ctx)     \
	{                                                               \
		return read_enter(ctx->args[0]);                        \
	}                                                               \
	SEC("tracepoint/syscalls/sys_exit_" #sc)                        \
	int ksw_##sc##_exit(struct trace_event_raw_sys_exit *ctx)       \
	{                                                               \
		return read_exit(ctx->ret);                             \
	}

READ_PAIR(read)
READ_PAIR(pread64)

/* kprobe_events: each write is one probe made (or removed) by text. */
SEC("tracepoint/syscalls/sys_enter_write")
int ksw_write_enter(struct trace_event_raw_sys_enter *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct fd_key k = { .tgid = id >> 32, .fd = ctx->args[0] };
	__u64 n = ctx->args[2];
	struct ksw_event *e;
	struct fd_val *v;

	v = bpf_map_lookup_elem(&fds, &k);
	if (!v || v->kind != KSW_F_KPROBE_EVENTS)
		return 0;
	e = event_new(KSW_EV_KPROBE_WRITE, KSW_F_KPROBE_EVENTS, bpf_ktime_get_ns());
	if (!e)
		return 0;
	if (n > KSW_ATTR_MAX)
		n = KSW_ATTR_MAX;
	if (!bpf_probe_read_user(e->attr, n, (const void *)ctx->args[1]))
		e->attr_len = n;
	bpf_ringbuf_submit(e, 0);
	return 0;
}

SEC("tracepoint/syscalls/sys_enter_close")
int ksw_close_enter(struct trace_event_raw_sys_enter *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct fd_key k = { .tgid = id >> 32, .fd = ctx->args[0] };
	struct ksw_event *e;
	struct fd_val *v;

	v = bpf_map_lookup_elem(&fds, &k);
	if (!v)
		return 0;
	e = event_new(KSW_EV_CLOSE, v->kind, v->ts);
	if (e) {
		e->dur = bpf_ktime_get_ns() - v->ts;
		bpf_ringbuf_submit(e, 0);
	}
	bpf_map_delete_elem(&fds, &k);
	return 0;
}

/* A process's end: what the kernel kept for it goes out with the event. */
SEC("tracepoint/sched/sched_process_exit")
int ksw_exit(void *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = id >> 32;
	struct ksw_stat *s;
	struct ksw_event *e;

	if ((__u32)id != tgid)
		return 0;
	s = bpf_map_lookup_elem(&stats, &tgid);
	if (!s)
		return 0;
	e = event_new(KSW_EV_EXIT, 0, bpf_ktime_get_ns());
	if (e) {
		__builtin_memcpy(&e->stat, s, sizeof(*s));
		bpf_ringbuf_submit(e, 0);
	}
	bpf_map_delete_elem(&stats, &tgid);
	return 0;
}

/* The kallsyms lookups: the outermost call's time, per process. */
static __always_inline void resolve_time(__u64 ns)
{
	struct ksw_stat *s = stat_of(bpf_get_current_pid_tgid() >> 32);

	if (s) {
		__sync_fetch_and_add(&s->resolve_ns, ns);
		__sync_fetch_and_add(&s->resolve_calls, 1);
	}
}

LOOKUP_PAIR(kallsyms_lookup_name, resolve_time)
LOOKUP_PAIR(kallsyms_on_each_symbol, resolve_time)
LOOKUP_PAIR(kallsyms_on_each_match_symbol, resolve_time)
LOOKUP_PAIR(module_kallsyms_lookup_name, resolve_time)
LOOKUP_PAIR(module_kallsyms_on_each_symbol, resolve_time)
LOOKUP_PAIR(find_kallsyms_symbol_value, resolve_time)

/* A link's detach: its release and free, where the kernel lets fentry see it. */
SEC("fentry/bpf_link_free")
int BPF_PROG(enter_bpf_link_free)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	__u64 ts = bpf_ktime_get_ns();

	bpf_map_update_elem(&freeing, &tid, &ts, BPF_ANY);
	return 0;
}

SEC("fexit/bpf_link_free")
int BPF_PROG(exit_bpf_link_free)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)id;
	struct ksw_stat *s;
	__u64 *ts;

	ts = bpf_map_lookup_elem(&freeing, &tid);
	if (!ts)
		return 0;
	s = stat_of(id >> 32);
	if (s) {
		__sync_fetch_and_add(&s->free_ns, bpf_ktime_get_ns() - *ts);
		__sync_fetch_and_add(&s->links_freed, 1);
	}
	bpf_map_delete_elem(&freeing, &tid);
	return 0;
}
