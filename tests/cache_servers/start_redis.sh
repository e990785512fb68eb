#!/usr/bin/env bash
# Starts a private redis-server for the remote cache tests on a free local port, with a random
# password and nothing saved to disk, and writes into <dir>:
#   url        redis://:<password>@127.0.0.1:<port>/1   (database 1, to exercise SELECT)
#   port, password, redis.pid, redis.log
# Exits 77 (the tests' skip code) where redis-server is not installed.
#
# Usage: start_redis.sh <dir>      stop it with stop_redis.sh <dir>
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

dir=${1:?usage: start_redis.sh <dir>}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
rm -f "$dir/url"
"$(dirname "${BASH_SOURCE[0]}")/stop_redis.sh" "$dir"

if ! command -v redis-server >/dev/null; then
  echo "redis-server is not installed: the Redis remote cache tests are skipped" \
       "(tools/bootstrap.sh --dev installs it)"
  exit $skip_code
fi

password=$(random_secret)
for attempt in 1 2 3 4 5; do
  port=$(free_port)
  # In the background with its output in the log, so that CTest does not wait for it.
  setsid redis-server --bind 127.0.0.1 --port "$port" --requirepass "$password" \
    --save "" --appendonly no --dir "$dir" --logfile "$dir/redis.log" \
    </dev/null >/dev/null 2>>"$dir/redis.log" &
  echo $! > "$dir/redis.pid"
  if wait_for_port "$port" 10 "$!" &&
     redis-cli -p "$port" --no-auth-warning -a "$password" ping | grep -q PONG; then
    echo "$port" > "$dir/port"
    echo "$password" > "$dir/password"
    echo "redis://:$password@127.0.0.1:$port/1" > "$dir/url.tmp"
    mv "$dir/url.tmp" "$dir/url"
    echo "redis-server on 127.0.0.1:$port (pid $(cat "$dir/redis.pid"))"
    exit 0
  fi
  echo "redis-server did not start on port $port (attempt $attempt); log:" >&2
  tail -5 "$dir/redis.log" >&2 || true
  "$(dirname "${BASH_SOURCE[0]}")/stop_redis.sh" "$dir"
done
exit 1
