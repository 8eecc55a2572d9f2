#!/bin/sh
exec "$(dirname "$0")/fleet.sh" 6.12
