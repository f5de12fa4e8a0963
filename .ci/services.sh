#!/usr/bin/env bash
# Starts the database servers the tests use when they are not already answering on loopback.
set -euo pipefail

up() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

wait_for() {
  local port=$1 name=$2
  for _ in $(seq 1 60); do
    if up "$port"; then echo "$name is up on $port"; return 0; fi
    sleep 1
  done
  echo "$name did not come up on port $port" >&2
  return 1
}

if ! up 5432; then
  echo "starting PostgreSQL"
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n1)" main start
fi
wait_for 5432 PostgreSQL

if ! up 3306; then
  echo "starting MariaDB"
  start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd
fi
wait_for 3306 MariaDB
