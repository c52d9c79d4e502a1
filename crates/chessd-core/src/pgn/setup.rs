//! The start position a game's tags ask for: `[FEN]` (with `[SetUp "1"]`) and `[Variant]`.

use super::PgnErrorKind;
use crate::{FenMode, Position};

/// The value of the last tag called `name` (compared ignoring ASCII case).
pub(crate) fn find_tag<'a>(tags: &'a [(String, String)], name: &str) -> Option<&'a str> {
    tags.iter()
        .rev()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

/// Whether a `[Variant]` value means Chess960 (`Some(true)`), standard chess
/// (`Some(false)`), or a game this library does not play (`None`).
///
/// Accepted spellings ignore case, spaces, `-` and `_`: `Chess960`, `chess 960`,
/// `Fischer Random`, `FischerRandom`, `Fischerandom`, `960`, `FRC` for Chess960; `Standard`,
/// `Chess`, `Normal`, `Classical`, `From Position` (Lichess's name for a standard game from a
/// FEN) and the empty value for chess.
pub fn variant_is_chess960(value: &str) -> Option<bool> {
    let name: String = value
        .chars()
        .filter(|c| !matches!(c, ' ' | '-' | '_' | '\t'))
        .flat_map(char::to_lowercase)
        .collect();
    match name.as_str() {
        "" | "standard" | "chess" | "normal" | "classical" | "fromposition" | "orthodox" => {
            Some(false)
        }
        "chess960" | "960" | "fischerrandom" | "fischerandom" | "fischerrandomchess"
        | "fischerandomchess" | "frc" => Some(true),
        _ => None,
    }
}

/// The start position from the tags: the `[FEN]` if there is one (read in strict mode, with
/// or without `[SetUp "1"]`), else the standard position; Chess960 if `[Variant]` says so.
/// On error, also returns the tag value at fault.
pub(crate) fn start_position(
    tags: &[(String, String)],
) -> Result<Position, (PgnErrorKind, String)> {
    let chess960 = match find_tag(tags, "Variant") {
        None => false,
        Some(v) => variant_is_chess960(v).ok_or_else(|| {
            (
                PgnErrorKind::UnsupportedVariant(v.to_string()),
                v.to_string(),
            )
        })?,
    };
    let mut pos = match find_tag(tags, "FEN") {
        Some(fen) => Position::from_fen(fen.trim(), FenMode::Strict)
            .map_err(|e| (PgnErrorKind::Fen(e), fen.to_string()))?,
        None => Position::startpos(),
    };
    if chess960 {
        pos.set_chess960(true);
    }
    Ok(pos)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn tags(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn variant_names() {
        for v in [
            "Chess960",
            "chess 960",
            "Fischer Random",
            "fischerandom",
            "FRC",
        ] {
            assert_eq!(variant_is_chess960(v), Some(true), "{v}");
        }
        for v in ["Standard", "chess", "From Position", ""] {
            assert_eq!(variant_is_chess960(v), Some(false), "{v}");
        }
        for v in ["Crazyhouse", "Atomic", "Three-check", "chess961"] {
            assert_eq!(variant_is_chess960(v), None, "{v}");
        }
    }

    #[test]
    fn start_positions() {
        assert_eq!(start_position(&[]), Ok(Position::startpos()));
        let pos = start_position(&tags(&[
            ("Variant", "Chess960"),
            ("SetUp", "1"),
            (
                "FEN",
                "bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w KQkq - 0 1",
            ),
        ]))
        .unwrap();
        assert!(pos.is_chess960());
        assert_eq!(
            pos.fen(),
            "bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w GEge - 0 1"
        );
        assert!(matches!(
            start_position(&tags(&[("Variant", "Atomic")])),
            Err((PgnErrorKind::UnsupportedVariant(_), _))
        ));
        assert!(matches!(
            start_position(&tags(&[("FEN", "8/8/8/8/8/8/8/8 w - - 0 1")])),
            Err((PgnErrorKind::Fen(_), _))
        ));
    }
}
