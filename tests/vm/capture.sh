#!/usr/bin/env bash
# capture.sh SERIES: boot the guest and save its real symbol sources under
# tests/data/<SERIES>/ (xz): /proc/kallsyms (module symbols included: the 9p
# stack is loaded), tracefs function lists, the kprobe blacklist.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
series=$1
share=$(mktemp -d); trap 'rm -rf "$share"' EXIT
cat > "$share/job" <<'JOB'
set -e
uname -r > out/release
cat /proc/kallsyms > out/kallsyms
cat /sys/kernel/tracing/available_filter_functions > out/available_filter_functions
if [ -e /sys/kernel/tracing/available_filter_functions_addrs ]; then
	cat /sys/kernel/tracing/available_filter_functions_addrs > out/available_filter_functions_addrs
fi
cat /sys/kernel/debug/kprobes/blacklist > out/blacklist
JOB
"$here/vm.sh" run "$series" "$share" 180
dest=$top/tests/data/$series
rm -rf "$dest"; mkdir -p "$dest"
cp "$share/out/release" "$dest/release"
for f in kallsyms available_filter_functions available_filter_functions_addrs blacklist; do
	[ -f "$share/out/$f" ] && xz -9 -c "$share/out/$f" > "$dest/$f.xz"
done
ls -la "$dest"
