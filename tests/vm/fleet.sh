#!/usr/bin/env bash
# fleet.sh SERIES [SUITE]: the fleet service on a real systemd boot, as TAP for prove.
# Installs the .deb (make deb) into a Debian SUITE root filesystem (rootfs.sh:
# bookworm, the default, or trixie), boots it on the SERIES kernel (sysboot.sh;
# any series scripts/pkgcache knows: 6.12, 6.1, newest) and runs fleet/first.sh in
# the guest once the boot has finished: the boot unit's report, journal line and
# node_exporter's metrics, the daemon's reloads, the package's upgrade; then boots
# the same disk again for fleet/again.sh: the build cache imported, the boot's
# first run warm, the package's stop and purge. What the kernel lacks (kprobe.multi)
# the guest scripts ask the kernel, not its version.
# The host then checks what the guest copied out: JSON, `promtool check metrics`.
# ARCH=arm64: the arm64 package (make cross, in $OUTPUT/arm64) in an arm64 root
# filesystem on Debian's arm64 kernel of the series; a host that cannot run arm64's
# maintainer scripts in a namespace of their own (foreign.sh) says so as a SKIP.
# BOOTS=1 boots once: the first boot's checks, and the second boot said as a SKIP
# with SKIP_WHY (fleet-arm64.t: another test has the same checks on arm64).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
OUTPUT=${OUTPUT:-$top/build}
case $OUTPUT in /*) ;; *) OUTPUT=$top/$OUTPUT ;; esac
[ $# -ge 1 ] && [ $# -le 2 ] || { echo "usage: fleet.sh SERIES [SUITE]" >&2; exit 2; }
series=$1 suite=${2:-bookworm}
case ${ARCH:-x86} in
x86) debarch=amd64 debs=$OUTPUT/deb work=$OUTPUT/fleet/$suite-$series ;;
arm64) debarch=arm64 debs=$OUTPUT/arm64/deb work=$OUTPUT/fleet/arm64-$suite-$series ;;
*) echo "fleet.sh: ARCH=$ARCH: x86 or arm64" >&2; exit 2 ;;
esac
share=$work/share
n=0
emit() { n=$((n + 1)); echo "$1 $n - $2"; }
bail() { emit "not ok" "$1"; echo "1..$n"; exit 1; }
# relay SCRIPT: the guest's TAP lines, numbered here; then whether SCRIPT ran to
# its end (its last words, "# fleet-end SCRIPT"), which a plan counted from what
# ran would not tell.
relay() {
	local ended=
	while IFS= read -r line; do
		case $line in
		"ok - "*) emit "ok" "${line#ok - }" ;;
		"not ok - "*) emit "not ok" "${line#not ok - }" ;;
		"# fleet-end $1") ended=1 ;;
		"#"*) echo "$line" ;;
		*) echo "# $line" ;;
		esac
	done < "$share/out/log"
	if [ -n "$ended" ]; then emit "ok" "guest: fleet/$1.sh ran to its end"
	else emit "not ok" "guest: fleet/$1.sh ran to its end (see $share/out/log)"; fi
}

if [ $debarch != amd64 ] && ! why=$("$here/foreign.sh" --check $debarch 2>&1); then
	echo "1..0 # SKIP ${why#foreign.sh: }"
	exit 0
fi
deb=$(ls "$debs"/ksymattach_*_$debarch.deb 2>/dev/null | head -n1)
[ -n "$deb" ] || bail "no package in $debs (make deb, or make cross for arm64)"
rm -rf "$work"; mkdir -p "$share/out" "$work/bump"
# The upgrade: the same package with the next version, repacked.
dpkg-deb -R "$deb" "$work/bump/root" &&
	ver=$(sed -n 's/^Version: //p' "$work/bump/root/DEBIAN/control") &&
	sed -i "s/^Version: .*/Version: $ver+1/" "$work/bump/root/DEBIAN/control" &&
	dpkg-deb -b -Zgzip "$work/bump/root" "$share/upgrade.deb" > /dev/null ||
	bail "cannot repack $deb with a bumped version"
