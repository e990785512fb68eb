# Shared by the cache server scripts: free ports, waiting for a port, the skip exit code.

# CTest's SKIP_RETURN_CODE for these scripts and the tests that need their servers.
readonly skip_code=77

# free_port: prints a TCP port on 127.0.0.1 that nothing listens on now. The server started on
# it may still lose a race for it, so the start scripts try again on another port.
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# wait_for_port <port> <seconds> <pid>: succeeds once something accepts connections on the port;
# fails at once when process <pid> (the server) has exited.
wait_for_port() {
  local port=$1 deadline=$((SECONDS + $2)) pid=$3
  while ((SECONDS < deadline)); do
    kill -0 "$pid" 2>/dev/null || return 1
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      return 0
    fi
    sleep 0.05
  done
  return 1
}

# random_secret: 16 hex characters.
random_secret() {
  od -An -tx1 -N8 /dev/urandom | tr -d ' \n'
}

# stop_pid_file <file> <program>: stops the process whose id the file holds, if it still runs
# <program> (a stale file's id may belong to another process by now), and waits for it to go.
stop_pid_file() {
  local file=$1 program=$2 pid
  [[ -f "$file" ]] || return 0
  pid=$(cat "$file")
  if [[ -n "$pid" ]] && [[ "$(ps -p "$pid" -o comm= 2>/dev/null)" == "$program"* ]] &&
     kill -TERM "$pid" 2>/dev/null; then
    for _ in $(seq 200); do
      # Gone, or a zombie its new parent has not reaped yet.
      [[ "$(ps -p "$pid" -o stat= 2>/dev/null)" == Z* || -z "$(ps -p "$pid" -o stat= 2>/dev/null)" ]] && break
      sleep 0.02
    done
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$file"
}
