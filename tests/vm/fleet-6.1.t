#!/bin/sh
# The fleet service on bookworm's 6.1 (classic kprobes). One boot: what the second
# would add is classic kprobes attached from the build cache on another KASLR base,
# which build-cache.t's step d checks on 6.1, and the unit's import, which
# fleet-trixie.t and fleet-6.12.t run.
BOOTS=1 SKIP_WHY="one boot on 6.1: build-cache.t attaches 6.1's classic kprobes from its build cache on a second boot, fleet-trixie.t and fleet-6.12.t import it at boot" \
	exec "$(dirname "$0")/fleet.sh" 6.1
