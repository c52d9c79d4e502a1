//! Analysis: an infinite search of the current (or a past) position whose lines are streamed to
//! the game's watchers, stopped on request, when nobody watches, or at its time limit.

use std::{collections::BTreeMap, time::Duration};

use actix::{fut::ActorFutureExt, AsyncContext, Context, WrapFuture};
use chessd_core::{Color, Position};
use chessd_protocol::uci::{GoLimits, Info};

use crate::{
    admission::EngineRole,
    engine::{
        handle::{Identity, SearchRequest, SearchResult},
        EngineError,
    },
    game::{
        actor::GameActor,
        command::{AnalysisRequest, EngineReply, Reply},
        engine_state::{allowance, check_can_play, checked_limits, Analysis},
        events::EventKind,
        replies::{AnalysisReport, AnalysisStarted, EngineInfoView},
        GameError,
    },
};

use super::busy_error;

impl GameActor {
    /// Starts an analysis search of the position after `ply` plies (the current position when
    /// `None`), replacing a running one.
    pub(super) fn run_analysis(
        &mut self,
        limits: GoLimits,
        multipv: u32,
        ply: Option<usize>,
        ctx: &mut Context<Self>,
    ) -> Result<(), GameError> {
        self.check_attached_can_play()?;
        let (position, root) = self.position_at(ply.unwrap_or(usize::MAX))?;
        self.check_searchmoves_in(&root, &limits.searchmoves)?;
        let white = root.turn() == Color::White;
        self.engine.next_analysis += 1;
        let seq = self.engine.next_analysis;
        self.engine.last_analysis = None;
        let a = self.engine.attached()?;
        if a.busy.is_some() {
            return Err(busy_error("the engine is already searching for this game"));
        }
        a.analysis = Some(Analysis {
            seq,
            limits: limits.clone(),
            multipv,
            ply,
        });
        a.root = root;
        a.lines.clear();
        let request = SearchRequest {
            position,
            timeout: allowance(&a.config, &limits, white, None),
            limits,
            multipv: Some(multipv),
        };
        let generation = a.generation;
        let search = a.engine.search(request);
        // No analysis runs for ever, nor for nobody.
        let caps = self.env.engines.config();
        let (longest, unwatched) = (
            Duration::from_secs(caps.max_analysis_secs.max(1)),
            Duration::from_secs(caps.unwatched_analysis_secs.max(1)),
        );
        ctx.run_later(longest, move |act, ctx| {
            act.end_analysis(seq, "engines.max_analysis_secs", ctx);
        });
        if self.subscribers.is_empty() {
            self.end_analysis_unwatched(unwatched, ctx);
        }
        ctx.spawn(search.into_actor(self).map(move |result, act, ctx| {
            let Some(a) = act.engine.current(generation) else {
                return;
            };
            if a.analysis.as_ref().is_none_or(|an| an.seq != seq) {
                return;
            }
            // A finite analysis ended by itself: its result is kept and announced.
            a.analysis = None;
            let stored = std::mem::take(&mut a.lines);
            let root = a.root;
            match result {
                Ok(result) => {
                    let report = analysis_report(&root, result, stored);
                    act.engine.last_analysis = Some(Box::new(report.clone()));
                    act.publish_transient(EventKind::EngineAnalysisDone(report));
                }
                Err(e) => act.report_engine_error(generation, &e.into()),
            }
            act.engine_turn(ctx);
            act.release_engine_if_over();
        }));
        Ok(())
    }

    /// Ends the analysis `seq` if it still runs: stopped, its last lines kept and announced
    /// (`engine_analysis_done`) as when an analysis ends by itself, because it reached `why`.
    fn end_analysis(&mut self, seq: u64, why: &'static str, ctx: &mut Context<Self>) {
        let Some(a) = self.engine.attached.as_mut() else {
            return;
        };
        if a.analysis.as_ref().is_none_or(|an| an.seq != seq) {
            return;
        }
        a.analysis = None;
        let (engine, root, generation) = (a.engine.clone(), a.root, a.generation);
        tracing::info!(game = %self.id, why, "analysis stopped");
        ctx.spawn(engine.stop().into_actor(self).map(move |result, act, ctx| {
            if let Ok(report) = act.analysis_stopped(generation, &root, result) {
                act.publish_transient(EventKind::EngineAnalysisDone(report));
            }
            act.engine_turn(ctx);
            act.release_engine_if_over();
        }));
    }

