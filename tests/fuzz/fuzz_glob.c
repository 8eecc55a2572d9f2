// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target for the glob matcher: pattern NUL string. Where our globs
 * and fnmatch(3) mean the same ('*' and '?' only), the answers must agree.
 */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include <ksym/ksym.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *nul = memchr(data, '\0', size);
	char *pat, *str;
	bool ours;

	if (!nul)
		return 0;
	pat = strndup((const char *)data, nul - (const char *)data);
	str = strndup(nul + 1, size - (nul + 1 - (const char *)data));
	if (!pat || !str)
		abort();
	ours = ksym_glob_match(pat, str);
	if (!strpbrk(pat, "[\\") && ours != !fnmatch(pat, str, FNM_NOESCAPE))
		abort();
	free(pat);
	free(str);
	return 0;
}
