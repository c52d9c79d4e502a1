#!/usr/bin/env python3
"""Nodes and time to the right move on the shared mate puzzles, PVS against Tesla.

Usage: benches/tesla/tactics.py CHESSD PUZZLES.csv [NODES]

Each puzzle is searched by `CHESSD engine` (a fresh process per search, so no table is
shared) with `go nodes NODES` (default 1,000,000), once with `Search` pvs and once with
tesla. From the engine's `info` lines: the nodes and time of the first line from which on
the first move of the PV is always a mating key (the puzzle's `mating_first_moves_uci`),
and whether `bestmove` is one; then the nodes of the first line that also scores the mate
(`score mate N`, N at most the puzzle's), i.e. the move found *and proven*. Prints a line per puzzle and the medians (unsolved puzzles
count as the node budget in the medians).
"""
import csv, statistics, subprocess, sys


def run(chessd, fen, search, nodes):
    script = (f"uci\nsetoption name Search value {search}\nposition fen {fen}\n"
              f"go nodes {nodes}\n")
    out = subprocess.run([chessd, "engine"], input=script, capture_output=True,
                         text=True, timeout=600).stdout
    infos, best = [], None
    for line in out.splitlines():
        w = line.split()
        if w[:2] == ["info", "depth"] and "pv" in w:
            i = w.index("score")
            mate = int(w[i + 2]) if w[i + 1] == "mate" else None
            infos.append((int(w[w.index("nodes") + 1]), int(w[w.index("time") + 1]),
                          w[w.index("pv") + 1], mate))
        elif w and w[0] == "bestmove":
            best = w[1]
    return infos, best


def first_stable(infos, keys):
    found = None
    for nodes, ms, mv, _ in infos:
        if mv in keys:
            if found is None:
                found = (nodes, ms)
        else:
            found = None
    return found


def first_proof(infos, keys, mate):
    for nodes, ms, mv, m in infos:
        if mv in keys and m is not None and 0 < m <= mate:
            return (nodes, ms)
    return None


def main():
    chessd, path = sys.argv[1], sys.argv[2]
    budget = int(sys.argv[3]) if len(sys.argv) > 3 else 1_000_000
    rows = list(csv.DictReader(open(path)))
    table = {"pvs": [], "tesla": []}
    proofs = {"pvs": [], "tesla": []}
    for row in rows:
        keys = set(row["mating_first_moves_uci"].split())
        line = [row["puzzle_id"], f"m{row['mate']}"]
        for search in ("pvs", "tesla"):
            infos, best = run(chessd, row["fen"], search, budget)
            hit = first_stable(infos, keys) if best in keys else None
            table[search].append(hit)
            proof = first_proof(infos, keys, int(row["mate"])) if best in keys else None
            proofs[search].append(proof)
            line.append(f"{search} " + (f"{hit[0]:>8} nodes {hit[1]:>5} ms" if hit else "   unsolved"))
            line.append("proof " + (f"{proof[0]:>8} nodes" if proof else "    none"))
        print("  ".join(line), flush=True)
    for search, hits in table.items():
        solved = [h for h in hits if h]
        nodes = statistics.median([h[0] if h else budget for h in hits])
        ms = statistics.median([h[1] for h in solved]) if solved else float("nan")
        print(f"{search}: solved {len(solved)}/{len(hits)}, median nodes to the move {nodes:.0f} "
              f"(unsolved = {budget}), median ms of the solved {ms:.0f}")
        proven = proofs[search]
        pn = statistics.median([p[0] if p else budget for p in proven])
        print(f"{search}: mate proven {sum(1 for p in proven if p)}/{len(proven)}, median nodes "
              f"to the proof {pn:.0f} (none = {budget})")


main()
