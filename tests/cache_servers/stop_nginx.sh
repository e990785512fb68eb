#!/usr/bin/env bash
# Stops the nginx that start_nginx.sh <dir> started, if it runs (its master stops its workers).
# Usage: stop_nginx.sh <dir>
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

dir=${1:?usage: stop_nginx.sh <dir>}
rm -f "$dir/url"
stop_pid_file "$dir/nginx.pid" nginx
