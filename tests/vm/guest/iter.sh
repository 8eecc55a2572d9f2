# The kernel's ksym BPF iterator as the symbol source, against /proc/kallsyms.
D=/host/bin/iter_dump
no_iter="this kernel has no ksym iterator (Linux 6.0)"
no_kmem="no kallsyms in this kernel's VMCOREINFO (Linux 6.0)"
if has_iter; then
# the whole table: address, type, name and module of every symbol (BPF
# programs, the iterator's own among them, come and go between two reads)
$D > $O/it.all 2> $O/it.err
is "$?" 0 "iterator: the whole table read ($(head -c 200 $O/it.err))"
grep -v '	\[bpf\]$' /proc/kallsyms > $O/ka.cmp
grep -v '	\[bpf\]$' $O/it.all > $O/it.cmp
# (sorted only where the orders differ: busybox's sort of the whole table took
# 8 to 12 s in a traced guest run under emulation)
if ! cmp -s $O/ka.cmp $O/it.cmp; then
	sort -o $O/ka.cmp $O/ka.cmp
	sort -o $O/it.cmp $O/it.cmp
fi
check "iterator: the whole table is /proc/kallsyms' ($(wc -l < $O/ka.cmp) symbols)" \
	cmp -s $O/ka.cmp $O/it.cmp
# filtered in the kernel (two-byte prefixes, a one-byte one, exact names with and
# without a module) as the text parse filters the file
set -- -t -n schedule -n 9pnet:p9_client_read -n vfs_read vfs_ e __x64_sys_
$D "$@" > $O/it.f; r1=$?
$D -k "$@" > $O/ka.f; r2=$?
check "iterator: filtered as the text parse filters ($(wc -l < $O/ka.f) symbols)" \
	sh -c "[ $r1 -eq 0 ] && [ $r2 -eq 0 ] && [ -s $O/ka.f ] && cmp -s $O/ka.f $O/it.f"
check "iterator: the filter keeps module symbols" grep -q 'p9_client_read	\[9pnet\]' $O/it.f
else
	skip "iterator: the whole table and filtered reads are /proc/kallsyms'" "$no_iter"
fi

# the kernel's table read from its memory (kmem): its text symbols are
# /proc/kallsyms' but for the trampolines and BPF programs listed after the modules
tails='	\[\(bpf\|__builtin__.*\)\]$'
if has_kmem; then
$D -m -t > $O/km.all 2> $O/km.err
is "$?" 0 "kmem: the whole text table read ($(head -c 200 $O/km.err))"
check "kmem: no trampoline or BPF program in it" \
	sh -c "[ -s $O/km.all ] && ! grep -q '$tails' $O/km.all"
$D -k -t > $O/ka.raw; r=$?
grep -v "$tails" $O/ka.raw > $O/ka.text
check "kmem: the text table is /proc/kallsyms' ($(wc -l < $O/ka.text) symbols, modules cased by export)" \
	sh -c "[ $r -eq 0 ] && [ -s $O/ka.text ] && cmp -s $O/ka.text $O/km.all"
set -- -t -n schedule -n 9pnet:p9_client_read -n vfs_read vfs_ e __x64_sys_
$D -m "$@" > $O/km.f; r1=$?
$D -k "$@" > $O/ka.raw; r2=$?
grep -v "$tails" $O/ka.raw > $O/ka.f
check "kmem: filtered as the text parse filters ($(wc -l < $O/ka.f) symbols)" \
	sh -c "[ $r1 -eq 0 ] && [ $r2 -eq 0 ] && [ -s $O/ka.f ] && cmp -s $O/ka.f $O/km.f"
check "kmem: the filter keeps module symbols" grep -q 'p9_client_read	\[9pnet\]' $O/km.f
else
	skip "kmem: the whole text table and filtered reads are /proc/kallsyms'" "$no_kmem"
fi

# the tool: the kernel's table in memory by default, the same functions as from
# /proc/kallsyms, and through the iterator
$K -l -p 'vfs_*' -o json --no-cache > $O/it.json 2> $O/it.jerr
check "default source: $(cold_source), checked in kcore" grep -q "\"source\":\"$(cold_source)+kcore\"" $O/it.json
if has_iter; then
	$K -l -p 'vfs_*' -o json --no-cache --source iter > $O/it.json 2> $O/it.jerr
	check "--source iter: the iterator, checked in kcore" grep -q '"source":"iter+kcore"' $O/it.json
else
	one_line_error "--source iter: refused, naming why" "this kernel has no ksym iterator" \
		$K -l -p 'vfs_*' --no-cache --source iter
fi
if ! has_kmem; then
	one_line_error "--source kmem: refused, naming why" "VMCOREINFO does not say where the table is" \
		$K -l -p 'vfs_*' --no-cache --source kmem
fi
# without either, the sections below have nothing to compare
if ! has_iter || ! has_kmem; then
	skip "kmem and the iterator list what /proc/kallsyms does, fall back, kptr_restrict=2" \
		"$(has_iter || echo "$no_iter")$(has_kmem || echo "; $no_kmem")"
	# kptr_restrict=2 and no source that sees the addresses: said
	echo 2 > /proc/sys/kernel/kptr_restrict
	one_line_error "kptr_restrict=2, only /proc/kallsyms here: the cause named" "kptr_restrict=2" \
		$K -p vfs_read --no-cache
	echo 0 > /proc/sys/kernel/kptr_restrict
	is "$(probes_left)" 0 "iterator tests: no link left"
	return 0
