#!/usr/bin/env python3
"""Generates `mates_2_8.csv`: forced mates in 2 to 8 moves from engine games.

Provenance of every row, and how to make the set again (the numbers will differ: Stockfish's
"Skill Level" picks its weaker moves at random):

1. Games. Game `g` (0, 1, 2, ...) starts from the standard position with 4 random legal plies
   (Python's `random.Random(g)`), then Stockfish plays both sides, one side at full strength
   (50,000 nodes a move) and the other weakened (`Skill Level` 0 to 6 and 5,000 nodes a move),
   colours and level drawn from the same generator, until the game ends or 240 plies.
2. Analysis. Only games that end in checkmate are used. Going back from the mate, the
   positions where the winner is to move (at most 20 of them) are analysed with Stockfish
   (`go depth 30`, at most 1,000,000 nodes, one thread, 16 MiB hash, `ucinewgame` first); the
   walk stops at the second position without a mate score for the winner. A position whose
   score is a mate in 2 to 8 for the side to move is kept with that length: the `mate` column
   is Stockfish's claim, not chessd's, so the solver is checked against an independent source
   (chessd must prove a mate of at most this length; where it proves a shorter one, Stockfish
   missed it).
3. Selection. At most one position per game and mate length, and at most 2 per game, so
   that no game dominates; of a game's mate lengths, the two with the fewest rows so far in
   its set are taken (short mates are far more common than long ones). Games with an even
   number form the `report` set, games with an odd number the `dev` set: work on the solver
   may look at `dev` only; the figures reported come from `report`. The selection balances
   the counts of each process separately, so two processes over separate game ranges
   each fill every length.

Columns: id, set, mate, fen, game, ply, stockfish_pv (the deep analysis's line, UCI).

Deep mode (`mates_9_20.csv`, for the find mode): with a fourth argument `deep`, the lengths
kept are 9 to 20, put in the buckets of the bench (`bucket` column: 10 for 9-10, 12 for 11-12,
15 for 13-15, 20 for 16-20; a position is asked `go mate BUCKET`, a mate in at most that many).
The walk back starts at the winner's 7th-last move (the last six are nearly always mates in 8
or fewer), goes back at most 30 of the winner's moves and stops at the second position without a
mate score; each game gives at most one row per bucket (no cap of 2 a game: deep mates are rare,
so one game can give a row to each bucket; rows of one game are correlated, say so when
reporting). Everything else (games, analysis, report/dev by game parity) is as above.

Needs python-chess (`pip install chess`) and Stockfish (`/usr/games/stockfish` or $STOCKFISH).
Usage: generate_mates.py FIRST_GAME END_GAME OUT.csv [deep] (games FIRST_GAME..END_GAME-1; CSVs of
separate ranges can be concatenated, header once).
"""

import csv
import os
import random
import sys

import chess
import chess.engine

STOCKFISH = os.environ.get("STOCKFISH", "/usr/games/stockfish")
MIN_MATE, MAX_MATE = 2, 8
DEEP = len(sys.argv) > 4 and sys.argv[4] == "deep"
if DEEP:
    MIN_MATE, MAX_MATE = 9, 20
BUCKETS = [(9, 10), (11, 12), (13, 15), (16, 20)]


def bucket(mate):
    """The bench's N for a mate length: itself, or in deep mode the top of its bucket."""
    if not DEEP:
        return mate
    return next(hi for lo, hi in BUCKETS if lo <= mate <= hi)


def play_game(g, engine):
    rng = random.Random(g)
    board = chess.Board()
    for _ in range(4):
        board.push(rng.choice(list(board.legal_moves)))
    weak_colour = rng.choice([chess.WHITE, chess.BLACK])
    weak_level = rng.randint(0, 6)
    positions = [board.copy(stack=False)]
    while not board.is_game_over(claim_draw=True) and board.ply() < 240:
        if board.turn == weak_colour:
            engine.configure({"Skill Level": weak_level})
            limit = chess.engine.Limit(nodes=5_000)
        else:
            engine.configure({"Skill Level": 20})
            limit = chess.engine.Limit(nodes=50_000)
        result = engine.play(board, limit, game=g)
        board.push(result.move)
        positions.append(board.copy(stack=False))
    return positions


def mate_for_mover(info):
    score = info.get("score")
    if score is None:
        return None
    mate = score.relative.mate()
    return mate if mate is not None and mate > 0 else None


def main():
    first, end, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    engine = chess.engine.SimpleEngine.popen_uci(STOCKFISH)
    engine.configure({"Threads": 1, "Hash": 16})
    rows = []
    seen = set()
    counts = {}
    for g in range(first, end):
        positions = play_game(g, engine)
        engine.configure({"Skill Level": 20})
        per_game = {}
        last = positions[-1]
        if last.is_checkmate():
            misses = 0
            # The winner moved last; its positions are every other one before that.
            skip, walk = (12, 62) if DEEP else (0, 42)
            for ply in range(len(positions) - 2 - skip, max(-1, len(positions) - walk), -2):
                board = positions[ply]
                deep = engine.analyse(
                    board, chess.engine.Limit(depth=30, nodes=1_000_000), game=(g, ply)
                )
                dm = mate_for_mover(deep)
                if dm is None:
                    misses += 1
                    if misses == 2:
                        break
                    continue
                key = board.epd()
                if MIN_MATE <= dm <= MAX_MATE and bucket(dm) not in per_game and key not in seen:
                    pv = " ".join(mv.uci() for mv in deep.get("pv", []))
                    per_game[bucket(dm)] = (board.fen(), ply, pv, dm)
                    seen.add(key)
        which = "report" if g % 2 == 0 else "dev"
        chosen = sorted(per_game.items(), key=lambda kv: (counts.get((which, kv[0]), 0), -kv[0]))
        for b, (fen, ply, pv, dm) in sorted(chosen if DEEP else chosen[:2]):
            counts[(which, b)] = counts.get((which, b), 0) + 1
            rows.append(
                {
                    "set": which,
                    "bucket": b,
                    "mate": dm,
                    "fen": fen,
                    "game": g,
                    "ply": ply,
                    "stockfish_pv": pv,
                }
            )
        print(f"game {g}: {len(positions) - 1} plies, {len(rows)} rows {sorted(counts.items())}",
              file=sys.stderr, flush=True)
        rows.sort(key=lambda r: (r["set"] != "report", r["bucket"], r["game"]))
        write(out, rows)
    engine.quit()


def write(out, rows):
    """Writes the rows so far (after every game, so that a stopped run keeps its work)."""
    with open(out + ".tmp", "w", newline="") as f:
        w = csv.DictWriter(
            f, fieldnames=["id", "set"] + (["bucket"] if DEEP else []) +
            ["mate", "fen", "game", "ply", "stockfish_pv"]
        )
        w.writeheader()
        for r in rows:
            r = {k: v for k, v in r.items() if DEEP or k != "bucket"}
            w.writerow({"id": f"g{r['game']:04}p{r['ply']:03}", **r})
    os.replace(out + ".tmp", out)


if __name__ == "__main__":
    main()
