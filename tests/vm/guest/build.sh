# The build cache across real boots (tests/vm/build.sh runs the steps in turn; $O
# is shared by them): a: 6.12's first boot writes it, exports it; b: 6.1 the same,
# and refuses 6.12's; c: 6.12 again, another KASLR base: import, rebase, compare
# with this boot's own cold resolution and /proc/kallsyms, damaged and forged
# files; d: 6.1 again: the classic-kprobe fallback from its build cache. An arm64
# run has steps a and c on its newest kernel: "build.sh a newest".
step=$1
S=${2:-6.12}	# the series of steps a and c
other=6.1	# another build's file, where step b wrote one
cd /host/tests || exit 1
. ./lib.sh
D=/var/cache/ksymattach
F=/host/bin/forge_build
ML=/host/bin/modlive_dump
text() { awk '$3 == "_text" { print $1; exit }' /proc/kallsyms; }
# a listing's functions: "addr name module", header and summary left out
funcs() { awk 'NR > 1 && NF == 4 && length($1) == 16 { print $1, $2, $3 }' "$1" | sort; }
# the build file's 8-byte words, for addresses that must not be in it
words() { od -An -v -tx8 "$1" | tr -s ' ' '\n' | grep -v '^$'; }

first_boot() {	# series
	text > $O/$1-text
	rm -rf /run/ksymattach $D
	$K -l -p 'vfs_*' > $O/$1-a.txt 2> $O/$1-a.err
	m=$(ls $D/match-* 2>/dev/null | head -n1)
	check "$1 first boot: a cold run keeps what vfs_* matched for the next boots ($m), not the whole table" \
		sh -c "[ -s '$m' ] && ! ls $D/build-* > /dev/null 2>&1"
	$K cache export $O/$1.ksym 2> $O/$1-export.err
	f=$(ls $D/build-* 2>/dev/null | head -n1)
	check "$1: cache export reads the whole table where no run has, writes the build cache ($f) and exports it, 0600" \
		sh -c "[ -s '$f' ] && cmp -s $f $O/$1.ksym && [ \$(stat -c %a $O/$1.ksym) = 600 ]"
	is "$(stat -c '%a %u %g' $f) $(stat -c '%a %u %g' $m) $(stat -c '%a %u' $D)" "600 0 0 600 0 0 700 0" \
		"$1 build cache: root's, 0600, in a 0700 directory"
	vr=$(awk '$2 == "vfs_read" { print $1; exit }' $O/$1-a.txt)
	words "$f" > $O/$1-words
	words "$m" >> $O/$1-words
	check "$1 build cache: neither _text ($(text)) nor vfs_read's address ($vr) is in it" \
		sh -c "[ -n '$vr' ] && [ -n '$(text)' ] && [ -s $O/$1-words ] &&
		       ! grep -qx '$(text)' $O/$1-words && ! grep -qx '$vr' $O/$1-words"
}

addrs() { grep -o '"addr":"0x[0-9a-f]*"' "$1" | sort > "$1.addrs"; }

