//! The Grand Chess Tree worker protocol, typed: the commands a worker reads and the lines it
//! writes, each parsed from and formatted to exactly one line. No I/O here, and nothing of its
//! users: `chessd worker` (the worker loop) and the worker pool of the server's `jobs/workers/`
//! (the client) both build on these types.
//!
//! A conversation (`->` to the worker, `<-` from it):
//!
//! ```text
//! <- ready
//! -> begin:<depth>:<fen>
//! <- processing
//! <- fen:<fen, first four fields>
//! <- hash:<Polyglot key>
//! <- nps:<nodes per second>
//! <- nodes:<n>              the nine counts, in this order
//! <- captures:<n>
//! <- enpassants:<n>
//! <- castles:<n>
//! <- promotions:<n>
//! <- checks:<n>             every checking leaf, mates included
//! <- discovered_checks:<n>  checking leaves where the moved piece is not a checker
//! <- double_checks:<n>      leaves with two checkers
//! <- check_mates:<n>
//! <- done                   ready for the next command (no new `ready`)
//! -> reset                  clears the hash table and any running task
//! <- ready
//! -> quit                   ends the worker
//! ```
//!
//! What the seed text leaves open, chosen here:
//! - A command that cannot be carried out (unknown, malformed, a bad depth or FEN, `begin`
//!   while a task runs) gets one line `error: <why>` and changes nothing: the worker stays
//!   ready (or keeps processing). Blank lines are ignored.
//! - `reset` while a task runs abandons it (no result lines, no `done`), then `ready`.
//!   `quit` ends the worker at once, also while processing.
//! - Extension: `begin:<depth>:<fen>:classes` also writes the eight Grand Chess Tree check and
//!   mate classes (`direct_checks:<n>` … `double_discovered_mates:<n>`) after `check_mates`,
//!   which the four summary counts cannot be split back into. A plain `begin` writes exactly
//!   the lines above. (The original worker ignores a fourth `:` field, so the extension does
//!   not break it.)

mod polyglot;

use std::{fmt, time::Duration};

use chessd_core::{perft::PerftStats, FenMode, Position};

pub use polyglot::polyglot_key;

/// The deepest perft a `begin` may ask for (the same bound as `chessd perft`).
pub const MAX_DEPTH: u32 = 32;

/// The suffix of the extended `begin` that asks for the eight check and mate classes.
const CLASSES_SUFFIX: &str = ":classes";

/// A line that breaks the protocol, with the reason (the text of an `error:` line).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ProtocolError(pub String);

fn err<T>(message: impl Into<String>) -> Result<T, ProtocolError> {
    Err(ProtocolError(message.into()))
}

/// A perft task: `begin:<depth>:<fen>[:classes]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Begin {
    /// Plies to count.
    pub depth: u32,
    /// The position as sent (a FEN with four to six fields).
    pub fen: String,
    /// The parsed position.
    pub pos: Position,
    /// Whether the eight check and mate classes are asked for too (extension).
    pub classes: bool,
}

impl Begin {
    /// A task for `pos` (its full FEN is sent).
    pub fn new(pos: &Position, depth: u32, classes: bool) -> Begin {
        Begin {
            depth,
            fen: pos.fen(),
            pos: *pos,
            classes,
        }
    }
}

/// A command a worker reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// Start a perft.
    Begin(Begin),
    /// Clear the hash table and all state (a running task is abandoned); answered by `ready`.
    Reset,
    /// End the worker.
    Quit,
}

