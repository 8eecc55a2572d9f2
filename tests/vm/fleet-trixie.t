#!/bin/sh
exec "$(dirname "$0")/fleet.sh" newest trixie
