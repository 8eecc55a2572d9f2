# The lookup layer on a live kernel: cache, sym/addr, module changes.
rm -rf /run/ksymattach
$K -l -p 'vfs_*' -o json > $O/cold.json; r1=$?
$K -l -p 'vfs_*' -o json > $O/warm.json; r2=$?
check "first run reads the kernel's files" grep -q '"cached":false' $O/cold.json
check "second run is served from the cache" grep -q '"cached":true' $O/warm.json
ge "$(json_int matched $O/cold.json)" 10 "the cold run matches vfs_* functions"
is "$r1:$r2:$(json_int matched $O/warm.json)" "0:0:$(json_int matched $O/cold.json)" \
	"cached run matches the same functions"
$K -l -p 'vfs_*' -o json --no-cache > $O/nocache.json
check "--no-cache reads the files" grep -q '"cached":false' $O/nocache.json

# a run keeps what its patterns matched, apart: the same patterns read only that
m=$(ls /run/ksymattach | grep '^funcs-' | head -n1)
check "what vfs_* matched is kept, root-only" sh -c \
	"[ -n '$m' ] && [ \"\$(stat -c %a:%u /run/ksymattach/$m)\" = 600:0 ]"
check "... and no whole table: the run read only what vfs_* can match" \
	sh -c "! ls /run/ksymattach/funcs > /dev/null 2>&1"
$K -l -p 'vfs_w*' -o json > $O/other-cold.json
check "other patterns: read from the kernel, not the cache" grep -q '"cached":false' $O/other-cold.json
# a run that reads the whole table keeps it
$K -l -p '*' > /dev/null
check "a whole-table run keeps the whole table, root-only" \
	sh -c '[ "$(stat -c %a:%u /run/ksymattach/funcs)" = 600:0 ]'
$K -v -l -p 'vfs_*' -o json > $O/match.json 2> $O/match.err
check "the same patterns again: from what they matched before" grep -q 'what these patterns matched before' $O/match.err
check "... served from the cache" grep -q '"cached":true' $O/match.json
$K -l -p 'vfs_*' --no-cache | grep '^ffff' > $O/match-cold.txt
$K -l -p 'vfs_*' | grep '^ffff' > $O/match-warm.txt
check "... the functions a cold run lists ($(grep -c . $O/match-cold.txt))" \
	sh -c "[ -s $O/match-cold.txt ] && cmp -s $O/match-cold.txt $O/match-warm.txt"
$K -l -p 'vfs_r*' -o json > $O/match-other.json
is "$(json_int matched $O/match-other.json)" "$(grep -c ' vfs_r' $O/match-cold.txt)" "other patterns: the whole table answers them"
check "... from the cache" grep -q '"cached":true' $O/match-other.json
is "$(json_int matched $O/other-cold.json)" "$(grep -c ' vfs_w' $O/match-cold.txt)" "other patterns read from the kernel: the same functions"
cp /run/ksymattach/$m $O/match.orig
printf 'XXXX' | dd of=/run/ksymattach/$m bs=1 seek=300 conv=notrunc 2>/dev/null
check "(the file was damaged)" sh -c "! cmp -s $O/match.orig /run/ksymattach/$m"
$K -l -p 'vfs_*' -o json > $O/match-bad.json 2> $O/match-bad.err; rc=$?
check "a damaged pattern set's file: one warning names it" sh -c \
	"[ \$(grep -c . $O/match-bad.err) -eq 1 ] && grep -q 'ignoring cache /run/ksymattach/$m: corrupt' $O/match-bad.err"
is "$rc:$(json_int matched $O/match-bad.json)" "0:$(json_int matched $O/cold.json)" "... the same functions, from the whole table"
check "... and it is written again" sh -c "$K -v -l -p 'vfs_*' 2>&1 >/dev/null | grep -q 'matched before'"

# a corrupt cache is ignored with a warning and removed; the run keeps what it read
rm -f /run/ksymattach/funcs-*
printf 'XXXX' | dd of=/run/ksymattach/funcs bs=1 seek=100 conv=notrunc 2>/dev/null
$K -l -p 'vfs_*' -o json > $O/corrupt.json 2> $O/corrupt.err; rc=$?
check "corrupt cache: warned, removed" sh -c \
	"grep -q 'ignoring cache.*corrupt or truncated; removed' $O/corrupt.err && ! ls /run/ksymattach/funcs > /dev/null 2>&1"
is "$rc:$(json_int matched $O/corrupt.json)" "0:$(json_int matched $O/cold.json)" "corrupt cache: same result"
$K -l -p 'vfs_*' -o json > $O/rebuilt.json 2> $O/rebuilt.err
check "corrupt cache: the next run is served from what the last one kept, without a word" sh -c \
	"grep -q '\"cached\":true' $O/rebuilt.json && [ ! -s $O/rebuilt.err ]"

# loading a module invalidates it, and its functions resolve at once
insmod /modules/dummy.ko
$K -l -p 'dummy:*' -o json > $O/mod.json
check "module load invalidates the cache" grep -q '"cached":false' $O/mod.json
check "new module's functions resolve" grep -q '"module":"dummy"' $O/mod.json
rmmod dummy
$K -l -p 'dummy:*' > /dev/null 2> $O/gone.err
check "after unload they are gone" grep -q "no traceable function matches 'dummy:\*'" $O/gone.err

# sym and addr against the live kernel
$K sym vfs_read -o json > $O/sym.json
check "sym: vfs_read is traceable" grep -q '"name":"vfs_read".*"traceable":true' $O/sym.json
a=$(grep ' vfs_read$' /proc/kallsyms | cut -d' ' -f1)
$K addr "$(printf '%x' $((0x$a + 16)))" > $O/addr.txt
check "addr: vfs_read+0x10" grep -q ' vfs_read+0x10/0x' $O/addr.txt
$K sym 9pnet:p9_client_create > $O/msym.txt
check "sym mod:name finds a module function" grep -q 'p9_client_create.*9pnet' $O/msym.txt
