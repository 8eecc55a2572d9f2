# The fleet service's first boot with systemd as PID 1 (dash; sourced helpers:
# lib.sh, common.sh), on any kernel and suite: where the kernel has kprobe.multi
# the boot unit, node_exporter, the daemon's reloads and modules, capabilities,
# completion and the package's upgrade; without it, classic kprobes stand in and
# are reported. Then the build cache is handed to the second boot (again.sh).
cd /host || exit 1
. ./lib.sh
. ./fleet/common.sh

# The units as this system's systemd reads them: no warning, exposure as on the
# host (tests/host/dist.t: <= 4.0); systemd's words are checked, not assumed.
systemd-analyze verify --man=no ksymattach.service ksymattach-boot.service \
	ksymattach-watch.service > $O/verify.txt 2>&1
is "$?:$(grep -c . $O/verify.txt)" "0:0" "systemd-analyze verify: the three installed units, no warning"
sed 's/^/# verify: /' $O/verify.txt
for u in ksymattach-boot.service ksymattach.service ksymattach-watch.service; do
	systemd-analyze security --no-pager $u > $O/security-$u.txt 2>&1
	level=$(sed -n "s/.*Overall exposure level for $u: *\([0-9.]*\).*/\1/p" $O/security-$u.txt)
	check "systemd-analyze security: $u exposure '$level' <= 4.0" awk -v l="$level" 'BEGIN { exit !(l != "" && l <= 4.0) }' ||
		tail -n 3 $O/security-$u.txt | sed 's/^/# /'
done

check "boot unit: active (exited)" systemctl is-active --quiet ksymattach-boot.service ||
	diag ksymattach-boot.service

# The boot watch: on since before sysinit.target; stopped here (once the daemon is
# up), it writes what it saw of the boot: the boot unit and the daemon attached,
# each named by its unit.
check "watch unit: active, watching since early in the boot" \
	systemctl is-active --quiet ksymattach-watch.service || diag ksymattach-watch.service
wait_until 120 systemctl is-active --quiet ksymattach.service
systemctl stop ksymattach-watch.service
cp $STATE/latest-watch.json $O/watch.json 2>/dev/null
cp /var/lib/prometheus/node-exporter/ksymattach-watch.prom $O/ksymattach-watch.prom 2>/dev/null
jcat -u ksymattach-watch.service > $O/watch-journal.txt
for u in ksymattach-boot.service ksymattach.service; do
	line=$(grep "\"unit\":\"$u\"" $O/watch.json 2>/dev/null | head -n1)
	echo "# watch: $line" | cut -c 1-400
	ge "$(echo "$line" | sed -n 's/.*"functions":\([0-9]*\).*/\1/p')" 1 \
		"watch: the boot's record names $u, which attached probes"
done
check "watch: the journal has a line a process, by unit" \
	grep -q '^watch: ksymattach\[[0-9]*\] (ksymattach-boot.service): attach stall' $O/watch-journal.txt
check "watch: its Prometheus series carry comm and unit" grep -q \
	'^ksymattach_watch_attach_stall_seconds{comm="ksymattach",unit="ksymattach-boot.service"}' \
	$O/ksymattach-watch.prom
check "watch: its running totals too, by comm and unit" grep -q \
	'^ksymattach_watch_functions_total{comm="ksymattach",unit="ksymattach-boot.service"} [1-9]' \
	$O/ksymattach-watch.prom
cp $STATE/boot-$bid.json $O/boot.json 2>/dev/null
jcat -u ksymattach-boot.service > $O/boot-journal.txt

