-- wrk: moves through POST /v1/games/{id}/moves, each by the seat to move.
--   wrk -t2 -c64 -d5s -s benches/wrk/moves.lua http://127.0.0.1:8080 -- /tmp/games.lua
-- The games file comes from make_games.py. Each wrk thread plays its half of the games in
-- turn, a ply of every game before the next ply of any: with far more games than
-- connections, a game's next move is sent once its last one was answered, almost always (a
-- move sent while its game's last move still waits is refused, `not_your_turn` or
-- `illegal_move`: about 15 of 150,000 requests, which wrk counts as non-2xx).
local counter = 0
local nthreads = 2

next_thread = 0
setup = function(thread)
  thread:set("tid", next_thread)
  next_thread = next_thread + 1
end

init = function(args)
  dofile(args[1])
end

request = function()
  local share = math.floor(#games / nthreads)
  local game = games[(counter % share) + 1 + tid * share]
  local ply = math.min(math.floor(counter / share) + 1, #moves)
  counter = counter + 1
  local secret = game[2]
  if ply % 2 == 0 then secret = game[3] end
  return wrk.format("POST", "/v1/games/" .. game[1] .. "/moves",
    { ["Content-Type"] = "application/json", ["Authorization"] = "Bearer " .. secret },
    '{"uci":"' .. moves[ply] .. '"}')
end
