# What both boots' scripts share (sourced by first.sh and again.sh, dash, after
# lib.sh): paths, helpers, and what the kernel and the system are.
O=/host/out
CONF=/etc/ksymattach/ksymattach.conf
STATE=/var/lib/ksymattach
PROM=/var/lib/prometheus/node-exporter/ksymattach.prom
bid=$(tr -d '-' < /proc/sys/kernel/random/boot_id)

# Said at each way out of a script: fleet.sh fails a boot whose script stopped
# before it (a shell error, a hung command killed), which the plan, counted from
# what ran, would not.
the_end() { echo "# fleet-end $1"; }
jcat() { journalctl -b --no-pager -o cat "$@"; }
# wait_until SECONDS CMD...: polls CMD every 0.5 s until SECONDS have passed
wait_until() {
	end=$(($(date +%s) + $1)); shift
	while ! "$@" 2>/dev/null; do
		[ "$(date +%s)" -lt $end ] || return 1
		sleep 0.5
	done
}
# a unit's status and journal as TAP comments, for a failure's reader
diag() { { systemctl status "$1" --no-pager -l; journalctl -b -u "$1" --no-pager -o cat | tail -n 30; } 2>&1 | sed 's/^/# /'; }
# The ids of the kprobe.multi links (bpftool's first line of a link: "ID: TYPE ...";
# newer bpftools add indented detail lines, function names among them, which hold
# no "ID:").
# (a line saying bpftool failed where it did: counted, it is no "no link")
link_ids() {
	_o=$(bpftool link show 2>&1) || { echo "bpftool failed: $_o" | head -n1; return 1; }
	echo "$_o" | awk -F: '/^[0-9]+: +kprobe_multi/ { print $1 }' | sort
}
kprobe_links() {
	_o=$(bpftool link show 2>&1) || { echo "bpftool failed: $_o" | head -n1; return 1; }
	echo "$_o" | grep -c '^[0-9]*: *perf_event'
}
calls_of() { grep -o "\"name\":\"$1\",\"module\":null,\"calls\":[0-9]*" "$2" | sed 's/.*://' | head -n1; }

# Whether the kernel has kprobe.multi, asked of the kernel, not of its version nor of
# ksymattach (whose choice is what is checked): kprobe.multi is built on fprobe, and
# without CONFIG_FPROBE the kernel keeps only a stub of the attach call (it says
# EOPNOTSUPP), no link of that type, so no link release function.
if grep -q ' bpf_kprobe_multi_link_release$' /proc/kallsyms; then KMULTI=yes; else KMULTI=; fi

# The system under test, for the reader of a failure.
echo "# guest $(uname -r), Debian $(cat /etc/debian_version), systemd $(systemctl --version | sed -n '1s/^systemd \([0-9]*\).*/\1/p') ($KSA_SYSTEM_STATE), $(dpkg-query -W -f='node_exporter ${Version}, ' prometheus-node-exporter 2>/dev/null)$(bpftool version 2>/dev/null | sed -n '1s/.* v/bpftool /p'), kprobe.multi: ${KMULTI:-no}"
