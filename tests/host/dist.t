#!/usr/bin/env bash
# Host tests of what the fleet service ships (dist/, debian/): the Prometheus rules
# and their unit tests, the systemd units (verify, exposure), the bash completion
# (syntax and behaviour against a stub binary), the packaging metadata. The tools
# are in the Makefile's DEPS (prometheus, systemd, bash-completion, debhelper):
# a missing one is a failure, not a skip, unless KSA_DIST_SKIP_MISSING=1.
set -u
. "$(dirname "$0")/tap.sh"
# run DESC CMD...: exit 0 and no output at all (verify's warnings exit 0)
quiet() {
	local d=$1 rc; shift
	"$@" > "$tmp/out" 2>&1; rc=$?
	if [ $rc -eq 0 ] && [ ! -s "$tmp/out" ]; then ok "$d"; else nok "$d (rc $rc: $(head -c 600 "$tmp/out"))"; fi
}
# succeeds DESC CMD...: exit 0, output shown on failure
succeeds() {
	local d=$1 rc; shift
	"$@" > "$tmp/out" 2>&1; rc=$?
	if [ $rc -eq 0 ]; then ok "$d"; else nok "$d (rc $rc: $(head -c 1500 "$tmp/out"))"; fi
}
# need TOOL PACKAGE: 0 if there; else a failure (or a skip, on request) and 1
need() {
	command -v "$1" > /dev/null && return 0
	if [ "${KSA_DIST_SKIP_MISSING:-0}" = 1 ]; then
		n=$((n + 1)); echo "ok $n - $1 is installed # SKIP not installed (Debian package $2)"
	else
		nok "$1 is not installed (Debian package $2, in the Makefile's DEPS)"
	fi
	return 1
}

P=$top/dist/prometheus
S=$top/dist/systemd
C=$top/dist/bash-completion/ksymattach

# --- Prometheus rules ---------------------------------------------------------
if need promtool prometheus; then
	succeeds "promtool check rules ksymattach.rules.yml" promtool check rules "$P/ksymattach.rules.yml"
	succeeds "promtool test rules ksymattach.rules.test.yml" promtool test rules "$P/ksymattach.rules.test.yml"
	# The unit tests can fail: a rule file with the threshold default changed
	# from 1 to 2 must not pass them.
	mkdir -p "$tmp/rules"
	sed 's/group by (instance, job) (ksymattach_boot_attach_stall_seconds)/2 * group by (instance, job) (ksymattach_boot_attach_stall_seconds)/' \
		"$P/ksymattach.rules.yml" > "$tmp/rules/ksymattach.rules.yml"
	cp "$P/ksymattach.rules.test.yml" "$tmp/rules/"
	if cmp -s "$P/ksymattach.rules.yml" "$tmp/rules/ksymattach.rules.yml"; then
		nok "rule tests catch a changed threshold default (the mutation no longer applies)"
	elif promtool test rules "$tmp/rules/ksymattach.rules.test.yml" > /dev/null 2>&1; then
		nok "rule tests catch a changed threshold default"
	else
		ok "rule tests catch a changed threshold default"
	fi
	# Every metric the rules use is one the tool writes (src/output/prom.c), but
	# for node_exporter's own and the interval gauge proposed for the daemon.
	used=$(grep -v '^ *#' "$P/ksymattach.rules.yml" | grep -o 'ksymattach_[a-z_]*' | sort -u)
	missing=
	for m in $used; do
		case $m in ksymattach_report_interval_seconds) continue ;; esac
		grep -rqs "\"$m" "$top/src" || missing="$missing $m"
	done
	is "${missing:-none}" none "rules use only metrics the tool writes"
fi

