// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Cache files written whole or not at all: a private temporary in the cache
 * directory (root's, 0700), renamed over the name when complete. A temporary
 * a killed writer left is swept by the next writer of the name.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ksym_internal.h"
#include "ksym_cachefile.h"

static int write_all(int fd, const void *p, size_t len)
{
	const char *b = p;

	while (len) {
		ssize_t n = write(fd, b, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		b += n;
		len -= n;
	}
	return 0;
}

/* The directory must be ours and closed to others: the cache is trusted input. */
int ksym_cache_dir(const char *dir)
{
	char parent[512], *slash;
	struct stat st;

	/* its parents as the system makes them (/var/cache on a minimal root) */
	snprintf(parent, sizeof(parent), "%s", dir);
	for (slash = strchr(parent + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		if (mkdir(parent, 0755) && errno != EEXIST)
			return -errno;
		*slash = '/';
	}
	if (mkdir(dir, 0700) && errno != EEXIST)
		return -errno;
	if (lstat(dir, &st))
		return -errno;
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 0022))
		return -EPERM;
	return 0;
}

/*
 * The pid of the writer of a temporary ".NAME.PID.XXXXXX" (of name, or of any
 * name where name is NULL), or 0 where p is none.
 */
static long temp_writer(const char *p, const char *name)
{
	size_t len = strlen(p);
	const char *dot, *q;

	if (p[0] != '.' || len < 10 || p[len - 7] != '.')
		return 0;
	dot = p + len - 7;
	for (q = dot; q > p + 1 && q[-1] >= '0' && q[-1] <= '9'; q--)
		;
	if (q == dot || dot - q > 9 || q - 1 <= p + 1 || q[-1] != '.')
		return 0;
	if (name && ((size_t)(q - 1 - (p + 1)) != strlen(name) || strncmp(p + 1, name, strlen(name))))
		return 0;
	return strtol(q, NULL, 10);
}

/*
 * Temporaries whose writer is gone: killed between its mkstemp() and its
 * rename() (SIGKILL, a watchdog, a crash). Each holds a whole table: a unit
 * crash-looping would fill /run with them. A writer that cannot be signalled
 * for another reason counts as alive; one in another PID namespace sharing
 * the directory looks gone, and its run goes on without writing that file (a
 * warning). In a cache directory, which is ours, any name's go; elsewhere
 * only name's.
 */
static void sweep_dead(const char *dir, const char *name)
{
	struct dirent *d;
	DIR *dp = opendir(dir);

	if (!dp)
		return;
	while ((d = readdir(dp))) {
		long pid = temp_writer(d->d_name, name);

		if (pid > 0 && pid != getpid() && kill(pid, 0) && errno == ESRCH)
			unlinkat(dirfd(dp), d->d_name, 0);
	}
	closedir(dp);
}

/* dir/name becomes header + payload whole or not at all: a 0600 temporary, renamed. */
static int write_renamed(const char *dir, const char *name, const void *hdr, size_t hlen,
			 const void *pay, size_t plen, bool cache_dir)
{
	char path[512], tmp[540];
	int fd, err;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >= sizeof(path) ||
	    (size_t)snprintf(tmp, sizeof(tmp), "%s/.%s.%d.XXXXXX", dir, name, (int)getpid()) >=
	    sizeof(tmp))
		return -ENAMETOOLONG;
	sweep_dead(dir, cache_dir ? NULL : name);
	fd = mkstemp(tmp);
	if (fd < 0)
		return -errno;
	err = fchmod(fd, 0600) ? -errno : 0;
	if (!err)
		err = write_all(fd, hdr, hlen);
	if (!err)
		err = write_all(fd, pay, plen);
	if (!err && fsync(fd))
		err = -errno;
	if (close(fd) && !err)
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}

int ksym_cache_write(const char *dir, const char *name, const void *hdr, size_t hlen,
		     const void *pay, size_t plen)
{
	return write_renamed(dir, name, hdr, hlen, pay, plen, true);
}

int ksym_file_write(const char *dir, const char *name, const void *buf, size_t len)
{
	return write_renamed(dir, name, buf, len, NULL, 0, false);
}
