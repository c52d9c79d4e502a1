//! The six armies of Chess 2.

use std::fmt;

/// One of the six armies a side picks before the game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Army {
    /// Standard chess; the only army that castles.
    Classic,
    /// A Nemesis instead of the queen; pawns with nemesis moves.
    Nemesis,
    /// Knights, bishops and rooks share their moves with adjacent ones; a weak queen.
    Empowered,
    /// A Reaper instead of the queen, Ghosts instead of the rooks.
    Reaper,
    /// Two warrior kings, no queen; an extra king turn; the Whirlwind.
    TwoKings,
    /// Wild Horse, Tiger, Elephant and Jungle Queen.
    Animals,
}

impl Army {
    /// Every army, in the rulebook's order.
    pub const ALL: [Army; 6] = [
        Army::Classic,
        Army::Nemesis,
        Army::Empowered,
        Army::Reaper,
        Army::TwoKings,
        Army::Animals,
    ];

    /// The army's letter in EPD and in the HTTP API (`c n e r k a`).
    pub const fn char(self) -> char {
        match self {
            Army::Classic => 'c',
            Army::Nemesis => 'n',
            Army::Empowered => 'e',
            Army::Reaper => 'r',
            Army::TwoKings => 'k',
            Army::Animals => 'a',
        }
    }

    /// The army of a letter (`c n e r k a`), if it is one.
    pub const fn from_char(c: char) -> Option<Army> {
        match c {
            'c' => Some(Army::Classic),
            'n' => Some(Army::Nemesis),
            'e' => Some(Army::Empowered),
            'r' => Some(Army::Reaper),
            'k' => Some(Army::TwoKings),
            'a' => Some(Army::Animals),
            _ => None,
        }
    }

    /// How many kings the army has.
    pub const fn kings(self) -> u32 {
        match self {
            Army::TwoKings => 2,
            _ => 1,
        }
    }

    /// The army's name.
    pub const fn name(self) -> &'static str {
        match self {
            Army::Classic => "Classic",
            Army::Nemesis => "Nemesis",
            Army::Empowered => "Empowered",
            Army::Reaper => "Reaper",
            Army::TwoKings => "Two Kings",
            Army::Animals => "Animals",
        }
    }
}

impl fmt::Display for Army {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn letters_round_trip() {
        for army in Army::ALL {
            assert_eq!(Army::from_char(army.char()), Some(army));
        }
        assert_eq!(Army::from_char('q'), None);
        assert_eq!(Army::from_char('C'), None);
    }
}
