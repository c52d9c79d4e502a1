#!/usr/bin/env bash
# Runs schemathesis against a real chessd: builds the server, starts it on a free loopback port
# with tests/schemathesis/chessd.toml (cheap jobs, small engines), runs every check and the
# stateful phase (driven by the document's OpenAPI links) for a bounded time, stops the server and
# exits non-zero on any failure.
#
# Environment: ST (the schemathesis command, default `st`), ST_MAX_TIME (seconds schemathesis
# may spend, default 300), ST_SEED (a seed to replay a run), ST_REPORT_DIR (where reports go,
# default target/schemathesis).
set -euo pipefail
cd "$(dirname "$0")/../.."

ST="${ST:-st}"
MAX_TIME="${ST_MAX_TIME:-300}"
REPORT_DIR="${ST_REPORT_DIR:-target/schemathesis}"
mkdir -p "$REPORT_DIR"

cargo build --quiet --bin chessd
# The build output is in CARGO_TARGET_DIR when it is set.
BIN="${CARGO_TARGET_DIR:-$PWD/target}/debug/chessd"

LOG="$REPORT_DIR/chessd.log"
ADDR_FILE="$REPORT_DIR/chessd.out"
# A fresh store for each run (the default, SQLite), kept with the report.
rm -f "$REPORT_DIR"/chessd.sqlite*
# And no address of an earlier run: the loop below waits for this run's.
rm -f "$ADDR_FILE"
CHESSD_STORE__URL="sqlite://$REPORT_DIR/chessd.sqlite" \
RUST_LOG=warn "$BIN" serve --bind 127.0.0.1:0 --config tests/schemathesis/chessd.toml \
  >"$ADDR_FILE" 2>"$LOG" &
SERVER_PID=$!
stop_server() {
  kill -TERM "$SERVER_PID" 2>/dev/null || true
  wait "$SERVER_PID" 2>/dev/null || true
}
trap stop_server EXIT

BASE=""
for _ in $(seq 1 100); do
  BASE="$(sed -n 's/^chessd listening on //p' "$ADDR_FILE")"
  [ -n "$BASE" ] && break
  kill -0 "$SERVER_PID" 2>/dev/null || { cat "$LOG" >&2; echo "chessd did not start" >&2; exit 1; }
  sleep 0.1
done
[ -n "$BASE" ] || { echo "chessd printed no address" >&2; exit 1; }
echo "chessd at $BASE (log: $LOG)"

SEED_ARGS=()
[ -n "${ST_SEED:-}" ] && SEED_ARGS=(--seed "$ST_SEED")

rm -f "$REPORT_DIR"/junit-*.xml
status=0
# One worker: with two, Python 3.11's ast module (parsing sources for hypothesis's lambda
# descriptions in both threads at once) fails now and then with "AST constructor recursion depth
# mismatch", an error of the tool, not of chessd.
"$ST" --config-file tests/schemathesis/schemathesis.toml run "$BASE/openapi.json" \
  --max-time "$MAX_TIME" \
  --workers 1 \
  --report junit --report-dir "$REPORT_DIR" \
  "${SEED_ARGS[@]}" || status=$?

if ! kill -0 "$SERVER_PID" 2>/dev/null; then
  echo "chessd died during the run" >&2
  cat "$LOG" >&2
  status=1
fi
if grep -q "panicked" "$LOG"; then
  echo "chessd panicked during the run:" >&2
  grep -A3 "panicked" "$LOG" >&2
  status=1
fi
# One plain closing line: the operations tested (the JUnit report's test cases), passed and failed.
python3 - "$REPORT_DIR" "$status" <<'PY'
import glob, sys
import xml.etree.ElementTree as ET
reports = glob.glob(f"{sys.argv[1]}/junit-*.xml")
tests = failed = 0
for report in reports:
    for suite in ET.parse(report).getroot().iter("testsuite"):
        tests += int(suite.get("tests", 0))
        failed += int(suite.get("failures", 0)) + int(suite.get("errors", 0))
if not reports or sys.argv[2] != "0":
    failed = max(failed, 1)
print(f"schemathesis: {tests - failed} passed, {failed} failed")
PY
exit "$status"
