// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * An agent that resolves its own kprobe.multi targets with libksym and hands
 * libbpf addresses, instead of letting libbpf parse tracefs' function list:
 *
 *	agent [-L] GLOB [SECONDS]	-L: let libbpf resolve GLOB, as stock agents do
 *
 * The change to an agent is the two lines marked below: ksym_db__sites() and
 * opts.addrs. Build: cc agent.c $(pkg-config --cflags --libs libksym libbpf).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <ksym/ksym.h>

#include "agent.skel.h"

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* What the kernel attached (Linux >= 6.6 says; 0 before). */
static unsigned int attached(struct bpf_link *link)
{
	struct bpf_link_info info = {};
	__u32 len = sizeof(info);

	if (bpf_link_get_info_by_fd(bpf_link__fd(link), &info, &len))
		return 0;
	return info.kprobe_multi.count;
}

int main(int argc, char **argv)
{
	LIBBPF_OPTS(bpf_kprobe_multi_opts, opts);
	bool own = !(argc > 1 && !strcmp(argv[1], "-L"));
	const char *glob = argc > (own ? 1 : 2) ? argv[own ? 1 : 2] : NULL;
	struct ksym_db_opts dbo = { .sz = sizeof(dbo), .need = KSYM_DB_FUNCS,
				    .patterns = &glob, .pattern_cnt = 1 };
	struct ksym_db *db = NULL;
	unsigned long *addrs = NULL;
	struct agent_bpf *skel;
	struct bpf_link *link;
	double t0, t1, t2;
	int err;

	if (!glob) {
		fprintf(stderr, "usage: agent [-L] GLOB [SECONDS]\n");
		return 64;
	}
	skel = agent_bpf__open_and_load();
	if (!skel) {
		fprintf(stderr, "agent: cannot load the BPF program: %s\n", strerror(errno));
		return 1;
	}
	t0 = now_ms();
	if (own) {
		/* libksym: the /run cache if this boot has one, else the build cache of an
		 * earlier boot of this kernel build, else the kernel's files */
		db = ksym_db__new(&dbo);
		err = db ? ksym_db__sites(db, &addrs, &opts.cnt) : -ENOMEM;
		if (err) {
			fprintf(stderr, "agent: %s\n", db ? ksym_db__errmsg(db) : strerror(-err));
			return 1;
		}
		opts.addrs = addrs;	/* the kernel gets addresses: no name lookup */
	}
	t1 = now_ms();
	link = bpf_program__attach_kprobe_multi_opts(skel->progs.count, own ? NULL : glob, &opts);
	t2 = now_ms();
	if (!link) {
		fprintf(stderr, "agent: cannot attach: %s\n", strerror(errno));
		return 1;
	}
	/* the cache is written after attaching: no part of the stall */
	if (db)
		ksym_db__flush(db);
	printf("agent: %s: %u functions attached, resolve %.1f ms (%s), attach %.1f ms, "
	       "stall %.1f ms\n", own ? "libksym" : "libbpf", attached(link), t1 - t0,
	       own ? (ksym_db__from_cache(db, KSYM_DB_FUNCS) ? "cache" :
		      ksym_db__from_build_cache(db) ? "build cache" : "kernel files")
		   : "inside attach", t2 - t1, t2 - t0);
	fflush(stdout);		/* whoever waits for this line is told now */
	sleep(argc > (own ? 2 : 3) ? atoi(argv[own ? 2 : 3]) : 0);
	printf("agent: %llu hits\n", (unsigned long long)skel->bss->hits);
	bpf_link__destroy(link);
	agent_bpf__destroy(skel);
	ksym_db__free(db);
	free(addrs);
	return 0;
}
