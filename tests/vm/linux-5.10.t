#!/bin/sh
exec "$(dirname "$0")/suite.sh" 5.10 fallback
