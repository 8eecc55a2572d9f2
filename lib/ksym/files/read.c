// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Symbol files read: whole into memory (ksym__read_file()), or through a ring
 * of buffers a second thread fills while the parser takes them
 * (ksym_table__load()), so a file the kernel generates as it is read is parsed
 * while the kernel still writes it.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ksym_internal.h"
#include "ksym_filter.h"
#include "ksym_parser.h"

int ksym__read_file(const char *path, char **bufp, size_t *lenp)
{
	return ksym__read_file_max(path, KSYM_INPUT_MAX, bufp, lenp);
}

int ksym__read_file_max(const char *path, size_t max, char **bufp, size_t *lenp)
{
	size_t cap = 1 << 20, len = 0;
	char *buf, *nbuf;
	ssize_t n;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	buf = malloc(cap + 1);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	for (;;) {
		if (cap - len < (1 << 16)) {
			nbuf = realloc(buf, cap * 2 + 1);
			if (!nbuf) {
				err = -ENOMEM;
				goto err;
			}
			buf = nbuf;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			goto err;
		}
		if (n == 0)
			break;
		len += n;
		if (len > max) {
			err = -EFBIG;
			goto err;
		}
	}
	close(fd);
	buf[len] = '\0';
	/* the doubling left up to half unused: the buffer becomes the string arena */
	nbuf = realloc(buf, len + 1);
	*bufp = nbuf ? nbuf : buf;
	*lenp = len;
	return 0;
err:
	close(fd);
	free(buf);
	return err;
}

/*
 * Hand-over without wake-ups: each side naps while it has nothing to do. A
 * futex wake of a sleeping CPU is an IPI, which on a VM cost the reader ~30 us
 * a hand-over, on its critical path (measured: 5 MiB in 64 KiB pieces took
 * 2.4 ms longer than in 1 MiB pieces, 75 more hand-overs).
 * Naps double while nothing comes, up to 2 ms: where the two CPUs are one
 * underneath (an emulator's), every wake-up is taken from the reader (with
 * fixed 50 us naps, reading kallsyms took 568 ms in the project's TCG guest,
 * 290 ms with these; medians of bench-vm runs).
 */
#define NAP_MIN_NS 50000
#define NAP_MAX_NS 2000000

static void nap(unsigned int *ns)
{
	struct timespec ts = { .tv_nsec = *ns };

	nanosleep(&ts, NULL);
	if (*ns < NAP_MAX_NS)
		*ns *= 2;
}

/*
 * Every file is read through a small ring of buffers used over and over (a
 * huge page where the kernel allows it), and only the names are kept, in an
 * arena of their own: memory as large as the file would cost a fresh process
 * a fault per page (~11 us each on a VM, measured: more than parsing it). A
 * file the kernel generates as it is read (procfs, tracefs: size 0) takes it
 * tens of milliseconds to produce: a second thread reads it a chunk ahead
 * while this one parses and indexes, so the parse costs only the last chunk.
 */
#ifndef KSYM_RING_CHUNK		/* the fuzzer's build splits lines everywhere */
#define KSYM_RING_CHUNK (256u << 10)
#define KSYM_RING_CHUNKS 8
#endif
#define RING_CHUNK KSYM_RING_CHUNK
#define RING_CHUNKS KSYM_RING_CHUNKS
#define RING_SIZE (RING_CHUNK * RING_CHUNKS)
#define SINGLE_READ (RING_CHUNK < (64u << 10) ? RING_CHUNK : (64u << 10))

/* What ends a read before its end: a signal's flag (the caller's), or the parser gone. */
struct read_stop {
	const volatile sig_atomic_t *sig;
	const _Atomic bool *gone;
	bool may_block;		/* a pipe or a device: a read can wait forever */
};

static bool read_stopped(const struct read_stop *rs)
{
	return (rs->sig && *rs->sig) ||
	       (rs->gone && atomic_load_explicit(rs->gone, memory_order_relaxed));
}

/* a read of a pipe is waited on in slices this long, the flags looked at between */
#define READ_SLICE_MS 20

struct ring {
	int fd;
	char *mem;
	size_t len[RING_CHUNKS];
	_Atomic size_t filled;	/* chunks handed to the parser (the reader's) */
	_Atomic size_t freed;	/* chunks given back (the parser's) */
	_Atomic bool done;	/* no chunk after filled; err set before */
	_Atomic bool stop;	/* the parser is gone */
	struct read_stop rs;	/* the reader's: stop above, and the caller's */
	int err;
};

/*
 * Up to cap bytes, fewer only at the end of the file; or -errno (-EINTR:
 * stopped). A writer that keeps a pipe open and writes nothing would hold a
 * plain read() forever, deaf to signals (the handler restarts it).
 */
