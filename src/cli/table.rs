//! Key/value tables for human output, in the style of the Grand Chess Tree client.

use std::fmt::Write;

/// Renders rows as a boxed two-column table:
///
/// ```text
///  -------------------------
///  | key       | value     |
///  -------------------------
///  | depth     | 6         |
///  -------------------------
/// ```
pub(crate) fn render(rows: &[(&str, String)]) -> String {
    let key_width = rows
        .iter()
        .map(|(k, _)| k.len())
        .chain([3])
        .max()
        .unwrap_or(3);
    let value_width = rows
        .iter()
        .map(|(_, v)| v.chars().count())
        .chain([5])
        .max()
        .unwrap_or(5);
    let rule = format!(" {}\n", "-".repeat(key_width + value_width + 7));
    let mut out = rule.clone();
    let mut row = |k: &str, v: &str| {
        // Writing to a String cannot fail.
        let _ = writeln!(out, " | {k:<key_width$} | {v:<value_width$} |");
        out.push_str(&rule);
    };
    row("key", "value");
    for (k, v) in rows {
        row(k, v);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_are_aligned() {
        let text = render(&[("depth", "6".into()), ("nodes", "119060324".into())]);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 7);
        assert!(lines.iter().all(|l| l.len() == lines[0].len()));
        assert_eq!(lines[3], " | depth | 6         |");
    }
}
