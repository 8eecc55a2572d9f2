#!/usr/bin/env bash
# The documentation agrees with the program: every option --help lists is in
# ksymattach(8), every metric the Prometheus output has is in its METRICS
# section, and every config key is in ksymattach.conf(5) and the shipped file.
set -u
. "$(dirname "$0")/tap.sh"
K=$OUTPUT/ksymattach
D=${KSYM_DATA:-$OUTPUT/data}
# man pages with roff's escapes undone, for plain greps
man8=$(sed 's/\\-/-/g; s/\\f[BIRP]//g' "$top/man/ksymattach.8")
man5=$(sed 's/\\-/-/g; s/\\f[BIRP]//g' "$top/man/ksymattach.conf.5")

# --help itself first: a binary that cannot print it would leave nothing to check
help=$("$K" --help); hrc=$?
if [ $hrc -ne 0 ] || [ "$(grep -c -- '--' <<< "$help")" -lt 10 ]; then
	nok "ksymattach --help: rc $hrc, $(grep -c -- '--' <<< "$help") option lines"
	echo "1..$n"; exit 1
fi
missing=
for o in $(grep -o -- '--[a-z][a-z-]*' <<< "$help" | sort -u); do
	grep -q -- "$o" <<< "$man8" || missing="$missing $o"
done
for o in $(grep -oE '^ +-[a-zA-Z],' <<< "$help" | tr -d ' ,'); do
	grep -qE -- "(^|[ ,])$o( |,|$)" <<< "$man8" || missing="$missing $o"
done
if [ -z "$missing" ]; then ok "every option of --help is in ksymattach(8)"
else nok "options missing from ksymattach(8):$missing"; fi
# (and the other way: the man page documents no option the program lacks)
extra=
for o in $(grep -oE -- '--[a-z][a-z-]+' <<< "$man8" | sort -u); do
	grep -q -- "$o" <<< "$help" || extra="$extra $o"
done
if [ -z "$extra" ]; then ok "ksymattach(8) documents no option the program lacks"
else nok "ksymattach(8) documents options --help lacks:$extra"; fi

# Every metric (session mode has them all); the histogram's series by family.
"$K" -l -m session -o prom -p 'vfs_*' --funcs-addrs "$D/6.12/available_filter_functions_addrs" \
	> "$OUTPUT/docs-prom.txt" 2>/dev/null
metrics=$(sed -n 's/^# TYPE \([a-z_]*\) .*/\1/p' "$OUTPUT/docs-prom.txt")
missing=
for m in $metrics; do
	short=${m#ksymattach}
	grep -qE -- "ksymattach${short}([^a-z_]|$)|(^|[ ,])${short}([^a-z_]|$)" <<< "$man8" ||
		missing="$missing $m"
done
if [ -n "$metrics" ] && [ -z "$missing" ]; then ok "every metric ($(echo $metrics | wc -w)) is in ksymattach(8)"
else nok "metrics missing from ksymattach(8):${missing:- (no metrics printed)}"; fi

# Config keys: the shipped file's (commented or not) against conf(5) and the parser.
keys=$(sed -nE 's/^#?([a-z_]+) = .*/\1/p' "$top/dist/ksymattach.conf" | sort -u)
missing=
for k in $keys; do grep -qE "^\.(B|TP|IP).*\b$k\b|^$k\b" <<< "$man5" || missing="$missing $k"; done
if [ -n "$keys" ] && [ -z "$missing" ]; then ok "every key of the shipped config ($(echo $keys | wc -w)) is in ksymattach.conf(5)"
else nok "keys missing from ksymattach.conf(5):${missing:- (none found)}"; fi
bad=
for k in $keys; do
	# each key the file shows, uncommented alone, is one the parser knows
	sed -nE "s/^#?($k = .*)/\1/p" "$top/dist/ksymattach.conf" | head -n1 > "$tmp/one.conf"
	[ "$k" = pattern ] || echo 'pattern = vfs_*' >> "$tmp/one.conf"
	"$K" --check-config "$tmp/one.conf" > /dev/null 2> "$tmp/err" || bad="$bad $k($(head -c 80 "$tmp/err"))"
done
if [ -z "$bad" ]; then ok "every key of the shipped config, with its shown value, passes --check-config"
else nok "shipped config lines the parser refuses:$bad"; fi

# The project speaks of itself only: no working history in its files.
hist=$(cd "$top" && git ls-files 2>/dev/null | grep -vE '^tests/data/|^tests/fuzz/corpus/' |
	xargs -d '\n' grep -nIE '(^|[^.a-z_-])([Ss]ession|[Ii]ssue) #?[0-9]|(this|earlier|previous|last|that) session\b' 2>/dev/null)
if [ -d "$top/.git" ] || git -C "$top" rev-parse --git-dir > /dev/null 2>&1; then
	if [ -z "$hist" ]; then ok "no file speaks of sessions or issue numbers"
	else nok "files that speak of sessions or issue numbers: $(echo "$hist" | head -n3 | tr '\n' ' ')"; fi
else
	ok "no file speaks of sessions or issue numbers # SKIP not a git checkout"
fi
echo "1..$n"
