// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The table of processes: records in one array, found by pid through an
 * open-addressed index that is rebuilt whenever a record leaves (rare: only
 * when the table is full), so a lookup is one probe sequence whatever the load.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "procs.h"
#include "totals.h"

/* A process keeps at most this many loaded programs in view (an fd each). */
#define PROGS_MAX 4096
/* Rows of running totals: a node's agents by comm and unit. */
#define TOTALS_MAX 512

struct ksw_procs {
	uint64_t gap_ns;
	size_t max;
	struct ksw_proc **recs;		/* cnt records */
	size_t cnt;
	int *idx;			/* 2 * max slots: index into recs, or -1 */
	size_t idx_cap;
	struct ksw_proc **sorted;
	uint64_t evicted;
	struct ksw_totals *done;	/* of the records totalled */
};

struct ksw_procs *ksw_procs__new(uint64_t gap_ns, size_t max)
{
	struct ksw_procs *t;
	size_t i;

	if (!max)
		return NULL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->gap_ns = gap_ns;
	t->max = max;
	t->idx_cap = 2 * max;
	t->recs = calloc(max, sizeof(*t->recs));
	t->sorted = calloc(max, sizeof(*t->sorted));
	t->idx = malloc(t->idx_cap * sizeof(*t->idx));
	t->done = ksw_totals__new(TOTALS_MAX);
	if (!t->recs || !t->sorted || !t->idx || !t->done) {
		ksw_procs__free(t);
		return NULL;
	}
	for (i = 0; i < t->idx_cap; i++)
		t->idx[i] = -1;
	return t;
}

static void proc_free(struct ksw_proc *p)
{
	if (p)
		free(p->progv);
	free(p);
}

void ksw_procs__free(struct ksw_procs *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < t->cnt; i++)
		proc_free(t->recs[i]);
	free(t->recs);
	free(t->sorted);
	free(t->idx);
	ksw_totals__free(t->done);
	free(t);
}

/* A record done with goes into the totals, once. */
static void total(struct ksw_procs *t, struct ksw_proc *p)
{
	struct ksw_sums s;

	if (p->totalled)
		return;
	ksw_sums_of(p, &s);
	/* no memory: its numbers are left out, and so is it from now on */
	ksw_totals__add(t->done, p->comm, p->unit, &s);
	p->totalled = true;
}

struct ksw_totals *ksw_procs__totals(const struct ksw_procs *t)
{
	struct ksw_totals *c = ksw_totals__copy(t->done);
	struct ksw_sums s;
	size_t i;

	for (i = 0; c && i < t->cnt; i++) {
		if (t->recs[i]->totalled)
			continue;
		ksw_sums_of(t->recs[i], &s);
		if (ksw_totals__add(c, t->recs[i]->comm, t->recs[i]->unit, &s)) {
			ksw_totals__free(c);
			return NULL;
		}
	}
	return c;
}

static size_t slot_of(const struct ksw_procs *t, uint32_t pid)
{
	return (pid * 2654435761u) % t->idx_cap;
}

/* The newest record of pid, its slot in *slotp (or the free slot found). */
static struct ksw_proc *lookup(const struct ksw_procs *t, uint32_t pid, size_t *slotp)
{
	size_t s = slot_of(t, pid);

	while (t->idx[s] >= 0) {
		if (t->recs[t->idx[s]]->pid == pid) {
			*slotp = s;
			return t->recs[t->idx[s]];
		}
		s = (s + 1) % t->idx_cap;
	}
	*slotp = s;
	return NULL;
}

static void reindex(struct ksw_procs *t)
{
	size_t i, s;

	for (i = 0; i < t->idx_cap; i++)
		t->idx[i] = -1;
	/* later records win: the newest process of a reused pid is found */
	for (i = 0; i < t->cnt; i++) {
		if (!lookup(t, t->recs[i]->pid, &s) || t->recs[t->idx[s]]->start_time <=
							      t->recs[i]->start_time)
			t->idx[s] = (int)i;
	}
}

struct ksw_proc *ksw_procs__find(struct ksw_procs *t, uint32_t pid)
{
	size_t s;

	return lookup(t, pid, &s);
}

/* Whether p matters less than q: an ended process before a live one; among
 * ended ones the shorter stall, then the one seen longer ago. */
