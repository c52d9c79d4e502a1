//! What a match prints: a line per game on stderr as it ends, and at the end the score on
//! stdout as PGN escape lines (`% …`, which PGN readers skip), then the PGN of every game, or
//! the PGN to a file.

use std::{path::Path, time::Duration};

use super::{openings, referee::Played, score::Tally};

/// `game  3/20: stockfish - toga  1-0 checkmate, 87 plies (opening 2: e4 e5 Nf3 Nc6 Bb5 a6)`
/// for game `index` (from 0) of `games`, whose first `opening_plies` plies were the opening.
pub(super) fn game_line(played: &Played, index: u32, games: u32, opening_plies: usize) -> String {
    let history = played.game.notated_history();
    let opening: Vec<&str> = history
        .iter()
        .take(opening_plies)
        .map(|p| p.san.as_str())
        .collect();
    let opening = if opening.is_empty() {
        "the start position".to_string()
    } else {
        opening.join(" ")
    };
    format!(
        "game {:>width$}/{games}: {} - {}  {}, {} plies (opening {}: {opening})",
        index + 1,
        played.white,
        played.black,
        played.summary(),
        history.len(),
        openings::number(index),
        width = games.to_string().len(),
    )
}

/// Prints the match's `heading` and the score of engine `first` (as PGN escape lines) on
/// stdout, then the `pgn` of the games, or writes the PGN to `file`.
pub(super) fn report(
    heading: &str,
    first: &str,
    tally: &Tally,
    elapsed: Duration,
    pgn: &str,
    file: Option<&Path>,
) -> Result<(), String> {
    println!("% chessd match: {heading}");
    println!(
        "% score of {first}: {}, {:.0} s",
        tally.summary(),
        elapsed.as_secs_f64()
    );
    match file {
        None => {
            println!();
            print!("{pgn}");
        }
        Some(path) => {
            std::fs::write(path, pgn)
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            eprintln!("chessd match: the PGN is in {}", path.display());
        }
    }
    Ok(())
}
