#!/usr/bin/env python3
"""The effective branching factor, measured: nodes(d) / nodes(d-1) between successive
`info depth` lines of `CHESSD engine`, over the bench positions of `chessd engine --bench`.

Usage: benches/tesla/ebf.py CHESSD [pvs|tesla] [DEPTH] [key=value setoption ...]

Prints, per depth step, the median ratio over the positions, and the geometric mean of the
ratios from depth 4 on (the shallow iterations are dominated by fixed costs).
"""
import math, statistics, subprocess, sys

FENS = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "2rq1rk1/pb1nbppp/1p2pn2/2pp4/2PP4/1PN1PN2/PB2BPPP/R2Q1RK1 w - - 0 11",
    "r1b2rk1/2q1bppp/p2ppn2/1p6/3BPP2/2N2B2/PPPQ2PP/R4RK1 w - - 0 14",
    "6k1/pp3ppp/4p3/8/1P1r4/P3R1P1/5P1P/6K1 w - - 0 30",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "8/5pk1/6p1/7p/7P/5KP1/8/8 w - - 0 50",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
]


def main():
    chessd = sys.argv[1]
    search = sys.argv[2] if len(sys.argv) > 2 else "pvs"
    depth = int(sys.argv[3]) if len(sys.argv) > 3 else 9
    extra = "".join(f"setoption name {kv.split('=')[0]} value {kv.split('=')[1]}\n"
                    for kv in sys.argv[4:])
    steps = {}
    for fen in FENS:
        script = (f"uci\nsetoption name Search value {search}\n{extra}position fen {fen}\n"
                  f"go depth {depth}\n")
        out = subprocess.run([chessd, "engine"], input=script, capture_output=True,
                             text=True, timeout=900).stdout
        by_depth = {}
        for line in out.splitlines():
            w = line.split()
            if w[:2] == ["info", "depth"]:
                by_depth[int(w[2])] = int(w[w.index("nodes") + 1])
        for d in sorted(by_depth):
            if d - 1 in by_depth and by_depth[d - 1] > 0:
                steps.setdefault(d, []).append(by_depth[d] / by_depth[d - 1])
    logs = []
    for d in sorted(steps):
        med = statistics.median(steps[d])
        print(f"depth {d - 1} -> {d}: median ratio {med:.2f} over {len(steps[d])} positions")
        if d >= 4:
            logs += [math.log(r) for r in steps[d]]
    if logs:
        print(f"{search}: EBF (geometric mean, depth 4 on) {math.exp(sum(logs) / len(logs)):.2f}")


if __name__ == "__main__":
    main()
