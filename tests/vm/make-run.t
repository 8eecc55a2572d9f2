#!/usr/bin/env bash
# The README's first command as a newcomer meets it: `make run`'s preparation
# (the newest kernel's release, its download) and its run, from an empty
# download cache, then the same preparation with the network cut (a proxy
# that refuses every connection), before and after the package lists are in.
# Each failure must be one line naming its cause.
. "$(dirname "$0")/../host/tap.sh"
echo "1..9"
cache=$tmp/cache
run() { KSYM_CACHE=$cache OUTPUT=$OUTPUT "$top/scripts/run" newest "$@"; }

run -p 'vfs_*' -d 3 > "$tmp/out" 2> "$tmp/err"
rc=$?
if [ $rc -eq 0 ]; then ok "from an empty download cache, make run's job runs"
else nok "from an empty download cache, make run's job runs (exit $rc: $(tail -n1 "$tmp/err"))"; fi
if grep "^pkgcache: downloading linux-.* ([0-9.]* MB) into $cache/debs\$" "$tmp/err" >/dev/null
then ok "each download says what it fetches, how big, and where"
else nok "each download says what it fetches, how big, and where"; sed 's/^/# /' "$tmp/err"; fi
hits() { awk -v f="$1" '$1 == f { print $NF }' "$tmp/out"; }
for f in vfs_read vfs_write; do
	h=$(hits $f)
	if [ "${h:-0}" -gt 0 ] 2>/dev/null; then ok "$f counts the guest's workload ($h hits)"
	else nok "$f counts the guest's workload (got '${h}')"; fi
done
# a host that attaches itself runs there: nothing to download, nothing to cut
if ! grep '^run: .*running in the newest VM' "$tmp/err" >/dev/null; then
	for i in 5 6 7 8 9; do ok "# SKIP this host attaches kprobe.multi: make run needs no guest"; done
	exit 0
fi
rel=$(cat "$cache/kernels/series/newest/release" 2>/dev/null)
[ -n "$rel" ] && ok "the kernel stays in the cache ($rel)" || nok "the kernel stays in the cache"

# one line of cause: the last line of stderr, and no other that is not progress
one_line() {
	local why
	why=$(grep -v '^pkgcache: \(fetching\|downloading\) \|^run: ' "$2")
	if [ "$1" -ne 0 ] && [ "$(echo "$why" | grep -c .)" -eq 1 ] && echo "$why" | grep -e "$3" >/dev/null
	then ok "$4"
	else nok "$4 (exit $1)"; sed 's/^/# /' "$2"; fi
}
# the lists are kept; the kernel and its packages are not
rm -rf "$cache/kernels" "$cache/debs"
http_proxy=http://127.0.0.1:9 run -p 'vfs_*' > /dev/null 2> "$tmp/err"
rc=$?
# release answers from the lists without a download: the download is what fails
one_line $rc "$tmp/err" "^pkgcache: cannot download linux-.*Could not connect" \
	"no network, lists cached: one line names the package it could not download"
rm -rf "$cache"
http_proxy=http://127.0.0.1:9 run -p 'vfs_*' > /dev/null 2> "$tmp/err"
one_line $? "$tmp/err" "^pkgcache: cannot fetch Debian's package lists from .*Could not connect" \
	"no network, empty cache: one line says the lists could not be fetched, and why"
KSYM_CACHE=$cache "$top/scripts/pkgcache" kernel 9.9 > /dev/null 2> "$tmp/err"
one_line $? "$tmp/err" "^pkgcache: unknown kernel series '9.9'" "an unknown series: one line"
KSYM_CACHE=$cache "$top/scripts/run" 9.9 -p 'vfs_*' > /dev/null 2> "$tmp/err"
one_line $? "$tmp/err" "^pkgcache: unknown kernel series '9.9'" "make run KERNEL=9.9: the same line"