static bool matters_less(const struct ksw_proc *p, const struct ksw_proc *q)
{
	uint64_t ps, qs;

	if (p->exited != q->exited)
		return p->exited;
	if (p->exited) {
		ps = ksw_proc_stall_ns(p);
		qs = ksw_proc_stall_ns(q);
		if (ps != qs)
			return ps < qs;
	}
	return p->last_seen < q->last_seen;
}

static void burst_finish(struct ksw_proc *p)
{
	uint64_t stall;

	if (!p->in_burst)
		return;
	p->in_burst = false;
	if (!p->cur.link_end)
		return;
	p->bursts++;
	stall = p->cur.link_end - p->cur.start;
	p->stall_sum_ns += stall;
	if (stall >= p->stall_ns) {
		p->stall_ns = stall;
		p->stall_cpu_ns = p->cur.cpu_at_link;
	}
}

/* Room for one more: the record that matters least goes. */
static void evict(struct ksw_procs *t)
{
	size_t i, victim = 0;

	for (i = 1; i < t->cnt; i++)
		if (matters_less(t->recs[i], t->recs[victim]))
			victim = i;
	burst_finish(t->recs[victim]);
	total(t, t->recs[victim]);
	proc_free(t->recs[victim]);
	t->recs[victim] = t->recs[--t->cnt];
	t->evicted++;
	reindex(t);
}

static struct ksw_proc *get(struct ksw_procs *t, const struct ksw_event *e, bool make)
{
	struct ksw_proc *p;
	size_t s;

