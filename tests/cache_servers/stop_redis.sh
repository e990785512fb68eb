#!/usr/bin/env bash
# Stops the redis-server that start_redis.sh <dir> started, if it runs.
# Usage: stop_redis.sh <dir>
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

dir=${1:?usage: stop_redis.sh <dir>}
rm -f "$dir/url"
stop_pid_file "$dir/redis.pid" redis-server
