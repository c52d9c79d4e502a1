#!/usr/bin/env python3
"""Picks the find-mode bench positions from vondele/matetrack's `matetrack.epd`.

Usage: pick_matetrack.py MATETRACK_EPD OUT_CSV

Rule: for each N in 4, 6, 8, 10, 12, 15, 20, the lines of `matetrack.epd` whose fastest known
mate is exactly `bm #N` (N > 0: the side to move mates; its lines with a negative N, the side
to move being mated, are skipped), whose FEN python-chess accepts as a valid position
(`Board.is_valid()`), that are not already over, and that are not a duplicate FEN. Of these,
40 per N are drawn with `random.Random(30 * 1000 + N).sample`, put back in file order, and
dealt alternately to the `dev` set (the 1st, 3rd, ...) and the `report` set (2nd, 4th, ...).
`n` is the N a solver is asked for (a mate in at most N); `line` is the 1-based line number in
`matetrack.epd`, so every row can be traced to its source.
"""

import csv
import random
import sys

import chess

NS = [4, 6, 8, 10, 12, 15, 20]
PER_N = 40


def main() -> None:
    src, out = sys.argv[1], sys.argv[2]
    by_n: dict[int, list[tuple[int, str]]] = {n: [] for n in NS}
    seen: set[str] = set()
    with open(src, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            line = line.strip()
            if " bm #" not in line:
                continue
            fen4, rest = line.split(" bm #", 1)
            n = int(rest.split(";", 1)[0])
            if n not in by_n:
                continue
            fen = fen4.strip() + " 0 1"
            board = chess.Board(fen)
            if not board.is_valid() or board.is_game_over() or fen in seen:
                continue
            seen.add(fen)
            by_n[n].append((lineno, fen))
    rows = []
    for n in NS:
        picked = sorted(random.Random(30 * 1000 + n).sample(by_n[n], PER_N))
        for i, (lineno, fen) in enumerate(picked):
            rows.append(
                {
                    "id": f"mt{lineno:05d}",
                    "set": "dev" if i % 2 == 0 else "report",
                    "n": n,
                    "fen": fen,
                    "line": lineno,
                }
            )
        print(f"#{n}: {len(by_n[n])} eligible, {PER_N} picked", file=sys.stderr)
    with open(out, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=["id", "set", "n", "fen", "line"], lineterminator="\n")
        w.writeheader()
        w.writerows(rows)


if __name__ == "__main__":
    main()
