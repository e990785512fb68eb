#!/usr/bin/env bash
# Starts a private nginx for the remote cache tests: a WebDAV server in the Bazel HTTP cache
# layout on a free local port, its files under <dir>/www. It serves
#   /cache/     read and write (dav_methods PUT, create_full_put_path on, no size limit)
#   /private/   the same with basic authentication (user and password in <dir>/basic_auth)
#   /token/     the same behind a bearer token (in <dir>/token)
#   /readonly/  GET and HEAD only: a PUT is refused with 405
#   /broken/    503 for everything, a server in trouble
# and writes into <dir>: url (http://127.0.0.1:<port>/cache), base (http://127.0.0.1:<port>),
# basic_auth (user:password), token, nginx.pid, error.log.
# Exits 77 (the tests' skip code) where nginx is not installed.
#
# Usage: start_nginx.sh <dir>      stop it with stop_nginx.sh <dir>
set -euo pipefail
here=$(dirname "${BASH_SOURCE[0]}")
source "$here/common.sh"

dir=${1:?usage: start_nginx.sh <dir>}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
rm -f "$dir/url"
"$here/stop_nginx.sh" "$dir"

nginx=$(command -v nginx || echo /usr/sbin/nginx)
if [[ ! -x "$nginx" ]]; then
  echo "nginx is not installed: the HTTP remote cache tests are skipped" \
       "(tools/bootstrap.sh --dev installs it)"
  exit $skip_code
fi

rm -rf "$dir/www" "$dir/tmp"
mkdir -p "$dir/www/cache" "$dir/www/private" "$dir/www/token" "$dir/www/readonly" "$dir/tmp"
password=$(random_secret)
token=$(random_secret)
echo "tta:$(openssl passwd -apr1 "$password")" > "$dir/htpasswd"
echo "tta:$password" > "$dir/basic_auth"
echo "$token" > "$dir/token"

# As root, nginx's workers would run as nobody, who cannot write here.
user_line=""
if [[ $(id -u) -eq 0 ]]; then
  user_line="user $(id -un) $(id -gn);"
fi

for attempt in 1 2 3 4 5; do
  port=$(free_port)
  cat > "$dir/nginx.conf" <<CONF
$user_line
worker_processes 1;
daemon on;
pid $dir/nginx.pid;
error_log $dir/error.log warn;
events { worker_connections 64; }
http {
  access_log off;
  client_body_temp_path $dir/tmp/body;
  proxy_temp_path $dir/tmp/proxy;
  fastcgi_temp_path $dir/tmp/fastcgi;
  uwsgi_temp_path $dir/tmp/uwsgi;
  scgi_temp_path $dir/tmp/scgi;
  client_max_body_size 0;
  default_type application/octet-stream;
  server {
    listen 127.0.0.1:$port;
    root $dir/www;
    dav_methods PUT DELETE;
    create_full_put_path on;
    dav_access user:rw group:r all:r;
    location /cache/ { }
    location /private/ {
      auth_basic "triton-aot tests";
      auth_basic_user_file $dir/htpasswd;
    }
    location /token/ {
      if (\$http_authorization != "Bearer $token") { return 401; }
    }
    location /readonly/ { dav_methods off; }
    location /broken/ { return 503; }
  }
}
CONF
  # nginx binds its port before it forks: a port lost to someone else fails here.
  if "$nginx" -p "$dir" -c "$dir/nginx.conf" -e "$dir/error.log" \
       </dev/null >/dev/null 2>>"$dir/error.log" &&
     [[ -f "$dir/nginx.pid" ]] && wait_for_port "$port" 10 "$(cat "$dir/nginx.pid")"; then
    echo "http://127.0.0.1:$port" > "$dir/base"
    echo "http://127.0.0.1:$port/cache" > "$dir/url.tmp"
    mv "$dir/url.tmp" "$dir/url"
    echo "nginx on 127.0.0.1:$port (pid $(cat "$dir/nginx.pid"))"
    exit 0
  fi
  echo "nginx did not start on port $port (attempt $attempt); log:" >&2
  tail -5 "$dir/error.log" >&2 || true
  "$here/stop_nginx.sh" "$dir"
done
exit 1
