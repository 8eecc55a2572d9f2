/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Just enough of the kernel's headers to compile kernel/kallsyms.c as a
 * userspace object, the way the kernel's own tools/testing harnesses build
 * kernel code: its table lookups run as the kernel runs them, over the
 * tables scripts/kallsyms wrote, and the rest of the file (the /proc file,
 * modules, BPF, kprobes) sees stubs that hold nothing.
 */
#ifndef KALLSYMS_SHIM_H
#define KALLSYMS_SHIM_H

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int32_t s32;

/* an x86-64 kernel: 64-bit, relocatable, every symbol in the table */
#define CONFIG_64BIT		1
#define CONFIG_RELOCATABLE	1
#define CONFIG_KALLSYMS_ALL	1
#define IS_ENABLED(option)	(option)

#define KSYM_NAME_LEN		512
#define MODULE_NAME_LEN		56
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#define likely(x)		__builtin_expect(!!(x), 1)
#define unlikely(x)		__builtin_expect(!!(x), 0)
#define __init
#ifndef __always_inline
#define __always_inline		inline __attribute__((always_inline))
#endif
#define noinline		__attribute__((noinline))
#define EXPORT_SYMBOL(sym)	extern int shim_export_##sym
#define EXPORT_SYMBOL_GPL(sym)	extern int shim_export_gpl_##sym
#define late_initcall(fn) \
	static int (*shim_initcall_##fn)(void) __attribute__((used)) = fn
#define device_initcall(fn)	late_initcall(fn)
#define pr_warn_once(...)	do { } while (0)
#define pr_info(...)		do { } while (0)
#define cond_resched()		do { } while (0)
#define guard(lock)		shim_guard

static inline void shim_guard(void)
{
}

static inline void *offset_to_ptr(const int *off)
{
	return (void *)((unsigned long)off + *off);
}

static inline ssize_t strscpy(char *dst, const char *src, size_t size)
{
	size_t len = strnlen(src, size);

	if (len == size) {
		if (size)
			dst[size - 1] = '\0';
		return -E2BIG;
	}
	memcpy(dst, src, len + 1);
	return len;
}

/*
 * The image's bounds, set by the program that links this object: where the
 * tables' _text landed, and the section ends get_symbol_pos() falls back to.
 */
extern unsigned long shim_stext, shim_etext, shim_sinittext, shim_einittext, shim_end;
#define _etext			((char *)shim_etext)
#define _einittext		((char *)shim_einittext)
#define _end			((char *)shim_end)

static inline int is_kernel_inittext(unsigned long addr)
{
	return addr >= shim_sinittext && addr < shim_einittext;
}

static inline int is_ksym_addr(unsigned long addr)
{
	/* CONFIG_KALLSYMS_ALL: anything in the image */
	return addr >= shim_stext && addr < shim_end;
}

/* Nothing but vmlinux: no module, BPF program, ftrace or kprobe page. */
struct module;
struct cred;
static inline unsigned long module_kallsyms_lookup_name(const char *name)
{
	return 0;
}

static inline int module_address_lookup(unsigned long addr, unsigned long *size,
					unsigned long *offset, char **modname,
					const unsigned char **modbuildid, char *namebuf)
{
	return 0;
}

static inline int bpf_address_lookup(unsigned long addr, unsigned long *size,
				     unsigned long *off, char *sym)
{
	return 0;
}

static inline int ftrace_mod_address_lookup(unsigned long addr, unsigned long *size,
					    unsigned long *off, char **modname,
					    const unsigned char **modbuildid, char *sym)
{
	return 0;
}

static inline int lookup_module_symbol_name(unsigned long addr, char *symname)
{
	return -ERANGE;
}

static inline int module_get_kallsym(unsigned int symnum, unsigned long *value, char *type,
				     char *name, char *module_name, int *exported)
{
	return -ERANGE;
}

static inline int ftrace_mod_get_kallsym(unsigned int symnum, unsigned long *value,
					 char *type, char *name, char *module_name,
					 int *exported)
{
	return -ERANGE;
}

static inline int bpf_get_kallsym(unsigned int symnum, unsigned long *value, char *type,
				  char *sym)
{
	return -ERANGE;
}

static inline int kprobe_get_kallsym(unsigned int symnum, unsigned long *value, char *type,
				     char *sym)
{
	return -ERANGE;
}

static inline bool kallsyms_show_value(const struct cred *cred)
{
	return true;
}

/* The /proc file's types, which nothing here opens. */
struct seq_file {
	void *private;
};

struct seq_operations {
	void *(*start)(struct seq_file *m, loff_t *pos);
	void (*stop)(struct seq_file *m, void *v);
	void *(*next)(struct seq_file *m, void *v, loff_t *pos);
	int (*show)(struct seq_file *m, void *v);
};

struct inode;
struct file {
	const struct cred *f_cred;
};

struct proc_ops {
	int (*proc_open)(struct inode *inode, struct file *file);
	ssize_t (*proc_read)(struct file *file, char *buf, size_t n, loff_t *pos);
	loff_t (*proc_lseek)(struct file *file, loff_t off, int whence);
	int (*proc_release)(struct inode *inode, struct file *file);
};

static inline void seq_printf(struct seq_file *m, const char *fmt, ...)
{
}

static inline void *__seq_open_private(struct file *f, const struct seq_operations *ops,
				       int psize)
{
	return NULL;
}

static inline ssize_t seq_read(struct file *file, char *buf, size_t n, loff_t *pos)
{
	return 0;
}

static inline loff_t seq_lseek(struct file *file, loff_t off, int whence)
{
	return 0;
}

static inline int seq_release_private(struct inode *inode, struct file *file)
{
	return 0;
}

static inline void *proc_create(const char *name, int mode, void *parent,
				const struct proc_ops *ops)
{
	return NULL;
}

#endif
