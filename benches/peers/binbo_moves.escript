#!/usr/bin/env escript
%%! +sbwt none
%% The peer of `chessd loadtest handle`: Binbo's own API (binbo:move/2, in one Erlang VM, no
%% HTTP) playing the same games flat out, so that the two move rates are measured on the same
%% moves in the same run.
%%
%% Usage: escript benches/peers/binbo_moves.escript EBIN GAMES_FILE GAMES SECONDS
%%   EBIN        a directory holding Binbo's and uef's compiled modules and .app files
%%               (docs/performance.md says how to build them from their public repositories)
%%   GAMES_FILE  one game a line, its moves in UCI separated by spaces, as written by
%%               `chessd loadtest handle --games-file FILE`
%%   GAMES       games played at once, each by its own process with its own Binbo server
%%   SECONDS     how long to play
%% Prints one JSON object: {"peer":"binbo","games":G,"seconds":S,"moves":M,"moves_per_sec":R}.
%% Each process replays its game from the start, again and again, until the time is up; every
%% move is checked to be accepted.

main([Ebin, File, GamesArg, SecondsArg]) ->
    true = code:add_patha(Ebin),
    {ok, _} = application:ensure_all_started(binbo),
    Lines = read_games(File),
    Games = list_to_integer(GamesArg),
    Seconds = list_to_float_or_int(SecondsArg),
    Counter = counters:new(1, [write_concurrency]),
    Parent = self(),
    Go = make_ref(),
    Pids = [spawn_link(fun() -> player(Parent, Go, lists:nth(1 + (I rem length(Lines)), Lines),
                                      Counter) end)
            || I <- lists:seq(0, Games - 1)],
    [receive {ready, P} -> ok end || P <- Pids],
    Start = erlang:monotonic_time(microsecond),
    [P ! Go || P <- Pids],
    timer:sleep(round(Seconds * 1000)),
    Moves = counters:get(Counter, 1),
    Elapsed = (erlang:monotonic_time(microsecond) - Start) / 1.0e6,
    io:format("{\"peer\":\"binbo\",\"games\":~b,\"seconds\":~.3f,\"moves\":~b,"
              "\"moves_per_sec\":~.1f}~n", [Games, Elapsed, Moves, Moves / Elapsed]),
    halt(0);
main(_) ->
    io:format(standard_error, "usage: binbo_moves.escript EBIN GAMES_FILE GAMES SECONDS~n", []),
    halt(2).

list_to_float_or_int(S) ->
    try list_to_float(S) catch error:badarg -> list_to_integer(S) end.

read_games(File) ->
    {ok, Bin} = file:read_file(File),
    [[M || M <- binary:split(Line, <<" ">>, [global, trim_all])]
     || Line <- binary:split(Bin, <<"\n">>, [global, trim_all])].

%% One game's player: its own Binbo server, the game replayed until the parent stops the VM.
player(Parent, Go, Moves, Counter) ->
    {ok, Pid} = binbo:new_server(),
    Parent ! {ready, self()},
    receive Go -> ok end,
    replay(Pid, Moves, Counter).

replay(Pid, Moves, Counter) ->
    {ok, continue} = binbo:new_game(Pid),
    lists:foreach(fun(M) ->
                          {ok, _} = binbo:move(Pid, M),
                          counters:add(Counter, 1, 1)
                  end, Moves),
    replay(Pid, Moves, Counter).