if [ -z "$KMULTI" ]; then
	# No kprobe.multi (as on Debian's 6.1): classic kprobes, reported.
	check "boot report: classic kprobes stood in" grep -q '"fallback":true' $O/boot.json
	ge "$(json_int attached $O/boot.json)" 1 "boot report: attached > 0"
	check "journal: the summary line says classic kprobes" grep -q "^boot $bid: .* (classic kprobes, no kprobe.multi on this kernel)" $O/boot-journal.txt
	grep "^boot $bid" $O/boot-journal.txt | sed 's/^/# /'
	check "the .prom says so" grep -q '^ksymattach_fallback_kprobes 1' $PROM
	cp $PROM $O/ksymattach.prom
	# classic kprobes: perf_event_open, which Debian's perf_event_paranoid=3 keeps to
	# CAP_SYS_ADMIN; without it the run fails and names it
	printf 'pattern = vfs_read\njson_dir = /tmp/caps\nprom_file =\n' > /tmp/caps.conf
	mkdir -p /tmp/caps
	systemd-run --wait --pipe --quiet -p NoNewPrivileges=yes \
		-p CapabilityBoundingSet="CAP_BPF CAP_PERFMON CAP_SYSLOG CAP_SYS_RAWIO" \
		/usr/sbin/ksymattach boot --no-cache --config /tmp/caps.conf > $O/caps.out 2>&1
	rc=$?
	check "capabilities: classic kprobes without CAP_SYS_ADMIN fail, naming it (rc $rc)" sh -c \
		"[ $rc -ne 0 ] && grep -q 'CAP_SYS_ADMIN' $O/caps.out"
	grep ksymattach $O/caps.out | sed 's/^/# /'
	check "daemon: active on classic kprobes" systemctl is-active --quiet ksymattach.service ||
		diag ksymattach.service
	systemctl stop ksymattach.service
	is "$(kprobe_links)" 0 "stop: no kprobe link left"
	# For the second boot: this build's cache, handed over as with kprobe.multi.
	. ./fleet/handover.sh
	# what the path below checks and this kernel does not run: said, not left out
	for t in "node_exporter: serves the boot report" "daemon: a reload keeps links and counts" \
		"daemon: a module's functions as it loads and unloads" \
		"broken config: the reload refused, every link kept" \
		"capabilities: the units' five, and each one missing" "completion: installed and working" \
		"upgrade: the edited config kept, the daemon back"; do
		skip "$t" "this kernel has no kprobe.multi: fleet-6.12.t and fleet-trixie.t run it"
	done
	the_end first
	exit 0
fi

# The boot unit: its report, journal line, the .prom node_exporter serves.
check "boot unit: boot-<boot-id>.json written" [ -s $STATE/boot-$bid.json ]
cp $STATE/latest.json $O/latest.json 2>/dev/null
cp $PROM $O/ksymattach.prom 2>/dev/null
check "boot report: kprobe.multi, no fallback" grep -q '"fallback":false' $O/boot.json
ge "$(json_int attached $O/boot.json)" 1 "boot report: attached > 0"
is "$(stat -c %a $PROM 2>/dev/null)" 644 "boot unit: the .prom is world-readable (node_exporter runs as prometheus)"
check "journal: the boot unit's summary line" grep -q "^boot $bid: [0-9]* functions attached in .* attach stall [0-9.]* ms" $O/boot-journal.txt
grep "^boot $bid" $O/boot-journal.txt | sed 's/^/# /'
check "node_exporter: active" wait_until 60 systemctl is-active --quiet prometheus-node-exporter.service
curl -sf http://127.0.0.1:9100/metrics > $O/metrics.txt
check "node_exporter: serves ksymattach_functions_attached" grep -q '^ksymattach_functions_attached [1-9]' $O/metrics.txt
check "node_exporter: serves the boot stall" grep -q '^ksymattach_boot_attach_stall_seconds [0-9]' $O/metrics.txt
check "node_exporter: no textfile error" grep -q '^node_textfile_scrape_error 0' $O/metrics.txt

# The daemon: ready (Type=notify), its outputs, reloads.
check "daemon: active (READY=1 sent)" wait_until 120 systemctl is-active --quiet ksymattach.service ||
	diag ksymattach.service
