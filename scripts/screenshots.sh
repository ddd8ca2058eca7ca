#!/usr/bin/env bash
# `make screenshots`: the README's pictures of the web chat (docs/images/webchat-chart.png at
# 1280×900, docs/images/webchat-phone.png at 375×812), taken from the page itself. It loads the
# demo into a database of its own, serves the offline demo (LLM_PROVIDER=script, whatever .env
# says) on a free local port, asks the demo's questions in headless Chromium
# (scripts/screenshots/main.go, /usr/bin/chromium: `make chromium`) and drops the database again.
set -euo pipefail
bin=${1:?usage: scripts/screenshots.sh BIN}
repo=$(cd "$(dirname "$0")/.." && pwd)
db=analyticsbot_screenshots
port=${SCREENSHOTS_PORT:-18180}
admin=postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable
export DATABASE_URL="postgres://postgres@127.0.0.1:5432/$db?sslmode=disable"
export LLM_PROVIDER=script LLM_SCRIPT= METRICS_ADDR=off HTTP_ADDR="127.0.0.1:$port" HTTP_TOKEN= ACCESS_FILE=
unset SLACK_BOT_TOKEN SLACK_APP_TOKEN SLACK_SIGNING_SECRET

PGOPTIONS=--client-min-messages=warning psql "$admin" -qc "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" >/dev/null
cleanup() {
    [ -n "${pid:-}" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
    PGOPTIONS=--client-min-messages=warning psql "$admin" -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null || true
}
trap cleanup EXIT
"$bin" migrate >/dev/null 2>&1
"$bin" demo load >/dev/null
"$bin" serve >/dev/null 2>&1 &
pid=$!
for _ in $(seq 1 60); do
    curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break
    kill -0 "$pid" 2>/dev/null || { echo "screenshots: serve exited" >&2; exit 1; }
    sleep 0.5
done
cd "$repo"
go run ./scripts/screenshots -url "http://127.0.0.1:$port" -out docs/images
