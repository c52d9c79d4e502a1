//! Engine → GUI: what an engine says of itself in the handshake (`id` lines, declared
//! `option`s).

use std::fmt;

use serde::{Serialize, Serializer};

use super::span;

/// What an `id` line names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IdLine {
    /// `id name …`.
    Name(String),
    /// `id author …`.
    Author(String),
}

/// The type of a declared option.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OptionType {
    /// `check`: true/false.
    Check,
    /// `spin`: an integer between `min` and `max`.
    Spin,
    /// `combo`: one of the `var` values.
    Combo,
    /// `button`: no value.
    Button,
    /// `string`: any text.
    String,
    /// A type this module does not know.
    Other(String),
}

impl OptionType {
    fn parse(word: &str) -> OptionType {
        match word {
            "check" => OptionType::Check,
            "spin" => OptionType::Spin,
            "combo" => OptionType::Combo,
            "button" => OptionType::Button,
            "string" => OptionType::String,
            other => OptionType::Other(other.to_string()),
        }
    }

    /// The UCI word for this type.
    pub fn as_str(&self) -> &str {
        match self {
            OptionType::Check => "check",
            OptionType::Spin => "spin",
            OptionType::Combo => "combo",
            OptionType::Button => "button",
            OptionType::String => "string",
            OptionType::Other(s) => s,
        }
    }
}

impl Serialize for OptionType {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// An `option` line: an option the engine declares in its handshake.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "utoipa", schema(as = UciOption))]
pub struct OptionDecl {
    /// Its name (may contain spaces).
    pub name: String,
    /// Its type.
    #[serde(rename = "type")]
    #[cfg_attr(feature = "utoipa", schema(value_type = String))]
    pub kind: OptionType,
    /// Its default value, as text (Stockfish writes `<empty>` for an empty string).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
    /// Smallest value of a spin.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min: Option<i64>,
    /// Largest value of a spin.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max: Option<i64>,
    /// The values of a combo.
    #[serde(rename = "var", skip_serializing_if = "Vec::is_empty")]
    pub vars: Vec<String>,
}

impl OptionDecl {
    /// Checks `value` against this declaration: a check takes `true`/`false`, a spin an integer
    /// in range, a combo one of its values (case-insensitive), a button nothing.
    pub fn check_value(&self, value: Option<&str>) -> Result<(), String> {
        let name = &self.name;
        match (&self.kind, value) {
            (OptionType::Button, None) => Ok(()),
            (OptionType::Button, Some(_)) => Err(format!("option {name} is a button: no value")),
            (_, None) => Err(format!("option {name} needs a value")),
            (OptionType::Check, Some(v)) => match v {
                "true" | "false" => Ok(()),
                _ => Err(format!("option {name} is a check: true or false, not {v}")),
            },
            (OptionType::Spin, Some(v)) => {
                let n: i64 = v
                    .parse()
                    .map_err(|_| format!("option {name} is a spin: {v} is not an integer"))?;
                let (lo, hi) = (self.min.unwrap_or(i64::MIN), self.max.unwrap_or(i64::MAX));
                if n < lo || n > hi {
                    return Err(format!("option {name}: {n} is outside {lo}..={hi}"));
                }
                Ok(())
            }
            (OptionType::Combo, Some(v)) => {
                if self.vars.iter().any(|var| var.eq_ignore_ascii_case(v)) {
                    Ok(())
                } else {
                    Err(format!(
                        "option {name}: {v} is not one of {}",
                        self.vars.join(", ")
                    ))
                }
            }
            (OptionType::String | OptionType::Other(_), Some(_)) => Ok(()),
        }
    }

    pub(super) fn parse(line: &str, toks: &[(usize, &str)]) -> Option<OptionDecl> {
        let words: Vec<&str> = toks.iter().map(|&(_, t)| t).collect();
        if words.get(1) != Some(&"name") {
            return None;
        }
        let type_at = words.iter().skip(2).position(|&w| w == "type")? + 2;
        let name = span(line, toks, 2, type_at);
        let kind = OptionType::parse(words.get(type_at + 1)?);
        let mut decl = OptionDecl {
            name,
            kind,
            default: None,
            min: None,
            max: None,
            vars: Vec::new(),
        };
        let keywords = ["default", "min", "max", "var"];
        let mut i = type_at + 2;
        while i < words.len() {
            let key = words[i];
            let end = (i + 1..words.len())
                .find(|&j| keywords.contains(&words[j]))
                .unwrap_or(words.len());
            let value = span(line, toks, i + 1, end);
            match key {
                "default" => decl.default = Some(value),
                "min" => decl.min = value.parse().ok(),
                "max" => decl.max = value.parse().ok(),
                "var" => decl.vars.push(value),
                _ => {}
            }
            i = end;
        }
        Some(decl)
    }
}

impl fmt::Display for OptionDecl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "option name {} type {}", self.name, self.kind.as_str())?;
        if let Some(d) = &self.default {
            write!(f, " default {d}")?;
        }
        if let Some(n) = self.min {
            write!(f, " min {n}")?;
        }
        if let Some(n) = self.max {
            write!(f, " max {n}")?;
        }
        for v in &self.vars {
            write!(f, " var {v}")?;
        }
        Ok(())
    }
}
