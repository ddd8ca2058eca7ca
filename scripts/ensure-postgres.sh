#!/usr/bin/env bash
# Makes sure a PostgreSQL server answers at 127.0.0.1:5432 (user postgres,
# trust auth), as the tests and `make run` expect: installs it from Debian's
# packages when it is missing and starts it when it is down. Fails loudly.
set -euo pipefail

ready() { pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null; }

if command -v pg_isready >/dev/null && ready; then
  exit 0
fi

if ! command -v pg_ctlcluster >/dev/null; then
  if [ "$(id -u)" != 0 ]; then
    echo "ensure-postgres: PostgreSQL is not installed and we are not root: install postgresql" >&2
    exit 1
  fi
  echo "ensure-postgres: installing postgresql from Debian's packages" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql postgresql-contrib >/dev/null
  installed=1
fi

version=$(ls /etc/postgresql | sort -V | tail -n 1)
if [ -z "$version" ]; then
  echo "ensure-postgres: no cluster under /etc/postgresql" >&2
  exit 1
fi
hba=/etc/postgresql/$version/main/pg_hba.conf
# A server we just installed gets trust auth on loopback, as the tests
# expect; an existing server's authentication is left alone.
if [ "${installed:-0}" = 1 ] && ! grep -qE '^host\s+all\s+all\s+127\.0\.0\.1/32\s+trust' "$hba"; then
  sed -i '1i host all all 127.0.0.1/32 trust\nhost all all ::1/128 trust\nlocal all all trust' "$hba"
fi
echo "ensure-postgres: starting PostgreSQL $version" >&2
pg_ctlcluster --skip-systemctl-redirect "$version" main start || true
for _ in $(seq 1 60); do
  if ready; then exit 0; fi
  sleep 0.5
done
echo "ensure-postgres: PostgreSQL did not come up at 127.0.0.1:5432; see /var/log/postgresql/" >&2
exit 1
