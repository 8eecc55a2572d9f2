// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "atomic.h"

/*
 * Leftovers of writers that died between creating and renaming: a minute old
 * at least, so that another writer's file in flight is left alone.
 */
static void remove_stale(const char *dir, const char *base)
{
	size_t len = strlen(base);
	time_t now = time(NULL);
	struct dirent *e;
	struct stat st;
	DIR *d = opendir(dir);

	if (!d)
		return;
	while ((e = readdir(d)))
		if (!strncmp(e->d_name, base, len) && !strncmp(e->d_name + len, ".tmp.", 5) &&
		    !fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) &&
		    S_ISREG(st.st_mode) && st.st_mtime < now - 60)
			unlinkat(dirfd(d), e->d_name, 0);
	closedir(d);
}

int atomic__write(const char *path, mode_t mode, int (*fill)(FILE *f, void *ctx), void *ctx)
{
	char tmp[PATH_MAX], dcopy[PATH_MAX], bcopy[PATH_MAX];
	const char *dir;
	FILE *f;
	int fd, err;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp.XXXXXX", path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	snprintf(dcopy, sizeof(dcopy), "%s", path);
	snprintf(bcopy, sizeof(bcopy), "%s", path);
	dir = dirname(dcopy);
	remove_stale(dir, basename(bcopy));
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	f = fdopen(fd, "w");
	if (!f) {
		err = -errno;
		close(fd);
		goto out;
	}
	err = fill(f, ctx);
	if (!err && fflush(f))
		err = -errno;
	if (!err && fchmod(fd, mode))
		err = -errno;
	if (!err && fsync(fd))
		err = -errno;
	if (fclose(f) && !err)
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (!err) {
		/* the rename itself durable too: a crash then keeps the new file */
		int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

		if (dfd >= 0) {
			fsync(dfd);
			close(dfd);
		}
	}
out:
	if (err)
		unlink(tmp);
	return err;
}
