# tap.sh: sourced by the host tests. The tree, the build directory, a scratch
# directory removed at exit, and TAP lines numbered as they come.
top=$(cd "$(dirname "$0")/../.." && pwd)
OUTPUT=${OUTPUT:-$top/build}
case $OUTPUT in /*) ;; *) OUTPUT=$top/$OUTPUT ;; esac
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
n=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
nok() { n=$((n + 1)); echo "not ok $n - $*"; }
is() { if [ "$1" = "$2" ]; then ok "$3"; else nok "$3 (got '$1', want '$2')"; fi; }