impl Command {
    /// Parses one line (surrounding whitespace ignored). `Ok(None)` for a blank line.
    pub fn parse(line: &str) -> Result<Option<Command>, ProtocolError> {
        let line = line.trim();
        match line {
            "" => return Ok(None),
            "reset" => return Ok(Some(Command::Reset)),
            "quit" => return Ok(Some(Command::Quit)),
            _ => {}
        }
        let Some(rest) = line.strip_prefix("begin:") else {
            return err(format!(
                "unknown command '{}' (expected begin:<depth>:<fen>, reset or quit)",
                shorten(line)
            ));
        };
        let Some((depth, fen)) = rest.split_once(':') else {
            return err("begin needs a depth and a FEN: begin:<depth>:<fen>");
        };
        let depth: u32 = match depth.trim().parse() {
            Ok(d) if d <= MAX_DEPTH => d,
            Ok(_) => return err(format!("depth {depth} is over the limit of {MAX_DEPTH}")),
            Err(_) => {
                return err(format!(
                    "depth '{}' is not a number of plies",
                    shorten(depth)
                ))
            }
        };
        let (fen, classes) = match fen.strip_suffix(CLASSES_SUFFIX) {
            Some(fen) => (fen, true),
            None => (fen, false),
        };
        if fen.contains(':') {
            return err("begin takes a FEN and at most the option ':classes'");
        }
        let fen = fen.trim();
        let pos = match Position::from_fen(fen, FenMode::Lenient) {
            Ok(pos) => pos,
            Err(e) => return err(format!("invalid FEN '{}': {e}", shorten(fen))),
        };
        Ok(Some(Command::Begin(Begin {
            depth,
            fen: fen.to_string(),
            pos,
            classes,
        })))
    }
}

impl fmt::Display for Command {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Command::Begin(b) => {
                write!(f, "begin:{}:{}", b.depth, b.fen)?;
                if b.classes {
                    f.write_str(CLASSES_SUFFIX)?;
                }
                Ok(())
            }
            Command::Reset => f.write_str("reset"),
            Command::Quit => f.write_str("quit"),
        }
    }
}

/// At most 80 characters of a peer's text, for error messages.
fn shorten(text: &str) -> String {
    match text.char_indices().nth(80) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text.to_string(),
    }
}

/// A counter of a result line, in protocol order: the nine standard counts, then the eight
/// classes of the extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Counter {
    /// `nodes`
    Nodes,
    /// `captures`
    Captures,
    /// `enpassants`
    Enpassants,
    /// `castles`
    Castles,
    /// `promotions`
    Promotions,
    /// `checks` (mates included)
    Checks,
    /// `discovered_checks` (mates included)
    DiscoveredChecks,
    /// `double_checks` (mates included)
    DoubleChecks,
    /// `check_mates`
    CheckMates,
    /// `direct_checks` (extension)
    DirectChecks,
    /// `single_discovered_checks` (extension)
    SingleDiscoveredChecks,
    /// `direct_discovered_checks` (extension)
    DirectDiscoveredChecks,
    /// `double_discovered_checks` (extension)
    DoubleDiscoveredChecks,
    /// `direct_mates` (extension)
    DirectMates,
    /// `single_discovered_mates` (extension)
    SingleDiscoveredMates,
    /// `direct_discovered_mates` (extension)
    DirectDiscoveredMates,
    /// `double_discovered_mates` (extension)
    DoubleDiscoveredMates,
}

impl Counter {
    /// The nine counts every result has, in protocol order.
    pub const STANDARD: [Counter; 9] = [
        Counter::Nodes,
        Counter::Captures,
        Counter::Enpassants,
        Counter::Castles,
        Counter::Promotions,
        Counter::Checks,
        Counter::DiscoveredChecks,
        Counter::DoubleChecks,
        Counter::CheckMates,
    ];

    /// The eight classes of the `:classes` extension, in order.
    pub const CLASSES: [Counter; 8] = [
        Counter::DirectChecks,
        Counter::SingleDiscoveredChecks,
        Counter::DirectDiscoveredChecks,
        Counter::DoubleDiscoveredChecks,
        Counter::DirectMates,
        Counter::SingleDiscoveredMates,
        Counter::DirectDiscoveredMates,
        Counter::DoubleDiscoveredMates,
    ];

