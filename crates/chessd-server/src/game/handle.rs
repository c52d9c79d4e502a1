//! [`GameHandle`]: the typed way to talk to one game. Each method sends one request to the
//! game's actor and waits for its answer; a game that has stopped (or stops while asked) is
//! `game_not_found`, mapped here and nowhere else. A game on another node (the cluster) can
//! sit behind the same methods.

use std::{sync::Arc, time::Duration};

use actix::Addr;
use chessd_protocol::uci::GoLimits;
use futures_util::future::BoxFuture;
use tokio::sync::{mpsc, oneshot};
use uuid::Uuid;

use crate::{
    admission::ClientKey,
    game::{
        actor::GameActor,
        command::{
            Action, AnalysisRequest, EngineAction, EngineReply, Envelope, MoveInput, Need, Reply,
            Request, Subscription,
        },
        events::EventFrame,
        hooks::StopReason,
        idempotency::{Acted, Conditions},
        replies::{
            ActionReply, AnalysisReport, AnalysisStarted, BestMoveReply, EngineView, GameSnapshot,
            PlayReply,
        },
        state::SavedState,
        GameError,
    },
    store::Fence,
};

/// Brings a stored game back into memory (the game layer's [`Games::get`](super::Games::get)),
/// for a request that found the game's actor gone: it left memory (idle eviction) between the
/// lookup and the request.
pub(crate) type Reload =
    Arc<dyn Fn(Uuid) -> BoxFuture<'static, Result<GameHandle, GameError>> + Send + Sync>;

/// A handle on one live game.
#[derive(Clone)]
pub struct GameHandle {
    id: Uuid,
    addr: Addr<GameActor>,
    reload: Option<Reload>,
    /// The lease the game was loaded or created under (`None`: a single node).
    fence: Option<Fence>,
}

impl std::fmt::Debug for GameHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GameHandle")
            .field("id", &self.id)
            .field("reloads", &self.reload.is_some())
            .finish()
    }
}

/// What one request to an actor came to.
enum Asked<T> {
    /// The actor answered.
    Answer(Result<T, GameError>),
    /// The actor had stopped (or stopped before answering): the request was not done.
    Gone,
}

impl GameHandle {
    /// A handle on the actor `addr` of game `id`, loaded or created under `fence`; `reload`
    /// brings the game back from the store when its actor turns out to have left memory.
    pub(crate) fn new(
        id: Uuid,
        addr: Addr<GameActor>,
        reload: Option<Reload>,
        fence: Option<Fence>,
    ) -> GameHandle {
        GameHandle {
            id,
            addr,
            reload,
            fence,
        }
    }

    /// Whether `other` is a handle on the same actor (not only the same game).
    pub(crate) fn same_actor(&self, other: &GameHandle) -> bool {
        self.addr == other.addr
    }

    /// The lease the game's actor was loaded or created under: its writes carry it, and its
    /// state is current only while the node still holds that lease.
    pub(crate) fn fence(&self) -> Option<Fence> {
        self.fence
    }

    /// The game's id.
    pub fn id(&self) -> Uuid {
        self.id
    }

    /// Sends one request and waits for its answer. A stored game whose actor left memory just
    /// before (a stopped actor does nothing more, so the request was not done) is brought back
    /// and asked once more; a game that stopped for good is `game_not_found`.
    async fn ask<T>(
        &self,
        token: Option<String>,
        request: impl Fn(Reply<T>) -> Request,
    ) -> Result<T, GameError> {
        let gone = || GameError::NotFound(self.id.to_string());
        match self.ask_once(token.clone(), &request).await {
            Asked::Answer(answer) => answer,
            Asked::Gone => {
                let Some(reload) = &self.reload else {
                    return Err(gone());
                };
                let fresh = reload(self.id).await?;
                match fresh.ask_once(token, &request).await {
                    Asked::Answer(answer) => answer,
                    Asked::Gone => Err(gone()),
                }
            }
        }
    }