    /// The report of an analysis of attachment `generation` at `root` that was told to stop
    /// and answered `result`: its last lines taken, kept as the last analysis.
    fn analysis_stopped(
        &mut self,
        generation: u64,
        root: &Position,
        result: Result<Option<SearchResult>, EngineError>,
    ) -> Result<AnalysisReport, GameError> {
        let stored = self
            .engine
            .current(generation)
            .map(|a| std::mem::take(&mut a.lines))
            .unwrap_or_default();
        let result = result?;
        let report = analysis_report(root, result.unwrap_or_default(), stored);
        self.engine.last_analysis = Some(Box::new(report.clone()));
        Ok(report)
    }

    /// Ends the running analysis after `grace` unless someone watches the game by then.
    pub(in crate::game::actor) fn end_analysis_unwatched(
        &mut self,
        grace: Duration,
        ctx: &mut Context<Self>,
    ) {
        let Some(seq) = self
            .engine
            .attached
            .as_ref()
            .and_then(|a| a.analysis.as_ref())
            .map(|an| an.seq)
        else {
            return;
        };
        ctx.run_later(grace, move |act, ctx| {
            if act.subscribers.is_empty() {
                act.end_analysis(seq, "engines.unwatched_analysis_secs", ctx);
            }
        });
    }

    /// Starts (or restarts) an analysis; starts the engine first when another one is asked
    /// for, or when a finished game has none (analysis is what players do after a game).
    pub(super) fn start_analysis(
        &mut self,
        mut request: AnalysisRequest,
        reply: Reply<EngineReply>,
        ctx: &mut Context<Self>,
    ) {
        let over = self.game.is_over();
        // A ply past the game's end is its end (the answer says which ply is analysed).
        let len = match self.game.chess() {
            Ok(game) => game.history().len(),
            Err(e) => return self.answer(reply, Err(e)),
        };
        request.ply = request.ply.map(|p| p.min(len));
        let checked = (|| {
            if self.engine.has_opponent() && !over {
                return Err(busy_error(
                    "the engine plays in this game; it cannot analyse it too (analyse it once \
                     the game is over)",
                ));
            }
            // Everything that can be checked before an engine is started is checked first.
            self.bounded(analysis_limits(&request)?)?;
            let attached = self.engine.attached.as_ref();
            let start = match (&request.engine, attached) {
                (Some(name), Some(a)) if *name == a.name => None,
                (Some(name), _) => Some(name.clone()),
                (None, Some(_)) => None,
                (None, None) if over => Some(
                    self.env
                        .engines
                        .default_engine()
                        .map(str::to_string)
                        .ok_or_else(|| {
                            EngineError::NotConfigured("no engine is configured".into())
                        })?,
                ),
                (None, None) => return Err(GameError::NoEngine),
            };
            if start.is_some() && attached.is_some_and(|a| a.busy.is_some()) {
                return Err(busy_error("the engine is already searching for this game"));
            }
            Ok(start)
        })();
        match checked {
            Err(e) => self.answer(reply, Err(e)),
            Ok(None) => {
                let started = self
                    .begin_analysis(&request, ctx)
                    .map(EngineReply::AnalysisStarted);
                self.answer(reply, started);
            }
            Ok(Some(name)) => {
                let factory = self.env.engines.clone();
                let client = request.client.clone();
                let game = self.id;
                let starting = async move {
                    factory
                        .start(&client, &name, game, EngineRole::Attached)
                        .await
                };
                ctx.spawn(starting.into_actor(self).map(move |started, act, ctx| {
                    let answer = started.and_then(|started| {
                        if act
                            .engine
                            .attached
                            .as_ref()
                            .is_some_and(|a| a.busy.is_some())
                        {
                            return Err(busy_error(
                                "the engine is already searching for this game",
                            ));
                        }
                        check_can_play(
                            &started.name,
                            started.engine.identity(),
                            act.game.chess()?.start_position(),
                        )?;
                        analysis_multipv(started.engine.identity(), request.multipv)?;
                        act.install_engine(started, None, ctx)?;
                        let begun = act.begin_analysis(&request, ctx);
                        if begun.is_err() {
                            act.release_engine_if_over();
                        }
                        begun.map(EngineReply::AnalysisStarted)
                    });
                    act.answer(reply, answer);
                }));
            }
        }
    }