    /// The key of the counter's line.
    pub const fn name(self) -> &'static str {
        match self {
            Counter::Nodes => "nodes",
            Counter::Captures => "captures",
            Counter::Enpassants => "enpassants",
            Counter::Castles => "castles",
            Counter::Promotions => "promotions",
            Counter::Checks => "checks",
            Counter::DiscoveredChecks => "discovered_checks",
            Counter::DoubleChecks => "double_checks",
            Counter::CheckMates => "check_mates",
            Counter::DirectChecks => "direct_checks",
            Counter::SingleDiscoveredChecks => "single_discovered_checks",
            Counter::DirectDiscoveredChecks => "direct_discovered_checks",
            Counter::DoubleDiscoveredChecks => "double_discovered_checks",
            Counter::DirectMates => "direct_mates",
            Counter::SingleDiscoveredMates => "single_discovered_mates",
            Counter::DirectDiscoveredMates => "direct_discovered_mates",
            Counter::DoubleDiscoveredMates => "double_discovered_mates",
        }
    }

    /// The counter of a line key.
    pub fn from_name(name: &str) -> Option<Counter> {
        Counter::STANDARD
            .into_iter()
            .chain(Counter::CLASSES)
            .find(|c| c.name() == name)
    }

    /// The counter's value in `stats`.
    pub const fn of(self, s: &PerftStats) -> u64 {
        match self {
            Counter::Nodes => s.nodes,
            Counter::Captures => s.captures,
            Counter::Enpassants => s.enpassants,
            Counter::Castles => s.castles,
            Counter::Promotions => s.promotions,
            Counter::Checks => s.checks(),
            Counter::DiscoveredChecks => s.discovered_checks(),
            Counter::DoubleChecks => s.double_checks(),
            Counter::CheckMates => s.check_mates(),
            Counter::DirectChecks => s.direct_checks,
            Counter::SingleDiscoveredChecks => s.single_discovered_checks,
            Counter::DirectDiscoveredChecks => s.direct_discovered_checks,
            Counter::DoubleDiscoveredChecks => s.double_discovered_checks,
            Counter::DirectMates => s.direct_mates,
            Counter::SingleDiscoveredMates => s.single_discovered_mates,
            Counter::DirectDiscoveredMates => s.direct_discovered_mates,
            Counter::DoubleDiscoveredMates => s.double_discovered_mates,
        }
    }
}

/// One `key:value` line of a result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Field {
    /// `fen:<first four FEN fields>`
    Fen(String),
    /// `hash:<Polyglot key>`
    Hash(u64),
    /// `nps:<nodes per second>`
    Nps(u64),
    /// A count.
    Count(Counter, u64),
}

/// A line a worker writes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reply {
    /// `ready`: started, or reset finished.
    Ready,
    /// `processing`: a `begin` was accepted.
    Processing,
    /// A result line.
    Field(Field),
    /// `done`: the result is complete; the worker takes the next command.
    Done,
    /// `error: <why>`: a command was refused; nothing changed.
    Error(String),
}

impl Reply {
    /// Parses one line of worker output (surrounding whitespace ignored).
    pub fn parse(line: &str) -> Result<Reply, ProtocolError> {
        let line = line.trim();
        match line {
            "ready" => return Ok(Reply::Ready),
            "processing" => return Ok(Reply::Processing),
            "done" => return Ok(Reply::Done),
            _ => {}
        }
        let Some((key, value)) = line.split_once(':') else {
            return err(format!("unexpected worker line '{}'", shorten(line)));
        };
        let number = |value: &str| {
            value.trim().parse::<u64>().map_err(|_| {
                ProtocolError(format!(
                    "'{}' is not a count in line '{key}'",
                    shorten(value)
                ))
            })
        };
        let field = match key.trim() {
            "error" => return Ok(Reply::Error(value.trim().to_string())),
            "fen" => Field::Fen(value.trim().to_string()),
            "hash" => Field::Hash(number(value)?),
            "nps" => Field::Nps(number(value)?),
            name => match Counter::from_name(name) {
                Some(counter) => Field::Count(counter, number(value)?),
                None => return err(format!("unknown result line '{}'", shorten(line))),
            },
        };
        Ok(Reply::Field(field))
    }
}

