#!/usr/bin/env bash
# libbpf 1.8 ($OUTPUT/libbpf18, every global renamed l18_) and the tool's 1.5
# ($OUTPUT/libbpf.a) in one static program: a file compiled against 1.8's
# headers and rename.h, one against 1.5's, each asking its own library's
# version and making a BTF, and 1.8's bpf_program__attach_tracing_multi()
# linked in. Without the renaming the link fails (the same symbols twice) or
# both files reach the same library.
set -u
. "$(dirname "$0")/tap.sh"
L=$OUTPUT/libbpf18

# make check-fast builds it; run alone, the test has make do it (a no-op once made)
if ! make -s -C "$top" OUTPUT="$OUTPUT" "$L/libbpf18.a" "$OUTPUT/libbpf.a" > "$tmp/make.log" 2>&1; then
	nok "make $L/libbpf18.a: $(tail -n1 "$tmp/make.log")"
	echo "1..$n"; exit 1
fi

# the archive: what it defines is renamed, what it calls is not the other's
bad=$(nm --defined-only -g "$L/libbpf18.a" | awk 'NF == 3 && $3 !~ /^l18_/ { print $3 }')
cnt=$(nm --defined-only -g "$L/libbpf18.a" | awk 'NF == 3' | wc -l)
is "$([ "$cnt" -gt 300 ] && echo yes):$bad" "yes:" "libbpf18.a defines l18_ names only ($cnt)"
nm --defined-only -g "$OUTPUT/libbpf.a" | awk 'NF == 3 { print $3 }' | sort -u > "$tmp/def15"
nm -u "$L/libbpf18.a" | awk '{ print $2 }' | sort -u > "$tmp/und18"
is "$(comm -12 "$tmp/def15" "$tmp/und18" | head -n5 | tr '\n' ' ')" "" \
	"libbpf18.a calls nothing 1.5 defines (libc, libelf and zlib only)"
# rename.h: exactly the API 1.8's libbpf.map exports
sed -n '/global:/,/}/s/^[[:space:]]*\([a-z_0-9]*\);.*/\1/p' "$OUTPUT/linux-src/tools/lib/bpf/libbpf.map" |
	sort -u > "$tmp/map"
sed -n 's/^#define \([a-z_0-9]*\) l18_\1$/\1/p' "$L/rename.h" | sort > "$tmp/renamed"
is "$(wc -l < "$tmp/map"):$(comm -3 "$tmp/map" "$tmp/renamed" | head -n5 | tr -d '\t' | tr '\n' ' ')" \
	"$(wc -l < "$tmp/renamed"):" "rename.h names the $(wc -l < "$tmp/map") functions libbpf.map exports"

# one file a version, as the --compare row's file sees 1.8: plain API calls
cat > "$tmp/v18.c" <<'C'
#include <stdio.h>
#include <bpf/libbpf.h>
#include <bpf/btf.h>

void v15(void);

static int int_id(void)
{
	struct btf *btf = btf__new_empty();
	int id = btf__add_int(btf, "int", 4, BTF_INT_SIGNED);

	id = id > 0 ? btf__find_by_name_kind(btf, "int", BTF_KIND_INT) : id;
	btf__free(btf);
	return id;
}

int main(void)
{
	struct bpf_link *(*attach)(const struct bpf_program *, const char *,
				   const struct bpf_tracing_multi_opts *);

	attach = bpf_program__attach_tracing_multi;
	/* the attach type from 1.8's own UAPI header: the 7.3 kernel's */
	printf("%u.%u %d %d %d\n", libbpf_major_version(), libbpf_minor_version(), int_id(),
	       attach != NULL, BPF_TRACE_FENTRY_MULTI);
	v15();
	return 0;
}
C
cat > "$tmp/v15.c" <<'C'
#include <stdio.h>
#include <bpf/libbpf.h>
#include <bpf/btf.h>

void v15(void)
{
	struct btf *btf = btf__new_empty();
	int id = btf__add_int(btf, "int", 4, BTF_INT_SIGNED);

	id = id > 0 ? btf__find_by_name_kind(btf, "int", BTF_KIND_INT) : id;
	btf__free(btf);
	printf("%u.%u %d\n", libbpf_major_version(), libbpf_minor_version(), id);
}
C
v15=$(sed -n 's/^#define LIBBPF_\(MAJOR\|MINOR\)_VERSION \([0-9]*\)/\2/p' "$OUTPUT/bpf/libbpf_version.h" |
	paste -sd.)
# link F18_FLAGS ARCHIVE18 OUT: both files, both archives, static
link() {
	cc -Wall -Werror $1 -c "$tmp/v18.c" -o "$tmp/v18.o" &&
	cc -Wall -Werror -I"$OUTPUT" -I"$top/libbpf/include/uapi" -c "$tmp/v15.c" -o "$tmp/v15.o" &&
	cc -static "$tmp/v18.o" "$tmp/v15.o" "$2" "$OUTPUT/libbpf.a" -lelf -lz -lzstd -o "$3"
}
if link "-I$L/include -include $L/rename.h" "$L/libbpf18.a" "$tmp/both" 2> "$tmp/cc.err"; then
	ok "a file on 1.8's headers and rename.h and one on 1.5's link statically with both archives"
else
	nok "the two files do not link (cc: $(head -c 300 "$tmp/cc.err"))"
fi
is "$("$tmp/both" 2>&1 | tr '\n' ' ')" "1.8 1 1 59 $v15 1 " \
	"each file reaches its own library: 1.8 (with tracing_multi), then $v15"
# the control: 1.8 as its build made it, not renamed, does not give both
if link "-I$L/include" "$L/build/libbpf.a" "$tmp/plain" 2> "$tmp/plain.err"; then
	out=$("$tmp/plain" 2>&1 | tr '\n' ' ')
else
	out="link: $(grep -c 'multiple definition' "$tmp/plain.err") multiple definitions"
fi
if [ "$out" != "1.8 1 1 59 $v15 1 " ]; then ok "without the renaming the two do not both work ($out)"
else nok "without the renaming the program still reached both libraries"; fi
echo "1..$n"
