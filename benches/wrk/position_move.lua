-- wrk: POST /v1/position/move, a move applied to a FEN with no game (no actor, no store).
--   wrk -t2 -c64 -d5s -s benches/wrk/position_move.lua http://127.0.0.1:8080/v1/position/move
wrk.method = "POST"
wrk.body = '{"fen":"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1","move":"e2e4"}'
wrk.headers["Content-Type"] = "application/json"
