#!/usr/bin/env bash
# Every `kopa` command, run as a user runs it after installing the wheel: from a folder outside the
# source tree, with only the package's own files and runtime dependencies (no test extras).
# `nox -s wheel` builds the wheel, installs it into a fresh virtual environment and runs this there;
# by hand:  PATH=/that/venv/bin:$PATH bash tests/smoke/installed_cli.sh
#
# One line per command (its time and exit status); the output of a command that fails is printed.
# The list follows the click groups in kopa/cli.py, kopa/eval/cli.py and kopa/edge/cli.py.
set -euo pipefail

work=$(mktemp -d "${TMPDIR:-/tmp}/kopa-smoke-XXXXXX")
trap 'kill "${server:-}" 2>/dev/null || true; rm -rf "$work"' EXIT
cd "$work"
export KOPA_CACHE_DIR="$work/cache"  # a clean world cache
log="$work/last.log"

# kopa must be the installed one: its package (and KOPA-Bench inside it) under the environment's prefix.
python=$(dirname "$(command -v kopa)")/python
prefix=$("$python" -c 'import sys; print(sys.prefix)')
where=$("$python" -c 'import kopa.eval.task as t; print(t.__file__, t.ROOT)')
for path in $where; do
    [[ $path == "$prefix"/* ]] || { echo "not the installed kopa: $path (prefix $prefix)"; exit 1; }
done
echo "kopa and KOPA-Bench from $prefix"

# run [--exit N|M] CMD...: run CMD, expect exit status N (or M; default 0).
run() {
    local want=0
    if [[ $1 == --exit ]]; then want=$2; shift 2; fi
    local start=$SECONDS rc=0
    "$@" >"$log" 2>&1 || rc=$?
    printf '%4ds  exit %d  %s\n' $((SECONDS - start)) "$rc" "$*"
    if [[ ! $rc =~ ^($want)$ ]]; then
        echo "--- expected exit $want; output:"; tail -n 40 "$log"; exit 1
    fi
}

# expect PATTERN: the last command printed a line matching PATTERN (an extended regular expression).
expect() {
    grep -Eq -- "$1" "$log" || { echo "--- expected a line matching '$1'; output:"; tail -n 40 "$log"; exit 1; }
}

run kopa --help
run kopa --version
for group in tools sim "sim drift" "sim faults" record bench edge "edge graph" rl mcp apigen compare; do
    # shellcheck disable=SC2086  # the group's words are separate arguments
    run kopa $group --help
done
for command in call demo "record diff" "record scan" "sim build" "sim stats" "sim serve" "bench targets" \
               "bench lint" "bench stats" "bench run" "bench baselines" "bench show" "bench view" "bench score" \
               "bench score-answer" "edge graph build" "edge graph show" "edge graph export" "sim drift show" \
               "sim faults show" "tools list" "tools show" "rl rollouts" "rl view" "rl export" "rl verl-config" \
               "rl tool-format" "rl tiny-model" "mcp serve" "study pruning" "study robustness"; do
    # shellcheck disable=SC2086
    run kopa $command --help
done

run kopa tools list
run kopa tools show find_dart_corp_code
run kopa call find_dart_corp_code corp_name=라이트론 --pick corp_code
expect '^[0-9]{8}$'
# a bad input is one line, no traceback
run --exit 2 kopa call get_current_date --backend sim:seed=x
expect "^Error: backend 'sim:seed=x': seed='x' is not an integer"
run kopa sim build
run kopa sim stats
run kopa sim faults show realistic
run kopa sim drift show default

run kopa demo --record "$work/rec"
run kopa record scan "$work/rec"
run kopa record diff "$work/rec" sim:drift=default,epoch=1 --out "$work/drift"
# the old names were removed: one line naming the command, exit 2
run --exit 2 kopa secrets scan "$work/rec"
expect "^Error: No such command 'secrets'"
run --exit 2 kopa drift "$work/rec" sim:drift=default,epoch=1
expect "^Error: No such command 'drift'"

port=$("$python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
kopa sim serve --port "$port" >"$work/serve.log" 2>&1 &
server=$!
"$python" - "$port" <<'EOF'
import socket, sys, time
deadline = time.monotonic() + 60
while True:
    try:
        socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=1).close()
        break
    except OSError:
        if time.monotonic() > deadline:
            sys.exit("kopa sim serve did not start listening within 60 s")
        time.sleep(0.2)
EOF
# the served simulator takes any key but the documented invalid ones
run env KOPA_DART_KEY=any kopa call get_dart_company_overview corp_code=00104083 --pick stock_code \
    --backend "live:http://127.0.0.1:$port"
expect '^[0-9]{6}$'
kill "$server"
wait "$server" 2>/dev/null || true
server=

# lint exits 1 when a task breaks the task contract (the test suite's business); here it must run
# through every task of the installed task set
run --exit '0|1' kopa bench lint
expect '^[0-9]+/[0-9]+ tasks pass lint$'
run kopa bench stats
# KOPA-Bench as installed is package data: its targets are not rewritten there, only in a task set
# folder of one's own (here a copy of it).
run --exit 2 kopa bench targets
expect '^Error: cannot write targets into .*: pass a task set folder'
cp -r "$("$python" -c 'import kopa.eval.task as t; print(t.ROOT)')" "$work/mybench"
run kopa bench targets --tasks "$work/mybench" --domain law
run --exit '0|1' kopa bench lint --tasks "$work/mybench" --domain law
expect '^[0-9]+/[0-9]+ tasks pass lint$'
run kopa bench run --policy oracle -n 1 --out "$work/oracle"
run kopa bench baselines --only finance --out "$work/baselines"
expect '^report: .*/baselines/report.md'
run kopa bench show "$work/oracle"
run kopa bench view "$work/oracle"
expect 'view/index.html'
run kopa study robustness --policies oracle --kinds mix --rates 0,20 --retries off --seeds 1 --only law-003 -o "$work/rob"
expect 'summary.json'
run kopa bench score "$work/oracle" --out "$work/rescored"
task=$("$python" -c 'from kopa.eval.task import load_tasks; print(load_tasks()[0].id)')
run kopa bench score-answer "$task" '\boxed{0}'
expect '^(PASS|FAIL) '

run kopa edge graph build -T 2 -M 5 --out "$work/edge"
run kopa edge graph show "$work/edge"
run kopa edge graph export "$work/edge" --format graphml --out "$work/g.graphml"
run kopa edge synth --graph "$work/edge" --out "$work/synth" --count 3
run kopa edge filter "$work/synth"
run kopa edge sample "$work/synth" --count 2
expect 'kept queries: 0 quote a tool title'

run kopa rl rollouts --only finance -n 2 --out "$work/rl"
expect 'zero-variance groups'
run kopa rl view "$work/rl"
expect 'view/index.html'
run kopa rl export --format verl --out "$work/rl/kopa.parquet"
run kopa rl export --format sft --from "$work/rl" --out "$work/rl/sft.jsonl"
run kopa rl verl-config --out "$work/rl/kopa_tools.yaml"
run kopa rl tool-format Qwen/Qwen3.5-4B
expect '^qwen3_coder$'
# the wheel without extras has no torch: one line saying what to install, exit 2
run --exit 2 kopa rl tiny-model "$work/tiny"
expect "pip install 'kopa\[trl\]'"
run kopa mcp serve --task finance-001 --list-tools
expect '^reset_episode$'

run kopa apigen generate --count 10 --platforms krx,kdic --out "$work/apigen"
expect 'verified of 10'
run kopa apigen verify "$work/apigen/verified.jsonl" --out "$work/apigen-verify"
run kopa compare synth --help

echo "every kopa command ran from the installed wheel"
