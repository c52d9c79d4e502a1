//! WebSocket input limits, enforced on the client's raw bytes before anything is buffered.
//!
//! actix-ws checks a frame's size only once the whole frame has arrived (its codec waits for
//! `header + length` bytes, whatever `max_frame_size` says), so a header announcing 512 MiB made
//! the server buffer 512 MiB, and one announcing 2^62 bytes held the connection until the
//! heartbeat. Its continuation aggregation, for its part, reports an oversized message as an I/O
//! error (1002, not 1009).
//!
//! [`handle`] puts a [`FrameInspector`] between the request payload and actix-ws: it follows the
//! byte stream frame by frame and reads each header as soon as it arrives. A header announcing
//! more than `max_frame_bytes`, or a data frame taking its message (the frame and its
//! continuations) past `max_message_bytes`, ends the payload at once: the connection is closed
//! with 1009 before a byte of that frame's payload is kept. So a connection holds at most one
//! partial frame (`max_frame_bytes`) and one partial message (`max_message_bytes`) of client
//! input, beside actix-http's fixed read buffers (128 KiB + 32 KiB).

use std::{
    cell::Cell,
    pin::Pin,
    rc::Rc,
    task::{ready, Context, Poll},
};

use actix_web::{
    dev,
    error::PayloadError,
    web::{self, Bytes},
    FromRequest, HttpRequest, HttpResponse,
};
use actix_ws::{AggregatedMessage, AggregatedMessageStream, CloseCode, CloseReason, Session};
use futures_util::Stream;

use crate::config::WebSocketConfig;

/// A client frame or message over the limits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum Violation {
    /// A frame header announcing more than `limit` bytes.
    #[error("frame of {announced} bytes over the limit of {limit}")]
    Frame {
        /// The length the header announced.
        announced: u64,
        /// `max_frame_bytes`.
        limit: u64,
    },
    /// A message (a data frame and its continuations) reaching more than `limit` bytes.
    #[error("message of {total} bytes or more over the limit of {limit}")]
    Message {
        /// The message's length with the frame that crossed the limit.
        total: u64,
        /// `max_message_bytes`.
        limit: u64,
    },
}

/// Longest frame header: 2 bytes, an 8-byte extended length and a 4-byte mask key.
const MAX_HEADER: usize = 14;

/// Follows a client's byte stream frame by frame (RFC 6455 §5.2) and checks every header the
/// moment it is complete, before its payload arrives. Malformed frames are left to the codec.
#[derive(Debug)]
pub(crate) struct FrameInspector {
    max_frame: u64,
    max_message: u64,
    header: [u8; MAX_HEADER],
    header_len: usize,
    payload_left: u64,
    message_len: u64,
}

impl FrameInspector {
    /// An inspector allowing frames up to `max_frame` bytes and messages up to `max_message`.
    pub(crate) fn new(max_frame: u64, max_message: u64) -> FrameInspector {
        FrameInspector {
            max_frame,
            max_message,
            header: [0; MAX_HEADER],
            header_len: 0,
            payload_left: 0,
            message_len: 0,
        }
    }

    /// Takes the next bytes of the stream; the first header over a limit is an error (and the
    /// stream must end there: the inspector does not resynchronise).
    pub(crate) fn inspect(&mut self, mut bytes: &[u8]) -> Result<(), Violation> {
        while !bytes.is_empty() {
            if self.payload_left > 0 {
                let skip = bytes
                    .len()
                    .min(usize::try_from(self.payload_left).unwrap_or(usize::MAX));
                bytes = &bytes[skip..];
                self.payload_left -= skip as u64;
                continue;
            }
            self.header[self.header_len] = bytes[0];
            self.header_len += 1;
            bytes = &bytes[1..];
            if self.header_len >= 2 && self.header_len == header_size(self.header[1]) {
                self.header_len = 0;
                self.frame_started()?;
            }
        }
        Ok(())
    }

    /// Checks the complete header in `self.header` and sets up skipping its payload.
    fn frame_started(&mut self) -> Result<(), Violation> {
        let h = &self.header;
        let fin = h[0] & 0x80 != 0;
        let opcode = h[0] & 0x0F;
        let length = match h[1] & 0x7F {
            126 => u64::from(u16::from_be_bytes([h[2], h[3]])),
            127 => u64::from_be_bytes([h[2], h[3], h[4], h[5], h[6], h[7], h[8], h[9]]),
            short => u64::from(short),
        };
        if length > self.max_frame {
            return Err(Violation::Frame {
                announced: length,
                limit: self.max_frame,
            });
        }
        let message = match opcode {
            0 => self.message_len.saturating_add(length), // continuation
            1 | 2 => length,                              // text, binary
            _ => {
                // Control frames (at most 125 bytes, which the codec checks) may come between
                // the frames of a message and are no part of it.
                self.payload_left = length;
                return Ok(());
            }
        };
        if message > self.max_message {
            return Err(Violation::Message {
                total: message,
                limit: self.max_message,
            });
        }
        self.message_len = if fin { 0 } else { message };
        self.payload_left = length;
        Ok(())
    }
}

/// The size of a client frame header from its second byte: 2, plus the extended length, plus
/// the mask key when the mask bit is set.
fn header_size(second: u8) -> usize {
    let extended = match second & 0x7F {
        126 => 2,
        127 => 8,
        _ => 0,
    };
    let mask = if second & 0x80 != 0 { 4 } else { 0 };
    2 + extended + mask
}

/// The request payload seen through a [`FrameInspector`]: it ends with an error (and records
/// the violation) at the first chunk holding a header over the limits.
struct InspectedPayload {
    inner: dev::Payload,
    inspector: FrameInspector,
    violation: Rc<Cell<Option<Violation>>>,
}

