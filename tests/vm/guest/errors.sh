# Bad input on any kernel: one clear line on stderr, nonzero exit, nothing attached.
one_line_error "pattern matching nothing" "no traceable function matches 'no_such_fn_\*'" \
	$K -p 'no_such_fn_*'
# debugfs shows tracefs too (debug/tracing): both must go
umount /sys/kernel/tracing /sys/kernel/debug/tracing 2>/dev/null; umount /sys/kernel/debug
one_line_error "tracefs not mounted says how to mount it" "mount -t tracefs" $K -p 'vfs_*'
mount -t tracefs nodev /sys/kernel/tracing
mount -t debugfs nodev /sys/kernel/debug
mkdir -p /etc
echo 'root:x:0:0:root:/:/bin/sh' > /etc/passwd
echo 'nobody:x:65534:65534:nobody:/:/bin/sh' >> /etc/passwd
echo 'nogroup:x:65534:' > /etc/group
one_line_error "no privileges" "run as root" su -s /bin/sh nobody -c "$K -p 'vfs_*'"
# no bpf() (ENOSYS, made by strace at every call): the kernel's symbols say it has
# one, so something between refuses it; named before any file is read
one_line_error "bpf() failing with ENOSYS: one line, the kernel has it, a filter refuses it" \
	'the bpf() system call fails with ENOSYS, though kernel .* has it: something refuses it so' \
	strace -f -qq -o /dev/null -e trace=bpf -e inject=bpf:error=ENOSYS $K -p 'vfs_*' --no-cache
is "$(probes_left)" 0 "no link left by the failed runs"