# --- systemd units --------------------------------------------------------------
if need systemd-analyze systemd; then
	# verify resolves ExecStart=: point the units at a real executable (the
	# built binary, else a stand-in) in a copy, and keep the copies' names.
	bin=$OUTPUT/ksymattach
	if [ ! -x "$bin" ]; then
		bin=$tmp/ksymattach; printf '#!/bin/sh\nexit 0\n' > "$bin"; chmod +x "$bin"
	fi
	mkdir -p "$tmp/units"
	for u in ksymattach-boot.service ksymattach.service ksymattach-watch.service; do
		sed "s|/usr/sbin/ksymattach|$bin|g" "$S/$u" > "$tmp/units/$u"
	done
	# --man=no: the man pages are checked below, against the tree, not man(1).
	quiet "systemd-analyze verify: the three units, no warning" \
		systemd-analyze verify --man=no "$tmp/units/ksymattach-boot.service" \
		"$tmp/units/ksymattach.service" "$tmp/units/ksymattach-watch.service"
	# The check can fail: an unknown key is a warning on stderr (exit 0).
	printf 'BogusKey=1\n' >> "$tmp/units/ksymattach.service"
	systemd-analyze verify --man=no "$tmp/units/ksymattach.service" > "$tmp/out" 2>&1
	if grep -q BogusKey "$tmp/out"; then ok "verify reports an unknown key"; else nok "verify reports an unknown key"; fi
	for u in ksymattach-boot.service ksymattach.service ksymattach-watch.service; do
		systemd-analyze security --offline=true "$S/$u" > "$tmp/sec" 2>&1
		level=$(sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p' "$tmp/sec")
		if [ -n "$level" ] && awk -v l="$level" 'BEGIN { exit !(l <= 4.0) }'; then
			ok "$u: exposure $level <= 4.0"
		else
			nok "$u: exposure '${level}' <= 4.0 ($(tail -c 400 "$tmp/sec"))"
		fi
	done
	# The settings that break the tool must stay off (docs/service.md says why):
	# ProtectKernelTunables hides /proc/kallsyms and /proc/kcore, ProtectKernelLogs
	# drops CAP_SYSLOG, PrivateDevices drops CAP_SYS_RAWIO, ProcSubset=pid hides both.
	for u in ksymattach-boot.service ksymattach.service ksymattach-watch.service; do
		bad=$(grep -E '^(ProtectKernelTunables|ProtectKernelLogs|PrivateDevices)=(yes|true|1|on)|^ProcSubset=pid|^PrivateUsers=(yes|true|1|on)' "$S/$u")
		is "${bad:-none}" none "$u: nothing that hides kallsyms/kcore or drops a needed capability"
		# the watcher reads no symbol and no kcore: three
		caps="CAP_BPF CAP_PERFMON CAP_SYSLOG CAP_SYS_RAWIO CAP_SYS_ADMIN"
		[ $u = ksymattach-watch.service ] && caps="CAP_BPF CAP_PERFMON CAP_SYS_ADMIN"
		is "$(sed -n 's/^CapabilityBoundingSet=//p' "$S/$u")" "$caps" "$u: bounding set"
		is "$(sed -n 's/^SystemCallFilter=//p' "$S/$u")" "@system-service bpf perf_event_open" "$u: syscall filter"
		is "$(sed -n 's/^UMask=//p' "$S/$u")" 0022 "$u: UMask 0022 (the .prom file readable by prometheus)"
	done
	# The two units share their directories and sandbox: the same settings (but
	# the socket families: the daemon's sd_notify needs AF_UNIX), or the unit
	# started last would set the shared directories' modes its own way.
	shared() { grep -E '^(State|Runtime)Directory|^(ReadWrite|ReadOnly|Inaccessible)Paths=|^UMask=|^Capability|^Ambient|^NoNewPriv|^Protect|^Private|^Restrict|^SystemCall|^Device|^IPAddress|^LockPers|^MemoryDeny|^RemoveIPC|^KeyringMode' "$1" |
		grep -v '^RestrictAddressFamilies='; }
	if diff <(shared "$S/ksymattach-boot.service") <(shared "$S/ksymattach.service") > "$tmp/diff"; then
		ok "both units: the same directories and sandbox"
	else
		nok "both units: the same directories and sandbox ($(tr '\n' ' ' < "$tmp/diff"))"
	fi
	# the watch unit's too, but its bounding set (checked above)
	if diff <(shared "$S/ksymattach-boot.service" | grep -v '^CapabilityBoundingSet=') \
		<(shared "$S/ksymattach-watch.service" | grep -v '^CapabilityBoundingSet=') > "$tmp/diff"; then
		ok "the watch unit: the boot unit's directories and sandbox"
	else
		nok "the watch unit: the boot unit's directories and sandbox ($(tr '\n' ' ' < "$tmp/diff"))"
	fi
	# bpf and perf_event_open are outside @system-service: named on their own.
	ssf=$(systemd-analyze syscall-filter @system-service 2>&1)
	if [ $? -eq 0 ] && grep -qx "    @basic-io" <<< "$ssf"; then
		ok "systemd-analyze lists @system-service"
	else
		nok "systemd-analyze lists @system-service ($(head -n1 <<< "$ssf"))"
	fi
	for sc in bpf perf_event_open; do
		if grep -qx "    $sc" <<< "$ssf"; then
			nok "$sc is not in @system-service (it is listed there now: drop it from the filter line)"
		else
			ok "$sc is not in @system-service"
		fi
	done
fi
# Documentation=man:X(N): each page is in the tree.
pages=$(sed -n 's/^Documentation=//p' "$S"/*.service | tr ' ' '\n' | sed -n 's/^man:\(.*\)(\([0-9]\))$/\1.\2/p' | sort -u)
if [ -n "$pages" ]; then ok "the units name their man pages"; else nok "the units name their man pages (Documentation=man:...)"; fi
for page in $pages; do
	if [ -f "$top/man/$page" ]; then ok "man page $page exists"; else nok "man page $page exists (man/$page)"; fi
done

# --- bash completion ------------------------------------------------------------
if need bash bash; then
	succeeds "bash -n on the completion" bash -n "$C"
fi
bc=/usr/share/bash-completion/bash_completion
if [ -r "$bc" ]; then
	# A stand-in for the binary: `complete -- PREFIX` answers from a fixed list
	# and logs its calls, so that the test sees when the script asks.
	mkdir -p "$tmp/bin" "$tmp/files"
	cat > "$tmp/bin/ksymattach" << EOF
#!/bin/sh
[ "\$1" = complete ] && [ "\$2" = -- ] || exit 64
echo "\$3" >> "$tmp/calls"
for f in vfs_read vfs_readv vfs_readlink vfs_write 9p:v9fs_set_super 9p:v9fs_session_init :vfs_open; do
	case \$f in "\$3"*) echo "\$f" ;; esac
done
EOF
	chmod +x "$tmp/bin/ksymattach"
	: > "$tmp/files/kallsyms.612"; : > "$tmp/files/kallsyms.61"; : > "$tmp/files/other"
	# complete LINE: what TAB offers at the end of LINE, one line, sorted; split
	# as readline does (COMP_WORDBREAKS has : and =).
	cat > "$tmp/drive.bash" << 'EOF'
source "$1"; source "$2"; shift 2
line=$1
words=()
rest=$line
while [[ -n $rest ]]; do
	if [[ $rest =~ ^[[:blank:]]+ ]]; then rest=${rest:${#BASH_REMATCH[0]}}; continue; fi
	if [[ $rest =~ ^[:=] ]]; then words+=("${BASH_REMATCH[0]}"); rest=${rest:1}; continue; fi
	[[ $rest =~ ^[^[:blank:]:=]+ ]]; words+=("${BASH_REMATCH[0]}"); rest=${rest:${#BASH_REMATCH[0]}}
done
[[ $line == *[[:blank:]] ]] && words+=("")
COMP_WORDS=("${words[@]}"); COMP_CWORD=$((${#words[@]} - 1))
COMP_LINE=$line; COMP_POINT=${#line}
_ksymattach ksymattach "${words[COMP_CWORD]}" "${words[COMP_CWORD - 1]}"
printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' ' | sed 's/ $//'
EOF
	complete_line() { (cd "$tmp/files" && PATH=$tmp/bin:$PATH bash "$tmp/drive.bash" "$bc" "$C" "$1"); }
	is "$(complete_line 'ksymattach -p vfs_re')" "vfs_read vfs_readlink vfs_readv" "-p: kernel functions by prefix"
	is "$(complete_line 'ksymattach --pattern vfs_w')" "vfs_write" "--pattern: the same"
	is "$(complete_line 'ksymattach --pattern=vfs_w')" "vfs_write" "--pattern=: the same"
	is "$(complete_line 'ksymattach -pvfs_w')" "-pvfs_write" "-pPREFIX: glued to the option"
	is "$(complete_line 'ksymattach -p 9p:v9fs_se')" "v9fs_session_init v9fs_set_super" \
		"-p mod:prefix: the part after the colon (readline keeps 9p:)"
	is "$(complete_line 'ksymattach -p :vfs_o')" "vfs_open" "-p :prefix (vmlinux only)"
	: > "$tmp/calls"
	is "$(complete_line "ksymattach -p 'vfs_*")" "" "-p with a glob: nothing"
	is "$(wc -l < "$tmp/calls")" 0 "-p with a glob: the binary is not asked"
	is "$(complete_line 'ksymattach -p nomatch')" "" "-p: nothing matches, nothing offered"
	is "$(complete_line 'ksymattach -m s')" "session" "-m: modes"
	is "$(complete_line 'ksymattach --mode ')" "fentry fexit fsession multi session" "--mode: every mode"
	is "$(complete_line 'ksymattach -r ')" "kernel ksym libbpf" "-r: resolvers"
	is "$(complete_line 'ksymattach -o ')" "json prom text" "-o: formats"
	is "$(complete_line 'ksymattach --output=j')" "json" "--output=: formats"
	is "$(complete_line 'ksymattach --source ')" "ftrace iter kallsyms kmem tracefs" "--source: sources"
	is "$(complete_line 'ksymattach --fallback ')" "kprobe" "--fallback: kprobe"
	is "$(complete_line 'ksymattach --kallsyms kallsyms.6')" "kallsyms.61 kallsyms.612" "--kallsyms: files"
	is "$(complete_line 'ksymattach --config ot')" "other" "--config: files"
	is "$(complete_line 'ksymattach --check-config ot')" "other" "--check-config: files"
	is "$(complete_line 'ksymattach bench kall')" "kallsyms.61 kallsyms.612" "bench: files"
	is "$(complete_line 'ksymattach -d ')" "" "-d: no guess at a number"
	is "$(complete_line 'ksymattach --no-')" "--no-cache --no-fallback" "options by prefix"
	is "$(complete_line 'ksymattach --comp')" "--compare" "--compare"
	is "$(complete_line 'ksymattach ')" "addr bench boot cache daemon resolve sym" "commands (not the hidden complete)"
is "$(complete_line 'ksymattach cache ')" "export import" "cache: its two verbs"
	is "$(complete_line 'ksymattach -o json s')" "sym" "a command after an option and its value"
	is "$(complete_line 'ksymattach -p vfs_read s')" "" "no command once -p is given"
	is "$(complete_line 'ksymattach sym vfs_wr')" "vfs_write" "sym: kernel functions"
	is "$(complete_line 'ksymattach resolve 9p:v9fs_set')" "v9fs_set_super" "resolve: kernel functions"
	is "$(complete_line 'ksymattach addr ff')" "" "addr: nothing"
	rm -f "$tmp/bin/ksymattach"
	is "$(complete_line 'ksymattach -p vfs_re')" "" "no binary (or no cache): nothing, no error"
	# The script's own cost: 20 TABs on -p vfs_re with a stand-in binary that
	# answers at once, in one shell (what a user's shell does), must stay far
	# under the 100 ms a warm TAB may take in all.
	cat > "$tmp/bin/ksymattach" << 'EOF'
#!/bin/sh
printf 'vfs_read\nvfs_readv\n'
EOF
	chmod +x "$tmp/bin/ksymattach"
	cat > "$tmp/time.bash" << 'EOF'
source "$1"; source "$2"
declare -F _ksymattach > /dev/null || exit 1
t0=$EPOCHREALTIME
for i in {1..20}; do
	COMP_WORDS=(ksymattach -p vfs_re); COMP_CWORD=2; COMP_LINE='ksymattach -p vfs_re'; COMP_POINT=${#COMP_LINE}
	_ksymattach ksymattach vfs_re -p
done
t1=$EPOCHREALTIME
echo $(( (${t1/./} - ${t0/./}) / 20000 ))
EOF
	ms=$(PATH=$tmp/bin:$PATH bash "$tmp/time.bash" "$bc" "$C")
	if [ -n "$ms" ] && [ "$ms" -lt 50 ]; then
		ok "a TAB on -p vfs_re costs ${ms} ms in the script and a stand-in exec (< 50)"
	else
		nok "a TAB on -p vfs_re costs ${ms:-?} ms in the script and a stand-in exec (< 50)"
	fi
else
	nok "bash-completion is not installed ($bc; Debian package bash-completion)"
fi

# --- Debian packaging -------------------------------------------------------------
D=$top/debian
is "$(grep -o 'debhelper-compat (= [0-9]*)' "$D/control")" "debhelper-compat (= 13)" \
	"debian/control: debhelper compat 13"
is "$(sed -n '1s/^ksymattach (\([^)]*\)).*/\1/p' "$D/changelog")" \
	"$(sed -n 's/^#define KSYM_VERSION "\(.*\)"/\1/p' "$top/lib/ksym/include/ksym/ksym.h")-1" \
	"debian/changelog: the version in ksym.h (the Makefile's), Debian revision 1"
if [ -x "$D/rules" ]; then ok "debian/rules is executable"; else nok "debian/rules is executable"; fi
if need sh dash; then
	succeeds "sh -n debian/ksymattach.postrm" sh -n "$D/ksymattach.postrm"
fi
# The postrm: remove takes the exported file, purge the state too, nothing else.
mkdir -p "$tmp/root"
sed -e "s|/var/|$tmp/root/var/|g; s|/run/|$tmp/root/run/|g; s|#DEBHELPER#||" "$D/ksymattach.postrm" > "$tmp/postrm"
mkdir -p "$tmp/root/var/lib/ksymattach" "$tmp/root/run/ksymattach" "$tmp/root/var/lib/prometheus/node-exporter"
touch "$tmp/root/var/lib/ksymattach/latest.json" "$tmp/root/var/lib/prometheus/node-exporter/ksymattach.prom" \
	"$tmp/root/var/lib/prometheus/node-exporter/other.prom"
sh "$tmp/postrm" remove
is "$(cd "$tmp/root" && find . -type f | sort | tr '\n' ' ')" \
	"./var/lib/ksymattach/latest.json ./var/lib/prometheus/node-exporter/other.prom " \
	"postrm remove takes ksymattach.prom only (node_exporter would serve it as this node's)"
sh "$tmp/postrm" purge
is "$(cd "$tmp/root" && find . | sort | tr '\n' ' ')" \
	". ./run ./var ./var/lib ./var/lib/prometheus ./var/lib/prometheus/node-exporter ./var/lib/prometheus/node-exporter/other.prom " \
	"postrm purge removes the state, the cache and ksymattach.prom only"
# Every path the .install files name is one the Makefile's install target makes:
# checked by the package build (dh_install fails on a missing file, dh_missing on
# an unlisted one); here only that the files they come from exist.
for f in dist/systemd/ksymattach.service dist/systemd/ksymattach-boot.service \
	dist/bash-completion/ksymattach dist/prometheus/ksymattach.rules.yml dist/ksymattach.conf \
	man/ksymattach.8 man/ksymattach.conf.5; do
	if [ -f "$top/$f" ]; then ok "$f exists"; else nok "$f exists"; fi
done

echo "1..$n"
