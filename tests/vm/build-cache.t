#!/bin/sh
exec "$(dirname "$0")/build.sh"
