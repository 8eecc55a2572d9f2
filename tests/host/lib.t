#!/usr/bin/env bash
# libksym as an agent gets it: installed (make install DESTDIR=...), found by
# pkg-config, linked statically into a program that parses and looks up; and
# one version everywhere (binary, library, pkg-config, package, changelog).
set -u
. "$(dirname "$0")/tap.sh"

# (the prefix the tree was built with: another relinks the binary that the other
# tests are running, under them; the package build checks PREFIX=/usr)
make -s -C "$top" OUTPUT="$OUTPUT" install DESTDIR="$tmp/root" > "$tmp/install.log" 2>&1
is "$?" 0 "make install DESTDIR="
export PKG_CONFIG_SYSROOT_DIR=$tmp/root PKG_CONFIG_PATH=$tmp/root/usr/local/lib/pkgconfig
ver=$(sed -n 's/^#define KSYM_VERSION "\(.*\)"/\1/p' "$top/lib/ksym/include/ksym/ksym.h")
is "$(pkg-config --modversion libksym 2>&1)" "$ver" "pkg-config finds libksym $ver"
cat > "$tmp/agent.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ksym/ksym.h>

int main(void)
{
	static const char kallsyms[] =
		"ffffffff81000000 T _text\nffffffff81234560 T vfs_read\nffffffff81234600 t helper\n";
	/* the table takes the buffer over: its front becomes the names */
	struct ksym_table *t = ksym_table__parse(KSYM_FMT_KALLSYMS, strdup(kallsyms),
						 sizeof(kallsyms) - 1, NULL);
	struct ksym s;

	if (!t || ksym_table__find(t, "vfs_read", NULL, &s, 1) != 1)
		return 1;
	printf("%s %s 0x%llx\n", ksym_version(), KSYM_VERSION, (unsigned long long)s.addr);
	return ksym_table__addr(t, 0xffffffff81234570ull, &s) || strcmp(s.name, "vfs_read");
}
C
if cc -Wall -Werror "$tmp/agent.c" -o "$tmp/agent" -static \
	$(pkg-config --cflags --libs --static libksym) 2> "$tmp/cc.err"; then
	ok "an agent builds with \$(pkg-config --cflags --libs --static libksym)"
else
	nok "an agent builds with pkg-config (cc: $(head -c 300 "$tmp/cc.err"))"
fi
is "$("$tmp/agent" 2>&1)" "$ver $ver 0xffffffff81234560" "the agent looks up by name and address"
is "$("$tmp/root/usr/local/sbin/ksymattach" --version)" "ksymattach $ver" "ksymattach --version is the library's"
deb=$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version 2>/dev/null)
is "${deb%-*}:${ver:-none}" "$ver:$ver" "debian/changelog's upstream version is the library's"
is "$(sed -n 's/^## \([0-9][0-9.]*\) .*/\1/p' "$top/CHANGELOG.md" | head -n1)" "$ver" \
	"CHANGELOG.md's newest entry is the library's version"
# nothing of the tool in the library's header, nothing outside lib/ksym in its sources
inc=$(grep -h '#include "' "$top"/lib/ksym/*/*.c "$top"/lib/ksym/*/*.h "$top"/lib/ksym/include/ksym/*.h |
	while read -r _ h; do h=${h#\"}; h=${h%\"}; case $h in
		*/*) echo "$h" ;;	# (../ leaves the part)
		*) ls "$top"/lib/ksym/*/"$h" > /dev/null 2>&1 || echo "$h" ;;
		esac; done)
is "$(ls "$top"/lib/ksym/*/*.c | wc -l | awk '{ print ($1 > 10) }'):$inc" "1:" "libksym includes nothing outside itself"
# each part sees the headers of the parts below it only: an include against
# the arrows (the table including a source's header) fails the build
printf '#include "ksym_source.h"\n' > "$tmp/probe.c"
printf '#include "ksym_internal.h"\n' > "$tmp/probe-ok.c"
inc=$(make -s -C "$top" print-ksym-inc-table)
(cd "$top" && cc -fsyntax-only $inc "$tmp/probe-ok.c") 2> "$tmp/probe.err"
ok_rc=$?
(cd "$top" && cc -fsyntax-only $inc "$tmp/probe.c") 2> "$tmp/probe.err"
is "$ok_rc:$?:$(grep -c 'ksym_source.h: No such file' "$tmp/probe.err")" "0:1:1" \
	"libksym's parts: the table sees its own header, not a source's"
echo "1..$n"
