#!/usr/bin/env bash
# tests/vm/foreign.sh, which builds the arm64 root filesystem: the arm64 binary
# runs inside its namespace, exit statuses come through, the host's binfmt_misc
# is the same after as before, and what it cannot do is said in one line.
set -u
. "$(dirname "$0")/tap.sh"
F=$top/tests/vm/foreign.sh
A=$OUTPUT/arm64/ksymattach

if [ "$(uname -m)" != x86_64 ]; then
	echo "1..0 # SKIP the host is $(uname -m): no cross build to run"
	exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "1..0 # SKIP not root: foreign.sh maps every uid, which only root may"
	exit 0
fi
if ! why=$("$F" --check arm64 2>&1); then
	echo "1..0 # SKIP ${why#foreign.sh: }"
	exit 0
fi

# what the host runs an aarch64 program with, before: /proc/sys/fs/binfmt_misc
# (mounted or not), and whether the binary runs here at all
handlers() { ls /proc/sys/fs/binfmt_misc 2> /dev/null | sort | tr '\n' ' '; }
before=$(handlers)
"$A" --version > /dev/null 2>&1; host_rc=$?

is "$("$F" arm64 "$A" --version 2>&1)" "$("$OUTPUT/ksymattach" --version 2>&1)" \
	"the arm64 binary runs in the namespace and says what the x86-64 one says"
"$F" arm64 "$A" --no-such-option > /dev/null 2>&1
is "$?" 64 "its exit status comes through (a usage error: 64)"
is "$("$F" arm64 sh -c 'cat /proc/self/uid_map' | tr -s ' ')" " 0 0 4294967295" \
	"every uid is mapped to itself: files keep their owners"
is "$(handlers)" "$before" "the host's binfmt_misc is as it was"
mkdir "$tmp/t"
TMPDIR=$tmp/t "$F" arm64 "$A" --version > /dev/null 2>&1
is "$(ls -A "$tmp/t")" "" "nothing left in TMPDIR (the namespace's mount point removed)"
"$A" --version > /dev/null 2>&1
is "$?" "$host_rc" "the binary runs on the host as before, or fails as before"

out=$("$F" mips true 2>&1); rc=$?
is "$rc:$(echo "$out" | wc -l)" "1:1" "an unknown architecture: one line, exit 1"
is "$out" "foreign.sh: ARCH=mips: arm64 only" "the line names it"
out=$("$F" arm64 2>&1); rc=$?
is "$rc:$out" "1:foreign.sh: no command to run" "no command: one line, exit 1"
echo "1..$n"
