#!/usr/bin/env python3
"""Creates games on a running chessd for `moves.lua` and writes them as a Lua file.

    python3 benches/wrk/make_games.py http://127.0.0.1:8080 4000 /tmp/games.lua

Each game will be played along the same legal 60-ply game (a Ruy Lopez), each request by the
seat to move with its own secret. The server must allow that many games from one client
(`CHESSD_QUOTAS__GAMES_PER_MINUTE=0`, `CHESSD_QUOTAS__MAX_ONGOING_GAMES=1000000000`, as
`chessd loadtest` sets them).
"""
import json
import sys
import urllib.request

MOVES = (
    "e2e4 e7e5 g1f3 b8c6 f1b5 a7a6 b5a4 g8f6 e1g1 f8e7 f1e1 b7b5 a4b3 d7d6 c2c3 e8g8 h2h3 c6b8 "
    "d2d4 b8d7 c3c4 c7c6 c4b5 a6b5 b1c3 c8b7 c1g5 b5b4 c3b1 h7h6 g5h4 c6c5 d4e5 f6e4 h4e7 d8e7 "
    "e5d6 e7f6 b1d2 e4d6 d2c4 d6c4 b3c4 d7b6 d1e2 b6c4 e2c4 f8e8 a1d1 e8e1 d1e1 b7f3 g2f3 f6f3 "
    "c4f1 a8d8 e1e4 d8d1 e4e1 d1e1"
).split()


def main(base: str, count: int, out: str) -> None:
    games = []
    for _ in range(count):
        request = urllib.request.Request(
            base + "/v1/games", data=b"{}", headers={"content-type": "application/json"}
        )
        game = json.load(urllib.request.urlopen(request))
        games.append((game["id"], game["secrets"]["white"], game["secrets"]["black"]))
    with open(out, "w") as f:
        f.write("games = {" + ",".join('{"%s","%s","%s"}' % g for g in games) + "}\n")
        f.write("moves = {" + ",".join('"%s"' % m for m in MOVES) + "}\n")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), sys.argv[3])
