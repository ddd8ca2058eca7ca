#!/bin/sh
# Install the Cube semantic-layer server (cubejs-server 0.33.65 with the Postgres driver) from
# the npm registry into a cache directory, once, and print that directory on stdout.
#
# Why 0.33.65: Cube 1.x could not be made to run here, while 0.33.65 runs on plain Node.js, offline
# once installed (measured with Node 20). Install scripts are skipped (--ignore-scripts) because the only
# ones that matter download binaries (Cube Store, the optional native module) from GitHub; Cube
# runs without them, and skipping them makes every machine, CI or not, install the same thing.
#
# The directory is $ANALYTICSBOT_CUBE_HOME, else ${XDG_CACHE_HOME:-$HOME/.cache}/analyticsbot/
# cube-0.33.65; cube/cubetest.Home uses the same rule. A marker file written after a successful
# install makes later runs return at once. Progress and errors go to stderr.
set -eu

CUBE_VERSION=0.33.65
PG_DRIVER_VERSION=0.35.81
NODE_MIN_MAJOR=18

home=${ANALYTICSBOT_CUBE_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/analyticsbot/cube-$CUBE_VERSION}
marker=$home/.analyticsbot-installed

say() { echo "install-cube: $*" >&2; }
die() { say "$*"; exit 1; }

if [ -f "$marker" ] && [ -x "$home/node_modules/.bin/cubejs-server" ]; then
    echo "$home"
    exit 0
fi

# CI machines are throwaway Debian images: install Node.js there rather than fail. Anywhere else
# a missing Node.js is the user's call, so say what to install.
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    if [ "${CI:-}" = true ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        say "node or npm missing; CI=true, installing nodejs and npm from Debian"
        DEBIAN_FRONTEND=noninteractive apt-get update -q >&2
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q nodejs npm >&2
    else
        die "Cube needs Node.js $NODE_MIN_MAJOR or newer with npm, and node or npm is not on PATH.
  Install them (Debian/Ubuntu: sudo apt-get install nodejs npm; or https://nodejs.org), then run: make cube"
    fi
fi

node_major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$node_major" -lt "$NODE_MIN_MAJOR" ]; then
    die "Cube $CUBE_VERSION needs Node.js $NODE_MIN_MAJOR or newer; $(command -v node) is $(node --version)"
fi

mkdir -p "$home"
# Two runs at once (make -j, two terminals) would corrupt node_modules; the second waits.
if command -v flock >/dev/null 2>&1; then
    exec 9>"$home/.install.lock"
    flock 9
    if [ -f "$marker" ] && [ -x "$home/node_modules/.bin/cubejs-server" ]; then
        echo "$home"
        exit 0
    fi
fi

# Exact versions, so a later run or another machine resolves the same top-level packages.
cat >"$home/package.json" <<EOF
{
  "name": "analyticsbot-cube",
  "private": true,
  "description": "Cube API server for analyticsbot, installed by scripts/install-cube.sh",
  "dependencies": {
    "@cubejs-backend/server": "$CUBE_VERSION",
    "@cubejs-backend/postgres-driver": "$PG_DRIVER_VERSION"
  }
}
EOF

say "installing Cube $CUBE_VERSION into $home (about a minute on first install)"
start=$(date +%s)
if ! (cd "$home" && CUBESTORE_SKIP_POST_INSTALL=true npm install --ignore-scripts --no-audit --no-fund --loglevel=error >&2); then
    die "npm install failed in $home (see above); fix the cause and run make cube again"
fi

installed=$(cd "$home" && node -p 'require("@cubejs-backend/server/package.json").version' 2>/dev/null || true)
if [ "$installed" != "$CUBE_VERSION" ] || [ ! -x "$home/node_modules/.bin/cubejs-server" ]; then
    die "npm finished but $home holds no cubejs-server $CUBE_VERSION (found '${installed:-nothing}')"
fi

printf 'cube %s\npostgres-driver %s\nnode %s\n' "$CUBE_VERSION" "$PG_DRIVER_VERSION" "$(node --version)" >"$marker"
say "installed in $(($(date +%s) - start))s"
echo "$home"
