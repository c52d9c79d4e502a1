"""The peer of `cargo bench --bench engine`: python-chess's `chess.engine` driving Stockfish.

Started by the bench as `python3 benches/peers/python_chess_engine.py STOCKFISH MOVETIME_MS`.
Prints `ready` once the engine's handshake is done, then answers each `search` line on stdin
with the wall time, in milliseconds, of one `engine.play(startpos, Limit(time=MOVETIME))`, the
same search the bench asks of chessd. `quit` (or end of input) ends it.
Needs python-chess (`pip install chess`).
"""

import sys
import time

import chess
import chess.engine


def main() -> None:
    path, movetime_ms = sys.argv[1], int(sys.argv[2])
    engine = chess.engine.SimpleEngine.popen_uci(path)
    engine.configure({"Hash": 16, "Threads": 1})
    board = chess.Board()
    limit = chess.engine.Limit(time=movetime_ms / 1000)
    engine.play(board, limit)  # warm up (network load, first allocation)
    print("ready", flush=True)
    for line in sys.stdin:
        if line.strip() != "search":
            break
        start = time.perf_counter()
        engine.play(board, limit)
        print(f"{(time.perf_counter() - start) * 1000:.4f}", flush=True)
    engine.quit()


if __name__ == "__main__":
    main()
