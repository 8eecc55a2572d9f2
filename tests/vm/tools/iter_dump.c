// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * iter_dump [-t] [-n NAME]... [PREFIX]...: the kernel's symbols through the ksym
 * iterator (ksym_table__load_iter), with -m from the kernel's table in its
 * memory (ksym_table__load_kmem), or with -k through /proc/kallsyms with the
 * same filters, printed as /proc/kallsyms prints them (in address order): for
 * the VM tests to compare the two sources symbol for symbol. -t: text symbols
 * only; -T: the load's time on stderr instead of the table. Exit 1 with the reason when the source fails.
 *
 * iter_dump -F FILE: writes a BTF file that names the iterator's function and
 * struct where the kernel has other types (bind-mounted over
 * /sys/kernel/btf/vmlinux, it makes the kernel refuse the iterator's program).
 */
#include <errno.h>
#include <fcntl.h>
#include <time.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <linux/btf.h>

#include <ksym/ksym.h>

/* What the iterator's loader reads first: the vmlinux BTF, whole, in one buffer. */
static double btf_read_ms(void)
{
	struct timespec a, b;
	static char buf[64 << 20];
	int fd;

	clock_gettime(CLOCK_MONOTONIC, &a);
	fd = open("/sys/kernel/btf/vmlinux", O_RDONLY);
	if (fd < 0)
		return -1;
	while (read(fd, buf, sizeof(buf)) > 0)
		;
	close(fd);
	clock_gettime(CLOCK_MONOTONIC, &b);
	return (b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) / 1e6;
}

static int forge_btf(const char *path)
{
	static const char str[] = "\0bpf_iter_ksym\0kallsym_iter\0pos\0value\0type\0name\0"
				  "module_name\0exported";
	struct {
		struct btf_header h;
		struct btf_type func;
		struct btf_type st;
		struct btf_member m[6];
		char str[sizeof(str)];
	} b = {
		.h = { .magic = BTF_MAGIC, .version = 1, .hdr_len = sizeof(b.h),
		       .type_len = 2 * sizeof(struct btf_type) + 6 * sizeof(struct btf_member),
		       .str_len = sizeof(str) },
		/* id 1: the kernel's own id 1 is no function */
		.func = { .name_off = 1, .info = BTF_KIND_FUNC << 24 },
		.st = { .name_off = 15, .info = BTF_KIND_STRUCT << 24 | 6, .size = 1024 },
		.m = { { 28, 0, 0 }, { 32, 0, 32 * 8 }, { 38, 0, 44 * 8 }, { 43, 0, 45 * 8 },
		       { 48, 0, 557 * 8 }, { 60, 0, 624 * 8 } },
	};
	FILE *f = fopen(path, "w");

	b.h.str_off = b.h.type_len;
	memcpy(b.str, str, sizeof(str));
	if (!f || fwrite(&b, sizeof(b), 1, f) != 1 || fclose(f))
		return 1;
	return 0;
}

int main(int argc, char **argv)
{
	const char *names[64];
	struct ksym_parse_stats st;
	struct ksym_parse_opts o = { .sz = sizeof(o), .stats = &st };
	bool timed = false;
	struct ksym_table *t;
	size_t i, n = 0;
	bool kallsyms = false, kmem = false;
	struct ksym s;
	int c;

	while ((c = getopt(argc, argv, "tkmTn:F:")) != -1) {
		if (c == 'F')
			return forge_btf(optarg);
		if (c == 'T') {
			timed = true;
			continue;
		}
		if (c == 't')
			o.text_only = true;
		else if (c == 'k')
			kallsyms = true;
		else if (c == 'm')
			kmem = true;
		else if (c == 'n' && n < 64)
			names[n++] = optarg;
		else
			return 2;
	}
	if (optind < argc) {
		o.prefixes = (const char *const *)argv + optind;
		o.prefix_cnt = argc - optind;
	}
	if (n) {
		o.names = names;
		o.name_cnt = n;
	}
	t = kallsyms ? ksym_table__load(KSYM_FMT_KALLSYMS, "/proc/kallsyms", &o)
	    : kmem   ? ksym_table__load_kmem(&o)
		     : ksym_table__load_iter(&o);
	if (!t) {
		fprintf(stderr, "iter_dump: %s\n", strerror(errno));
		return 1;
	}
	if (timed) {
		fprintf(stderr, "%s: %zu symbols, read %.1f ms, parse %.1f ms (vmlinux BTF read alone: "
			"%.1f ms)\n", kallsyms ? "kallsyms" : kmem ? "kmem" : "iter", ksym_table__cnt(t),
			st.read_ns / 1e6, st.parse_ns / 1e6, btf_read_ms());
		ksym_table__free(t);
		return 0;
	}
	for (i = 0; i < ksym_table__cnt(t); i++) {
		ksym_table__at(t, i, &s);
		if (s.module)
			printf("%016llx %c %s\t[%s]\n", (unsigned long long)s.addr, s.type, s.name,
			       s.module);
		else
			printf("%016llx %c %s\n", (unsigned long long)s.addr, s.type, s.name);
	}
	ksym_table__free(t);
	return 0;
}
