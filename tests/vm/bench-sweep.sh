# bench-sweep.sh (run in the guest by bench.sh): the attach stall from a hundred
# functions to the whole kernel. Each point is one --compare, 3 rounds (every row: ksym cold,
# warm and from the build cache, the kernel given names, libbpf, the floor) over
# every k-th of the distinct names tracefs lists (spread over the whole kernel, not
# a prefix): 100, 1,000 and 10,000 of them, then every traceable function (-p '*'),
# then the kernel selftest's own scenario (kprobe_multi_bench_attach: vmlinux's
# names from available_filter_functions, each once, less the few it leaves out);
# then the same names and the whole kernel through fentry.multi, where the
# kernel has the tracing_multi link. Each row is printed as: functions, stall and detach in ms (medians), the stall
# as a ratio to libbpf's and to the floor's, the detach as a ratio to libbpf's, and
# the stall against libbpf's as a bar (libbpf's: 40 characters).
K=./bin/ksymattach
F=/sys/kernel/tracing/available_filter_functions
if ! grep -q ' register_fprobe$' /proc/kallsyms; then
	echo "### scale sweep: not on kernel $(uname -r): no kprobe.multi (classic kprobes, at most 4096)"
	exit 0
fi
W=/tmp/sweep
mkdir -p $W
sed 's/ .*//' $F | sort -u > $W/all
total=$(wc -l < $W/all)

# one --compare, its JSON reduced to a line per row
point() {	# NAME ROUNDS PATTERN
	name=$1 rounds=$2; shift 2
	rm -rf /run/ksymattach /var/cache/ksymattach
	if ! $K "$@" --compare --rounds $rounds -o json > $W/out.json 2> $W/out.err; then
		echo "$name: --compare failed: $(tail -n 1 $W/out.err)"
		return
	fi
	awk -v name="$name" '
	function num(s, key,   m) {
		if (!match(s, "\"" key "\":(\\{\"median\":)?[0-9.]+")) return "-"
		m = substr(s, RSTART, RLENGTH); sub(/.*:/, "", m); return m
	}
	{
		matched = num($0, "matched")
		n = split($0, row, "\\{\"resolver\":\"")
		for (i = 2; i <= n; i++) {
			r = row[i]; sub(/".*/, "", r)
			if (row[i] ~ /"refused":/) { printf "%-9s %6s %-10s refused\n", name, matched, r; continue }
			if (row[i] ~ /"absent":/) continue
			st[r] = num(row[i], "stall_ms"); de[r] = num(row[i], "detach")
			sl[r] = num(row[i], "stall_ratio_to_libbpf"); sf[r] = num(row[i], "stall_ratio_to_floor")
			order[++k] = r
		}
		for (i = 1; i <= k; i++) {
			r = order[i]
			bar = ""
			for (j = 0; j < sl[r] * 40 - 0.5 && j < 60; j++)
				bar = bar "#"
			printf "%-9s %6s %-10s %10.1f %8.3fx %7.2fx %10.1f %8.3fx  %s\n", name, matched, r,
				st[r], sl[r], sf[r], de[r], (de["libbpf"] > 0 ? de[r] / de["libbpf"] : 0), bar
		}
	}' $W/out.json
	grep -o '"left_out":{[^}]*}' $W/out.json | sed "s/^/$name: /"
	grep -o '"kernel_lookups":{[^}]*}' $W/out.json | sed "s/^/$name: /"
	grep -v '^$' $W/out.err | sort -u | sed "s/^/$name: /"
}
header() {
	printf '%-9s %6s %-10s %10s %9s %8s %10s %9s\n' point funcs row stall_ms /libbpf /floor \
		detach_ms /libbpf
}

echo "### scale sweep: every k-th of $total distinct names, then the whole kernel"
header
for n in 100 1000 10000; do
	awk -v k=$((total / n)) -v n=$n 'NR % k == 0 && c < n { print; c++ }' $W/all > $W/names-$n
	point "$n" 3 -p @$W/names-$n
done
point all 3 -p '*'
# the selftest's filter (tools/testing/selftests/bpf: vmlinux only, a name once)
grep -v '\[' $F | sed 's/ .*//' | awk '!seen[$0]++' |
	grep -v -e '^arch_cpu_idle$' -e '^default_idle$' -e '^rcu_' -e '^bpf_dispatcher_xdp_func$' \
		-e '^__ftrace_invalid_address__' > $W/selftest
point selftest 3 -p @$W/selftest

# The same names through the tracing_multi link (fentry.multi, BTF ids), where
# the kernel has it: libbpf's row is 1.8's (a glob, or the names' ids from its
# own BTF lookup), and the kernel's own name lookups in the floor's attach are
# timed in one more run (kernel_lookups).
if ! grep -q ' bpf_trampoline_multi_attach$' /proc/kallsyms; then
	echo "### scale sweep, fentry.multi: not on kernel $(uname -r): no tracing_multi link here"
	exit 0
fi
echo "### scale sweep, fentry.multi: the same names, then the whole kernel"
header
for n in 100 1000 10000; do
	point "$n" 3 -m fentry -p @$W/names-$n
done
point all 3 -m fentry -p '*'
