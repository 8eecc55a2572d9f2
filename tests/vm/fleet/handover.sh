# The first boot's end (sourced; bid, STATE, O set): this build's cache handed to
# the second boot (again.sh) as configuration management would: exported,
# removed, dropped in the import directory.
# (the boot unit writes none while udev is still loading a module: said, not checked)
f=$(ls /var/cache/ksymattach/build-* 2>/dev/null | head -n1)
echo "# build cache after the boot unit: ${f:-none}"
# Exported from a settled node, as a fleet would: the boot unit's run may have come
# before udev loaded every module (a module it does not know makes the next boot's
# first run cold, and that run's file then knows it); a cold run now knows them all.
# (what its patterns matched too, which the node keeps for its next boot: a node
# that booted the build before; the build file itself comes through the import)
rm -rf /run/ksymattach /var/cache/ksymattach/build-* /var/cache/ksymattach/match-*
ksymattach -l -p 'vfs_*' > /dev/null 2> $O/settled.err
f=$(ls /var/cache/ksymattach/build-* 2>/dev/null | head -n1)
check "build cache: a cold run on the settled node writes it ($f)" test -s "$f"
check "build cache: and what vfs_* matched in it" sh -c "ls /var/cache/ksymattach/match-* > /dev/null 2>&1"
check "build cache: cache export" ksymattach cache export $O/fleet.ksym
rm -f /var/cache/ksymattach/build-*
mkdir -p $STATE/import && cp $O/fleet.ksym $STATE/import/node-a.ksym
echo $bid > $O/boot1-id