# A module the build cache does not know (loaded after the file was written):
# read from kernel memory, checked, the run warm and right. $1: the series.
unknown_module() {
	# every loaded module's text symbols as the kernel's tables hold them, against
	# /proc/kallsyms (the case of a type says exported there: not compared)
	$ML > $O/ml.all 2> $O/ml.err
	rc=$?
	awk 'NF == 4 && $2 ~ /^[tTwW]$/ && $4 != "[bpf]" && $4 !~ /^\[__builtin/ { print $1, tolower($2), $3, $4 }' \
		/proc/kallsyms | sort > $O/ml.want
	awk '{ print $1, tolower($2), $3, $4 }' $O/ml.all | sort > $O/ml.got
	check "$1: every loaded module's functions read from kernel memory are /proc/kallsyms' ($(wc -l < $O/ml.want) symbols)" \
		sh -c "[ $rc -eq 0 ] && [ -s $O/ml.want ] && cmp -s $O/ml.want $O/ml.got"
	diff $O/ml.want $O/ml.got | head -n 4 | sed 's/^/# /'
	insmod /modules/dummy.ko
	for pat in 'dummy:*' 'dummy_*'; do
		run_boot $1-unk -v -p 'vfs_read*' -p "$pat" -o json
		$K -p 'vfs_read*' -p "$pat" -o json --no-cache > $O/$1-unk-cold.out 2> $O/$1-unk-cold.err
		addrs $O/$1-unk.out; addrs $O/$1-unk-cold.out
		check "$1: a module the build cache does not know ($pat): read from kernel memory, still warm, the set a cold run attaches ($(json_int attached $O/$1-unk.out))" sh -c \
			"grep -q '\"build_cache\":true' $O/$1-unk.out && grep -q 'not in it (dummy): read from kernel memory' $O/$1-unk.err &&
			 grep -q '\"module\":\"dummy\"' $O/$1-unk.out && cmp -s $O/$1-unk.out.addrs $O/$1-unk-cold.out.addrs"
	done
	check "$1: only what the patterns match read from it: no whole /run cache (later runs would take it for the whole table)" \
		sh -c "! ls /run/ksymattach/funcs > /dev/null 2>&1"
	# traced by two others meanwhile: its sites call ftrace's own caller, which
	# the build cache knows as an anchor only
	$K -p 'dummy:*' -d 60 > /dev/null 2> $O/tr1.err & t1=$!
	$K -p 'dummy:*' -d 60 > /dev/null 2> $O/tr2.err & t2=$!
	i=0; while ! grep -q 'attached' $O/tr1.err $O/tr2.err 2>/dev/null ||
		 [ "$(grep -l 'attached' $O/tr1.err $O/tr2.err 2>/dev/null | wc -l)" -lt 2 ]; do
		[ $i -ge 300 ] && break
		sleep 0.2; i=$((i + 1))
	done
	check "$1: two tracers of the module attached" sh -c "grep -q attached $O/tr1.err && grep -q attached $O/tr2.err"
	run_boot $1-unk-tr -p 'dummy:*' -o json
	$K -p 'dummy:*' -o json --no-cache > $O/$1-unk-tr-cold.out 2> /dev/null
	addrs $O/$1-unk-tr.out; addrs $O/$1-unk-tr-cold.out
	check "$1: a module read live while two others trace it: the set a cold run attaches ($(json_int attached $O/$1-unk-tr.out) and $(json_int attached $O/$1-unk-tr-cold.out))" sh -c \
		"grep -q '\"build_cache\":true' $O/$1-unk-tr.out && [ -s $O/$1-unk-tr.out.addrs ] &&
		 cmp -s $O/$1-unk-tr.out.addrs $O/$1-unk-tr-cold.out.addrs"
	kill -INT $t1 $t2; wait $t1 $t2
	rmmod dummy
}

# run NAME ARGS...: a run from the build cache alone (no /run cache), its listing
run_boot() {
	n=$1; shift
	rm -rf /run/ksymattach
	$K "$@" > $O/$n.out 2> $O/$n.err
}

# A cold run of the whole kernel reads ftrace's records from memory, or tracefs'
# list of sites (Linux >= 6.5) where the kernel's BTF is hidden (the records'
# layout is not known then): the next boot's first run is served from the build
# cache either writes, the same functions at the same addresses.
whole_sites() {
	src=$1
	rm -rf /run/ksymattach $D
	$K -l -p '*' > $O/ws-cold.txt 2> $O/ws-cold.err
	f=$(ls $D/build-* 2>/dev/null | head -n1)
	check "a cold run of the whole kernel from $src writes the build cache ($f)" \
		sh -c "[ -s '$f' ] && tail -n 1 $O/ws-cold.txt | grep -q '($src)'"
	tail -n 1 $O/ws-cold.txt | sed 's/^/# /'
	run_boot ws-boot -l -p '*'
	run_boot ws-boot-j -l -p '*' -o json
	funcs $O/ws-cold.txt > $O/ws-cold.f
	funcs $O/ws-boot.out > $O/ws-boot.f
	check "the next boot's first run of the whole kernel: from the build cache, every function where $src lists it ($(wc -l < $O/ws-boot.f))" \
		sh -c "grep -q '\"build_cache\":true' $O/ws-boot-j.out && [ -s $O/ws-boot.f ] && cmp -s $O/ws-cold.f $O/ws-boot.f"
	diff $O/ws-cold.f $O/ws-boot.f | head -n 5 | sed 's/^/# /'
}

