//! The built-in engine's UCI loop (`chessd engine`): commands are read line by line on the
//! calling thread, searches run on a worker thread that owns the [`Searcher`], so that
//! `isready`, `stop` and `quit` are answered at once while the engine thinks.
//!
//! Choices where UCI leaves room:
//! - A bare `go` (no limit at all) thinks for [`DEFAULT_MOVETIME`] (one second), so that a
//!   client that forgets the limits still gets a move; `go infinite` searches until `stop`.
//! - `go infinite` and `go ponder` print `bestmove` only after `stop` (or `ponderhit`, which
//!   ends the ponder search at once: the engine does not declare `Ponder`).
//! - `go` while a search runs stops that search (it prints its `bestmove`) and starts the new
//!   one.
//! - No legal move: `bestmove 0000`.
//! - A `position` with a bad FEN keeps the previous position (FENs are checked in strict
//!   mode: positions that cannot arise in play are refused); moves are applied up to the first
//!   illegal one. Both are reported on stderr, as are unknown commands and options
//!   (otherwise ignored, as UCI says).
//! - Repetitions: the positions of the `moves` list are passed to the search, so it sees
//!   repetitions of the game.
//! - Two searches: `setoption name Search value pvs` (the default, [`Searcher`]) or `tesla`
//!   (the seed document's best-first search, [`TeslaSearcher`]), whose tunables are the
//!   `Tesla …` options (see [`tesla_options`]). Each keeps its own table of `Hash` MiB; the
//!   Tesla tree may take as much again.

use std::{
    fmt::Display,
    io::{BufRead, Write},
    sync::{
        atomic::{AtomicBool, Ordering},
        mpsc, Arc, Mutex,
    },
    thread,
    time::Duration,
};

use chessd_core::{
    search::{
        self,
        tesla::{TeslaParams, TeslaSearcher},
        Limits, Searcher, DEFAULT_HASH_MIB,
    },
    FenMode, Move, Position,
};

use chessd_protocol::uci::{
    BestMove, EngineLine, GoLimits, GuiCommand, IdLine, Info, OptionDecl, OptionType, Score,
    ScoreValue, StartPosition,
};

/// The engine's name in `id name`.
pub const ENGINE_NAME: &str = concat!("chessd ", env!("CARGO_PKG_VERSION"));

/// The author in `id author`.
pub const ENGINE_AUTHOR: &str = "the chessd authors";

/// How long a bare `go` thinks.
pub const DEFAULT_MOVETIME: Duration = Duration::from_secs(1);

/// The largest `Hash` (MiB).
pub const MAX_HASH_MIB: usize = 4096;

/// The default and largest `Move Overhead` (ms).
const DEFAULT_OVERHEAD_MS: u64 = 10;
const MAX_OVERHEAD_MS: u64 = 5000;

/// Lines to the GUI, shared by the reading thread and the search thread (one line per lock,
/// flushed at once).
struct Output<W: Write> {
    out: Mutex<W>,
}

impl<W: Write> Output<W> {
    /// Writes one line; false when the GUI has gone (the pipe is closed).
    fn send(&self, line: impl Display) -> bool {
        let Ok(mut out) = self.out.lock() else {
            return false;
        };
        writeln!(out, "{line}").and_then(|()| out.flush()).is_ok()
    }
}

/// Work for the search thread, done in order.
enum Job {
    /// Search and print `info` lines and `bestmove`.
    Search(Box<SearchJob>),
    /// `ucinewgame` / `Clear Hash`: forget the table and history.
    Clear,
    /// `setoption name Hash`: a new table of this many MiB.
    Resize(usize),
}

/// Which search a `go` runs (UCI option `Search`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SearchMode {
    /// The principal variation search.
    #[default]
    Pvs,
    /// The Tesla best-first search.
    Tesla,
}

/// One `go`.
struct SearchJob {
    mode: SearchMode,
    tesla: TeslaParams,
    pos: Position,
    history: Vec<u64>,
    limits: Limits,
    stop: Arc<AtomicBool>,
    /// Print `bestmove` only once `stop` is raised (`go infinite`, `go ponder`).
    wait_for_stop: bool,
}

/// The options a GUI can set.
#[derive(Clone, Copy, Debug)]
struct Options {
    move_overhead: Duration,
    chess960: bool,
    mode: SearchMode,
    tesla: TeslaParams,
}

