#!/bin/sh
exec "$(dirname "$0")/suite.sh" newest full
