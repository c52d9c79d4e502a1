-- wrk: the same request as a move, for a game that does not exist (answered 404 at once):
-- what a POST with a JSON body and a bearer costs the server before any game work.
--   wrk -t2 -c64 -d5s -s benches/wrk/refused_move.lua \
--     http://127.0.0.1:8080/v1/games/00000000-0000-4000-8000-000000000000/moves
wrk.method = "POST"
wrk.body = '{"uci":"e2e4"}'
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer 0123456789abcdef0123456789abcdef"