t0=$SECONDS
rootfs=$("$here/rootfs.sh" build "$suite" 2>"$work/rootfs.log") || bail "rootfs: $(tail -n1 "$work/rootfs.log")"
t1=$SECONDS
"$here/sysboot.sh" image --deb "$deb" "$series" "$rootfs" "$work/disk.img" \
	> "$work/image.log" 2>&1 || bail "image: $(tail -n1 "$work/image.log")"
cp -r "$here/guest/lib.sh" "$here/fleet" "$share/"
echo "sh /host/fleet/first.sh" > "$share/job"
t2=$SECONDS
if ! err=$("$here/sysboot.sh" run "$series" "$work/disk.img" "$share" "${VM_TIMEOUT:-900}" 2>&1); then
	bail "guest $suite on $series: $(echo "$err" | head -n1)"
fi
relay first
# The second boot: the same disk, another KASLR base, the build cache imported.
t3=$SECONDS
if [ "${BOOTS:-2}" = 1 ]; then
	emit "ok" "guest: the second boot, fleet/again.sh # SKIP ${SKIP_WHY:-BOOTS=1}"
else
	echo "sh /host/fleet/again.sh" > "$share/job"
	if ! err=$("$here/sysboot.sh" run "$series" "$work/disk.img" "$share" "${VM_TIMEOUT:-900}" 2>&1); then
		bail "guest $suite on $series, second boot: $(echo "$err" | head -n1)"
	fi
	relay again
fi

# What the guest copied out, checked with the host's tools. A file the guest did not
# copy out is said as a SKIP (the classic kprobes' path copies out no daemon's):
# a check that did not run must not read as one that passed.
json_ok() { perl -MJSON::PP -e 'local $/; decode_json(<STDIN>)' < "$1" 2>/dev/null; }
# the boot unit's files come out on every path; the daemon's where it ran on
# kprobe.multi (the boot report says which path this kernel took)
classic=; grep -q '"fallback":true' "$share/out/boot.json" 2>/dev/null && classic=1
missing() { # FILE
	case $1 in boot.json|ksymattach.prom|watch.json|ksymattach-watch.prom) return 1 ;; esac
	[ -n "$classic" ]
}
for f in boot.json latest.json daemon.json watch.json; do
	if [ ! -e "$share/out/$f" ] && missing $f; then
		emit "ok" "host: $f is valid JSON # SKIP classic kprobes: the guest copied out no $f"
	elif [ ! -e "$share/out/$f" ]; then emit "not ok" "host: $f is valid JSON (the guest copied out none)"
	elif json_ok "$share/out/$f"; then emit "ok" "host: $f is valid JSON"
	else emit "not ok" "host: $f is valid JSON"; fi
done
for f in "ksymattach.prom:the boot unit's" "daemon.prom:the daemon's" \
	"ksymattach-watch.prom:the boot watch's"; do
	what=${f#*:} f=${f%%:*}
	if [ ! -s "$share/out/$f" ] && missing $f; then
		emit "ok" "host: promtool check metrics passes on $what .prom # SKIP classic kprobes: the guest copied out no $f"
	elif [ ! -s "$share/out/$f" ]; then
		emit "not ok" "host: promtool check metrics passes on $what .prom (the guest copied out none)"
	elif out=$(promtool check metrics < "$share/out/$f" 2>&1); then
		emit "ok" "host: promtool check metrics passes on $what .prom"
	else
		emit "not ok" "host: promtool check metrics on $what .prom: $(echo "$out" | head -n3 | tr '\n' ' ')"
	fi
done
grep -E '^(state|uptime)=' "$share/out/boot" 2>/dev/null | sed 's/^/# boot: /'
echo "# took: rootfs $((t1 - t0)) s, image $((t2 - t1)) s, first boot $((t3 - t2)) s, second boot $((SECONDS - t3)) s"
echo "1..$n"
