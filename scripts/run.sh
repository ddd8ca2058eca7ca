#!/usr/bin/env bash
# `make run`'s last step: `analyticsbot serve`, the web chat on HTTP_ADDR (http://127.0.0.1:8080 by
# default) and, when Slack tokens are set, Slack alongside. With BACKEND=cube and no CUBE_API_URL of your own, it first starts a local Cube server
# (installed by scripts/install-cube.sh) on the demo model in demo/cube, against DATABASE_URL, and
# stops it when the bot exits.
set -euo pipefail
bin=${1:?usage: scripts/run.sh BIN}
repo=$(cd "$(dirname "$0")/.." && pwd)

start_cube() {
    local home url rest userinfo hostport db host port user pass port_api
    home=$("$repo/scripts/install-cube.sh")
    url=${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/analyticsbot}
    rest=${url#*://}
    userinfo=${rest%%@*}
    [ "$userinfo" = "$rest" ] && userinfo=postgres
    hostport=${rest#*@}; hostport=${hostport%%/*}
    db=${rest#*/}; db=${db%%\?*}
    host=${hostport%%:*}; port=${hostport#*:}; [ "$port" = "$hostport" ] && port=5432
    user=${userinfo%%:*}; pass=""; [ "$user" != "$userinfo" ] && pass=${userinfo#*:}
    port_api=${CUBE_PORT:-4000}
    export CUBE_API_SECRET=${CUBE_API_SECRET:-analyticsbot-local-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')}
    export CUBE_API_URL=http://127.0.0.1:$port_api/cubejs-api/v1
    work=$(mktemp -d) # global: the EXIT trap removes it
    ln -s "$repo/demo/cube" "$work/model"
    echo "run: starting Cube $(basename "$home") on :$port_api with the demo model" >&2
    if curl -fsS "http://127.0.0.1:$port_api/livez" >/dev/null 2>&1; then
        echo "run: something already answers on port $port_api (an earlier Cube?): stop it or set CUBE_PORT" >&2
        exit 1
    fi
    (cd "$work" && exec env CUBEJS_DB_TYPE=postgres CUBEJS_DB_HOST="$host" CUBEJS_DB_PORT="$port" \
        CUBEJS_DB_NAME="$db" CUBEJS_DB_USER="$user" CUBEJS_DB_PASS="$pass" \
        CUBEJS_API_SECRET="$CUBE_API_SECRET" CUBEJS_CACHE_AND_QUEUE_DRIVER=memory CUBEJS_TELEMETRY=false \
        CUBEJS_DEV_MODE=false CUBEJS_SCHEDULED_REFRESH_TIMER=false CUBEJS_LOG_LEVEL=warn \
        CUBEJS_SCHEMA_PATH=model PORT="$port_api" \
        node "$home/node_modules/@cubejs-backend/server/bin/server" >"$work/cube.log" 2>&1) &
    cube_pid=$!
    trap 'kill $cube_pid 2>/dev/null || true; rm -rf "$work"' EXIT
    for _ in $(seq 1 120); do
        if curl -fsS "http://127.0.0.1:$port_api/livez" >/dev/null 2>&1; then
            return 0
        fi
        if ! kill -0 "$cube_pid" 2>/dev/null; then
            echo "run: Cube exited; its log:" >&2; cat "$work/cube.log" >&2; exit 1
        fi
        sleep 0.5
    done
    echo "run: Cube did not answer /livez within 60 s; its log:" >&2; cat "$work/cube.log" >&2
    exit 1
}

if [ "${BACKEND:-sql}" = cube ] && [ -z "${CUBE_API_URL:-}" ]; then
    start_cube
fi
# Not exec: the EXIT trap stops Cube when the bot exits.
"$bin" serve
