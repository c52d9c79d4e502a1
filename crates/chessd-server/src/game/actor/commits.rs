//! How a game actor keeps what it changes: writes to the store, events and answers held until
//! their commit, and idempotency keys kept in the same batch as their change.

use std::sync::Arc;

use actix::{ActorContext, ActorFutureExt, AsyncContext, Context, Handler, WrapFuture};

use super::{refuse, GameActor, Waiting};
use crate::{
    game::{
        events::{EventFrame, EventKind},
        hooks::StopReason,
        idempotency::{IdempotencyKey, KeptAnswer, KeptKey, KeyScope},
        journal::{Entry, StoredOptions},
        GameError,
    },
    store::{KeyRow, WriteOp},
};

impl GameActor {
    /// Sends `op` to the store. Until it is committed, new requests wait in the backlog
    /// (timers and engine output go on).
    pub(super) fn write(&mut self, op: WriteOp, ctx: &mut Context<Self>) {
        if let Some(collected) = &mut self.collecting {
            collected.push(op);
            return;
        }
        self.in_flight += 1;
        let committed = self.env.store.write_fenced(op, self.fence);
        ctx.spawn(
            committed
                .into_actor(self)
                .map(|result, act, ctx| act.on_commit(result.map(|_| ()), ctx)),
        );
    }

    /// A write came back: on success, releases the events and (when nothing else is in
    /// flight) the answers it held; on failure the actor stops, so that the game comes back
    /// from what the store holds.
    pub(super) fn on_commit(
        &mut self,
        result: Result<(), crate::store::StoreError>,
        ctx: &mut Context<Self>,
    ) {
        self.in_flight -= 1;
        match result {
            Ok(()) => {
                if self.in_flight == 0 {
                    let Some(mut waiting) = self.waiting.take() else {
                        if self.stopping {
                            ctx.stop();
                        }
                        return;
                    };
                    while let Some(frame) = waiting.held.pop_front() {
                        self.broadcast(frame);
                    }
                    while let Some(answer) = waiting.answers.pop_front() {
                        answer(None);
                    }
                    if self.stopping {
                        self.waiting = Some(waiting);
                        ctx.stop();
                        return;
                    }
                    // Requests that came meanwhile, in order, until one writes again (what
                    // waits then, and what came while these were handled, waits on).
                    while self.in_flight == 0 {
                        let Some(envelope) = waiting.backlog.pop_front() else {
                            break;
                        };
                        self.handle(envelope, ctx);
                    }
                    if !waiting.backlog.is_empty() {
                        let later = self.waiting.take();
                        let w = self.waiting();
                        let mut backlog = std::mem::take(&mut waiting.backlog);
                        if let Some(later) = later {
                            w.held = later.held;
                            w.answers = later.answers;
                            backlog.extend(later.backlog);
                        }
                        w.backlog = backlog;
                    }
                }
            }
            Err(e) => {
                tracing::error!(game = %self.id, error = %e, "store write failed; the game stops");
                let error = e.to_string();
                let waiting = self.waiting.take().unwrap_or_default();
                let Waiting {
                    answers, backlog, ..
                } = *waiting;
                for answer in answers {
                    answer(Some(&error));
                }
                for envelope in backlog {
                    refuse(envelope.request, GameError::Store(error.clone()));
                }
                self.stop_reason = StopReason::StoreFailed;
                ctx.stop();
            }
        }
    }

    /// Publishes a change of the game under the next version. With a store, the change is
    /// written first: the event goes out, and the request's answer with it, once committed.
    pub(super) fn publish(&mut self, event: EventKind, ctx: &mut Context<Self>) {
        // Every change of the game is published: a finished game stops counting against its
        // creator's unfinished games here, whichever way it ended.
        if self.game.is_over() {
            self.permit = None;
            if let Some(seats) = &mut self.seats {
                seats.bot_permits.clear();
            }
        }
        let frame = self.log.push(&event);
        crate::metrics::count_event();
        let Some(game) = self.stored else {
            self.broadcast(frame);
            return;
        };
        let Some(entry) = Entry::for_event(&event, || self.saved_state()) else {
            self.broadcast(frame);
            return;
        };
        let result = self.game.status().result;
        let status = (result != self.stored_result).then(|| {
            self.stored_result = result;
            result.name().to_string()
        });
        // A rated game's end carries its ratings, committed with it.
        let rate = match (&status, &self.players) {
            (Some(_), Some(players)) => players.rate_op(self.id, result, self.game.plies()),
            _ => None,
        };
        let op = WriteOp::Append {
            game,
            version: frame.version as i64,
            body: entry.encode(),
            status,
            now_ms: crate::store::now_ms(),
        };
        self.waiting().held.push_back(frame);
        match rate {
            None => self.write(op, ctx),
            Some(rate) => match &mut self.collecting {
                // A keyed request's writes are committed together already.
                Some(collected) => collected.extend([op, WriteOp::Rate(rate)]),
                None => self.write(WriteOp::Batch(vec![op, WriteOp::Rate(rate)]), ctx),
            },
        }
    }

    /// Sends an event to every subscriber.
    pub(super) fn broadcast(&mut self, frame: Arc<EventFrame>) {
        // A subscriber whose queue is full or closed is dropped; it reconnects and catches up.
        self.subscribers
            .retain(|(_, _, tx)| tx.try_send(frame.clone()).is_ok());
    }

    /// Writes the game's options to the store (after a change).
    pub(super) fn write_options(&mut self, ctx: &mut Context<Self>) {
        if let Some(game) = self.stored {
            let options = StoredOptions::of(&self.options, self.stored_opponents());
            let options = serde_json::to_string(&options).unwrap_or_default();
            self.write(
                WriteOp::Options {
                    game,
                    options,
                    now_ms: crate::store::now_ms(),
                },
                ctx,
            );
        }
    }

    /// Sends writes collected while a keyed request was carried out, committed together.
    pub(super) fn flush_writes(&mut self, mut writes: Vec<WriteOp>, ctx: &mut Context<Self>) {
        match writes.len() {
            0 => {}
            1 => self.write(writes.remove(0), ctx),
            _ => self.write(WriteOp::Batch(writes), ctx),
        }
    }

    /// Keeps the answer to a keyed request; gives the store's writes for it (none in memory).
    pub(super) fn keep_key<R>(
        &mut self,
        scope: KeyScope,
        key: IdempotencyKey<R>,
        answer: KeptAnswer,
    ) -> Vec<WriteOp> {
        let now_ms = crate::store::now_ms();
        let row = self.stored.map(|game| KeyRow {
            game,
            scope: scope.code(),
            key: key.key.clone(),
            fingerprint: key.fingerprint.to_vec(),
            status: i64::from(answer.status),
            body: answer.body.to_string(),
            at_ms: now_ms,
        });
        let forgotten = self.keys.keep(KeptKey {
            scope,
            key: key.key,
            fingerprint: key.fingerprint,
            answer,
        });
        let Some(row) = row else {
            return Vec::new();
        };
        let game = row.game;
        let mut writes = vec![WriteOp::Key(row)];
        writes.extend(forgotten.into_iter().map(|old| WriteOp::ForgetKey {
            game,
            scope: old.scope.code(),
            key: old.key,
        }));
        writes
    }
}