/// The Tesla tunables as UCI spin options: name, default, min, max. Fractional parameters
/// are given in hundredths (`Tesla EBF` 300 is an EBF of 3.0), the CDF floor in thousandths.
pub fn tesla_options() -> [(&'static str, i64, i64, i64); 6] {
    let p = TeslaParams::default();
    [
        ("Tesla Error", p.error_cp.round() as i64, 1, 1000),
        ("Tesla EBF", (p.ebf * 100.0).round() as i64, 110, 2000),
        ("Tesla Batch", p.batch as i64, 1, 1024),
        ("Tesla CDF", (p.cdf_k * 100.0).round() as i64, 10, 2000),
        (
            "Tesla CDF Floor",
            (p.cdf_floor * 1000.0).round() as i64,
            0,
            500,
        ),
        (
            "Tesla Satisfaction",
            (p.satisfaction * 100.0).round() as i64,
            0,
            100_000,
        ),
    ]
}

/// Sets the Tesla parameter named `name` (a [`tesla_options`] name) to `value`.
fn set_tesla(params: &mut TeslaParams, name: &str, value: u64) {
    let v = value as f64;
    match name {
        "Tesla Error" => params.error_cp = v,
        "Tesla EBF" => params.ebf = v / 100.0,
        "Tesla Batch" => params.batch = (value as usize).max(1),
        "Tesla CDF" => params.cdf_k = v / 100.0,
        "Tesla CDF Floor" => params.cdf_floor = v / 1000.0,
        _ => params.satisfaction = v / 100.0,
    }
}

/// The options declared in the handshake.
fn declared_options() -> Vec<OptionDecl> {
    let spin = |name: &str, default: i64, min: i64, max: i64| OptionDecl {
        name: name.to_string(),
        kind: OptionType::Spin,
        default: Some(default.to_string()),
        min: Some(min),
        max: Some(max),
        vars: Vec::new(),
    };
    let mut options = vec![
        spin("Hash", DEFAULT_HASH_MIB as i64, 1, MAX_HASH_MIB as i64),
        spin(
            "Move Overhead",
            DEFAULT_OVERHEAD_MS as i64,
            0,
            MAX_OVERHEAD_MS as i64,
        ),
        OptionDecl {
            name: "Clear Hash".to_string(),
            kind: OptionType::Button,
            default: None,
            min: None,
            max: None,
            vars: Vec::new(),
        },
        OptionDecl {
            name: "UCI_Chess960".to_string(),
            kind: OptionType::Check,
            default: Some("false".to_string()),
            min: None,
            max: None,
            vars: Vec::new(),
        },
        OptionDecl {
            name: "Search".to_string(),
            kind: OptionType::Combo,
            default: Some("pvs".to_string()),
            min: None,
            max: None,
            vars: vec!["pvs".to_string(), "tesla".to_string()],
        },
    ];
    options.extend(
        tesla_options()
            .into_iter()
            .map(|(name, default, min, max)| spin(name, default, min, max)),
    );
    options
}

/// Runs the UCI loop on `input` and `output` until `quit` or the end of the input, with a
/// transposition table of `hash_mib` MiB to start with. Returns when the search thread has
/// finished (after its last `bestmove`).
pub fn run<R, W>(input: R, output: W, hash_mib: usize)
where
    R: BufRead,
    W: Write + Send + 'static,
{
    let out = Arc::new(Output {
        out: Mutex::new(output),
    });
    let (jobs, queue) = mpsc::channel::<Job>();
    let worker_out = Arc::clone(&out);
    let hash_mib = hash_mib.clamp(1, MAX_HASH_MIB);
    let worker = thread::Builder::new()
        .name("chessd-search".to_string())
        .spawn(move || search_thread(&queue, &worker_out, hash_mib));
    let worker = match worker {
        Ok(w) => w,
        Err(e) => {
            eprintln!("chessd engine: cannot start the search thread: {e}");
            return;
        }
    };
    let waker = worker.thread().clone();

    let mut options = Options {
        move_overhead: Duration::from_millis(DEFAULT_OVERHEAD_MS),
        chess960: false,
        mode: SearchMode::Pvs,
        tesla: TeslaParams::default(),
    };
    let mut game = GameState::new();
    let mut current_stop: Option<Arc<AtomicBool>> = None;
    // Whether the last search waits for `stop` (infinite or ponder).
    let mut current_waits = false;
    let mut quit = false;
    let stop_current = |current: &Option<Arc<AtomicBool>>| {
        if let Some(flag) = current {
            flag.store(true, Ordering::Relaxed);
            waker.unpark();
        }
    };

    for line in input.lines() {
        let Ok(line) = line else { break };
        let command = GuiCommand::parse(&line);
        let alive = match command {
            GuiCommand::Uci => {
                out.send(EngineLine::Id(IdLine::Name(ENGINE_NAME.to_string())))
                    && out.send(EngineLine::Id(IdLine::Author(ENGINE_AUTHOR.to_string())))
                    && declared_options()
                        .into_iter()
                        .all(|o| out.send(EngineLine::Option(o)))
                    && out.send(EngineLine::UciOk)
            }
            GuiCommand::IsReady => out.send(EngineLine::ReadyOk),
            GuiCommand::Debug(_) => true,
            GuiCommand::SetOption { name, value } => {
                set_option(&name, value.as_deref(), &mut options, &jobs, &mut game);
                true
            }
            GuiCommand::UciNewGame => {
                game = GameState::new();
                game.set_chess960(options.chess960);
                jobs.send(Job::Clear).is_ok()
            }
            GuiCommand::Position { start, moves } => {
                game.set_position(&start, &moves, options.chess960);
                true
            }
            GuiCommand::Go(go) => {
                stop_current(&current_stop);
                let stop = Arc::new(AtomicBool::new(false));
                current_stop = Some(Arc::clone(&stop));
                let job = SearchJob {
                    mode: options.mode,
                    tesla: options.tesla,
                    pos: game.pos,
                    history: game.history.clone(),
                    limits: limits(&go, &game.pos, options.move_overhead),
                    stop,
                    wait_for_stop: go.infinite || go.ponder,
                };
                current_waits = job.wait_for_stop;
                jobs.send(Job::Search(Box::new(job))).is_ok()
            }
            GuiCommand::Stop | GuiCommand::PonderHit => {
                stop_current(&current_stop);
                true
            }
            GuiCommand::Quit => {
                quit = true;
                break;
            }
            GuiCommand::Unknown(text) => {
                if !text.is_empty() {
                    eprintln!("chessd engine: unknown command ignored: {text}");
                }
                true
            }
        };
        if !alive {
            break;
        }
    }
    // `quit` ends the search at once; at the end of the input a bounded search finishes
    // (so that `echo "go depth 8" | chessd engine` prints its move), an infinite one stops.
    if quit || current_waits {
        stop_current(&current_stop);
    }
    drop(jobs);
    if worker.join().is_err() {
        eprintln!("chessd engine: the search thread panicked");
    }
}

/// The position to search and the keys of the positions before it.
struct GameState {
    pos: Position,
    history: Vec<u64>,
}

impl GameState {
    fn new() -> GameState {
        GameState {
            pos: Position::startpos(),
            history: Vec::new(),
        }
    }

    fn set_chess960(&mut self, on: bool) {
        self.pos.set_chess960(on);
    }

    /// `position …`: a bad FEN keeps the old position, moves stop at the first illegal one.
    fn set_position(&mut self, start: &StartPosition, moves: &[String], chess960: bool) {
        let mut pos = match start {
            StartPosition::StartPos => Position::startpos(),
            StartPosition::Fen(fen) => match Position::from_fen(fen, FenMode::Strict) {
                Ok(pos) => pos,
                Err(e) => {
                    eprintln!("chessd engine: invalid FEN '{fen}': {e}; position unchanged");
                    return;
                }
            },
        };
        pos.set_chess960(chess960 || pos.is_chess960());
        let mut history = Vec::with_capacity(moves.len());
        for text in moves {
            match pos.parse_uci(text) {
                Ok(mv) => {
                    history.push(pos.hash());
                    pos.play_unchecked(mv);
                }
                Err(e) => {
                    eprintln!("chessd engine: {e}; moves after it ignored");
                    break;
                }
            }
        }
        self.pos = pos;
        self.history = history;
    }
}

/// Applies `setoption` (unknown options and bad values are reported on stderr and ignored).
fn set_option(
    name: &str,
    value: Option<&str>,
    options: &mut Options,
    jobs: &mpsc::Sender<Job>,
    game: &mut GameState,
) {
    let decls = declared_options();
    let Some(decl) = decls.iter().find(|d| d.name.eq_ignore_ascii_case(name)) else {
        eprintln!("chessd engine: unknown option '{name}' ignored");
        return;
    };
    if let Err(e) = decl.check_value(value) {
        eprintln!("chessd engine: option '{}': {e}; ignored", decl.name);
        return;
    }
    let number = value
        .and_then(|v| v.trim().parse::<u64>().ok())
        .unwrap_or(0);
    match decl.name.as_str() {
        "Hash" => {
            let _ = jobs.send(Job::Resize(number as usize));
        }
        "Move Overhead" => options.move_overhead = Duration::from_millis(number),
        "Clear Hash" => {
            let _ = jobs.send(Job::Clear);
        }
        "Search" => {
            options.mode = if value.is_some_and(|v| v.trim().eq_ignore_ascii_case("tesla")) {
                SearchMode::Tesla
            } else {
                SearchMode::Pvs
            };
        }
        name if name.starts_with("Tesla ") => set_tesla(&mut options.tesla, name, number),
        _ => {
            options.chess960 = value.is_some_and(|v| v.trim().eq_ignore_ascii_case("true"));
            game.set_chess960(options.chess960);
        }
    }
}

/// The search limits for a `go` in `pos`. Search moves that are not legal are dropped.
fn limits(go: &GoLimits, pos: &Position, move_overhead: Duration) -> Limits {
    let ms = |v: Option<u64>| v.map(Duration::from_millis);
    let mut limits = Limits {
        depth: go.depth,
        nodes: go.nodes,
        movetime: ms(go.movetime),
        wtime: ms(go.wtime),
        btime: ms(go.btime),
        winc: ms(go.winc),
        binc: ms(go.binc),
        movestogo: go.movestogo,
        mate: go.mate,
        infinite: go.infinite || go.ponder,
        searchmoves: go
            .searchmoves
            .iter()
            .filter_map(|m| pos.parse_uci(m).ok())
            .collect(),
        move_overhead,
    };
    if go.is_empty() {
        limits.movetime = Some(DEFAULT_MOVETIME);
    }
    limits
}

/// The search thread: does the jobs in order until the channel closes.
/// The Tesla searcher is made at its first search, so that an engine that never uses it
/// never holds its table.
fn search_thread<W: Write>(queue: &mpsc::Receiver<Job>, out: &Output<W>, hash_mib: usize) {
    let mut searcher = Searcher::new(hash_mib);
    let mut tesla: Option<TeslaSearcher> = None;
    let mut mib = hash_mib;
    while let Ok(job) = queue.recv() {
        match job {
            Job::Clear => {
                searcher.clear();
                if let Some(t) = tesla.as_mut() {
                    t.clear();
                }
            }
            Job::Resize(new) => {
                mib = new.clamp(1, MAX_HASH_MIB);
                searcher.resize(mib);
                if let Some(t) = tesla.as_mut() {
                    t.resize(mib);
                }
            }
            Job::Search(job) => match job.mode {
                SearchMode::Pvs => run_search(&mut searcher, &job, out),
                SearchMode::Tesla => {
                    let t = tesla.get_or_insert_with(|| TeslaSearcher::new(mib));
                    t.set_params(job.tesla);
                    run_tesla(t, &job, out);
                }
            },
        }
    }
}

/// One Tesla search: `info` each time its desired depth grows, then `bestmove`.
fn run_tesla<W: Write>(tesla: &mut TeslaSearcher, job: &SearchJob, out: &Output<W>) {
    let pos = &job.pos;
    let result = tesla.search(pos, &job.history, &job.limits, &job.stop, |info| {
        out.send(info_line(pos, info));
    });
    finish(job, &result, out);
}

/// One search: `info` after each iteration, then `bestmove` (after `stop` when asked to wait).
fn run_search<W: Write>(searcher: &mut Searcher, job: &SearchJob, out: &Output<W>) {
    let pos = &job.pos;
    let result = searcher.search(pos, &job.history, &job.limits, &job.stop, |info| {
        out.send(info_line(pos, info));
    });
    finish(job, &result, out);
}

/// Prints `bestmove` for `result` (after `stop` when the job waits for it).
fn finish<W: Write>(job: &SearchJob, result: &search::SearchResult, out: &Output<W>) {
    let pos = &job.pos;
    if job.wait_for_stop {
        while !job.stop.load(Ordering::Relaxed) {
            thread::park_timeout(Duration::from_millis(20));
        }
    }
    let best = BestMove {
        best: Some(
            result
                .best
                .map_or_else(|| "0000".to_string(), |m| pos.uci(m)),
        ),
        ponder: result
            .best
            .zip(result.ponder)
            .map(|(best, reply)| pos.after(best).uci(reply)),
    };
    out.send(EngineLine::BestMove(best));
}

/// The protocol's `info` line for a finished iteration.
fn info_line(pos: &Position, info: &search::Info) -> EngineLine {
    let score = match info.score {
        search::Score::Cp(cp) => ScoreValue::Cp(cp),
        search::Score::Mate(n) => ScoreValue::Mate(n),
    };
    EngineLine::Info(Box::new(Info {
        depth: Some(info.depth),
        seldepth: Some(info.seldepth),
        score: Some(Score {
            value: score,
            bound: None,
        }),
        nodes: Some(info.nodes),
        nps: Some(info.nps),
        time: Some(info.time.as_millis() as u64),
        hashfull: Some(info.hashfull),
        pv: pv_text(pos, &info.pv),
        ..Info::default()
    }))
}

/// The moves of a line as UCI text, each written in the position it is played from.
pub fn pv_text(pos: &Position, pv: &[Move]) -> Vec<String> {
    let mut line = *pos;
    let mut out = Vec::with_capacity(pv.len());
    for &mv in pv {
        if !line.is_legal(mv) {
            break;
        }
        out.push(line.uci(mv));
        line.play_unchecked(mv);
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use std::io::Cursor;

    /// A writer the test can read back.
    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    fn session(script: &str) -> Vec<String> {
        let out = Shared::default();
        run(Cursor::new(script.to_string()), out.clone(), 1);
        let text = String::from_utf8(out.0.lock().unwrap().clone()).unwrap();
        text.lines().map(str::to_string).collect()
    }

    #[test]
    fn handshake_declares_options() {
        let lines = session("uci\nisready\nquit\n");
        assert!(lines[0].starts_with("id name chessd"));
        assert!(lines.contains(&"option name Hash type spin default 16 min 1 max 4096".into()));
        assert!(lines
            .iter()
            .any(|l| l.starts_with("option name Move Overhead type spin")));
        let ok = lines.iter().position(|l| l == "uciok").unwrap();
        assert_eq!(lines[ok + 1], "readyok");
    }

    #[test]
    fn go_depth_then_quit_at_end_of_input() {
        // The input ends right after `go`: the search finishes (depth 3) before the loop ends.
        let lines = session("position startpos moves e2e4 e7e5\ngo depth 3\n");
        let best = lines.iter().find(|l| l.starts_with("bestmove ")).unwrap();
        let infos: Vec<&String> = lines
            .iter()
            .filter(|l| l.starts_with("info depth"))
            .collect();
        assert!(!infos.is_empty());
        let mv = best.split_whitespace().nth(1).unwrap();
        let mut pos = Position::startpos();
        for m in ["e2e4", "e7e5"] {
            pos.play_unchecked(pos.parse_uci(m).unwrap());
        }
        assert!(pos.parse_uci(mv).is_ok(), "{best}");
    }

    #[test]
    fn the_tesla_search_is_an_option_and_answers_with_a_legal_move() {
        let lines = session(
            "uci\nsetoption name Search value tesla\nsetoption name Tesla Batch value 4\n\
             position startpos moves e2e4\ngo nodes 3000\n",
        );
        assert!(
            lines.contains(&"option name Search type combo default pvs var pvs var tesla".into())
        );
        assert!(lines
            .iter()
            .any(|l| l.starts_with("option name Tesla Error type spin default ")));
        let info = lines.iter().find(|l| l.starts_with("info depth")).unwrap();
        assert!(info.contains(" nodes ") && info.contains(" pv "), "{info}");
        let best = lines.iter().find(|l| l.starts_with("bestmove ")).unwrap();
        let mut pos = Position::startpos();
        pos.play_unchecked(pos.parse_uci("e2e4").unwrap());
        let mv = best.split_whitespace().nth(1).unwrap();
        assert!(pos.parse_uci(mv).is_ok(), "{best}");
    }

    #[test]
    fn no_legal_move_is_bestmove_0000() {
        let lines =
            session("position fen 7k/5Q2/6K1/8/8/8/8/8 b - - 0 1\ngo depth 2\nisready\nquit\n");
        assert!(lines.contains(&"bestmove 0000".to_string()), "{lines:?}");
    }

    #[test]
    fn limits_from_go() {
        let pos = Position::startpos();
        let GuiCommand::Go(go) =
            GuiCommand::parse("go wtime 1000 btime 2000 winc 10 movestogo 5 searchmoves e2e4 e2e5")
        else {
            panic!("not a go");
        };
        let l = limits(&go, &pos, Duration::from_millis(30));
        assert_eq!(l.wtime, Some(Duration::from_secs(1)));
        assert_eq!(l.btime, Some(Duration::from_secs(2)));
        assert_eq!(l.winc, Some(Duration::from_millis(10)));
        assert_eq!(l.movestogo, Some(5));
        assert_eq!(l.searchmoves, vec![pos.parse_uci("e2e4").unwrap()]);
        assert_eq!(l.move_overhead, Duration::from_millis(30));
        let GuiCommand::Go(bare) = GuiCommand::parse("go") else {
            panic!("not a go");
        };
        assert_eq!(
            limits(&bare, &pos, Duration::ZERO).movetime,
            Some(DEFAULT_MOVETIME)
        );
    }
}
