//! The JSON form of perft statistics, written straight from the core's [`PerftStats`]: the
//! Grand Chess Tree summary (`checks`, `discovered_checks` and `double_checks` include mates,
//! `checkmates` is every mate) and the eight check and mate classes. Job views carry it, and
//! `chessd perft --json` writes the same `classes` object.
//!
//! The core's own serde form of [`PerftStats`] is its thirteen raw counters; the wire form
//! differs (summaries computed from them, classes nested), so these are serializers over the
//! core value rather than copies of its fields.

use chessd_core::perft::{PerftResult, PerftStats};
use serde::{ser::SerializeStruct, Serialize, Serializer};

/// The eight Grand Chess Tree check and mate classes of a tally, as one JSON object (each
/// check in exactly one class, mates apart from checks).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClassesJson(pub PerftStats);

impl Serialize for ClassesJson {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let s = &self.0;
        let mut out = serializer.serialize_struct("Classes", 8)?;
        out.serialize_field("direct_checks", &s.direct_checks)?;
        out.serialize_field("single_discovered_checks", &s.single_discovered_checks)?;
        out.serialize_field("direct_discovered_checks", &s.direct_discovered_checks)?;
        out.serialize_field("double_discovered_checks", &s.double_discovered_checks)?;
        out.serialize_field("direct_mates", &s.direct_mates)?;
        out.serialize_field("single_discovered_mates", &s.single_discovered_mates)?;
        out.serialize_field("direct_discovered_mates", &s.direct_discovered_mates)?;
        out.serialize_field("double_discovered_mates", &s.double_discovered_mates)?;
        out.end()
    }
}

/// The summary fields after `nodes`, each null when `stats` is `None`, then `classes`.
fn summary<S: SerializeStruct>(out: &mut S, stats: Option<&PerftStats>) -> Result<(), S::Error> {
    out.serialize_field("captures", &stats.map(|s| s.captures))?;
    out.serialize_field("enpassants", &stats.map(|s| s.enpassants))?;
    out.serialize_field("castles", &stats.map(|s| s.castles))?;
    out.serialize_field("promotions", &stats.map(|s| s.promotions))?;
    out.serialize_field("checks", &stats.map(PerftStats::checks))?;
    out.serialize_field(
        "discovered_checks",
        &stats.map(PerftStats::discovered_checks),
    )?;
    out.serialize_field("double_checks", &stats.map(PerftStats::double_checks))?;
    out.serialize_field("checkmates", &stats.map(PerftStats::check_mates))?;
    Ok(())
}

/// Leaf statistics of a running or finished perft: `nodes`, the summary, and `classes` (null
/// when the classes were not counted).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StatsJson {
    /// The tally.
    pub stats: PerftStats,
    /// Whether its eight classes are real counts.
    pub classes: bool,
}

impl Serialize for StatsJson {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut out = serializer.serialize_struct("Statistics", 10)?;
        out.serialize_field("nodes", &self.stats.nodes)?;
        summary(&mut out, Some(&self.stats))?;
        out.serialize_field("classes", &self.classes.then_some(ClassesJson(self.stats)))?;
        out.end()
    }
}

/// The final result of a perft job: `nodes`, the summary and `classes` (all null without
/// statistics), `seconds` and `nps`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PerftResultJson {
    /// The core's result.
    pub result: PerftResult,
    /// Whether statistics were collected.
    pub stats: bool,
}

impl Serialize for PerftResultJson {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let stats = self.stats.then_some(&self.result.stats);
        let seconds = self.result.elapsed.as_secs_f64();
        let mut out = serializer.serialize_struct("PerftResult", 12)?;
        out.serialize_field("nodes", &self.result.stats.nodes)?;
        summary(&mut out, stats)?;
        out.serialize_field("classes", &stats.map(|s| ClassesJson(*s)))?;
        out.serialize_field("seconds", &seconds)?;
        out.serialize_field("nps", &nps(self.result.stats.nodes, seconds))?;
        out.end()
    }
}

/// Nodes per second (0 for no time).
pub fn nps(nodes: u64, seconds: f64) -> u64 {
    if seconds > 0.0 {
        (nodes as f64 / seconds) as u64
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use chessd_core::{perft, Position};
    use serde_json::json;

    use super::*;

    #[test]
    fn the_summary_counts_mates_among_checks_and_nests_the_classes() {
        let stats = perft::perft_stats(&Position::startpos(), 4);
        let json = serde_json::to_value(StatsJson {
            stats,
            classes: true,
        })
        .unwrap();
        assert_eq!(json["nodes"], 197_281);
        assert_eq!(json["checks"], stats.checks());
        assert_eq!(json["checkmates"], 8);
        assert_eq!(json["classes"]["direct_checks"], stats.direct_checks);
        let keys: Vec<&str> = json
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(keys.len(), 10, "{keys:?}");
        let plain = StatsJson {
            stats,
            classes: false,
        };
        assert_eq!(serde_json::to_value(plain).unwrap()["classes"], json!(null));
    }

    #[test]
    fn a_result_without_statistics_has_null_summaries() {
        let result = perft::Perft::new(Position::startpos())
            .depth(3)
            .run(|_| {})
            .unwrap();
        let json = serde_json::to_value(PerftResultJson {
            result,
            stats: false,
        })
        .unwrap();
        assert_eq!(json["nodes"], 8902);
        for key in ["captures", "checks", "checkmates", "classes"] {
            assert_eq!(json[key], json!(null), "{key}");
        }
        assert!(json["seconds"].is_f64() && json["nps"].is_u64(), "{json}");
    }
}