    async fn ask_once<T>(
        &self,
        token: Option<String>,
        request: &impl Fn(Reply<T>) -> Request,
    ) -> Asked<T> {
        let (reply, answer) = oneshot::channel();
        let envelope = Envelope {
            token,
            request: request(reply),
        };
        if self.addr.send(envelope).await.is_err() {
            return Asked::Gone;
        }
        match answer.await {
            Ok(result) => Asked::Answer(result),
            Err(_) => Asked::Gone,
        }
    }

    /// Checks that `token` meets `need` (nothing else is done).
    pub async fn authorize(&self, token: Option<String>, need: Need) -> Result<(), GameError> {
        self.ask(token, |reply| Request::Authorize(need, reply))
            .await
    }

    /// The current state.
    pub async fn snapshot(&self) -> Result<GameSnapshot, GameError> {
        self.ask(None, Request::Snapshot).await
    }

    /// The raw saved state.
    pub async fn saved_state(&self) -> Result<SavedState, GameError> {
        self.ask(None, Request::SavedState).await
    }

    /// Does `action` as the holder of `token`.
    pub async fn act(
        &self,
        token: Option<String>,
        action: Action,
    ) -> Result<ActionReply, GameError> {
        match self.act_under(token, action, Conditions::default()).await? {
            Acted::Done(reply) => Ok(reply),
            // Only a keyed request is replayed.
            Acted::Replayed(_) => Err(GameError::Internal(
                "a request without a key was replayed".into(),
            )),
        }
    }

    /// Does `action` as the holder of `token` under `conditions`: once only for an idempotency
    /// key (a repeat gets the first answer), and only at the expected version.
    pub async fn act_under(
        &self,
        token: Option<String>,
        action: Action,
        conditions: Conditions,
    ) -> Result<Acted, GameError> {
        self.ask(token, |reply| {
            Request::Act(action.clone(), conditions.clone(), reply)
        })
        .await
    }

    /// Writes `text` in the chat room of the holder of `token` (each room keeping `keep` lines).
    pub async fn chat(
        &self,
        token: Option<String>,
        text: String,
        keep: usize,
    ) -> Result<crate::game::chat::ChatLine, GameError> {
        self.ask(token, |reply| Request::Chat {
            text: text.clone(),
            keep,
            reply,
        })
        .await
    }

    /// Who `token` makes its holder in this game.
    pub async fn identify(
        &self,
        token: Option<String>,
    ) -> Result<crate::game::secrets::Caller, GameError> {
        self.ask(token, Request::Identify).await
    }

    /// The recent lines of the chat room of the holder of `token`.
    pub async fn chat_log(
        &self,
        token: Option<String>,
    ) -> Result<Vec<crate::game::chat::ChatLine>, GameError> {
        self.ask(token, Request::ChatLog).await
    }

    /// Subscribes to the game's events (after version `since` first, when given), as the
    /// holder of `token` (which tells players from spectators).
    pub async fn subscribe(
        &self,
        token: Option<String>,
        since: Option<u64>,
        events: mpsc::Sender<Arc<EventFrame>>,
    ) -> Result<Subscription, GameError> {
        self.ask(token, |reply| Request::Subscribe {
            since,
            events: events.clone(),
            reply,
        })
        .await
    }

    /// Ends a subscription (without waiting).
    pub fn unsubscribe(&self, subscription: u64) {
        self.addr.do_send(Envelope {
            token: None,
            request: Request::Unsubscribe(subscription),
        });
    }

    /// Stops the game because the server shuts down (without waiting).
    pub fn shutdown(&self) {
        self.addr.do_send(Envelope {
            token: None,
            request: Request::Leave(StopReason::Shutdown),
        });
    }

    /// Takes the game out of this node's memory because another node owns it now (without
    /// waiting); it stays in the store.
    pub fn leave_node(&self) {
        self.addr.do_send(Envelope {
            token: None,
            request: Request::Leave(StopReason::Moved),
        });
    }

    async fn engine(
        &self,
        token: Option<String>,
        action: EngineAction,
    ) -> Result<EngineReply, GameError> {
        self.ask(token, |reply| Request::Engine(action.clone(), reply))
            .await
    }

