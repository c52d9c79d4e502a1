//! A socket's pace, the same for game and lobby sockets: the frames a client may send per
//! second (`websocket.max_messages_per_sec`, counted in one-second windows) and the heartbeat
//! that pings every `websocket.heartbeat_secs` and closes a client silent for longer than
//! `websocket.client_timeout_secs`.

use std::time::{Duration, Instant};

use actix_ws::{CloseCode, CloseReason};

use crate::config::WebSocketConfig;

/// Frames counted in the current one-second window.
pub(crate) struct MessageRate {
    window_start: Instant,
    count: u32,
    max: u32,
}

impl MessageRate {
    /// A rate of at most `limits.max_messages_per_sec` frames a second.
    pub(crate) fn new(limits: &WebSocketConfig) -> MessageRate {
        MessageRate {
            window_start: Instant::now(),
            count: 0,
            max: limits.max_messages_per_sec,
        }
    }

    /// Counts a frame: the close reason (1008) when it is one too many this second.
    pub(crate) fn admit(&mut self) -> Result<(), CloseReason> {
        if self.window_start.elapsed() >= Duration::from_secs(1) {
            self.window_start = Instant::now();
            self.count = 0;
        }
        self.count += 1;
        if self.count > self.max {
            return Err(CloseReason {
                code: CloseCode::Policy,
                description: Some("too many messages".into()),
            });
        }
        Ok(())
    }
}

/// When the server pings and when it gives up on a silent client.
pub(crate) struct Heartbeat {
    /// Ticks at each ping.
    pub(crate) ticker: tokio::time::Interval,
    last_seen: Instant,
    timeout: Duration,
}

impl Heartbeat {
    /// The heartbeat of `limits`.
    pub(crate) fn new(limits: &WebSocketConfig) -> Heartbeat {
        Heartbeat {
            ticker: tokio::time::interval(Duration::from_secs(limits.heartbeat_secs.max(1))),
            last_seen: Instant::now(),
            timeout: Duration::from_secs(limits.client_timeout_secs.max(1)),
        }
    }

    /// The client sent something.
    pub(crate) fn seen(&mut self) {
        self.last_seen = Instant::now();
    }

    /// At a tick: the close reason (1001) when the client has been silent too long.
    pub(crate) fn expired(&self) -> Option<CloseReason> {
        (self.last_seen.elapsed() > self.timeout).then(|| CloseReason {
            code: CloseCode::Away,
            description: Some("heartbeat timeout".into()),
        })
    }
}
