#!/bin/sh
exec "$(dirname "$0")/suite.sh" 6.1 fallback
