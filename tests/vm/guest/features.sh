# What this kernel offers, as ksymattach finds it: "name value" lines in
# $O/features, which the host turns into the README's kernel table
# (scripts/kernel-table) and checks against it. Before lockdown.sh, which
# takes sources away.
: > $O/features
feat() { echo "$1 $2" >> $O/features; echo "# feature $1: $2"; }
works() { if "$@" > /dev/null 2>&1; then echo yes; else echo no; fi; }
feat kernel "$(uname -r)"
feat kprobe.multi "$(works $K -p vfs_read --no-fallback)"
feat kprobe.session "$(works $K -p vfs_read -m session)"
feat classic-kprobes "$(works $K -p vfs_read --fallback kprobe)"
for s in kmem iter kallsyms; do
	feat "symbols:$s" "$(works $K -l -p vfs_read --source $s --no-cache)"
done
feat funcs-addrs "$(works test -e /sys/kernel/tracing/available_filter_functions_addrs)"
feat modules "$(works sh -c "$K -l -p '9pnet:p9_client_*' | grep -q ' 9pnet '")"
feat build-cache "$(works $K cache export $O/features.ksym)"
# the ratios of the suite's own --compare (vfs_*): resolve and attach, cold and
# warm, against libbpf's, as one run measured them
if [ -s $O/cmp.txt ]; then
	r=$(awk '/^res\+att/ { s = 1 } s && /^\/libbpf/ { print $2, $3; exit }' $O/cmp.txt)
elif [ -s $O/cmp.json ]; then
	r=$(tr '{' '\n' < $O/cmp.json | awk -F'"resolve_attach_ratio_to_libbpf":' '
		/^"resolver":"/ { split($0, q, "\""); row = q[4] }
		NF > 1 && (row == "ksym-cold" || row == "ksym-warm") { split($2, v, ","); r[row] = v[1] "x" }
		END { print r["ksym-cold"], r["ksym-warm"] }')
fi
feat res+att-cold-warm "$(echo ${r:-none})"
