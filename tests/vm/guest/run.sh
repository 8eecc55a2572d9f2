# Guest entry: run the suite for one kernel series; TAP lines on stdout.
series=$1
cd /host/tests || exit 1
. ./lib.sh
echo "# guest $(uname -r)"
# each part's time in the guest, as a comment: where the suite's minutes go
part_t0=$(cut -d' ' -f1 /proc/uptime)
part() {
	part_name=$1	# (a part may set its own positional parameters)
	. ./$1
	part_t1=$(cut -d' ' -f1 /proc/uptime)
	echo "# $part_name: $(awk -v a="$part_t0" -v b="$part_t1" 'BEGIN { printf "%.1f", b - a }') s"
	part_t0=$part_t1
}
part lookup.sh
part sources.sh
part iter.sh
case $series in
6.1) part old.sh ;;
*) part multi.sh; part attach.sh; part agent.sh ;;
esac
part faults.sh
part signals.sh
part errors.sh
part lockdown.sh	# last: lockdown cannot be lifted
