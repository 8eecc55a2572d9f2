# The first boot's end (sourced; bid, STATE, O set): this build's cache handed to
# the second boot (again.sh) as configuration management would: exported,
# removed, dropped in the import directory.
# (the boot unit writes none while udev is still loading a module: said, not checked)
f=$(ls /var/cache/ksymattach/build-* 2>/dev/null | head -n1)
echo "# build cache after the boot unit: ${f:-none}"
# Exported from a settled node, as a fleet would: the boot unit's run may have come
# before udev loaded every module (a module it does not know makes the next boot's
# first run cold); a cold run now knows them all. It keeps what vfs_* matched,
# which the node keeps for its next boot (a node that booted the build before);
# cache export reads the whole table for the build file, which comes through the
# import.
rm -rf /run/ksymattach /var/cache/ksymattach/build-* /var/cache/ksymattach/match-*
ksymattach -l -p 'vfs_*' > /dev/null 2> $O/settled.err
check "build cache: a cold run on the settled node keeps what vfs_* matched" \
	sh -c "ls /var/cache/ksymattach/match-* > /dev/null 2>&1"
check "build cache: cache export" ksymattach cache export $O/fleet.ksym
f=$(ls /var/cache/ksymattach/build-* 2>/dev/null | head -n1)
check "build cache: written by the export ($f), the file exported" sh -c "[ -s '$f' ] && cmp -s '$f' $O/fleet.ksym"
rm -f /var/cache/ksymattach/build-*
mkdir -p $STATE/import && cp $O/fleet.ksym $STATE/import/node-a.ksym
echo $bid > $O/boot1-id