    /// Attaches the configured engine `name`, started for `client` (optionally resetting the
    /// game to `fen` first, which needs the admin secret).
    pub async fn attach_engine(
        &self,
        token: Option<String>,
        client: ClientKey,
        name: String,
        fen: Option<String>,
    ) -> Result<EngineView, GameError> {
        match self
            .engine(token, EngineAction::Attach { client, name, fen })
            .await?
        {
            EngineReply::View(v) => Ok(v),
            other => Err(unexpected(&other)),
        }
    }

    /// The attached engine.
    pub async fn engine_view(&self) -> Result<EngineView, GameError> {
        match self.engine(None, EngineAction::View).await? {
            EngineReply::View(v) => Ok(v),
            other => Err(unexpected(&other)),
        }
    }

    /// Detaches the engine.
    pub async fn detach_engine(&self, token: Option<String>) -> Result<(), GameError> {
        self.engine(token, EngineAction::Detach).await.map(|_| ())
    }

    /// A best-move hint for the current position.
    pub async fn best_move(
        &self,
        token: Option<String>,
        limits: GoLimits,
        timeout: Option<Duration>,
    ) -> Result<BestMoveReply, GameError> {
        match self
            .engine(token, EngineAction::BestMove { limits, timeout })
            .await?
        {
            EngineReply::BestMove(b) => Ok(b),
            other => Err(unexpected(&other)),
        }
    }

    /// Optionally the player's move, then the engine's reply, under `conditions` (once only
    /// for an idempotency key, only at the expected version).
    pub async fn engine_play(
        &self,
        token: Option<String>,
        player_move: Option<MoveInput>,
        limits: GoLimits,
        conditions: Conditions<PlayReply>,
    ) -> Result<Acted<PlayReply>, GameError> {
        match self
            .engine(
                token,
                EngineAction::Play {
                    player_move,
                    limits,
                    conditions,
                },
            )
            .await?
        {
            EngineReply::Play(p) => Ok(Acted::Done(p)),
            EngineReply::Replayed(kept) => Ok(Acted::Replayed(kept)),
            other => Err(unexpected(&other)),
        }
    }

    /// Resets the game to a position and tells the engine (admin).
    pub async fn engine_set_position(
        &self,
        token: Option<String>,
        fen: Option<String>,
        moves: Vec<String>,
    ) -> Result<GameSnapshot, GameError> {
        match self
            .engine(token, EngineAction::SetPosition { fen, moves })
            .await?
        {
            EngineReply::Snapshot(s) => Ok(*s),
            other => Err(unexpected(&other)),
        }
    }

    /// Sends the game's position to the engine and waits for `readyok`.
    pub async fn engine_sync(&self, token: Option<String>) -> Result<GameSnapshot, GameError> {
        match self.engine(token, EngineAction::Sync).await? {
            EngineReply::Snapshot(s) => Ok(*s),
            other => Err(unexpected(&other)),
        }
    }

    /// Sends one raw UCI line (the caller has checked the operator's token).
    pub async fn engine_raw(&self, line: String, wait: bool) -> Result<(), GameError> {
        self.engine(None, EngineAction::Raw { line, wait })
            .await
            .map(|_| ())
    }

    /// Starts (or restarts) an analysis.
    pub async fn start_analysis(
        &self,
        token: Option<String>,
        request: AnalysisRequest,
    ) -> Result<AnalysisStarted, GameError> {
        match self
            .engine(token, EngineAction::StartAnalysis(request))
            .await?
        {
            EngineReply::AnalysisStarted(a) => Ok(a),
            other => Err(unexpected(&other)),
        }
    }

    /// Stops the analysis and returns its last lines.
    pub async fn stop_analysis(&self, token: Option<String>) -> Result<AnalysisReport, GameError> {
        match self.engine(token, EngineAction::StopAnalysis).await? {
            EngineReply::AnalysisReport(a) => Ok(a),
            other => Err(unexpected(&other)),
        }
    }
}

fn unexpected(reply: &EngineReply) -> GameError {
    GameError::Internal(format!("unexpected engine reply {reply:?}"))
}
