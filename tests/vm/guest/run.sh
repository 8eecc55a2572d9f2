# Guest entry: run the suite for one kernel series; TAP lines on stdout.
series=$1
cd /host/tests || exit 1
. ./lib.sh
echo "# guest $(uname -r)"
. ./lookup.sh
. ./sources.sh
. ./iter.sh
case $series in
6.1) . ./old.sh ;;
*) . ./multi.sh; . ./attach.sh; . ./agent.sh ;;
esac
. ./faults.sh
. ./signals.sh
. ./errors.sh