	p = lookup(t, e->tgid, &s);
	if (p && p->start_time == e->start_time)
		return p;
	if (!make)
		return NULL;
	if (p) {
		/* the pid was reused: the record kept is an ended process's */
		burst_finish(p);
		p->exited = true;
		total(t, p);
	}
	if (t->cnt == t->max) {
		evict(t);
		lookup(t, e->tgid, &s);
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->pid = e->tgid;
	p->start_time = e->start_time;
	p->first_seen = e->ts;
	t->recs[t->cnt] = p;
	t->idx[s] = (int)t->cnt++;
	return p;
}

static int prog_add(struct ksw_proc *p, int fd, uint32_t attach_type)
{
	size_t i;

	for (i = 0; i < p->progc; i++) {
		if (p->progv[i].fd == fd) {
			p->progv[i].attach_type = attach_type;
			return 0;
		}
	}
	if (p->progc == PROGS_MAX)
		return 0;	/* its later programs' raw tracepoint opens read as "other" */
	if (p->progc == p->progcap) {
		size_t cap = p->progcap ? 2 * p->progcap : 16;
		struct ksw_prog *v = realloc(p->progv, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		p->progv = v;
		p->progcap = cap;
	}
	p->progv[p->progc++] = (struct ksw_prog){ .fd = fd, .attach_type = attach_type };
	return 0;
}

static unsigned int kind_by_prog(const struct ksw_proc *p, int fd)
{
	size_t i;

	for (i = 0; i < p->progc; i++)
		if (p->progv[i].fd == fd)
			return ksw_kind_of_prog(p->progv[i].attach_type);
	return KSW_K_OTHER;
}

static void burst_add(struct ksw_procs *t, struct ksw_proc *p, const struct ksw_event *e,
		      bool made)
{
	struct ksw_burst *b = &p->cur;
	uint64_t begin = e->ts, end = e->ts + e->dur, cpu = 0;
	size_t i;

	if (!p->in_burst || begin > b->last_end + t->gap_ns) {
		burst_finish(p);
		memset(b, 0, sizeof(*b));
		b->start = begin;
		p->in_burst = true;
	}
	if (begin < b->start)
		b->start = begin;	/* a long call that began before the burst's first */
	if (end > b->last_end)
		b->last_end = end;
	for (i = 0; i < b->nthreads; i++)
		if (b->threads[i].tid == e->tid)
			break;
	if (i == b->nthreads && i < KSW_BURST_THREADS) {
		b->threads[i] = (struct ksw_thread){
			.tid = e->tid,
			.cpu_first = e->cpu0 ? e->cpu0 : e->cpu1,
			.cpu_last = e->cpu1,
		};
		b->nthreads++;
	} else if (i < b->nthreads && e->cpu1 > b->threads[i].cpu_last) {
		b->threads[i].cpu_last = e->cpu1;
	}
	if (!made)
		return;
	if (end > b->link_end)
		b->link_end = end;
	for (i = 0; i < b->nthreads; i++)
		cpu += b->threads[i].cpu_last - b->threads[i].cpu_first;
	b->cpu_at_link = cpu;
}

int ksw_procs__add(struct ksw_procs *t, const struct ksw_event *e, const struct ksw_action *a)
{
	unsigned int kind = a->kind;
	struct ksw_proc *p;
	bool made = false;

	if (a->act == KSW_ACT_NONE)
		return 0;
	p = get(t, e, a->act != KSW_ACT_EXIT);
	if (!p)
		return a->act == KSW_ACT_EXIT ? 0 : -ENOMEM;
	memcpy(p->comm, e->comm, sizeof(p->comm));
	p->comm[sizeof(p->comm) - 1] = '\0';
	p->cgroup = e->cgroup;
	if (e->ts + e->dur > p->last_seen)
		p->last_seen = e->ts + e->dur;

	switch (a->act) {
	case KSW_ACT_EXIT:
		p->stat = e->stat;
		p->stat_final = true;
		p->exited = true;
		burst_finish(p);
		total(t, p);
		return 0;
	case KSW_ACT_LOAD:
		p->load_ns += e->dur;
		if (a->err) {
			p->refused++;
			p->last_errno = a->err;
		} else {
			p->progs++;
			if (prog_add(p, a->fd, a->attach_type))
				return -ENOMEM;
		}
		break;
	case KSW_ACT_ATTACH:
		p->attach_ns += e->dur;
		if (a->err) {
			p->refused++;
			p->last_errno = a->err;
			break;
		}
		if (kind == KSW_K_BY_PROG) {
			kind = kind_by_prog(p, a->fd);
			if (kind == KSW_K_TRAMPOLINE) {
				p->functions++;
				p->by |= KSW_BY_IDS;
			}
		}
		p->made[kind]++;
		p->functions += a->functions;
		p->by |= a->by;
		made = true;
		break;
	case KSW_ACT_FILE_OPEN:
		if (a->file < KSW_F_NR)
			p->files_opened[a->file]++;
		break;
	default:
		break;
	}
	burst_add(t, p, e, made);
	return 0;
}

uint64_t ksw_proc_stall_ns(const struct ksw_proc *p)
{
	uint64_t cur = p->in_burst && p->cur.link_end ? p->cur.link_end - p->cur.start : 0;

	return cur > p->stall_ns ? cur : p->stall_ns;
}

uint64_t ksw_proc_stall_cpu_ns(const struct ksw_proc *p)
{
	uint64_t cur = p->in_burst && p->cur.link_end ? p->cur.link_end - p->cur.start : 0;

	return cur > p->stall_ns ? p->cur.cpu_at_link : p->stall_cpu_ns;
}

/* A per-file array summed over the symbol files. */
static uint64_t sum_files(const __u64 *v)
{
	uint64_t n = 0;
	int f;

	for (f = KSW_F_NONE + 1; f < KSW_F_NR; f++)
		n += v[f];
	return n;
}

uint64_t ksw_proc_read_ns(const struct ksw_proc *p)
{
	return sum_files(p->stat.read_ns);
}

uint64_t ksw_proc_read_bytes(const struct ksw_proc *p)
{
	return sum_files(p->stat.read_bytes);
}

uint64_t ksw_proc_files(const struct ksw_proc *p)
{
	return sum_files(p->files_opened);
}

uint64_t ksw_proc_made(const struct ksw_proc *p)
{
	uint64_t n = 0;
	int k;

	for (k = 0; k < KSW_K_NR; k++)
		n += p->made[k];
	return n;
}

static int by_stall(const void *a, const void *b)
{
	const struct ksw_proc *p = *(struct ksw_proc *const *)a, *q = *(struct ksw_proc *const *)b;
	uint64_t x = ksw_proc_stall_ns(p), y = ksw_proc_stall_ns(q);

	if (x != y)
		return x > y ? -1 : 1;
	x = ksw_proc_read_ns(p);
	y = ksw_proc_read_ns(q);
	if (x != y)
		return x > y ? -1 : 1;
	return p->pid < q->pid ? -1 : p->pid > q->pid;
}

struct ksw_proc **ksw_procs__sorted(struct ksw_procs *t, size_t *cnt)
{
	memcpy(t->sorted, t->recs, t->cnt * sizeof(*t->sorted));
	qsort(t->sorted, t->cnt, sizeof(*t->sorted), by_stall);
	*cnt = t->cnt;
	return t->sorted;
}

uint64_t ksw_procs__evicted(const struct ksw_procs *t)
{
	return t->evicted;
}
