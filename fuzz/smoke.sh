#!/usr/bin/env bash
# Smoke run of every fuzz target, for CI: builds them all, replays each target's committed corpus
# (the seeds and every crash input kept as a regression, fuzz/corpus/<target>/), then fuzzes each
# for a bounded time. Exits non-zero if any target crashes or fails a property.
#
#   FUZZ_SECONDS      seconds of fuzzing per target (default 15)
#   FUZZ_FLAGS        cargo-fuzz build flags (default: optimised, debug assertions and overflow
#                     checks on, no sanitizer: the parsers are safe Rust, and the bounds checks
#                     that `get_unchecked` skips run under debug assertions)
#   FUZZ_TARGET_DIR   cargo target directory (default fuzz/target)
#
# Needs cargo-fuzz (`cargo install cargo-fuzz --locked`) and a C++ compiler for libFuzzer. On a
# stable toolchain the nightly flags cargo-fuzz uses are allowed by RUSTC_BOOTSTRAP=1.
set -euo pipefail
cd "$(dirname "$0")"

if ! command -v cargo-fuzz >/dev/null; then
  echo "fuzz: cargo-fuzz is not installed (cargo install cargo-fuzz --locked)" >&2
  exit 1
fi
export RUSTC_BOOTSTRAP=1
seconds="${FUZZ_SECONDS:-15}"
read -r -a flags <<<"${FUZZ_FLAGS:--O -a -s none}"
if [ -n "${FUZZ_TARGET_DIR:-}" ]; then
  flags+=(--target-dir "$FUZZ_TARGET_DIR")
fi

# libFuzzer options: a slow input (10 s) or memory blow-up is a failure too.
common=(-timeout=10 -rss_limit_mb=2048 -print_final_stats=0)

started=$(date +%s)
cargo fuzz build "${flags[@]}"
echo "fuzz: built all targets in $(($(date +%s) - started)) s"

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
failed=()
for target in $(cargo fuzz list); do
  extra=()
  # PGN inputs are games: longer inputs only slow the run down.
  if [ "$target" = pgn ]; then extra+=(-max_len=4096); fi
  t0=$(date +%s)
  # Every committed input, once (a kept crash fails here at once).
  if ! cargo fuzz run "${flags[@]}" "$target" "corpus/$target" -- \
    -runs=0 "${common[@]}" >"$scratch/$target.replay.log" 2>&1; then
    tail -n 40 "$scratch/$target.replay.log"
    failed+=("$target (corpus replay)")
    continue
  fi
  # Then new inputs, starting from the corpus; what they find goes to the scratch directory, not
  # into the repository.
  mkdir -p "$scratch/$target"
  if ! cargo fuzz run "${flags[@]}" "$target" "$scratch/$target" "corpus/$target" -- \
    -max_total_time="$seconds" "${common[@]}" "${extra[@]}" >"$scratch/$target.log" 2>&1; then
    tail -n 60 "$scratch/$target.log"
    failed+=("$target")
    continue
  fi
  echo "fuzz: $target ok ($(grep -o 'cov: [0-9]*' "$scratch/$target.log" | tail -n 1), $(($(date +%s) - t0)) s)"
done

echo "fuzz: smoke run took $(($(date +%s) - started)) s"
if [ "${#failed[@]}" -gt 0 ]; then
  echo "fuzz: FAILED: ${failed[*]}" >&2
  echo "fuzz: the failing inputs are in fuzz/artifacts/<target>/ (see fuzz/README.md)" >&2
  exit 1
fi
