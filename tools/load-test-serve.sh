#!/usr/bin/env bash
# Load test of `chaintag serve` on the loopback interface with wrk (Debian `wrk`): requests/s,
# tokens/s and p50/p99 latency at 1, 8 and 64 connections, errors (non-2xx answers and socket
# errors), the server's peak memory, and its resident memory sampled through a soak run at 8
# connections (growth = last sample minus the first after warm-up).
# Bounded: every level runs SECONDS (default 10) and at most MAX_REQUESTS requests per wrk thread;
# the soak runs SOAK seconds (default 180, 0 to skip).
# Usage: tools/load-test-serve.sh [--binary build/chaintag] [--seconds 10] [--soak 180]
#                                 [--threads N] [--max-requests 200000] [--text TEXT]
set -euo pipefail
cd "$(dirname "$0")/.."
binary=build/chaintag
seconds=10
soak=180
threads=$(nproc)
max_requests=200000
text="The city council approved a new budget on Tuesday, and the mayor said the plan would fix the roads near the old river bank."
while [ $# -gt 0 ]; do
  case $1 in
    --binary) binary=$2; shift 2 ;;
    --seconds) seconds=$2; shift 2 ;;
    --soak) soak=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --max-requests) max_requests=$2; shift 2 ;;
    --text) text=$2; shift 2 ;;
    *) echo "usage: tools/load-test-serve.sh [--binary B] [--seconds S] [--soak S] [--threads N] [--max-requests N] [--text T]" >&2; exit 2 ;;
  esac
done
command -v wrk >/dev/null || { echo "load-test: needs wrk (Debian: apt-get install wrk)" >&2; exit 2; }
[ -x "$binary" ] || { echo "load-test: no binary $binary (build it first)" >&2; exit 2; }


# shellcheck source=lib/start-serve.sh
source tools/lib/start-serve.sh
serve_workdir
start_serve "$binary" --threads "$threads" --max-concurrent 128
url="http://127.0.0.1:$port/tag"

body=$(python3 -c 'import json, sys; print(json.dumps({"text": sys.argv[1]}))' "$text")
answer=$(curl -s -X POST "$url" --data-binary "$body")
tokens=$(python3 -c 'import json, sys; print(sum(len(s["tokens"]) for s in json.loads(sys.argv[1])))' "$answer")

# wrk: POST the body; each thread stops after max_requests answers.
cat >"$work/post.lua" <<EOF
wrk.method = "POST"
wrk.body = [==[$body]==]
wrk.headers["Content-Type"] = "application/json"
local answered = 0
function response(status, headers, body)
  answered = answered + 1
  if answered >= $max_requests then wrk.thread:stop() end
end
EOF

kb() { awk -v key="$1:" '$1 == key {print $2}' "/proc/$server_pid/status"; }
ms() {  # wrk's latency ("812.00us", "3.21ms", "1.02s") in milliseconds
  awk -v v="$1" 'BEGIN {
    if (v ~ /us$/) { sub(/us$/, "", v); printf "%.2f", v / 1000 }
    else if (v ~ /ms$/) { sub(/ms$/, "", v); printf "%.2f", v }
    else if (v ~ /m$/) { sub(/m$/, "", v); printf "%.0f", v * 60000 }
    else { sub(/s$/, "", v); printf "%.0f", v * 1000 } }'
}
run_wrk() {  # connections seconds -> wrk output file
  local c=$1 s=$2 t
  t=$(( c < 2 ? c : 2 ))
  wrk -t "$t" -c "$c" -d "${s}s" --timeout 30s --latency -s "$work/post.lua" "$url" >"$work/wrk.out"
}
errors_of() {
  local non2xx socket
  non2xx=$(sed -nE 's/.*Non-2xx or 3xx responses: ([0-9]+).*/\1/p' "$work/wrk.out")
  socket=$(sed -nE 's/.*Socket errors: connect ([0-9]+), read ([0-9]+), write ([0-9]+), timeout ([0-9]+).*/\1 \2 \3 \4/p' "$work/wrk.out")
  echo $(( ${non2xx:-0} + $(echo "${socket:-0}" | tr ' ' '+') ))
}

echo "load-test: chaintag serve --threads $threads on 127.0.0.1:$port, $(nproc) cores" \
  "(load average $(cut -d' ' -f1-3 /proc/loadavg)); request: $tokens tokens of raw text"
echo "load-test: RSS after start $(kb VmRSS) kB"
run_wrk 8 2  # warm-up
printf '\n| connections | requests | requests/s | tokens/s | p50 ms | p99 ms | errors | RSS after (kB) |\n'
printf '|---:|---:|---:|---:|---:|---:|---:|---:|\n'
total_errors=0
for c in 1 8 64; do
  run_wrk "$c" "$seconds"
  rps=$(awk '/Requests\/sec/ {print $2}' "$work/wrk.out")
  requests=$(sed -nE 's/^ *([0-9]+) requests in .*/\1/p' "$work/wrk.out")
  p50=$(awk '$1 == "50%" {print $2}' "$work/wrk.out")
  p99=$(awk '$1 == "99%" {print $2}' "$work/wrk.out")
  errors=$(errors_of)
  total_errors=$(( total_errors + errors ))
  printf '| %d | %d | %.1f | %.0f | %s | %s | %d | %s |\n' "$c" "$requests" "$rps" \
    "$(awk -v r="$rps" -v t="$tokens" 'BEGIN {print r * t}')" "$(ms "$p50")" "$(ms "$p99")" \
    "$errors" "$(kb VmRSS)"
done
echo
if [ "$soak" -gt 0 ]; then
  samples=()
  left=$soak
  while [ "$left" -gt 0 ]; do
    step=$(( left < 30 ? left : 30 ))
    run_wrk 8 "$step"
    total_errors=$(( total_errors + $(errors_of) ))
    samples+=("$(kb VmRSS)")
    left=$(( left - step ))
  done
  echo "load-test: soak ${soak} s at 8 connections, RSS every 30 s (kB): ${samples[*]}" \
    "(growth first -> last: $(( samples[${#samples[@]} - 1] - samples[0] )) kB)"
fi
echo "load-test: peak RSS (VmHWM) $(kb VmHWM) kB; errors in total: $total_errors"
kill -TERM "$server_pid"
status=0
wait "$server_pid" || status=$?
server_pid=
tail -n 1 "$work/server.err"
echo "load-test: server exit status after SIGTERM: $status"
[ "$total_errors" -eq 0 ] && [ "$status" -eq 0 ]