check "daemon: STATUS= says what is attached" sh -c "systemctl status ksymattach.service --no-pager | grep -q 'Status: \"[0-9]* functions attached'"
check "daemon: daemon.json written" wait_until 60 test -s $STATE/daemon.json
before=$(link_ids)
ge "$(echo "$before" | grep -c .)" 1 "daemon: its links are attached"
# a shorter interval and one more pattern, through a reload
cp $CONF $O/conf.orig
printf 'interval = 2s\npattern = ksys_*\n' >> $CONF
dd if=/dev/zero of=/dev/null bs=1 count=300 2>/dev/null
systemctl reload ksymattach.service
check "reload: the daemon says what changed" wait_until 60 grep -q '"last_change":"reload: ' $STATE/daemon.json
grep -o '"last_change":"[^"]*"' $STATE/daemon.json | sed 's/^/# /'
after=$(link_ids)
kept=$(echo "$before" | while read -r id; do echo "$after" | grep -qx "$id" && echo "$id"; done | grep -c .)
is "$kept" "$(echo "$before" | grep -c .)" "reload: every unchanged link survives"
ge "$(echo "$after" | grep -c .)" $(( $(echo "$before" | grep -c .) + 1 )) "reload: a link for the new pattern"
check "reload: ksys_* functions attached" grep -q '"pattern":"ksys_\*","functions":[1-9]' $STATE/daemon.json
c1=$(calls_of vfs_read $STATE/daemon.json)
ge "$c1" 300 "reload: vfs_read's count survives (>= the 300 reads before)"
m1=$(stat -c %Y.%y $STATE/daemon.json)
dd if=/dev/zero of=/dev/null bs=1 count=100 2>/dev/null
check "daemon: the outputs refresh every interval" wait_until 30 sh -c "[ \"\$(stat -c %Y.%y $STATE/daemon.json)\" != '$m1' ]"
# (that refresh may have taken the counts while dd still read: a later one has them all)
calls_at_least() { [ "$(calls_of vfs_read $STATE/daemon.json)" -ge "$1" ]; }
wait_until 30 calls_at_least $((c1 + 100))
ge "$(calls_of vfs_read $STATE/daemon.json)" $((c1 + 100)) "daemon: vfs_read's counter goes on"
cp $STATE/daemon.json $O/daemon.json
cp $PROM $O/daemon.prom
check "daemon: the .prom carries the calls" grep -q '^ksymattach_function_calls_total{function="vfs_read",module=""} [1-9]' $PROM
# a module's functions: none while it is not loaded, attached at the next interval
# after it is; while attached, kprobe.multi holds the module (the kernel refuses
# to unload it), until a reload lets its functions go
echo 'pattern = dummy:*' >> $CONF
systemctl reload ksymattach.service
check "module: a pattern of a module not loaded is no error" wait_until 30 sh -c "systemctl is-active --quiet ksymattach.service && journalctl -b -u ksymattach.service -o cat | grep -c '^ksymattach: reload' | grep -q 2"
modprobe dummy
check "module: loaded, its functions are attached at the next interval" wait_until 60 grep -q '"pattern":"dummy:\*","functions":[1-9]' $STATE/daemon.json
grep -o '"last_change":"[^"]*"' $STATE/daemon.json | sed 's/^/# /'
check "module: attached, the kernel keeps it loaded" sh -c 'grep -q "^dummy " /proc/modules && ! rmmod dummy 2>/dev/null'
sed -i '/^pattern = dummy:\*$/d' $CONF
systemctl reload ksymattach.service
check "module: its pattern reloaded away, its group ends" wait_until 60 sh -c "! grep -q '\"pattern\":\"dummy' $STATE/daemon.json"
check "module: and it unloads" rmmod dummy
check "module: the daemon runs on" systemctl is-active --quiet ksymattach.service
# a broken config: reload keeps the running one, a fresh start fails, FILE:LINE said
cp $CONF $O/conf.good
links_now=$(link_ids | grep -c .)
ge "$links_now" 1 "broken config: links to keep ($links_now)"
echo 'moed = session' >> $CONF
bad=$(grep -c '' $CONF)
systemctl reload ksymattach.service 2>/dev/null
is "$?" 1 "broken config: systemctl reload fails"
check "broken config: the journal names it by FILE:LINE" wait_until 30 sh -c "journalctl -b -u ksymattach.service -o cat | grep -q '$CONF:$bad: unknown key .moed.'"
# past the unit's check too: a SIGHUP straight to the daemon, which checks again
systemctl kill -s HUP ksymattach.service
check "broken config: a SIGHUP past the check is refused by the daemon" wait_until 30 sh -c "journalctl -b -u ksymattach.service -o cat | grep -q 'reload: keeping the running config'"
check "broken config: the daemon keeps running" systemctl is-active --quiet ksymattach.service
is "$(link_ids | grep -c .)" "$links_now" "broken config: every link stays"
systemctl restart ksymattach.service 2>/dev/null
check "broken config: a fresh start fails" systemctl is-failed --quiet ksymattach.service
is "$(systemctl show -p ExecMainStatus --value ksymattach.service)" 78 "broken config: exit 78 (EX_CONFIG)"
check "--check-config: FILE:LINE, exit 78" sh -c "ksymattach --check-config 2>&1 | grep -q '^$CONF:$bad: unknown key'; [ \$? -eq 0 ] && { ksymattach --check-config > /dev/null 2>&1; [ \$? -eq 78 ]; }"
cp $O/conf.good $CONF
systemctl start ksymattach.service
check "fixed config: the daemon starts again" systemctl is-active --quiet ksymattach.service

# Least privilege. The units grant five capabilities; CAP_SYS_ADMIN serves only
# classic kprobes (above), and as the kernel takes it for CAP_BPF and CAP_PERFMON
# too, the four the work needs here are checked without it: they suffice, and
# without any one a run says which (CAP_SYS_RAWIO only costs the fast source,
# CAP_SYSLOG only /proc/kallsyms' addresses: the ksym iterator needs none).
CAPS="CAP_BPF CAP_PERFMON CAP_SYSLOG CAP_SYS_RAWIO"
mkdir -p /tmp/caps
printf 'pattern = vfs_read\njson_dir = /tmp/caps\nprom_file =\n' > /tmp/caps.conf
capsrun() { caps=$1; shift; systemd-run --wait --pipe --quiet -p CapabilityBoundingSet="$caps" \
	-p NoNewPrivileges=yes /usr/sbin/ksymattach boot --no-cache --config /tmp/caps.conf "$@"; }