impl fmt::Display for Reply {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reply::Ready => f.write_str("ready"),
            Reply::Processing => f.write_str("processing"),
            Reply::Done => f.write_str("done"),
            Reply::Error(why) => write!(f, "error: {why}"),
            Reply::Field(Field::Fen(fen)) => write!(f, "fen:{fen}"),
            Reply::Field(Field::Hash(h)) => write!(f, "hash:{h}"),
            Reply::Field(Field::Nps(n)) => write!(f, "nps:{n}"),
            Reply::Field(Field::Count(c, n)) => write!(f, "{}:{n}", c.name()),
        }
    }
}

/// The first four fields of a FEN (placement, side, castling, en passant), as results show it.
pub fn result_fen(pos: &Position) -> String {
    pos.fen().split(' ').take(4).collect::<Vec<_>>().join(" ")
}

/// A worker's result for one task.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TaskResult {
    /// The position (first four FEN fields).
    pub fen: String,
    /// Its Polyglot key.
    pub hash: u64,
    /// Nodes per second of the computation.
    pub nps: u64,
    /// The nine standard counts, in [`Counter::STANDARD`] order.
    pub counts: [u64; 9],
    /// The full statistics, when the eight classes were reported (they then agree with
    /// `counts`).
    pub stats: Option<PerftStats>,
}

impl TaskResult {
    /// The result of a computed perft of `pos`.
    pub fn computed(pos: &Position, stats: PerftStats, elapsed: Duration) -> TaskResult {
        let secs = elapsed.as_secs_f64();
        let nps = if secs > 0.0 {
            (stats.nodes as f64 / secs) as u64
        } else {
            0
        };
        TaskResult {
            fen: result_fen(pos),
            hash: polyglot_key(pos),
            nps,
            counts: Counter::STANDARD.map(|c| c.of(&stats)),
            stats: Some(stats),
        }
    }

    /// The result lines, `fen` to `check_mates` (and the eight classes when `classes` and
    /// known), without `processing` and `done`.
    pub fn replies(&self, classes: bool) -> Vec<Reply> {
        let mut out = vec![
            Reply::Field(Field::Fen(self.fen.clone())),
            Reply::Field(Field::Hash(self.hash)),
            Reply::Field(Field::Nps(self.nps)),
        ];
        out.extend(
            Counter::STANDARD
                .into_iter()
                .zip(self.counts)
                .map(|(c, n)| Reply::Field(Field::Count(c, n))),
        );
        if let (true, Some(stats)) = (classes, &self.stats) {
            out.extend(
                Counter::CLASSES
                    .into_iter()
                    .map(|c| Reply::Field(Field::Count(c, c.of(stats)))),
            );
        }
        out
    }
}

/// Collects the result lines of one task (between `processing` and `done`) into a
/// [`TaskResult`], checking that each line comes once and that nothing is missing.
#[derive(Clone, Debug, Default)]
pub struct ResultCollector {
    fen: Option<String>,
    hash: Option<u64>,
    nps: Option<u64>,
    counts: [Option<u64>; 17],
}

impl ResultCollector {
    /// Records one result line.
    pub fn push(&mut self, field: Field) -> Result<(), ProtocolError> {
        let name = match &field {
            Field::Fen(_) => "fen",
            Field::Hash(_) => "hash",
            Field::Nps(_) => "nps",
            Field::Count(c, _) => c.name(),
        };
        let fresh = match field {
            Field::Fen(fen) => self.fen.replace(fen).is_none(),
            Field::Hash(h) => self.hash.replace(h).is_none(),
            Field::Nps(n) => self.nps.replace(n).is_none(),
            Field::Count(c, n) => self.counts[Self::slot(c)].replace(n).is_none(),
        };
        if fresh {
            Ok(())
        } else {
            err(format!("result line '{name}' came twice"))
        }
    }

    fn slot(c: Counter) -> usize {
        Counter::STANDARD
            .into_iter()
            .chain(Counter::CLASSES)
            .position(|x| x == c)
            .unwrap_or(0)
    }

