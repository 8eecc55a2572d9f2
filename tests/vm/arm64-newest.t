#!/usr/bin/env bash
# The arm64 build (make cross) in Debian's newest arm64 kernel, booted under
# qemu-system-aarch64: the functions tracefs lists, found and attached with
# kprobe.multi and kprobe.session, counted, detached; the example agent; the
# sources that read the kernel text refused. The guest writes what it saw to the
# share; the checks run here.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
OUTPUT=${OUTPUT:-$top/build}
case $OUTPUT in /*) ;; *) OUTPUT=$top/$OUTPUT ;; esac
. "$top/tests/host/tap.sh"
A=$OUTPUT/arm64

if [ "$(uname -m)" != x86_64 ]; then
	ok "arm64 guest # SKIP the host is $(uname -m): no cross build to boot"
	echo "1..$n"; exit 0
fi
share=$OUTPUT/vm-share/arm64-newest
rm -rf "$share"; mkdir -p "$share/out"
if ! cp "$A/ksymattach" "$A/examples/agent" "$share/"; then
	nok "$A/ksymattach or its agent missing (make cross)"; echo "1..$n"; exit 1
fi
cat > "$share/job" <<'JOB'
O=/host/out
uname -m > $O/arch
T=/sys/kernel/tracing
awk '$2 ~ /^vfs_/ { print $1, $2 }' $T/available_filter_functions_addrs | sort -u > $O/tracefs
# 20 runs of dd, each reading through vfs_read() and writing through vfs_write()
# (busybox's cat would sendfile), once the links stand
busy() { (sleep 4; i=0; while [ $i -lt 20 ]; do dd if=/proc/version of=/dev/null bs=16 2> /dev/null; i=$((i + 1)); done) & }
./ksymattach -l -o json -p 'vfs_*' > $O/list.json 2> $O/list.err; echo $? > $O/list.rc
./ksymattach -l -o json -p 'vfs_*' > $O/warm.json 2> $O/warm.err; echo $? > $O/warm.rc
busy; ./ksymattach -o json -p 'vfs_*' -d 7 > $O/multi.json 2> $O/multi.err; echo $? > $O/multi.rc
wait
busy; ./ksymattach -o json -m session -p 'vfs_read' -p 'vfs_write' -d 7 > $O/session.json 2> $O/session.err
echo $? > $O/session.rc
wait
grep -c 'vfs_' $T/enabled_functions > $O/left
./ksymattach -p 'vfs_read' --source kmem > /dev/null 2> $O/kmem.err; echo $? > $O/kmem.rc
./agent 'vfs_*' > $O/agent.out 2>&1; echo $? > $O/agent.rc
JOB
err=$(ARCH=arm64 "$here/vm.sh" run newest "$share" "${VM_TIMEOUT:-900}" 2>&1)
rc=$?
if [ $rc -ne 0 ]; then
	nok "arm64 guest: $(echo "$err" | grep '^vm.sh: ' | tail -n1)"; echo "1..$n"; exit 1
fi
O=$share/out
is "$(cat $O/arch)" aarch64 "the guest is aarch64"
want=$(wc -l < $O/tracefs)
# the functions the -l run lists, as "addr name"
sed 's/},{/\n/g' $O/list.json | sed -n 's/.*"name":"\([^"]*\)","addr":"0x\([0-9a-f]*\)".*/\2 \1/p' |
	sort -u > $O/list
if [ "$(cat $O/list.rc)" = 0 ] && [ "$want" -ge 20 ] && cmp -s $O/list $O/tracefs; then
	ok "vfs_*: the $want functions tracefs lists, at its addresses"
else
	nok "vfs_*: rc $(cat $O/list.rc), $(wc -l < $O/list) listed against $want in tracefs: $(diff $O/list $O/tracefs | head -n 3 | tr '\n' ' ')$(head -c 200 $O/list.err)"
fi
if [ "$(cat $O/warm.rc)" = 0 ] && grep -q '"cached":true' $O/warm.json; then
	ok "a second run is served by /run's cache"
else
	nok "second run: rc $(cat $O/warm.rc), $(grep -o '"cached":[a-z]*' $O/warm.json)"
fi
# field NAME FIELD FILE: a function's count in a JSON report
field() { sed 's/},{/\n/g' "$3" | grep "\"name\":\"$1\"" | sed -n "s/.*\"$2\":\([0-9]*\).*/\1/p"; }
att=$(sed -n 's/.*"attached":\([0-9]*\).*/\1/p' $O/multi.json)
r=$(field vfs_read hits $O/multi.json) w=$(field vfs_write hits $O/multi.json)
if [ "$(cat $O/multi.rc)" = 0 ] && [ "${att:-0}" -ge "$want" ] && [ "${r:-0}" -ge 20 ] &&
   [ "${w:-0}" -ge 20 ]; then
	ok "kprobe.multi: $att functions attached; 20 dd runs counted in vfs_read ($r) and vfs_write ($w)"
else
	nok "kprobe.multi: rc $(cat $O/multi.rc), attached ${att:-none} of $want, vfs_read ${r:-none}, vfs_write ${w:-none}: $(head -c 200 $O/multi.err)"
fi
c=$(field vfs_read calls $O/session.json) ret=$(field vfs_read returns $O/session.json)
if [ "$(cat $O/session.rc)" = 0 ] && grep -q '"attached":2' $O/session.json &&
   [ "${c:-0}" -ge 20 ] && [ "${ret:-0}" -ge 20 ]; then
	ok "kprobe.session: vfs_read's $c calls and $ret returns"
else
	nok "kprobe.session: rc $(cat $O/session.rc), $(grep -o '"attached":[0-9]*' $O/session.json), vfs_read ${c:-none} calls, ${ret:-none} returns: $(head -c 200 $O/session.err)"
fi
is "$(cat $O/left)" 0 "nothing left attached (tracefs' enabled_functions)"
if [ "$(cat $O/kmem.rc)" != 0 ] && [ "$(wc -l < $O/kmem.err)" -eq 1 ] && grep -q 'x86-64 only so far' $O/kmem.err; then
	ok "the kernel's table in memory: refused in one line (no arm64 text check yet)"
else
	nok "--source kmem: rc $(cat $O/kmem.rc), $(head -c 200 $O/kmem.err)"
fi
if [ "$(cat $O/agent.rc)" = 0 ] && grep -q "libksym: $want functions attached" $O/agent.out; then
	ok "the example agent attaches the $want functions"
else
	nok "agent: rc $(cat $O/agent.rc), $(head -c 200 $O/agent.out)"
fi
echo "1..$n"