fi
same_listing() { # DESC PATTERN-ARGS...
	d=$1; shift
	$K -l "$@" --no-cache --source kallsyms 2> $O/sl.err | sed '$d' > $O/sl.ka
	for src in kmem iter; do
		$K -l "$@" --no-cache --source $src 2>> $O/sl.err | sed '$d' > $O/sl.$src
		if [ -s $O/sl.ka ] && cmp -s $O/sl.$src $O/sl.ka && [ ! -s $O/sl.err ]; then
			ok "$src and /proc/kallsyms list the same: $d ($(wc -l < $O/sl.ka) lines)"
		else
			not_ok "$src and /proc/kallsyms differ: $d ($(head -c 200 $O/sl.err))"
		fi
	done
}
same_listing "prefixes" -p 'vfs_*' -p 'ksys_*'
same_listing "a leading wildcard" -p '*_read'
same_listing "module restrictions" -p '9pnet:p9_*' -p ':vfs_read*'
same_listing "exact names" -p schedule -p vfs_read -p p9_client_read

# fallbacks: one verbose line, the same answer; --source iter: one error line
$K -l -p 'vfs_*' --no-cache --source kallsyms > $O/fb.raw 2>/dev/null; wrc=$?
sed '$d' $O/fb.raw > $O/fb.want
fallback() { # DESC EXPECT KMEM-EXPECT
	$K -l -p 'vfs_*' --no-cache -v > $O/fb.raw 2> $O/fb.err; rc=$?
	sed '$d' $O/fb.raw > $O/fb.got
	if [ $wrc -eq 0 ] && [ $rc -eq 0 ] && [ -s $O/fb.want ] && cmp -s $O/fb.want $O/fb.got &&
	   grep -q "ksym BPF iterator: $2.*; reading /proc/kallsyms" $O/fb.err; then
		ok "fallback to /proc/kallsyms: $1"
	else
		not_ok "fallback to /proc/kallsyms: $1 ($(head -c 300 $O/fb.err))"
		diff $O/fb.want $O/fb.got | head -n 6 | sed 's/^/# /'
	fi
	# kmem reads struct module's layout from the same BTF: it went first
	check "kmem said why it was not used ($1)" grep -q "kernel's symbol table in memory: .*$3.*; trying the ksym BPF iterator" $O/fb.err
	$K -l -p 'vfs_*' --no-cache 2> $O/fb.err > /dev/null
	is "$?:$(cat $O/fb.err)" "0:" "fallback without -v: silent, and it succeeds ($1)"
	one_line_error "--source iter: $1" "ksym BPF iterator: $2" $K -l -p 'vfs_*' --no-cache --source iter
}
mount -t tmpfs none /sys/kernel/btf
fallback "no vmlinux BTF" "no vmlinux BTF" "no vmlinux BTF"
one_line_error "--source kmem: no vmlinux BTF" "cannot read the kernel's symbol table from its memory" \
	$K -l -p 'vfs_*' --no-cache --source kmem
umount /sys/kernel/btf
$D -F $O/forged.btf
mount -o bind $O/forged.btf /sys/kernel/btf/vmlinux
fallback "a refused program" "the kernel refused its program" "struct module is laid out unlike"
umount /sys/kernel/btf/vmlinux
mkdir -p /etc
grep -q '^nobody:' /etc/passwd 2>/dev/null || echo 'nobody:x:65534:65534:nobody:/:/bin/sh' >> /etc/passwd
grep -q '^nogroup:' /etc/group 2>/dev/null || echo 'nogroup:x:65534:' >> /etc/group
su -s /bin/sh nobody -c "$D -t vfs_" > /dev/null 2> $O/np.err
check "iterator unprivileged: refused, said ($(cat $O/np.err))" grep -q 'not permitted' $O/np.err
su -s /bin/sh nobody -c "$D -m -t vfs_" > /dev/null 2> $O/np.err
check "kmem unprivileged: refused, said ($(cat $O/np.err))" grep -q 'ermission denied\|not permitted' $O/np.err

# kernel.kptr_restrict=2: /proc/kallsyms shows zeros even to root, kcore and the iterator not
$K -l -p 'vfs_*' -p '9pnet:p9_client_*' --no-cache --source kallsyms > $O/kr.raw 2>/dev/null
wrc=$?
sed '$d' $O/kr.raw > $O/kr.want
echo 2 > /proc/sys/kernel/kptr_restrict
for src in kmem iter; do
	$K -l -p 'vfs_*' -p '9pnet:p9_client_*' --no-cache --source $src > $O/kr.raw 2> $O/kr.err
	rc=$?
	sed '$d' $O/kr.raw > $O/kr.got
	check "kptr_restrict=2: $src lists what /proc/kallsyms did ($(head -c 200 $O/kr.err))" \
		sh -c "[ $wrc -eq 0 ] && [ $rc -eq 0 ] && [ -s $O/kr.want ] && cmp -s $O/kr.want $O/kr.got"
done
$K -p vfs_read -d 1 -o json --no-cache > $O/kr.json 2> $O/kr.err
is "$(json_int attached $O/kr.json)" 1 "kptr_restrict=2: vfs_read attached ($(head -c 200 $O/kr.err))"
one_line_error "kptr_restrict=2 without the iterator: the cause named" "kptr_restrict=2" \
	$K -l -p 'vfs_*' --no-cache --source kallsyms
echo 0 > /proc/sys/kernel/kptr_restrict
is "$(probes_left)" 0 "iterator tests: no link left"
