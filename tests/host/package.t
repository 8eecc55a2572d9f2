#!/usr/bin/env bash
# The Debian packages make deb built, for amd64 and arm64 (make deb ARCH=arm64):
# lintian finds no error, and each package holds what it should (the paths make
# install promises) and a static binary of its architecture.
set -u
. "$(dirname "$0")/tap.sh"
# check ARCH DIR MULTIARCH: the packages make deb built for ARCH in DIR
check() {
	local arch=$1 d=$2 multiarch=$3 changes
	changes=$(ls "$d"/ksymattach_*_$arch.changes 2>/dev/null | head -n1)
	if [ -z "$changes" ]; then
		nok "no $arch package built in $d (make deb${4:+ $4})"
		return
	fi
	lintian -E --pedantic "$changes" > "$d/lintian.txt" 2>&1
	lrc=$?
	errors=$(grep -c '^E:' "$d/lintian.txt")
	# (lintian's exit status: 0 clean, 1 errors found, more: it did not run)
	if [ $lrc -gt 1 ]; then nok "$arch: lintian did not run (rc $lrc): $(head -n1 "$d/lintian.txt")"
	elif [ "$errors" -eq 0 ] && [ $lrc -eq 0 ]; then ok "$arch: lintian: no errors ($(grep -c '^W:' "$d/lintian.txt") warnings)"
	else nok "$arch: lintian: $errors errors: $(grep -m3 '^E:' "$d/lintian.txt" | tr '\n' ' ')"; fi
	grep '^W:' "$d/lintian.txt" | sed 's/^/# /'
	want "$(ls "$d"/ksymattach_*_$arch.deb)" /usr/sbin/ksymattach /etc/ksymattach/ksymattach.conf \
		/lib/systemd/system/ksymattach.service /lib/systemd/system/ksymattach-boot.service \
		/usr/share/man/man8/ksymattach.8.gz /usr/share/man/man5/ksymattach.conf.5.gz \
		/usr/share/bash-completion/completions/ksymattach /usr/share/ksymattach/ksymattach.rules.yml
	want "$(ls "$d"/libksym-dev_*_$arch.deb)" /usr/include/ksym/ksym.h \
		/usr/lib/$multiarch/libksym.a /usr/lib/$multiarch/pkgconfig/libksym.pc
	if dpkg-deb -I "$(ls "$d"/ksymattach_*_$arch.deb)" conffiles 2>/dev/null | grep -qx /etc/ksymattach/ksymattach.conf
	then ok "$arch: the config is a conffile"; else nok "$arch: the config is not a conffile"; fi
	# the binary is the architecture's, static, and names what is inside it
	f=$(dpkg-deb --fsys-tarfile "$(ls "$d"/ksymattach_*_$arch.deb)" | tar -xO ./usr/sbin/ksymattach | file -)
	bu=$(dpkg-deb -f "$(ls "$d"/ksymattach_*_$arch.deb)" Built-Using)
	case $arch in amd64) m=x86-64 ;; arm64) m=aarch64 ;; esac
	if [[ $f == *"$m"*"statically linked"* ]] && [[ $bu == *"glibc (= "* ]] && [[ $bu == *"elfutils (= "* ]]; then
		ok "$arch: a static $m binary, built using $bu"
	else
		nok "$arch: the binary is ${f#*: }; Built-Using '$bu'"
	fi
}
want() { # DEB PATH...: each PATH in DEB
	local deb=$1 p missing=; shift
	local list; list=$(dpkg-deb -c "$deb" | awk '{ print $6 }' | sed 's|^\./|/|; s|/$||')
	for p in "$@"; do grep -qx -- "$p" <<< "$list" || missing="$missing $p"; done
	if [ -z "$missing" ]; then ok "$(basename "$deb") holds $*"
	else nok "$(basename "$deb") lacks$missing"; fi
}
check amd64 "$OUTPUT/deb" x86_64-linux-gnu
# the arm64 packages, cross-built beside (make cross) where this host is x86-64
if [ "$(uname -m)" = x86_64 ]; then
	check arm64 "$OUTPUT/arm64/deb" aarch64-linux-gnu ARCH=arm64
else
	ok "arm64 packages # SKIP the host is $(uname -m): nothing cross-built"
fi
echo "1..$n"
