//! A one-line progress display on stderr, shown only when stderr is a terminal.

use std::io::{IsTerminal, Write};

/// Redraws a status line in place on a terminal; does nothing when stderr is redirected.
pub(crate) struct ProgressLine {
    enabled: bool,
    drawn: bool,
}

impl ProgressLine {
    /// A progress line, enabled when stderr is a terminal.
    pub(crate) fn new() -> ProgressLine {
        ProgressLine {
            enabled: std::io::stderr().is_terminal(),
            drawn: false,
        }
    }

    /// Replaces the line with `text`.
    pub(crate) fn draw(&mut self, text: &str) {
        if self.enabled {
            let mut err = std::io::stderr().lock();
            // A failed write to the terminal only loses a progress update.
            let _ = write!(err, "\r\x1b[2K{text}");
            let _ = err.flush();
            self.drawn = true;
        }
    }

    /// Erases the line if anything was drawn.
    pub(crate) fn clear(&mut self) {
        if self.drawn {
            let _ = write!(std::io::stderr(), "\r\x1b[2K");
            self.drawn = false;
        }
    }
}

/// A text bar of `width` cells, `done` of `total` filled.
pub(crate) fn bar(done: usize, total: usize, width: usize) -> String {
    let filled = (done.min(total) * width)
        .checked_div(total)
        .unwrap_or(width);
    format!("[{}{}]", "#".repeat(filled), " ".repeat(width - filled))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bar_fills_in_proportion() {
        assert_eq!(bar(0, 4, 4), "[    ]");
        assert_eq!(bar(2, 4, 4), "[##  ]");
        assert_eq!(bar(4, 4, 4), "[####]");
        assert_eq!(bar(0, 0, 2), "[##]");
    }
}