case $step in
a)
	first_boot $S
	whole_sites kmem+ftrace
	# (the kernel's table is then read from /proc/kallsyms: modules need BTF too)
	if mount --bind /dev/null /sys/kernel/btf/vmlinux; then
		whole_sites available_filter_functions_addrs
		umount /sys/kernel/btf/vmlinux
	else
		skip "the whole kernel from tracefs' list" "cannot hide the kernel's BTF (bind mount)"
	fi
	;;
b)
	first_boot 6.1
	$K cache import $O/6.12.ksym > $O/b-import.out 2> $O/b-import.err
	rc=$?
	check "6.1: importing 6.12's build cache is refused, one line naming why" sh -c \
		"[ $rc -ne 0 ] && [ \$(grep -c . $O/b-import.err) -eq 1 ] && grep -q \"another kernel build's\" $O/b-import.err"
	cat $O/b-import.err | sed 's/^/# /'
	;;
c)
	t=$(text)
	check "$S second boot: another KASLR base ($(cat $O/$S-text) then $t)" \
		sh -c "[ -n '$t' ] && [ '$t' != '$(cat $O/$S-text)' ]"
	rm -rf $D
	if [ -s $O/$other.ksym ]; then
		$K cache import $O/$other.ksym 2> $O/c-import61.err
		rc=$?
		check "$S: importing $other's build cache is refused" sh -c \
			"[ $rc -ne 0 ] && grep -q \"another kernel build's\" $O/c-import61.err"
	else
		skip "$S: importing another build's cache is refused" "no other build's file in this run"
	fi
	check "$S: importing its own build's (exported on the first boot) works" \
		$K cache import $O/$S.ksym
	# symbol for symbol: the whole table, rebased, against this boot's cold answer
	run_boot c-all -l -p '*' -o json
	check "second boot, first run: functions from the build cache" \
		grep -q '"build_cache":true' $O/c-all.out
	run_boot c-all-l -l -p '*'
	$K -l -p '*' --no-cache > $O/c-cold-l.out 2> $O/c-cold-l.err
	funcs $O/c-all-l.out > $O/c-boot.f
	funcs $O/c-cold-l.out > $O/c-cold.f
	check "rebased: every traceable function, address and module as a cold run of this boot finds them ($(wc -l < $O/c-boot.f))" \
		sh -c "[ -s $O/c-boot.f ] && cmp -s $O/c-boot.f $O/c-cold.f"
	diff $O/c-boot.f $O/c-cold.f | head -n 5 | sed 's/^/# /'
	# each at its kallsyms symbol: the address, or 4 past it (ENDBR64), same module;
	# sites are 16-aligned plus 0 or 4, so the last four digits never borrow (and
	# busybox awk's %x is 32-bit signed)
	awk 'function hex(s,  i, v) { for (i = 1; i <= length(s); i++)
			v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1; return v }
	     FNR == NR { if ($2 ~ /^[tTwW]$/) { m = NF > 3 ? $4 : "-"; gsub(/[][]/, "", m);
			a[$1 " " $3 " " m] = 1 }; next }
	     { k = substr($1, 1, 12) sprintf("%04x", hex(substr($1, 13)) - 4)
	       if (!(($1 " " $2 " " $3) in a) && !((k " " $2 " " $3) in a)) bad++ }
	     END { print bad + 0 }' /proc/kallsyms $O/c-boot.f > $O/c-ks.bad 2>&1
	check "rebased: each function is its name's text symbol in this boot's /proc/kallsyms (vmlinux and modules; $(cat $O/c-ks.bad) not)" \
		sh -c "[ -s $O/c-boot.f ] && [ \"\$(cat $O/c-ks.bad)\" = 0 ]"
	check "rebased: module functions are among them" grep -q ' 9pnet_virtio$' $O/c-boot.f
	# the attached set
	run_boot c-att -p 'vfs_*' -p '9p:*' -o json
	$K -p 'vfs_*' -p '9p:*' -o json --no-cache > $O/c-att-cold.out 2> $O/c-att-cold.err
	n1=$(json_int attached $O/c-att.out); n2=$(json_int attached $O/c-att-cold.out)
	check "attached from the build cache: the set a cold run attaches ($n1 and $n2)" sh -c \
		"grep -q '\"build_cache\":true' $O/c-att.out && [ -n '$n1' ] && [ '$n1' = '$n2' ] &&
		 [ \"\$(grep -o '\"addr\":\"0x[0-9a-f]*\"' $O/c-att.out | sort)\" = \"\$(grep -o '\"addr\":\"0x[0-9a-f]*\"' $O/c-att-cold.out | sort)\" ]"
	is "$(probes_left)" 0 "no link left after the build cache's run"
	# what those patterns matched, kept apart for the next boot: offsets only too
	m=$(ls -t $D | grep '^match-' | head -n1)
	words "$D/$m" > $O/c-match-words
	check "what the patterns matched is kept apart ($m), root's 0600, no address of this boot in it" sh -c \
		"[ -n '$m' ] && [ \"\$(stat -c '%a %u' $D/$m)\" = '600 0' ] &&
		 ! grep -qx '$t' $O/c-match-words && ! grep -qx '$(awk '$3 == "vfs_read" { print $1; exit }' /proc/kallsyms)' $O/c-match-words"
	run_boot c-att2 -v -p 'vfs_*' -p '9p:*' -o json
	check "a boot's first run with the same patterns: from that file, the set a cold run attaches" sh -c \
		"grep -q 'build cache $D/$m: what these patterns matched before' $O/c-att2.err &&
		 grep -q '\"build_cache\":true' $O/c-att2.out &&
		 [ \"\$(grep -o '\"addr\":\"0x[0-9a-f]*\"' $O/c-att2.out | sort)\" = \"\$(grep -o '\"addr\":\"0x[0-9a-f]*\"' $O/c-att-cold.out | sort)\" ]"
	cp $D/$m $O/c-match.orig
	printf '\377' | dd of=$D/$m bs=1 seek=$(($(wc -c < $D/$m) / 2)) conv=notrunc 2>/dev/null
	run_boot c-att3 -p 'vfs_*' -p '9p:*' -o json
	check "that file damaged: one warning, the whole file used, the same set" sh -c \
		"[ \$(grep -c . $O/c-att3.err) -eq 1 ] &&
		 grep -q 'ignoring build cache $D/$m: corrupt or truncated; using the whole one' $O/c-att3.err &&
		 grep -q '\"build_cache\":true' $O/c-att3.out &&
		 [ \"\$(grep -o '\"addr\":\"0x[0-9a-f]*\"' $O/c-att3.out | sort)\" = \"\$(grep -o '\"addr\":\"0x[0-9a-f]*\"' $O/c-att-cold.out | sort)\" ]"
	run_boot c-att4 -v -p 'vfs_*' -p '9p:*' -o json
	check "... and written again by that run: the next one reads it" \
		grep -q "build cache $D/$m: what these patterns matched before" $O/c-att4.err
	# --compare's row for a boot's first run
	$K -p 'vfs_*' --compare --rounds 1 > $O/c-cmp.out 2> $O/c-cmp.err
	check "--compare has a ksym-boot row, served by the build cache" sh -c \
		"grep -q '^PHASE .* ksym-boot ' $O/c-cmp.out && ! grep -q 'ksym-boot came from' $O/c-cmp.err"
	sed -n '/^stall/,/^\/floor/p' $O/c-cmp.out | sed 's/^/# /'
	# kernel.kptr_restrict=2: /proc/modules shows every module at 0, kcore still
	# shows _text: vmlinux is rebased, modules come from the kernel's symbols
	f=$D/$(ls $D | grep '^build-' | head -n1)
	$K -p 'vfs_*' -o json --no-cache > $O/c-vfs-cold.out 2> $O/c-vfs-cold.err
	cp $f $O/pre-kr.ksym
	echo 2 > /proc/sys/kernel/kptr_restrict
	addrs $O/c-vfs-cold.out; addrs $O/c-att-cold.out
	run_boot c-kr -p 'vfs_*' -o json
	addrs $O/c-kr.out
	check "kptr_restrict=2: vfs_* still from the build cache, the set a cold run attaches" sh -c \
		"grep -q '\"build_cache\":true' $O/c-kr.out && [ -s $O/c-kr.out.addrs ] &&
		 cmp -s $O/c-kr.out.addrs $O/c-vfs-cold.out.addrs"
	check "kptr_restrict=2: no /run cache from a table whose modules could not be placed" \
		sh -c "! ls /run/ksymattach/funcs* > /dev/null 2>&1"
	run_boot c-kr9 -v -p 'vfs_*' -p '9p:*' -o json
	addrs $O/c-kr9.out
	check "kptr_restrict=2, module patterns: from the kernel's symbols (the iterator), the set a cold run attaches" sh -c \
		"grep -q '\"build_cache\":false' $O/c-kr9.out && grep -q 'module addresses hidden' $O/c-kr9.err &&
		 [ -s $O/c-kr9.out.addrs ] && cmp -s $O/c-kr9.out.addrs $O/c-att-cold.out.addrs"
	check "kptr_restrict=2: the build cache is left as it was" cmp -s $f $O/pre-kr.ksym
	rm -rf $D
	run_boot c-kr-none -p 'vfs_read' -o json
	check "kptr_restrict=2: no build cache written (module bases unknown)" sh -c \
		"grep -q '\"attached\":1' $O/c-kr-none.out && ! ls $D/build-* > /dev/null 2>&1"
	echo 0 > /proc/sys/kernel/kptr_restrict
	check "kptr_restrict=2 done: the build cache imported back" sh -c "$K cache import $O/pre-kr.ksym > /dev/null"
	# the other side of "no /run cache" above: with the bases shown, the same run writes one
	run_boot c-kr-after -p 'vfs_*' -o json
	check "kptr_restrict=0: the same run writes /run's cache" sh -c \
		"grep -q '\"build_cache\":true' $O/c-kr-after.out && ls /run/ksymattach/funcs* > /dev/null 2>&1"
	# what a damaged, foreign, unsafe or forged file does: ignored or refused and
	# removed, the run right and cold, the file written anew
	f=$D/$(ls $D | grep '^build-' | head -n1)
	cp $O/$S.ksym $O/good.ksym
	[ -s $O/$other.ksym ] ||
		skip "build cache of another build under this one's name" "no other build's file in this run"
	cases="flip truncate owner mode symlink $([ -s $O/$other.ksym ] && echo other) forged"
	# a damaged or unsafe file is refused by the same code on every architecture;
	# a forged offset is found by the architecture's site check: arm64 runs that one
	if [ "$(uname -m)" != x86_64 ]; then
		for how in flip truncate owner mode symlink; do
			skip "build cache $how" "the same code on every architecture: build-cache.t checks it on x86-64"
		done
		cases=forged
	fi
	for how in $cases; do
		rm -rf $D
		check "build cache $how: a good file imported first" sh -c "$K cache import $O/good.ksym > /dev/null"
		case $how in
		flip) printf '\377' | dd of=$f bs=1 seek=$(($(wc -c < $f) / 2)) conv=notrunc 2>/dev/null ;;
		truncate) head -c $(($(wc -c < $f) / 3)) $O/good.ksym > $f ;;
		owner) chown 1 $f ;;
		mode) chmod 0644 $f ;;
		symlink) mv $f $O/moved.ksym; ln -s $O/moved.ksym $f ;;
		other) cp $O/$other.ksym $f ;;
		forged) $F $D vfs_read 0x10 | sed 's/^/# /' ;;
		esac
		run_boot c-$how -v -p 'vfs_*' -p '9p:*' -o json
		rc=$?
		check "build cache $how: the run succeeds from the kernel's symbols, the set a cold run attaches" sh -c \
			"[ $rc -eq 0 ] && grep -q '\"build_cache\":false' $O/c-$how.out &&
			 [ \"\$(grep -o '\"addr\":\"0x[0-9a-f]*\"' $O/c-$how.out | sort)\" = \"\$(grep -o '\"addr\":\"0x[0-9a-f]*\"' $O/c-att-cold.out | sort)\" ]"
		grep 'build cache' $O/c-$how.err | sed 's/^/# /'
		case $how in
		flip|truncate) check "build cache $how: one warning says it is corrupt" grep -q 'ignoring build cache .*corrupt or truncated' $O/c-$how.err ;;
		owner|mode|symlink) check "build cache $how: one warning says it is not a private root-owned file" grep -q 'ignoring build cache .*not a private root-owned file' $O/c-$how.err ;;
		other) check "build cache of another build under this one's name: noticed" grep -q "another build's" $O/c-$how.err ;;
		forged) check "forged offset: vfs_read's site is not where the file says: one warning, file removed" \
			grep -q "does not match this kernel's text (vfs_read)" $O/c-$how.err ;;
		esac
		# (9p:* has no prefix to read by: the run reads the whole table, and keeps it)
		check "build cache $how: written anew by that run, valid" sh -c \
			"[ -f $f ] && [ ! -L $f ] && $K cache export $O/re.ksym && cmp -s $f $O/re.ksym"
		is "$(probes_left)" 0 "build cache $how: no link left"
	done
	# an agent linking libksym: the library deals with the forged file itself
	rm -rf $D /run/ksymattach
	$K cache import $O/good.ksym
	$F $D vfs_read 0x10 > /dev/null
	want=$(count_traceable vfs_)
	/host/bin/agent 'vfs_*' > $O/agent-forged.txt 2>&1
	rc=$?
	check "agent, forged build cache: one warning, then all $want traceable vfs_* from the kernel's files" sh -c \
		"[ $rc -eq 0 ] && [ -n '$want' ] && grep -q \"does not match this kernel's text (vfs_read)\" $O/agent-forged.txt &&
		 grep -q 'libksym: $want functions attached, resolve .*(kernel files)' $O/agent-forged.txt"
	sed 's/^/# /' $O/agent-forged.txt
	is "$(probes_left)" 0 "agent, forged build cache: no link left"
	# the whole file again, as the runs above left it, for the module tests below
	rm -rf $D /run/ksymattach
	$K cache import $O/good.ksym
	unknown_module $S
	;;
d)
	t=$(text)
	check "6.1 second boot: another KASLR base" sh -c "[ -s $O/6.1-text ] && [ -n '$t' ] && [ '$t' != '$(cat $O/6.1-text)' ]"
	rm -rf $D
	check "6.1: importing its build's cache works" $K cache import $O/6.1.ksym
	run_boot d-att -p 'vfs_read*' -o json
	$K -p 'vfs_read*' -o json --no-cache > $O/d-cold.out 2> $O/d-cold.err
	check "6.1, classic kprobes: attached from the build cache, the set a cold run attaches" sh -c \
		"grep -q '\"build_cache\":true' $O/d-att.out && grep -q '\"fallback\":true' $O/d-att.out &&
		 [ \"\$(grep -o '\"addr\":\"0x[0-9a-f]*\"' $O/d-att.out | sort)\" = \"\$(grep -o '\"addr\":\"0x[0-9a-f]*\"' $O/d-cold.out | sort)\" ]"
	sed 's/^/# /' $O/d-att.err
	unknown_module 6.1
	;;
esac
# the step ran to its end: the host fails a step whose log lacks this line
echo "# build step: done"