    /// Starts the analysis `request` asks for with the attached engine.
    fn begin_analysis(
        &mut self,
        request: &AnalysisRequest,
        ctx: &mut Context<Self>,
    ) -> Result<AnalysisStarted, GameError> {
        let a = self.engine.attached.as_ref().ok_or(GameError::NoEngine)?;
        let name = a.name.clone();
        let multipv = analysis_multipv(a.engine.identity(), request.multipv)?;
        let limits = analysis_limits(request)?;
        self.run_analysis(limits.clone(), multipv, request.ply, ctx)?;
        Ok(AnalysisStarted {
            analysing: true,
            engine: name,
            ply: request.ply,
            multipv,
            go: limits,
        })
    }

    /// Stops the analysis and answers its last lines; when none runs, the result of the last
    /// analysis that ended by itself (or an empty report).
    pub(super) fn stop_analysis(&mut self, reply: Reply<EngineReply>, ctx: &mut Context<Self>) {
        let started = self.engine.attached().map(|a| {
            let running = a.analysis.take().is_some();
            (running, a.engine.clone(), a.root, a.generation)
        });
        let (running, engine, root, generation) = match started {
            Ok(s) => s,
            Err(GameError::NoEngine) if self.engine.last_analysis.is_some() => {
                let last = self
                    .engine
                    .last_analysis
                    .as_deref()
                    .cloned()
                    .unwrap_or_default();
                self.answer(reply, Ok(EngineReply::AnalysisReport(last)));
                return;
            }
            Err(e) => {
                self.answer(reply, Err(e));
                return;
            }
        };
        if !running {
            let last = self
                .engine
                .last_analysis
                .as_deref()
                .cloned()
                .unwrap_or_default();
            self.answer(reply, Ok(EngineReply::AnalysisReport(last)));
            return;
        }
        ctx.spawn(engine.stop().into_actor(self).map(move |result, act, ctx| {
            let answer = act
                .analysis_stopped(generation, &root, result)
                .map(EngineReply::AnalysisReport);
            act.engine_turn(ctx);
            act.release_engine_if_over();
            act.answer(reply, answer);
        }));
    }
}

/// The lines an analysis asks of an engine: 1 by default, at most what its `MultiPV` allows.
fn analysis_multipv(identity: &Identity, asked: Option<u32>) -> Result<u32, GameError> {
    let multipv = asked.unwrap_or(1);
    let max = match identity.option("MultiPV") {
        Some(o) => o.max.unwrap_or(1).clamp(1, 500) as u32,
        None => 1,
    };
    if multipv == 0 || multipv > max {
        return Err(EngineError::Unsupported(format!(
            "multipv must be 1 to {max} for this engine"
        ))
        .into());
    }
    Ok(multipv)
}

/// An analysis's limits: `infinite` when none are given, and for `ponder` (an analysis has
/// nothing to ponder on: it searches until stopped either way); checked as a raw `go` is.
fn analysis_limits(request: &AnalysisRequest) -> Result<GoLimits, GameError> {
    let mut limits = match &request.limits {
        Some(l) if !l.is_empty() => l.clone(),
        _ => GoLimits {
            infinite: true,
            ..GoLimits::default()
        },
    };
    if limits.ponder {
        limits.ponder = false;
        limits.infinite = true;
    }
    checked_limits(&limits)?;
    Ok(limits)
}

/// An analysis's report from its search result, or from the lines seen when the result has
/// none; PVs and the best move in SAN from `root`.
fn analysis_report(
    root: &Position,
    result: SearchResult,
    seen: BTreeMap<u32, Info>,
) -> AnalysisReport {
    let lines: Vec<Info> = if result.lines.is_empty() {
        seen.into_values().collect()
    } else {
        result.lines
    };
    let san = result
        .best
        .as_deref()
        .and_then(|b| root.parse_uci(b).ok())
        .map(|m| root.san(m));
    AnalysisReport {
        bestmove: result.best,
        san,
        lines: lines.iter().map(|i| EngineInfoView::new(i, root)).collect(),
    }
}
