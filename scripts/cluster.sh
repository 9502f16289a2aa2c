#!/usr/bin/env bash
# Start a cluster: N_PROCESSES bot processes sharing SHARD_COUNT gateway shards, each with a contiguous
# range of them (SHARD_IDS), on the database of .env (PYRAMIDE_DB). Every process logs to
# $CLUSTER_LOG_DIR/shard-<first>.log (default logs/); METRICS_PORT, when set, is the first process's
# port (the next get +1, +2...).
# Ctrl-C or SIGTERM stops them all, each finishing its presses in flight.
#
#   bash scripts/cluster.sh 2 4      # two processes: shards 0,1 and 2,3 of 4
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ $# -ne 2 || ! $1 =~ ^[1-9][0-9]*$ || ! $2 =~ ^[1-9][0-9]*$ || $1 -gt $2 ]]; then
    echo "usage: bash scripts/cluster.sh N_PROCESSES SHARD_COUNT   (1 <= N_PROCESSES <= SHARD_COUNT)" >&2
    exit 2
fi
processes=$1
shards=$2
bash scripts/setup.sh bot
logs=${CLUSTER_LOG_DIR:-logs}
mkdir -p "$logs"
base_port=${METRICS_PORT:-}
pids=()
stop() { kill -TERM "${pids[@]}" 2>/dev/null || true; }
trap stop INT TERM
for ((p = 0; p < processes; p++)); do
    first=$((p * shards / processes))
    last=$(((p + 1) * shards / processes - 1))
    ids=$(seq -s, "$first" "$last")
    port=""
    if [[ -n $base_port ]]; then port=$((base_port + p)); fi
    SHARD_COUNT=$shards SHARD_IDS=$ids METRICS_PORT=$port \
        .venv/bin/python bot.py >>"$logs/shard-$first.log" 2>&1 &
    pids+=($!)
    echo "process $((p + 1)) of $processes: shards $ids of $shards (pid $!, $logs/shard-$first.log)"
done
status=0
for pid in "${pids[@]}"; do
    while true; do
        code=0
        wait "$pid" || code=$?
        if ((code > 128)) && kill -0 "$pid" 2>/dev/null; then
            continue # the wait was interrupted by our own signal: the process is still stopping
        fi
        if ((code != 0)); then status=$code; fi
        break
    done
done
exit "$status"
