#!/usr/bin/env bash
# build.sh: the build cache across real boots, as TAP for prove. Four boots of the
# light guest (vm.sh), one share: 6.12 and 6.1 each write and export their build's
# cache on a first boot, then boot again (KASLR: another base) and rebase it
# (guest/build.sh has the steps). ARCH=arm64: the arm64 build (in $OUTPUT/arm64)
# in two boots of Debian's newest arm64 kernel.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
OUTPUT=${OUTPUT:-$top/build}
case $OUTPUT in /*) ;; *) OUTPUT=$top/$OUTPUT ;; esac
case ${ARCH:-x86} in
arm64) build=$OUTPUT/arm64 share=$OUTPUT/vm-share/arm64-build steps="a:newest c:newest" secs=900 ;;
*) build=$OUTPUT share=$OUTPUT/vm-share/build steps="a:6.12 b:6.1 c:6.12 d:6.1" secs=400 ;;
esac
n=0
rm -rf "$share"; mkdir -p "$share/bin" "$share/out"
for f in "$build/ksymattach" "$build/tests/forge_build" "$build/tests/modlive_dump" \
	 "$build/examples/agent"; do
	cp "$f" "$share/bin/" || { echo "1..1"; echo "not ok 1 - $f missing (make)"; exit 1; }
done
cp -r "$here/guest" "$share/tests"
for step in $steps; do
	echo "sh /host/tests/build.sh ${step%%:*} ${step#*:}" > "$share/job"
	if ! err=$("$here/vm.sh" run "${step#*:}" "$share" "${VM_TIMEOUT:-$secs}" 2>&1); then
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
