// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * syscall_loop [-n CALLS] [-r REPS] [-b BYTES] [-f FILE]: read(2) of BYTES
 * (1) from FILE (/dev/zero) CALLS (20000) times in a tight loop, REPS (5)
 * times over, and print the time a call took, in ns: the best repetition's and
 * the median one's, as one line of key=value pairs. For the guest's per-call
 * bench (tests/vm/bench-percall.sh): the same loop with none, then each kind of
 * probe on the functions the call goes through.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_REPS 101
#define MAX_BYTES 4096

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return a < b ? -1 : a > b;
}

static long arg_num(const char *s, char opt, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max) {
		fprintf(stderr, "syscall_loop: -%c takes a number from %ld to %ld\n", opt, min,
			max);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	static char buf[MAX_BYTES];
	const char *path = "/dev/zero";
	long calls = 20000, reps = 5, bytes = 1, i, r;
	double ns[MAX_REPS], t0;
	int fd, opt;

	while ((opt = getopt(argc, argv, "n:r:b:f:")) != -1) {
		switch (opt) {
		case 'n':
			calls = arg_num(optarg, 'n', 1, 1000000000);
			break;
		case 'r':
			reps = arg_num(optarg, 'r', 1, MAX_REPS);
			break;
		case 'b':
			bytes = arg_num(optarg, 'b', 1, MAX_BYTES);
			break;
		case 'f':
			path = optarg;
			break;
		default:
			fprintf(stderr, "usage: syscall_loop [-n CALLS] [-r REPS] [-b BYTES] "
					"[-f FILE]\n");
			return 2;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "syscall_loop: no operands\n");
		return 2;
	}
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		fprintf(stderr, "syscall_loop: %s: %s\n", path, strerror(errno));
		return 1;
	}
	/* one call first: the page and the file's first read outside the clock */
	if (read(fd, buf, bytes) != bytes) {
		fprintf(stderr, "syscall_loop: %s: a read of %ld bytes fell short\n", path, bytes);
		return 1;
	}
	for (r = 0; r < reps; r++) {
		t0 = now_ns();
		for (i = 0; i < calls; i++) {
			if (read(fd, buf, bytes) != bytes) {
				fprintf(stderr, "syscall_loop: %s: read %ld of rep %ld: %s\n", path,
					i, r, errno ? strerror(errno) : "short");
				return 1;
			}
		}
		ns[r] = (now_ns() - t0) / calls;
	}
	close(fd);
	qsort(ns, reps, sizeof(ns[0]), cmp_double);
	printf("best_ns=%.1f median_ns=%.1f calls=%ld reps=%ld\n", ns[0],
	       reps % 2 ? ns[reps / 2] : (ns[reps / 2 - 1] + ns[reps / 2]) / 2, calls * reps,
	       reps);
	return 0;
}
