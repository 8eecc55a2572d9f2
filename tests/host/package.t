#!/usr/bin/env bash
# The Debian packages make deb built: lintian finds no error, and each package
# holds what it should (the paths make install promises).
set -u
. "$(dirname "$0")/tap.sh"
changes=$(ls "$OUTPUT"/deb/ksymattach_*_amd64.changes 2>/dev/null | head -n1)
if [ -z "$changes" ]; then
	nok "no package built in $OUTPUT/deb (make deb)"
	echo "1..$n"; exit 1
fi
lintian -E --pedantic "$changes" > "$OUTPUT/deb/lintian.txt" 2>&1
lrc=$?
errors=$(grep -c '^E:' "$OUTPUT/deb/lintian.txt")
# (lintian's exit status: 0 clean, 1 errors found, more: it did not run)
if [ $lrc -gt 1 ]; then nok "lintian did not run (rc $lrc): $(head -n1 "$OUTPUT/deb/lintian.txt")"
elif [ "$errors" -eq 0 ] && [ $lrc -eq 0 ]; then ok "lintian: no errors ($(grep -c '^W:' "$OUTPUT/deb/lintian.txt") warnings)"
else nok "lintian: $errors errors: $(grep -m3 '^E:' "$OUTPUT/deb/lintian.txt" | tr '\n' ' ')"; fi
grep '^W:' "$OUTPUT/deb/lintian.txt" | sed 's/^/# /'
want() { # DEB PATH...: each PATH in DEB
	local deb=$1 p missing=; shift
	local list; list=$(dpkg-deb -c "$deb" | awk '{ print $6 }' | sed 's|^\./|/|; s|/$||')
	for p in "$@"; do grep -qx -- "$p" <<< "$list" || missing="$missing $p"; done
	if [ -z "$missing" ]; then ok "$(basename "$deb") holds $*"
	else nok "$(basename "$deb") lacks$missing"; fi
}
d=$(dirname "$changes")
want "$(ls "$d"/ksymattach_*_amd64.deb)" /usr/sbin/ksymattach /etc/ksymattach/ksymattach.conf \
	/lib/systemd/system/ksymattach.service /lib/systemd/system/ksymattach-boot.service \
	/usr/share/man/man8/ksymattach.8.gz /usr/share/man/man5/ksymattach.conf.5.gz \
	/usr/share/bash-completion/completions/ksymattach /usr/share/ksymattach/ksymattach.rules.yml
want "$(ls "$d"/libksym-dev_*_amd64.deb)" /usr/include/ksym/ksym.h \
	/usr/lib/x86_64-linux-gnu/libksym.a /usr/lib/x86_64-linux-gnu/pkgconfig/libksym.pc
if dpkg-deb -I "$(ls "$d"/ksymattach_*_amd64.deb)" conffiles 2>/dev/null | grep -qx /etc/ksymattach/ksymattach.conf
then ok "the config is a conffile"; else nok "the config is not a conffile"; fi
echo "1..$n"
