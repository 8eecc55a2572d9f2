# Kernel lockdown, which cannot be lifted once raised: the suite's last part.
# integrity changes nothing ksymattach uses; confidentiality refuses /proc/kcore,
# tracefs, BPF reads of kernel memory and classic kprobes, not kprobe.multi. The one
# line names it from what the kernel says of itself (securityfs), and what can still
# attach does.
ld=/sys/kernel/security/lockdown
[ -e $ld ] || mount -t securityfs none /sys/kernel/security
check "lockdown: the kernel has it, off ($(cat $ld 2>/dev/null))" grep -q '\[none\]' $ld
# the lists of this boot, taken while tracefs can be read
if [ -e /sys/kernel/tracing/available_filter_functions_addrs ]; then
	cp /sys/kernel/tracing/available_filter_functions_addrs $O/ld-funcs
	lists="--funcs-addrs $O/ld-funcs"
else
	cp /sys/kernel/tracing/available_filter_functions $O/ld-funcs
	lists="--funcs $O/ld-funcs"
fi
# (arm64's 6.12 has the list of sites without kprobe.multi: fprobe decides)
multi=0
grep -q ' register_fprobe$' /proc/kallsyms && multi=1
$K -p 'vfs_*' --no-cache -o json > $O/ld-none.json 2> /dev/null
echo integrity > $ld
check "lockdown=integrity is in force" grep -q '\[integrity\]' $ld
rm -rf /run/ksymattach
$K -p 'vfs_*' -o json > $O/ld-int.json 2> $O/ld-int.err
rc=$?
check "lockdown=integrity: a cold run attaches as before ($(json_int attached $O/ld-int.json) functions, $(json_int attached $O/ld-none.json) unlocked; the /run cache written)" \
	sh -c "[ $rc -eq 0 ] && [ '$(json_int attached $O/ld-int.json)' -ge 10 ] &&
	       [ '$(json_int attached $O/ld-int.json)' = '$(json_int attached $O/ld-none.json)' ] && [ -d /run/ksymattach ]"
echo confidentiality > $ld
is "$(cat $ld)" "none integrity [confidentiality]" "lockdown=confidentiality raised"
# a cold run: kcore, the iterator and tracefs all refused; the line says why
$K -p 'vfs_*' --no-cache > $O/ld-cold.out 2> $O/ld-cold.err
one_error "lockdown=confidentiality, a cold run: one line naming it" $? $O/ld-cold.err \
	'tracing/available_filter_functions.*kernel lockdown=confidentiality refuses it'
# -v: each source passed over says why
$K -v -p 'vfs_*' --no-cache > /dev/null 2> $O/ld-v.err
check "lockdown=confidentiality, -v: kcore's function check passed over, naming it" \
	grep -q "cannot read /proc/kcore: Operation not permitted (kernel lockdown=confidentiality refuses it); using tracefs" $O/ld-v.err
sed 's/^/# /' $O/ld-v.err
$K -v --no-cache sym vfs_read > $O/ld-sym.out 2> $O/ld-sym.err
rc=$?
# (a kernel without the iterator says that instead)
why='kernel lockdown=confidentiality refuses its reads of kernel memory'
has_iter || why='this kernel has no ksym iterator'
check "lockdown=confidentiality, -v sym: the iterator passed over, naming why; /proc/kallsyms answers" \
	sh -c "[ $rc -eq 0 ] && grep -q vfs_read $O/ld-sym.out &&
	       grep -q 'ksym BPF iterator: $why.*; reading /proc/kallsyms' $O/ld-sym.err"
sed 's/^/# /' $O/ld-sym.err $O/ld-sym.out
one_line_error "lockdown=confidentiality, --source kallsyms: one line naming it" \
	'cannot read /proc/kcore: Operation not permitted (kernel lockdown=confidentiality refuses it)' \
	$K -p 'vfs_*' --no-cache --source kallsyms
if [ $multi = 1 ]; then
	# kprobe.multi it allows: the warm cache, or this boot's lists, attach
	$K -p 'vfs_*' -o json > $O/ld-warm.json 2> $O/ld-warm.err
	rc=$?
	check "lockdown=confidentiality, warm: kprobe.multi attaches from the /run cache ($(json_int attached $O/ld-warm.json))" \
		sh -c "[ $rc -eq 0 ] && grep -q '\"cached\":true' $O/ld-warm.json &&
		       [ '$(json_int attached $O/ld-warm.json)' = '$(json_int attached $O/ld-int.json)' ]"
	$K -p 'vfs_*' $lists --no-cache -o json > $O/ld-lists.json 2> $O/ld-lists.err
	rc=$?
	check "lockdown=confidentiality, this boot's lists given: kprobe.multi attaches ($(json_int attached $O/ld-lists.json))" \
		sh -c "[ $rc -eq 0 ] && [ '$(json_int attached $O/ld-lists.json)' -ge 10 ]"
	kp="--fallback kprobe"
else
	skip "lockdown=confidentiality, warm and lists given: kprobe.multi attaches" \
		"this kernel has no kprobe.multi"
fi
# classic kprobes it refuses (6.1's only kind)
$K -p 'vfs_*' $lists ${kp:-} --no-cache > $O/ld-kp.out 2> $O/ld-kp.err
one_error "lockdown=confidentiality, classic kprobes: one line naming it" $? $O/ld-kp.err \
	'kernel lockdown=confidentiality refuses classic kprobes'
is "$(probes_left)" 0 "lockdown: no link left"
