// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The hand-assembled hit counter (src/engine/hitprog.c) against this host's
 * kernel: it loads for kprobe.multi and for classic kprobes, its map is the
 * counters the engine reads (HASH, entry IP -> calls, every slot made with the map,
 * sized as asked), it counts nothing until armed, and a refusal leaves no
 * descriptor behind. Skipped where this
 * process may not load BPF programs. (Attaching it is the VM tests' part: the
 * host may have no kprobes at all.)
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <dirent.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <bpf/bpf.h>

#include "hitprog.h"
#include "ksymattach.h"

static int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n - 1;	/* the directory's own */
}

static void load_or_skip(struct hitprog *hp, enum bpf_attach_type type, enum hitprog_key key,
			 size_t slots)
{
	char log[256] = "";
	int err = hitprog__load(hp, type, key, slots, getpid(), log, sizeof(log));

	if (err == -EPERM || err == -ENOSYS) {
		print_message("# no BPF for this process here: %s\n", strerror(-err));
		skip();
	}
	if (err)
		fail_msg("load: %s (%s)", strerror(-err), log);
}

static void test_loads(void **s)
{
	static const enum bpf_attach_type types[] = { BPF_TRACE_KPROBE_MULTI, 0, 0 };
	static const enum hitprog_key keys[] = { HITPROG_KEY_FUNC_IP, HITPROG_KEY_FUNC_IP,
						 HITPROG_KEY_REGS };
	struct bpf_prog_info pi;
	struct bpf_map_info mi;
	struct hitprog hp;
	__u32 len, zero = 0;
	__u64 on;
	size_t i;

	(void)s;
	for (i = 0; i < 3; i++) {
		load_or_skip(&hp, types[i], keys[i], 94);
		memset(&mi, 0, sizeof(mi));
		len = sizeof(mi);
		assert_int_equal(bpf_map_get_info_by_fd(hp.map_fd, &mi, &len), 0);
		assert_int_equal(mi.type, BPF_MAP_TYPE_HASH);
		assert_int_equal(mi.key_size, sizeof(__u64));
		assert_int_equal(mi.value_size, sizeof(__u64));
		assert_int_equal(mi.map_flags, 0);	/* every slot made with the map */
		assert_int_equal(mi.max_entries, 94);
		memset(&pi, 0, sizeof(pi));
		len = sizeof(pi);
		assert_int_equal(bpf_prog_get_info_by_fd(hp.prog_fd, &pi, &len), 0);
		assert_int_equal(pi.type, BPF_PROG_TYPE_KPROBE);
		assert_int_equal(pi.nr_map_ids, 2);
		/* the switch that starts the counting: off until armed */
		memset(&mi, 0, sizeof(mi));
		len = sizeof(mi);
		assert_int_equal(bpf_map_get_info_by_fd(hp.armed_fd, &mi, &len), 0);
		assert_int_equal(mi.type, BPF_MAP_TYPE_ARRAY);
		assert_int_equal(mi.max_entries, 1);
		assert_int_equal(bpf_map_lookup_elem(hp.armed_fd, &zero, &on), 0);
		assert_int_equal(on, 0);
		assert_int_equal(hitprog__arm(&hp), 0);
		assert_int_equal(bpf_map_lookup_elem(hp.armed_fd, &zero, &on), 0);
		assert_int_equal(on, 1);
		hitprog__close(&hp);
		assert_int_equal(hp.prog_fd, -1);
		assert_int_equal(hp.armed_fd, -1);
		hitprog__close(&hp);	/* again: nothing */
		assert_int_equal(hitprog__arm(&hp), -EBADF);
	}
}

/* A map the kernel refuses (no room at all): an error, no descriptor left. */
static void test_refused(void **s)
{
	struct hitprog hp;
	int before = open_fds(), err;

	(void)s;
	load_or_skip(&hp, BPF_TRACE_KPROBE_MULTI, HITPROG_KEY_FUNC_IP, 1);
	hitprog__close(&hp);
	err = hitprog__load(&hp, BPF_TRACE_KPROBE_MULTI, HITPROG_KEY_FUNC_IP, 0, getpid(), NULL, 0);
	assert_int_equal(err, -EINVAL);
	assert_int_equal(hp.prog_fd, -1);
	assert_int_equal(hp.map_fd, -1);
	assert_int_equal(hp.armed_fd, -1);
	assert_int_equal(open_fds(), before);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_loads),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests_name("hitprog", tests, NULL, NULL);
}
