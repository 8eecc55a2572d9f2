#!/bin/sh
exec "$(dirname "$0")/suite.sh" 6.12 full