static ssize_t read_full(int fd, const struct read_stop *rs, char *buf, size_t cap)
{
	size_t len = 0;
	ssize_t n;

	while (len < cap) {
		if (read_stopped(rs))
			return -EINTR;
		if (rs->may_block) {
			struct pollfd p = { .fd = fd, .events = POLLIN };
			int r = poll(&p, 1, READ_SLICE_MS);

			if (r < 0 && errno != EINTR)
				return -errno;
			if (r <= 0)
				continue;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (!n)
			break;
		len += n;
	}
	return len;
}

static void *ring_read(void *arg)
{
	struct ring *r = arg;
	unsigned int ns = NAP_MIN_NS;
	size_t k;
	ssize_t n;

	for (k = 0;; k++, ns = NAP_MIN_NS) {
		while (k - atomic_load_explicit(&r->freed, memory_order_acquire) == RING_CHUNKS &&
		       !atomic_load_explicit(&r->stop, memory_order_relaxed))
			nap(&ns);
		if (atomic_load_explicit(&r->stop, memory_order_relaxed))
			return NULL;
		n = read_full(r->fd, &r->rs, r->mem + k % RING_CHUNKS * RING_CHUNK, RING_CHUNK);
		if (n < 0)
			r->err = n;
		else
			r->len[k % RING_CHUNKS] = n;
		atomic_store_explicit(&r->filled, k + (n >= 0), memory_order_release);
		if (n < RING_CHUNK) {
			atomic_store_explicit(&r->done, true, memory_order_release);
			return NULL;
		}
	}
}

static struct ksym_table *load_ring(struct parser *ps, enum ksym_format fmt, int fd,
				    bool threaded, bool may_block, size_t arena_cap, size_t ent_hint)
{
	struct ring r = { .fd = fd, .rs = { .sig = ps->stop, .gone = &r.stop, .may_block = may_block } };
	struct ksym_table *t;
	uint64_t t0, t1, read_ns = 0;
	unsigned int ns = NAP_MIN_NS;
	size_t consumed = 0, k;
	bool started;
	pthread_t th;
	ssize_t n = 0;
	char *arena;
	int err;

	arena = ksym_mem_alloc(arena_cap);
	r.mem = ksym_mem_alloc(RING_SIZE);
	t = arena && r.mem ? ksym_parse_begin(ps, fmt, arena, ent_hint, arena_cap) : NULL;
	if (!t) {
		ksym_mem_free(arena, arena_cap);
		ksym_mem_free(r.mem, RING_SIZE);
		errno = ENOMEM;
		return NULL;
	}
	/* the reader first: the filters are set up while it reads */
	t0 = ksym_now_ns();
	started = threaded && !pthread_create(&th, NULL, ring_read, &r);
	err = ksym_filters_init(ps);
	if (!err && !started) {
		/*
		 * Read here, a piece at a time: 64 KiB stays in the cache between
		 * the read and the parse (a kallsyms load read in 256 KiB pieces
		 * took 1.36x a raw read, in 64 KiB pieces 1.06x; measured).
		 */
		for (;;) {
			t1 = ksym_now_ns();
			n = read_full(fd, &r.rs, r.mem, SINGLE_READ);
			read_ns += ksym_now_ns() - t1;
			if (n <= 0)
				break;
			err = ksym_parse_piece(ps, r.mem, n, false);
			if (err || n < SINGLE_READ)
				break;
		}
		if (n < 0)
			err = n;
	}
	while (!err && started) {
		size_t f = atomic_load_explicit(&r.filled, memory_order_acquire);

		if (f == consumed) {
			if (!atomic_load_explicit(&r.done, memory_order_acquire)) {
				if (ps->stop && *ps->stop) {
					err = -EINTR;	/* the reader sees it too */
					break;
				}
				nap(&ns);
				continue;
			}
			/* done is set after the last chunk: look once more */
			if (atomic_load_explicit(&r.filled, memory_order_acquire) == consumed) {
				err = r.err;
				read_ns = ksym_now_ns() - t0;
				break;
			}
			continue;
		}
		ns = NAP_MIN_NS;
		k = consumed % RING_CHUNKS;
		err = ksym_parse_piece(ps, r.mem + k * RING_CHUNK, r.len[k], false);
		atomic_store_explicit(&r.freed, ++consumed, memory_order_release);
	}
	if (started) {
		/* done, or failed: a reader waiting for space must not wait forever */
		atomic_store(&r.stop, true);
		pthread_join(th, NULL);
	}
	if (!err)
		err = ksym_parse_piece(ps, r.mem, 0, true);
	ksym_mem_free(r.mem, RING_SIZE);
	if (!err)
		err = ksym_parse_end(ps);
	ps->st->read_ns = read_ns;
	ps->st->parse_ns = ksym_now_ns() - t0 - read_ns;
	return ksym_parse_done(ps, err);
}

struct ksym_table *ksym_table__load(enum ksym_format fmt, const char *path,
				    const struct ksym_parse_opts *opts)
{
	struct ksym_parse_stats local;
	struct parser ps = {};
	size_t arena, ents;
	struct ksym_table *t;
	bool generated;
	struct stat st;
	int err, fd;

	ksym_parse_opts(&ps, opts, &local);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		err = errno;
		if (fd >= 0)
			close(fd);
		errno = err;
		return NULL;
	}
	/* generated as read (size 0), or a pipe: worth a reader of its own */
	generated = (S_ISREG(st.st_mode) && !st.st_size) || S_ISFIFO(st.st_mode);
	/*
	 * Sizes to start from: names are about half of a kallsyms line (~44
	 * bytes); a generated kallsyms is a few MiB, and an index sized for
	 * ~100k entries takes a 165k-symbol one without growing.
	 */
	ents = (generated ? (4u << 20) : (size_t)st.st_size) / 40;
	arena = (generated ? (4u << 20) : (size_t)st.st_size) / 2 + (64u << 10);
	if (ps.want || ps.prefixes) {
		/* kernel names average ~25 bytes; a prefix keeps few */
		ents = ps.want_cnt * 2 + 1024;
		arena = ps.want_cnt * 32 + (64u << 10);
	}
	t = load_ring(&ps, fmt, fd, generated && sysconf(_SC_NPROCESSORS_ONLN) > 1,
		      S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode) || S_ISSOCK(st.st_mode), arena, ents);
	err = errno;
	close(fd);
	errno = err;
	return t;
}
