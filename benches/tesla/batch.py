#!/usr/bin/env python3
"""What the batch size costs: Tesla's nodes per second and the bench positions' best moves
at a fixed node budget, for several `Tesla Batch` values.

Usage: benches/tesla/batch.py CHESSD [NODES] [BATCH ...]
"""
import statistics, subprocess, sys

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from ebf import FENS  # noqa: E402


def main():
    chessd = sys.argv[1]
    nodes = int(sys.argv[2]) if len(sys.argv) > 2 else 100_000
    batches = [int(b) for b in sys.argv[3:]] or [1, 4, 8, 16, 32, 64]
    for batch in batches:
        rates, depths, moves = [], [], []
        for fen in FENS:
            script = (f"uci\nsetoption name Search value tesla\nsetoption name Tesla Batch value "
                      f"{batch}\nposition fen {fen}\ngo nodes {nodes}\n")
            out = subprocess.run([chessd, "engine"], input=script, capture_output=True,
                                 text=True, timeout=600).stdout.splitlines()
            last = [l for l in out if l.startswith("info depth")][-1].split()
            rates.append(int(last[last.index("nps") + 1]))
            depths.append(int(last[2]))
            moves.append([l for l in out if l.startswith("bestmove")][0].split()[1])
        print(f"batch {batch:>3}: median {statistics.median(rates):>9.0f} nps, median depth "
              f"{statistics.median(depths)}, best moves {' '.join(moves)}")


main()