    /// The result, once `done` was read: every standard line must be there, and the eight
    /// classes all or none (and, when there, agree with the standard counts).
    pub fn finish(self) -> Result<TaskResult, ProtocolError> {
        let missing = |name: &str| ProtocolError(format!("result line '{name}' is missing"));
        let fen = self.fen.ok_or_else(|| missing("fen"))?;
        let hash = self.hash.ok_or_else(|| missing("hash"))?;
        let nps = self.nps.ok_or_else(|| missing("nps"))?;
        let mut counts = [0u64; 9];
        for (i, c) in Counter::STANDARD.into_iter().enumerate() {
            counts[i] = self.counts[i].ok_or_else(|| missing(c.name()))?;
        }
        let classes = &self.counts[9..];
        let stats = if classes.iter().all(Option::is_none) {
            None
        } else {
            let mut words = [0u64; 8];
            for (i, c) in Counter::CLASSES.into_iter().enumerate() {
                words[i] = classes[i].ok_or_else(|| missing(c.name()))?;
            }
            let stats = PerftStats::from_array([
                counts[0], counts[1], counts[2], counts[3], counts[4], words[0], words[1],
                words[2], words[3], words[4], words[5], words[6], words[7],
            ]);
            if Counter::STANDARD.map(|c| c.of(&stats)) != counts {
                return err("the check and mate classes disagree with the summary counts");
            }
            Some(stats)
        };
        Ok(TaskResult {
            fen,
            hash,
            nps,
            counts,
            stats,
        })
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use chessd_core::perft::perft_stats;

    use super::*;

    const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

    #[test]
    fn commands_parse_and_format_back() {
        let begin = Command::parse(&format!("begin:7:{START}"))
            .unwrap()
            .unwrap();
        let Command::Begin(b) = &begin else {
            panic!("{begin:?}")
        };
        assert_eq!((b.depth, b.fen.as_str(), b.classes), (7, START, false));
        assert_eq!(b.pos, Position::startpos());
        assert_eq!(begin.to_string(), format!("begin:7:{START}"));

        let four = "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - -";
        let ext = Command::parse(&format!("  begin:5:{four}:classes \r")).unwrap();
        let Some(Command::Begin(b)) = &ext else {
            panic!("{ext:?}")
        };
        assert_eq!((b.depth, b.fen.as_str(), b.classes), (5, four, true));
        assert_eq!(ext.unwrap().to_string(), format!("begin:5:{four}:classes"));

        assert_eq!(Command::parse("reset").unwrap(), Some(Command::Reset));
        assert_eq!(Command::parse(" quit\n").unwrap(), Some(Command::Quit));
        assert_eq!(Command::parse("   ").unwrap(), None);
        assert_eq!(Command::Reset.to_string(), "reset");
        assert_eq!(Command::Quit.to_string(), "quit");
        let made = Command::Begin(Begin::new(&Position::startpos(), 3, true));
        assert_eq!(made.to_string(), format!("begin:3:{START}:classes"));
    }

    #[test]
    fn bad_commands_are_errors() {
        for line in [
            "hello",
            "begin",
            "begin:",
            "begin:x:8/8/8/8/8/8/8/8 w - -",
            "begin:-1:8/8/8/8/8/8/8/K6k w - -",
            "begin:33:8/8/8/8/8/8/8/K6k w - -",
            "begin:3",
            "begin:3:not a fen",
            "begin:3:8/8/8/8/8/8/8/8 w - -",
            "begin:3:8/8/8/8/8/8/8/K6k w - -:frobnicate",
            "Begin:3:8/8/8/8/8/8/8/K6k w - -",
            "ready",
            "done",
        ] {
            let e = Command::parse(line).unwrap_err();
            let text = Reply::Error(e.0).to_string();
            assert!(
                text.starts_with("error: ") && text.len() > 10,
                "{line}: {text}"
            );
            assert_eq!(Reply::parse(&text).unwrap(), Reply::Error(text[7..].into()));
        }
    }

    #[test]
    fn replies_parse_and_format_back() {
        let lines = [
            ("ready", Reply::Ready),
            ("processing", Reply::Processing),
            ("done", Reply::Done),
            (
                "fen:rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -",
                Reply::Field(Field::Fen(
                    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -".into(),
                )),
            ),
            (
                "hash:5060803636482931868",
                Reply::Field(Field::Hash(5060803636482931868)),
            ),
            ("nps:291277980", Reply::Field(Field::Nps(291277980))),
            (
                "discovered_checks:18026",
                Reply::Field(Field::Count(Counter::DiscoveredChecks, 18026)),
            ),
            (
                "double_discovered_mates:0",
                Reply::Field(Field::Count(Counter::DoubleDiscoveredMates, 0)),
            ),
            ("error: bad thing", Reply::Error("bad thing".into())),
        ];
        for (text, reply) in lines {
            assert_eq!(Reply::parse(text).unwrap(), reply, "{text}");
            assert_eq!(reply.to_string(), text);
        }
        for bad in ["hello", "nodes:many", "nodes:-1", "colour:3"] {
            assert!(Reply::parse(bad).is_err(), "{bad}");
        }
    }

    /// The seed's example result, line for line (its counts are from the seed, not computed).
    #[test]
    fn the_seed_example_result_round_trips() {
        let text = "fen:rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -
hash:5060803636482931868
nps:291277980
nodes:3195901860
captures:108329926
enpassants:319617
castles:883453
promotions:0
checks:33103848
discovered_checks:18026
double_checks:1628
check_mates:435765";
        let mut collector = ResultCollector::default();
        for line in text.lines() {
            let Reply::Field(field) = Reply::parse(line).unwrap() else {
                panic!("{line}")
            };
            collector.push(field).unwrap();
        }
        let result = collector.finish().unwrap();
        assert_eq!(result.hash, polyglot_key(&Position::startpos()));
        assert_eq!(result.fen, result_fen(&Position::startpos()));
        assert_eq!(result.stats, None);
        let back: Vec<String> = result
            .replies(true)
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(back.join("\n"), text);
    }

    #[test]
    fn computed_results_carry_the_classes_only_when_asked() {
        let pos = Position::from_fen(
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            FenMode::Strict,
        )
        .unwrap();
        let stats = perft_stats(&pos, 3);
        let result = TaskResult::computed(&pos, stats, Duration::from_millis(10));
        assert_eq!(result.nps, stats.nodes * 100);
        let plain = result.replies(false);
        assert_eq!(plain.len(), 12);
        let full = result.replies(true);
        assert_eq!(full.len(), 20);
        let mut collector = ResultCollector::default();
        for reply in full {
            let Reply::Field(field) = Reply::parse(&reply.to_string()).unwrap() else {
                panic!("{reply}")
            };
            collector.push(field).unwrap();
        }
        assert_eq!(collector.finish().unwrap(), result);
    }

    #[test]
    fn incomplete_duplicated_or_inconsistent_results_are_refused() {
        let pos = Position::startpos();
        let result = TaskResult::computed(&pos, perft_stats(&pos, 4), Duration::ZERO);
        let fields = || {
            result.replies(true).into_iter().map(|r| match r {
                Reply::Field(f) => f,
                other => panic!("{other}"),
            })
        };
        // A missing standard line.
        let mut c = ResultCollector::default();
        fields()
            .filter(|f| !matches!(f, Field::Nps(_)))
            .for_each(|f| c.push(f).unwrap());
        assert!(c.finish().unwrap_err().0.contains("nps"));
        // A missing class line.
        let mut c = ResultCollector::default();
        fields()
            .filter(|f| !matches!(f, Field::Count(Counter::DirectMates, _)))
            .for_each(|f| c.push(f).unwrap());
        assert!(c.finish().unwrap_err().0.contains("direct_mates"));
        // A line twice.
        let mut c = ResultCollector::default();
        c.push(Field::Nps(1)).unwrap();
        assert!(c.push(Field::Nps(2)).is_err());
        // Classes that do not add up to the summary.
        let mut c = ResultCollector::default();
        fields()
            .map(|f| match f {
                Field::Count(Counter::DirectChecks, n) => {
                    Field::Count(Counter::DirectChecks, n + 1)
                }
                f => f,
            })
            .for_each(|f| c.push(f).unwrap());
        assert!(c.finish().is_err());
    }

    /// The Polyglot keys: the reference values of the Polyglot book format specification, and
    /// shakmaty's keys (which follow it) on more positions and along random games.
    #[test]
    fn polyglot_keys_are_the_standard_ones() {
        use shakmaty::{
            fen::Fen, zobrist::Zobrist64, CastlingMode, Chess, EnPassantMode, Position as _,
        };
        let reference = [
            (START, 0x463B_9618_1691_FC9C),
            (
                "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1",
                0x823C_9B50_FD11_4196,
            ),
            (
                "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 2",
                0x0756_B944_61C5_0FB0,
            ),
            (
                "rnbqkbnr/ppp1pppp/8/3pP3/8/8/PPPP1PPP/RNBQKBNR b KQkq - 0 2",
                0x662F_AFB9_65DB_29D4,
            ),
            (
                "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
                0x22A4_8B5A_8E47_FF78,
            ),
            (
                "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPPKPPP/RNBQ1BNR b kq - 1 3",
                0x652A_607C_A3F2_42C1,
            ),
            (
                "rnbq1bnr/ppp1pkpp/8/3pPp2/8/8/PPPPKPPP/RNBQ1BNR w - - 2 4",
                0x00FD_D303_C946_BDD9,
            ),
            (
                "rnbqkbnr/p1pppppp/8/8/PpP4P/8/1P1PPPP1/RNBQKBNR b KQkq c3 0 3",
                0x3C81_23EA_7B06_7637,
            ),
            (
                "rnbqkbnr/p1pppppp/8/8/P6P/R1p5/1P1PPPP1/1NBQKBNR b Kkq - 1 4",
                0x5C3F_9B82_9B27_9560,
            ),
        ];
        // The seed's example hash is the key of the start position.
        assert_eq!(polyglot_key(&Position::startpos()), 5060803636482931868);
        for (fen, key) in reference {
            let pos = Position::from_fen(fen, FenMode::Strict).unwrap();
            assert_eq!(polyglot_key(&pos), key, "{fen}");
        }
        let more = [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "4k3/8/8/8/8/8/8/4K2R w K - 0 1",
            "r3k3/8/8/8/8/8/8/4K3 b q - 0 1",
            // En passant pseudo-legal only (the capturing pawn is pinned): Polyglot counts it.
            "8/8/8/K2pP2r/8/8/8/7k w - d6 0 1",
        ];
        for fen in more {
            let ours = polyglot_key(&Position::from_fen(fen, FenMode::Strict).unwrap());
            let chess: Chess = fen
                .parse::<Fen>()
                .unwrap()
                .into_position(CastlingMode::Standard)
                .unwrap();
            let theirs: Zobrist64 = chess.zobrist_hash(EnPassantMode::PseudoLegal);
            assert_eq!(ours, theirs.0, "{fen}");
        }
        // Along random games the keys stay equal.
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        for _ in 0..20 {
            let mut ours = Position::startpos();
            let mut theirs = Chess::default();
            for _ in 0..80 {
                // After a move our position keeps only a legal en-passant square.
                let theirs_key: Zobrist64 = theirs.zobrist_hash(EnPassantMode::Legal);
                assert_eq!(polyglot_key(&ours), theirs_key.0, "{}", ours.fen());
                let moves = ours.legal_moves();
                if moves.is_empty() {
                    break;
                }
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                let mv = moves[(seed % moves.len() as u64) as usize];
                let uci: shakmaty::uci::UciMove = ours.uci(mv).parse().unwrap();
                let m = uci.to_move(&theirs).unwrap();
                theirs = theirs.play(m).unwrap();
                ours.play_unchecked(mv);
            }
        }
    }
}
