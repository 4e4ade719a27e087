#!/usr/bin/env bash
# Re-record the committed fixtures: the demo chains, from the simulator served on loopback, through the
# live backend — so the cassettes hold the real hosts and paths, exactly as a live recording would.
# Keys are placeholders (the served simulator accepts any); the recorder scrubs them anyway.
set -euo pipefail
cd "$(dirname "$0")/.."
port=${KOPA_FIXTURE_PORT:-18800}
out=cassettes/demo
rm -rf "$out"
kopa sim serve --port "$port" --world-seed 0 --scale small &
server=$!
trap 'kill $server' EXIT
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/_kopa/world" >/dev/null && break; sleep 0.1; done
for id in dart krx data_go_kr ex seoul neis schoolinfo hrd law assembly gg; do
  export "KOPA_$(echo "$id" | tr a-z A-Z)_KEY=fixture-$id-key-0123456789"
done
kopa demo --backend "live:http://127.0.0.1:$port" --record "$out"
kopa record scan "$out"
