#!/usr/bin/env bash
# The deploy/ example on one machine, on loopback ports: a scratch PostgreSQL, three chessd nodes
# (deploy/node.toml) and nginx (deploy/nginx/chessd.conf filled in). Needs Debian's postgresql
# and nginx-light packages. Prints nginx's URL; Ctrl-C stops everything and deletes the scratch
# directory.
#
#   deploy/run-local.sh            # nginx on 127.0.0.1:8080 (or a free port when 8080 is taken)
#   LISTEN=127.0.0.1:9000 deploy/run-local.sh
#
# Environment: LISTEN (nginx's address), CHESSD_BIN (the chessd binary; default: built here with
# `cargo build --bin chessd`; CHESSD_BIN=target/release/chessd for a release build), RUST_LOG (the
# nodes' log level, default info), KEEP=1 (keep the scratch directory and its logs).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"

NGINX="${NGINX:-/usr/sbin/nginx}"
PG_BIN="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)"
[ -x "$NGINX" ] || { echo "nginx is not installed (apt-get install nginx-light)" >&2; exit 1; }
[ -n "$PG_BIN" ] && [ -x "$PG_BIN/initdb" ] ||
  { echo "PostgreSQL is not installed (apt-get install postgresql)" >&2; exit 1; }

if [ -z "${CHESSD_BIN:-}" ]; then
  cargo build --quiet --bin chessd
  CHESSD_BIN="$ROOT/target/debug/chessd"
fi

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
port_taken() {
  python3 - "$1" <<'PY'
import socket, sys
host, port = sys.argv[1].rsplit(":", 1)
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as nginx binds
try:
    s.bind((host, int(port)))
except OSError:
    sys.exit(0)
sys.exit(1)
PY
}

WORK="$(mktemp -d /tmp/chessd-cluster.XXXXXX)"
# As root, nginx's workers run as nobody and PostgreSQL as postgres: both must reach in here.
chmod 0755 "$WORK"
# The nodes and nginx run in sessions of their own (setsid), so the terminal's Ctrl-C reaches
# only this script, which then stops them in order (SIGTERM: the nodes shut down gracefully).
PIDS=()
PG_DATA="$WORK/pg/data"

# PostgreSQL refuses to run as root: then it runs as the postgres user the package creates.
as_pg() {
  if [ "$(id -u)" = "0" ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

cleanup() {
  trap - EXIT INT TERM
  echo
  echo "stopping…"
  for pid in "${PIDS[@]}"; do
    kill -TERM "$pid" 2>/dev/null || true
  done
  for pid in "${PIDS[@]}"; do
    wait "$pid" 2>/dev/null || true
  done
  if [ -f "$PG_DATA/postmaster.pid" ]; then
    as_pg "$PG_BIN/pg_ctl" -D "$PG_DATA" -m fast -w stop >/dev/null 2>&1 || true
  fi
  if [ "${KEEP:-}" = "1" ]; then
    echo "kept $WORK"
  else
    rm -rf "$WORK"
  fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ---- PostgreSQL ----
mkdir -p "$WORK/pg"
if [ "$(id -u)" = "0" ]; then
  chown postgres:postgres "$WORK/pg"
fi
PG_PORT="$(free_port)"
as_pg "$PG_BIN/initdb" -D "$PG_DATA" -U chessd --auth=trust -E UTF8 >"$WORK/pg/initdb.log"
as_pg "$PG_BIN/pg_ctl" -D "$PG_DATA" -l "$WORK/pg/log" -w \
  -o "-p $PG_PORT -k $WORK/pg -c listen_addresses=127.0.0.1" start >/dev/null
STORE_URL="postgres://chessd@127.0.0.1:$PG_PORT/postgres"
echo "PostgreSQL  $STORE_URL (log: $WORK/pg/log)"

# ---- three chessd nodes ----
NODES=()
for i in 1 2 3; do
  port="$(free_port)"
  out="$WORK/node$i.out"
  CHESSD_STORE__URL="$STORE_URL" \
  CHESSD_CLUSTER__ADVERTISE_URL="http://127.0.0.1:$port" \
  RUST_LOG="${RUST_LOG:-info}" \
    setsid "$CHESSD_BIN" serve --bind "127.0.0.1:$port" --config "$ROOT/deploy/node.toml" \
    >"$out" 2>"$WORK/node$i.log" &
  pid=$!
  PIDS+=("$pid")
  for _ in $(seq 1 100); do
    grep -q '^chessd listening on ' "$out" 2>/dev/null && break
    kill -0 "$pid" 2>/dev/null || { cat "$WORK/node$i.log" >&2; echo "node $i did not start" >&2; exit 1; }
    sleep 0.1
  done
  grep -q '^chessd listening on ' "$out" || { echo "node $i printed no address" >&2; exit 1; }
  NODES+=("127.0.0.1:$port")
  echo "node $i      http://127.0.0.1:$port (log: $WORK/node$i.log)"
done

# ---- nginx ----
LISTEN="${LISTEN:-127.0.0.1:8080}"
if port_taken "$LISTEN"; then
  taken="$LISTEN"
  LISTEN="127.0.0.1:$(free_port)"
  echo "($taken is taken: nginx listens on $LISTEN)"
fi
NGX="$WORK/nginx"
mkdir -p "$NGX/logs" "$NGX/tmp"
chmod 0755 "$NGX" "$NGX/logs" "$NGX/tmp"
sed -e "s|@LISTEN@|$LISTEN|g" \
    -e "s|@NODE1@|${NODES[0]}|g" -e "s|@NODE2@|${NODES[1]}|g" -e "s|@NODE3@|${NODES[2]}|g" \
    -e "s|@PREFIX@|$NGX|g" \
    deploy/nginx/chessd.conf >"$NGX/nginx.conf"
"$NGINX" -t -q -p "$NGX" -c "$NGX/nginx.conf" -g 'daemon off;'
setsid "$NGINX" -p "$NGX" -c "$NGX/nginx.conf" -g 'daemon off;' 2>"$NGX/logs/error.log" &
PIDS+=("$!")
for _ in $(seq 1 100); do
  python3 -c "import urllib.request, sys; urllib.request.urlopen('http://$LISTEN/health', timeout=1)" \
    2>/dev/null && break
  sleep 0.1
done

cat <<EOF

chessd cluster behind nginx: http://$LISTEN
  curl http://$LISTEN/health
  curl http://$LISTEN/v1/cluster
  curl -X POST -H 'Content-Type: application/json' -d '{}' http://$LISTEN/v1/games
nginx's logs: $NGX/logs/access.log (which node answered) and $NGX/logs/error.log
Kill a node to see the others take its games: kill -9 <pid> (nodes: ${PIDS[*]:0:3})
Ctrl-C stops everything.
EOF

# Until Ctrl-C or until nginx exits (a node may be killed to see a failover: the others go on).
while true; do
  for pid in "${PIDS[@]:3}"; do
    kill -0 "$pid" 2>/dev/null || { echo "nginx exited (see $NGX/logs/error.log)" >&2; exit 1; }
  done
  sleep 1
done
