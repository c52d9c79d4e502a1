//! A game's chat: the players' room (between the two seats) and the spectators' room (anyone
//! without a seat), each a bounded window of recent lines kept in memory only (a restart or
//! an eviction forgets them, as lichess forgets a game's chat once it is over).

use std::collections::VecDeque;

use chessd_core::Color;
use serde::{Deserialize, Serialize};

use crate::game::secrets::Caller;

/// Which of a game's two chats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Room {
    /// Between the two seats; spectators never see it.
    Players,
    /// Among spectators; players do not see it (as lichess).
    Spectators,
}

impl Room {
    /// The room a caller writes in and reads: a seat's is the players', anyone else's (the
    /// admin included) the spectators'.
    pub fn of(caller: Caller) -> Room {
        match caller {
            Caller::Seat(_) => Room::Players,
            Caller::Admin | Caller::Anonymous => Room::Spectators,
        }
    }
}

/// One chat message.
#[derive(Clone, Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ChatLine {
    /// The room it was written in.
    pub room: Room,
    /// The seat that wrote it (players' room), or `spectator`.
    pub from: String,
    /// The text, as written (clients show it as text, never as markup).
    pub text: String,
    /// When it was written, in milliseconds since the Unix epoch.
    pub at_ms: i64,
}

impl ChatLine {
    /// A line written now by `caller`.
    pub fn new(caller: Caller, text: String) -> ChatLine {
        let from = match caller {
            Caller::Seat(Color::White) => "white",
            Caller::Seat(Color::Black) => "black",
            Caller::Admin | Caller::Anonymous => "spectator",
        };
        ChatLine {
            room: Room::of(caller),
            from: from.to_string(),
            text,
            at_ms: crate::store::now_ms(),
        }
    }
}

/// The recent lines of a game's two rooms, at most `capacity` each.
#[derive(Debug, Default)]
pub struct ChatLog {
    players: VecDeque<ChatLine>,
    spectators: VecDeque<ChatLine>,
}

impl ChatLog {
    /// Keeps `line`, forgetting the oldest of its room beyond `capacity`.
    pub fn keep(&mut self, line: ChatLine, capacity: usize) {
        let room = self.room_mut(line.room);
        room.push_back(line);
        while room.len() > capacity {
            room.pop_front();
        }
    }

    /// The recent lines of `room`, oldest first.
    pub fn recent(&self, room: Room) -> Vec<ChatLine> {
        match room {
            Room::Players => self.players.iter().cloned().collect(),
            Room::Spectators => self.spectators.iter().cloned().collect(),
        }
    }

    fn room_mut(&mut self, room: Room) -> &mut VecDeque<ChatLine> {
        match room {
            Room::Players => &mut self.players,
            Room::Spectators => &mut self.spectators,
        }
    }
}

/// Checks a message's text against the length limit: control characters taken out (a line
/// break or a terminal escape has no place in a one-line chat, as on lichess), the rest trimmed,
/// then not empty and at most `max_chars` characters.
pub fn check_text(text: &str, max_chars: usize) -> Result<String, crate::game::GameError> {
    let cleaned: String = text.chars().filter(|c| !c.is_control()).collect();
    let text = cleaned.trim();
    let chars = text.chars().count();
    if chars == 0 || chars > max_chars {
        return Err(crate::game::GameError::ChatTooLong(format!(
            "a chat message has 1 to {max_chars} characters other than control characters (this one has {chars})"
        )));
    }
    Ok(text.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_taken_out_and_nothing_else_is_refused() {
        assert_eq!(
            check_text(" a\u{1b}[31mb\nc ", 140).ok().as_deref(),
            Some("a[31mbc")
        );
        assert!(matches!(
            check_text("\u{9f}\u{7}", 140),
            Err(crate::game::GameError::ChatTooLong(_))
        ));
        assert_eq!(check_text("ça va ?", 140).ok().as_deref(), Some("ça va ?"));
    }

    #[test]
    fn rooms_are_bounded_and_apart() {
        let mut log = ChatLog::default();
        for i in 0..5 {
            log.keep(
                ChatLine::new(Caller::Seat(Color::White), format!("p{i}")),
                3,
            );
        }
        log.keep(ChatLine::new(Caller::Anonymous, "s".into()), 3);
        let players: Vec<_> = log
            .recent(Room::Players)
            .into_iter()
            .map(|l| l.text)
            .collect();
        assert_eq!(players, ["p2", "p3", "p4"]);
        assert_eq!(log.recent(Room::Spectators).len(), 1);
        assert!(check_text("  ", 10).is_err());
        assert!(check_text(&"x".repeat(11), 10).is_err());
        assert_eq!(check_text(" hi ", 10).unwrap(), "hi");
    }
}
