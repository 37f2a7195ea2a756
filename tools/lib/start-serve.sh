# Sourced by tools/load-test-serve.sh and tests/serve/browser_test.sh: a scratch directory and a
# `chaintag serve` on a free loopback port, both gone when the script exits.
# serve_workdir: sets work (a new temporary directory) and an EXIT trap that kills the server and
#   removes the directory.
# start_serve BINARY [serve options...]: starts the server, waits (up to 60 s) until it says where
#   it listens, and sets server_pid and port; its stderr goes to $work/server.err. On failure
#   prints that file and returns 1.
serve_workdir() {
  work=$(mktemp -d)
  server_pid=
  trap serve_cleanup EXIT
}

serve_cleanup() {
  if [ -n "$server_pid" ]; then kill -9 "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}

start_serve() {
  local binary=$1
  shift
  "$binary" serve --host 127.0.0.1 --port 0 "$@" 2>"$work/server.err" &
  server_pid=$!
  port=
  for _ in $(seq 1 600); do
    port=$(sed -nE 's|.*listening on http://127\.0\.0\.1:([0-9]+)/.*|\1|p' "$work/server.err")
    [ -n "$port" ] && return 0
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.1
  done
  echo "the server did not start:" >&2
  cat "$work/server.err" >&2
  return 1
}