impl Stream for InspectedPayload {
    type Item = Result<Bytes, PayloadError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        if self.violation.get().is_some() {
            return Poll::Ready(None);
        }
        let item = ready!(Pin::new(&mut self.inner).poll_next(cx));
        if let Some(Ok(bytes)) = &item {
            if let Err(violation) = self.inspector.inspect(bytes) {
                self.violation.set(Some(violation));
                return Poll::Ready(Some(Err(PayloadError::Overflow)));
            }
        }
        Poll::Ready(item)
    }
}

/// Client messages of a WebSocket opened by [`handle`]; errors come as the close reason to send.
pub(crate) struct LimitedStream {
    inner: AggregatedMessageStream,
    violation: Rc<Cell<Option<Violation>>>,
}

impl LimitedStream {
    /// The next client message; `Err` carries the reason to close with (1009 for a frame or
    /// message over the limits, 1002 for a protocol error); `None` when the client is gone.
    pub(crate) async fn recv(&mut self) -> Option<Result<AggregatedMessage, CloseReason>> {
        let item = self.inner.recv().await?;
        Some(item.map_err(|error| match self.violation.get() {
            Some(violation) => CloseReason {
                code: CloseCode::Size,
                description: Some(violation.to_string()),
            },
            None => CloseReason {
                code: if matches!(error, actix_ws::ProtocolError::Overflow) {
                    CloseCode::Size
                } else {
                    CloseCode::Protocol
                },
                description: Some(error.to_string()),
            },
        }))
    }
}

/// `actix_ws::handle` with the `[websocket]` frame and message limits enforced on the raw bytes
/// (see the module documentation). Sending the close reason and dropping the connection is the
/// caller's: `session.close(reason)`, then return.
pub(crate) async fn handle(
    req: &HttpRequest,
    body: web::Payload,
    limits: &WebSocketConfig,
) -> Result<(HttpResponse, Session, LimitedStream), actix_web::Error> {
    let violation = Rc::new(Cell::new(None));
    let inspected = InspectedPayload {
        inner: body.into_inner(),
        inspector: FrameInspector::new(
            limits.max_frame_bytes as u64,
            limits.max_message_bytes as u64,
        ),
        violation: violation.clone(),
    };
    let stream: Pin<Box<dyn Stream<Item = Result<Bytes, PayloadError>>>> = Box::pin(inspected);
    let body = web::Payload::from_request(req, &mut dev::Payload::from(stream)).await?;
    let (response, session, messages) = actix_ws::handle(req, body)?;
    let inner = messages
        .max_frame_size(limits.max_frame_bytes)
        .aggregate_continuations()
        .max_continuation_size(limits.max_message_bytes);
    Ok((response, session, LimitedStream { inner, violation }))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A masked client frame header (mask key 0) announcing `length` bytes.
    fn header(fin: bool, opcode: u8, length: u64) -> Vec<u8> {
        let mut h = vec![if fin { 0x80 } else { 0 } | opcode];
        match length {
            0..=125 => h.push(0x80 | length as u8),
            126..=0xFFFF => {
                h.push(0x80 | 126);
                h.extend_from_slice(&(length as u16).to_be_bytes());
            }
            _ => {
                h.push(0x80 | 127);
                h.extend_from_slice(&length.to_be_bytes());
            }
        }
        h.extend_from_slice(&[0; 4]);
        h
    }

    fn frame(fin: bool, opcode: u8, length: usize) -> Vec<u8> {
        let mut f = header(fin, opcode, length as u64);
        f.resize(f.len() + length, b'x');
        f
    }

    #[test]
    fn a_header_over_the_frame_limit_is_refused_before_its_payload() {
        let mut inspector = FrameInspector::new(1024, 4096);
        assert_eq!(inspector.inspect(&frame(true, 1, 1024)), Ok(()));
        for announced in [1025, 70_000, 512 << 20, 1 << 62, u64::MAX] {
            let mut inspector = FrameInspector::new(1024, 4096);
            assert_eq!(
                inspector.inspect(&header(true, 2, announced)),
                Err(Violation::Frame {
                    announced,
                    limit: 1024
                })
            );
        }
    }

    #[test]
    fn headers_split_across_chunks_are_still_read() {
        let mut inspector = FrameInspector::new(1024, 4096);
        let mut stream = frame(true, 1, 300);
        stream.extend(header(true, 1, 5000));
        let mut result = Ok(());
        for byte in &stream {
            result = inspector.inspect(std::slice::from_ref(byte));
            if result.is_err() {
                break;
            }
        }
        assert_eq!(
            result,
            Err(Violation::Frame {
                announced: 5000,
                limit: 1024
            })
        );
    }

    #[test]
    fn continuations_count_towards_the_message_limit_and_controls_do_not() {
        let mut inspector = FrameInspector::new(1024, 3000);
        let mut ok = frame(false, 1, 1000);
        ok.extend(frame(true, 9, 125)); // a ping between the fragments
        ok.extend(frame(false, 0, 1000));
        ok.extend(frame(true, 0, 1000));
        ok.extend(frame(false, 2, 1000)); // a new message starts from zero
        assert_eq!(inspector.inspect(&ok), Ok(()));
        assert_eq!(inspector.inspect(&frame(false, 0, 1000)), Ok(()));
        assert_eq!(
            inspector.inspect(&header(false, 0, 1001)),
            Err(Violation::Message {
                total: 3001,
                limit: 3000
            })
        );
    }

    #[test]
    fn a_single_frame_message_is_held_to_the_message_limit_too() {
        let mut inspector = FrameInspector::new(4096, 1000);
        assert_eq!(
            inspector.inspect(&header(true, 1, 1001)),
            Err(Violation::Message {
                total: 1001,
                limit: 1000
            })
        );
    }
}
