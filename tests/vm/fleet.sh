#!/usr/bin/env bash
# fleet.sh SERIES: the fleet service on a real systemd boot, as TAP for prove.
# Installs the .deb (make deb) into a Debian 12 root filesystem (rootfs.sh),
# boots it on the SERIES kernel (sysboot.sh) and runs fleet/SERIES.sh in the
# guest once the boot has finished: the boot unit's report, journal line and
# node_exporter's metrics, the daemon's reloads, the package's upgrade; then boots
# the same disk again for fleet/SERIES-again.sh: the build cache imported, the
# boot's first run warm, the package's stop and purge.
# The host then checks what the guest copied out: JSON, `promtool check metrics`.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
OUTPUT=${OUTPUT:-$top/build}
case $OUTPUT in /*) ;; *) OUTPUT=$top/$OUTPUT ;; esac
series=$1
work=$OUTPUT/fleet/$series
share=$work/share
n=0
emit() { n=$((n + 1)); echo "$1 $n - $2"; }
bail() { emit "not ok" "$1"; echo "1..$n"; exit 1; }
# the guest's TAP lines, numbered here
relay() {
	while IFS= read -r line; do
		case $line in
		"ok - "*) emit "ok" "${line#ok - }" ;;
		"not ok - "*) emit "not ok" "${line#not ok - }" ;;
		"#"*) echo "$line" ;;
		*) echo "# $line" ;;
		esac
	done < "$share/out/log"
}

deb=$(ls "$OUTPUT"/deb/ksymattach_*_amd64.deb 2>/dev/null | head -n1)
[ -n "$deb" ] || bail "no package in $OUTPUT/deb (make deb)"
rm -rf "$work"; mkdir -p "$share/out" "$work/bump"
# The upgrade: the same package with the next version, repacked.
dpkg-deb -R "$deb" "$work/bump/root" &&
	ver=$(sed -n 's/^Version: //p' "$work/bump/root/DEBIAN/control") &&
	sed -i "s/^Version: .*/Version: $ver+1/" "$work/bump/root/DEBIAN/control" &&
	dpkg-deb -b -Zgzip "$work/bump/root" "$share/upgrade.deb" > /dev/null ||
	bail "cannot repack $deb with a bumped version"
rootfs=$("$here/rootfs.sh" build 2>"$work/rootfs.log") || bail "rootfs: $(tail -n1 "$work/rootfs.log")"
"$here/sysboot.sh" image --deb "$deb" "$series" "$rootfs" "$work/disk.img" \
	> "$work/image.log" 2>&1 || bail "image: $(tail -n1 "$work/image.log")"
cp -r "$here/guest/lib.sh" "$here/fleet" "$share/"
echo "sh /host/fleet/$series.sh" > "$share/job"
if ! err=$("$here/sysboot.sh" run "$series" "$work/disk.img" "$share" "${VM_TIMEOUT:-900}" 2>&1); then
	bail "guest $series: $(echo "$err" | head -n1)"
fi
relay
# The second boot: the same disk, another KASLR base, the build cache imported.
echo "sh /host/fleet/$series-again.sh" > "$share/job"
if ! err=$("$here/sysboot.sh" run "$series" "$work/disk.img" "$share" "${VM_TIMEOUT:-900}" 2>&1); then
	bail "guest $series, second boot: $(echo "$err" | head -n1)"
fi
relay

# What the guest copied out, checked with the host's tools.
json_ok() { perl -MJSON::PP -e 'local $/; decode_json(<STDIN>)' < "$1" 2>/dev/null; }
for f in boot.json latest.json daemon.json; do
	[ -e "$share/out/$f" ] || continue
	if json_ok "$share/out/$f"; then emit "ok" "host: $f is valid JSON"
	else emit "not ok" "host: $f is valid JSON"; fi
done
if [ -s "$share/out/ksymattach.prom" ]; then
	if out=$(promtool check metrics < "$share/out/ksymattach.prom" 2>&1); then
		emit "ok" "host: promtool check metrics passes on the boot unit's .prom"
	else
		emit "not ok" "host: promtool check metrics: $(echo "$out" | head -n3 | tr '\n' ' ')"
	fi
fi
if [ -s "$share/out/daemon.prom" ]; then
	if out=$(promtool check metrics < "$share/out/daemon.prom" 2>&1); then
		emit "ok" "host: promtool check metrics passes on the daemon's .prom"
	else
		emit "not ok" "host: promtool check metrics: $(echo "$out" | head -n3 | tr '\n' ' ')"
	fi
fi
grep -E '^(state|uptime)=' "$share/out/boot" 2>/dev/null | sed 's/^/# boot: /'
echo "1..$n"
