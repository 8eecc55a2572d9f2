#!/usr/bin/env bash
# build.sh: the build cache across real boots, as TAP for prove. Four boots of the
# light guest (vm.sh), one share: 6.12 and 6.1 each write and export their build's
# cache on a first boot, then boot again (KASLR: another base) and rebase it
# (guest/build.sh has the steps).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
OUTPUT=${OUTPUT:-$top/build}
case $OUTPUT in /*) ;; *) OUTPUT=$top/$OUTPUT ;; esac
share=$OUTPUT/vm-share/build
n=0
rm -rf "$share"; mkdir -p "$share/bin" "$share/out"
for f in "$OUTPUT/ksymattach" "$OUTPUT/tests/forge_build" "$OUTPUT/tests/modlive_dump" \
	 "$OUTPUT/examples/agent"; do
	cp "$f" "$share/bin/" || { echo "1..1"; echo "not ok 1 - $f missing (make)"; exit 1; }
done
cp -r "$here/guest" "$share/tests"
for step in a:6.12 b:6.1 c:6.12 d:6.1; do
	echo "sh /host/tests/build.sh ${step%%:*}" > "$share/job"
	if ! err=$("$here/vm.sh" run "${step#*:}" "$share" "${VM_TIMEOUT:-400}" 2>&1); then
		n=$((n + 1))
		echo "not ok $n - guest ${step#*:}, step ${step%%:*}: $(echo "$err" | head -n1)"
		continue
	fi
	while IFS= read -r line; do
		case $line in
		"ok - "*) n=$((n + 1)); echo "ok $n ${line#ok }" ;;
		"not ok - "*) n=$((n + 1)); echo "not ok $n ${line#not ok }" ;;
		"#"*) echo "$line" ;;
		*) echo "# $line" ;;
		esac
	done < "$share/out/log"
	if ! grep -q '^# build step: done$' "$share/out/log"; then
		n=$((n + 1))
		echo "not ok $n - guest ${step#*:}, step ${step%%:*}: stopped before its end"
	fi
done
echo "1..$n"