capsrun "$CAPS CAP_SYS_ADMIN" > $O/caps-units.out 2>&1
is "$?" 0 "capabilities: the boot run works with the units' five"
capsrun "$CAPS" > $O/caps-all.out 2>&1
is "$?" 0 "capabilities: and with $CAPS alone (no CAP_SYS_ADMIN: kprobe.multi)"
for c in $CAPS; do
	capsrun "$(echo $CAPS | tr ' ' '\n' | grep -vx $c | tr '\n' ' ')" > $O/caps-$c.out 2>&1
	rc=$?
	if [ $c = CAP_SYS_RAWIO ]; then
		check "capabilities: without $c it warns, naming it, and uses tracefs" sh -c \
			"[ $rc -eq 0 ] && grep -q 'CAP_SYS_RAWIO is missing' $O/caps-$c.out"
	elif [ $c = CAP_SYSLOG ]; then
		check "capabilities: without $c it works, the symbols from the kernel's memory" sh -c \
			"[ $rc -eq 0 ] && grep -q 'kmem+kcore' $O/caps-$c.out"
		capsrun "$(echo $CAPS | tr ' ' '\n' | grep -vx $c | tr '\n' ' ')" --source kallsyms \
			> $O/caps-$c-k.out 2>&1
		rc=$?
		check "capabilities: without $c, from /proc/kallsyms, it fails naming it (rc $rc)" sh -c \
			"[ $rc -ne 0 ] && grep -q '$c' $O/caps-$c-k.out"
	else
		check "capabilities: without $c it fails, naming it (rc $rc)" sh -c \
			"[ $rc -ne 0 ] && grep -q '$c' $O/caps-$c.out"
	fi
	grep -h 'ksymattach' $O/caps-$c.out | head -n2 | sed "s/^/# $c: /"
done

# Bash completion of function names from the warm cache: one TAB, timed in bash
# as the shell runs it (the completion function, the binary it calls).
cat > /tmp/tab.bash <<'B'
. /usr/share/bash-completion/bash_completion
. /usr/share/bash-completion/completions/ksymattach
COMP_WORDS=(ksymattach -p vfs_re); COMP_CWORD=2; COMP_LINE='ksymattach -p vfs_re'; COMP_POINT=${#COMP_LINE}
_ksymattach ksymattach vfs_re -p
t0=$(date +%s%N)
for i in 1 2 3 4 5 6 7 8 9 10; do _ksymattach ksymattach vfs_re -p; done
t1=$(date +%s%N)
echo "ms=$(( (t1 - t0) / 10000000 )) ${COMPREPLY[*]}"
B
# this boot's whole cache, as a run leaves it whose patterns no kept set answers
ksymattach -l -p '*' > /dev/null 2>&1
tab=$(bash /tmp/tab.bash 2>&1)
echo "# completion: $tab"
check "completion: vfs_re<TAB> offers vfs_read and vfs_readv" sh -c "echo '$tab' | grep -q ' vfs_read .*vfs_readv'"
# (a measurement, not a pass/fail: under TCG it is many times a real node's)
echo "# completion: one TAB took $(echo "$tab" | sed -n 's/^ms=\([0-9]*\).*/\1/p') ms under TCG (mean of 10)"

# The package: an upgrade keeps the edited config and restarts the daemon.
pid1=$(systemctl show -p MainPID --value ksymattach.service)
DEBIAN_FRONTEND=noninteractive dpkg -i --force-confold /host/upgrade.deb > $O/upgrade.log 2>&1
is "$?" 0 "upgrade: dpkg -i succeeds"
check "upgrade: the edited config is kept" grep -q '^pattern = ksys_\*' $CONF
check "upgrade: the new version is installed" sh -c "dpkg-query -W -f='\${Version}' ksymattach | grep -q '+1\$'"
check "upgrade: the daemon runs again" wait_until 60 systemctl is-active --quiet ksymattach.service
pid2=$(systemctl show -p MainPID --value ksymattach.service)
check "upgrade: the daemon was restarted ($pid1 -> $pid2)" \
	sh -c "[ '$pid1' != 0 ] && [ '$pid2' != 0 ] && [ '$pid1' != '$pid2' ]"
# For the second boot (again.sh): the boot unit's config as it was, and this
# build's cache, written by the boot unit's cold run, handed over as configuration
# management would: exported, removed, dropped in the import directory.
cp $O/conf.orig $CONF
. ./fleet/handover.sh
the_end first
