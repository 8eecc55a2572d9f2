# Sourced by check.sh and bench-kernel.sh: the variants files (./variants,
# ./sweep) read alike.

# variant_lines FILE...: the variants' lines (name patches constants layout),
# comments and blank lines left out
variant_lines() {
	grep -hEv '^[[:space:]]*(#|$)' "$@"
}

# set_constants TREE CONSTANTS: each NAME=VALUE of CONSTANTS (comma-separated,
# - for none) written into the #define NAME of kernel/kallsyms_internal.h and
# of scripts/kallsyms.c, which keep a copy each; a name either lacks is an
# error, said on stderr
set_constants() {
	local tree=$1 c name value f
	[ "$2" = - ] && return 0
	for c in ${2//,/ }; do
		name=${c%%=*} value=${c#*=}
		for f in kernel/kallsyms_internal.h scripts/kallsyms.c; do
			sed -i "s/^\(#define $name[[:space:]]*\)[0-9]*\$/\1$value/" "$tree/$f"
			grep -qE "^#define $name[[:space:]]+$value\$" "$tree/$f" || {
				echo "$f: no #define $name that can be set to $value" >&2
				return 1
			}
		done
	done
}
