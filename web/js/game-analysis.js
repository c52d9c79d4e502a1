// @ts-check
// The game page's engine analysis panel: the engine chooser, starting and stopping an analysis
// of the position shown (the live one, which the server follows move by move, or, looking back
// or after the game, the one chosen in the move list), and the best lines as they come.

import { aboutPosition, analysisStateName, fewerLines, pickEngine, pvText, scoreText, whiteScore } from './analysis-logic.js';
import { api, explain, rememberGame } from './api.js';
import { h, setChildren, toast } from './dom.js';
import { formatInt, formatRate } from './format.js';
import { isPlayer, ongoing, positionText, sideToMoveAt } from './game-state.js';

/** @typedef {import('./game-state.js').GameState} GameState */
/** @typedef {import('./game-state.js').AnalysisLine} AnalysisLine */
/** @typedef {{id: string, token: string | null, st: GameState}} GameContext */

/** Where the engine last chosen for analysis is remembered (localStorage). */
const ENGINE_CHOICE = 'chessd.analysisEngine';

/** The engine chosen last time, if this browser remembers one. */
function savedEngine() {
  try {
    return localStorage.getItem(ENGINE_CHOICE);
  } catch {
    return null;
  }
}

/**
 * @typedef {Object} AnalysisPanel
 * @property {HTMLElement} el  The panel (section#analysis).
 * @property {() => void} render
 * @property {(f: AnalysisLine) => void} onEngineInfo  An `engine_info` frame.
 * @property {(f: {lines?: AnalysisLine[]}) => void} onDone  An `engine_analysis_done` frame.
 * @property {(f: {message?: string, code?: string}) => void} onError  An `engine_error` frame.
 * @property {(name: string) => void} engineGone  The attached engine `name` went away.
 * @property {(over: boolean) => void} afterMove  A move was played (`over`: it ended the game).
 * @property {() => void} afterEnd  The game ended.
 * @property {() => void} followView  The position shown changed.
 * @property {() => void} reloaded  The whole game was read again.
 * @property {() => void} dispose  Leaving the page: stops what runs.
 */

/**
 * Builds the analysis panel of a game page.
 * @param {GameContext} ctx
 * @returns {AnalysisPanel}
 */
export function createAnalysis({ id, token, st }) {
  const analysisBox = h('section.card.analysis#analysis', { 'aria-label': 'Analysis' });
  // The panel's head and its engine chooser stay in place (they keep the focus); only the body
  // is redrawn.
  const analysisToggle = /** @type {HTMLButtonElement} */ (h('button.btn.small#analysis-toggle', {
    type: 'button',
    onclick: () => (st.analysis.on ? stopAnalysis() : startAnalysis()),
  }));
  const engineSelect = /** @type {HTMLSelectElement} */ (h('select#analysis-engine', {
    disabled: true,
    'aria-describedby': 'analysis-position',
    onchange: () => chooseEngine(engineSelect.value),
  }, h('option', { value: '' }, 'Loading engines…')));
  const engineRow = h('div.analysis-engine',
    h('label', { for: 'analysis-engine' }, 'Engine'), engineSelect);
  const analysisBody = h('div.analysis-body', { 'aria-live': 'off' });
  analysisBox.append(h('div.analysis-head', h('h2', 'Analysis'), analysisToggle), engineRow, analysisBody);
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let restartTimer;

  /** What this server's analysis route takes: `{engine, ply}`, whether a request may name the
   * engine and the position. Assumed until a refusal says otherwise (an older server knows
   * neither: it is then asked the older way, attaching the engine first). */
  let analysisShape = { engine: true, ply: true };

  /** Loads the engines the chooser offers: the reachable ones. */
  async function loadAnalysisEngines() {
    const a = st.analysis;
    a.engines = [];
    try {
      const list = await api('GET', '/v1/engines');
      a.engines = (list.engines || []).filter((/** @type {{reachable?: boolean}} */ e) => e.reachable !== false);
    } catch {
      a.engines = [];
    }
    const engines = a.engines || [];
    a.enginesLoaded = true;
    a.choice = pickEngine(engines, savedEngine());
    setChildren(engineSelect, engines.length
      ? engines.map((e) => h('option', { value: e.name, selected: e.name === a.choice }, `${e.name}${e.default ? ' (default)' : ''}`))
      : h('option', { value: '' }, 'No engine available'));
    engineSelect.value = a.choice || '';
    render();
  }

  /** @param {string} name */
  async function chooseEngine(name) {
    const a = st.analysis;
    if (!name || name === a.choice) return;
    a.choice = name;
    try {
      localStorage.setItem(ENGINE_CHOICE, name);
    } catch {
      // Storage disabled: the choice holds for this page.
    }
    if (!a.on) {
      render();
      return;
    }
    // Analysing: restart with the new engine. The running analysis stops first (the server
    // replaces only an idle engine by another one).
    const seq = ++a.seq;
    clearTimeout(restartTimer);
    a.starting = true;
    a.lines.clear();
    a.info = null;
    render();
    try {
      await api('DELETE', `/v1/games/${id}/engine/analysis`, undefined, token);
    } catch {
      // Nothing running any more (the engine died or was detached): start anyway.
    }
    if (seq === a.seq && a.on) startAnalysis();
  }

  /** The ply of the position to analyse: the one shown (null: the live position). */
  function analysisTarget() {
    return analysisShape.ply ? st.view : null;
  }

  /** The ply of the position the lines are about. */
  function analysedPly() {
    const p = st.analysis.ply;
    return p === null || p > st.moves.length ? st.moves.length : p;
  }

  /** Whether the game ended in the position after `ply` with no move left (mate, stalemate).
   * @param {number} ply */
  function terminalAt(ply) {
    const s = st.game && st.game.status;
    return !!s && s.result !== 'ongoing' && ply === st.moves.length && ['checkmate', 'stalemate'].includes(s.reason || '');
  }

  /** A spectator's own copy of the finished game, made from its PGN (the copy's admin secret
   * lets this browser analyse it), opened in its place. */
  async function analyseCopy() {
    const button = /** @type {HTMLButtonElement | null} */ (document.getElementById('analyse-copy'));
    if (button) button.disabled = true;
    try {
      const pgn = await api('GET', `/v1/games/${id}/pgn`);
      const copy = await api('POST', '/v1/games', { pgn }, undefined, { idempotent: true });
      // The moves alone do not end a game lost on time or by resignation: the copy is given
      // the game's result, so that it is finished too (never listed as a live game).
      const result = st.game && st.game.status.result;
      if (copy.status && copy.status.result === 'ongoing' && result && result !== 'ongoing') {
        const note = 'analysis copy';
        if (result === 'draw') await api('POST', `/v1/games/${copy.id}/draw`, { note }, copy.secrets.admin, { idempotent: true });
        else await api('POST', `/v1/games/${copy.id}/winner`, { winner: result === 'white_wins' ? 'white' : 'black', note }, copy.secrets.admin, { idempotent: true });
      }
      rememberGame({ id: copy.id, admin: copy.secrets.admin, opponent: 'analysis' });
      location.hash = `#/game/${copy.id}?seat=${encodeURIComponent(copy.secrets.admin)}`;
    } catch (err) {
      toast(explain(err), 'error');
      if (button) button.disabled = false;
    }
  }

  function render() {
    const g = st.game;
    if (!g) return;
    const a = st.analysis;
    const seat = isPlayer(st) || st.role === 'admin';
    if (seat && !a.engines) loadAnalysisEngines();
    const finished = g.status.result !== 'ongoing';
    // Against the computer its engine is busy playing (and analysis would be a crutch); once
    // the game is over, analysing it is what players do.
    const vsComputer = !!st.enginePlays && !finished;
    // An older server analyses running games only.
    const finishedOk = analysisShape.engine;
    const engines = a.engines || [];
    const target = a.on ? analysedPly() : (analysisTarget() ?? st.moves.length);
    const terminal = terminalAt(target);
    const canAsk = seat && !st.stopped && !vsComputer && (!finished || finishedOk) && engines.length > 0;
    analysisToggle.hidden = !canAsk;
    analysisToggle.disabled = !a.on && (terminal || !a.enginesLoaded);
    analysisToggle.textContent = a.on ? 'Stop' : 'Start analysis';
    analysisToggle.setAttribute('aria-pressed', String(a.on));
    // Against the computer no engine can be picked while it plays: no chooser, only the reason.
    engineRow.hidden = !seat || vsComputer || (!!a.enginesLoaded && !engines.length);
    engineSelect.disabled = !canAsk || engines.length < 2;
    analysisBox.dataset.state = analysisStateName(a);
    analysisBox.dataset.engine = a.on || a.done ? a.engine || a.choice || '' : '';
    const body = [];
    if (!seat && finished && !st.stopped) {
      body.push(h('p.muted.small', 'Engines analyse for the players. Analyse a copy of this game on a board of your own:'),
        h('button.btn.small#analyse-copy', { type: 'button', onclick: analyseCopy }, 'Analyse a copy'));
    } else if (!seat) body.push(h('p.muted.small', 'Engine analysis is available to the players.'));
    else if (st.stopped) body.push(h('p.muted.small', 'The game is stopped: no analysis.'));
    else if (vsComputer) body.push(h('p.muted.small', 'The engine is your opponent in this game: no analysis while you play it.'));
    else if (finished && !finishedOk) body.push(h('p.muted.small', 'The game is over.'));
    else if (a.enginesLoaded && !engines.length) body.push(h('p.muted.small', 'No engine is available on this server.'));
    if (a.error) body.push(h('p.error-text', a.error));
    if (canAsk || a.on) {
      body.push(h('p.muted.small.analysis-position#analysis-position', { 'data-ply': String(target) }, positionText(st, target, a.on)));
    }
    if (a.on || a.done) {
      const lines = [...a.lines.values()].sort((x, y) => (x.multipv ?? 0) - (y.multipv ?? 0));
      if (!lines.length && a.on) body.push(h('p.muted.small', terminal ? 'No legal move in this position.' : 'The engine is thinking…'));
      const ply = analysedPly();
      const turn = sideToMoveAt(st.start.turn, ply);
      body.push(h('ol.pv-lines#pv-lines', { 'aria-label': `Best lines of ${a.engine || a.choice || 'the engine'}, scores from White's side` },
        lines.map((l) => h('li.pv-line', { 'data-multipv': String(l.multipv || 1) },
          h('span.pv-score', { title: "Score from White's side (pawns; # = mate in)" }, scoreText(whiteScore(l, turn))),
          h('span.pv-depth', { title: 'Depth (plies)' }, `d${l.depth ?? '?'}`),
          h('span.pv-moves', pvText(l, st.start, ply))))));
      const info = a.info;
      const stats = [a.engine || a.choice || 'engine'];
      if (a.multipv) stats.push(`${a.multipv} line${a.multipv > 1 ? 's' : ''}`);
      if (info && info.nodes) stats.push(`${formatInt(info.nodes)} nodes`, `${formatRate(info.nps)}nps`);
      if (a.done) stats.push('finished');
      body.push(h('p.muted.small.pv-stats', stats.join(' · ')));
    } else if (canAsk && !a.error) {
      body.push(h('p.muted.small', terminal
        ? 'The game ended here: there is no move to analyse. Choose an earlier position in the move list.'
        : finished
          ? 'Ask the engine for its best lines; step through the moves to analyse any position of the game.'
          : 'Ask the engine for its best lines in the position shown.'));
    }
    setChildren(analysisBody, body);
  }

  /** Whether an engine frame is about the position analysed. @param {AnalysisLine} f */
  function aboutAnalysed(f) {
    const ply = analysedPly();
    return aboutPosition(f, st.boards[ply], sideToMoveAt(st.start.turn, ply));
  }

  /** @param {AnalysisLine} f */
  function onEngineInfo(f) {
    const a = st.analysis;
    if (!a.on || !aboutAnalysed(f)) return;
    if ((f.pv_san && f.pv_san.length) || (f.pv_uci && f.pv_uci.length)) a.lines.set(f.multipv || 1, f);
    a.info = f;
    render();
  }

  /** `engine_analysis_done`: a finite analysis ended by itself; its lines stay on show.
   * @param {{lines?: AnalysisLine[]}} f */
  function onDone(f) {
    const a = st.analysis;
    if (!a.on || a.starting) return;
    a.on = false;
    a.done = true;
    const lines = (f.lines || []).filter(aboutAnalysed);
    if (lines.length) {
      a.lines.clear();
      for (const l of lines) a.lines.set(l.multipv || 1, l);
    }
    render();
  }

  /** @param {{message?: string, code?: string}} f */
  function onError(f) {
    const a = st.analysis;
    if (a.on) a.error = f.message || f.code || null;
    else toast(`Engine: ${f.message || f.code}`, 'error', 6000);
    a.on = false;
    a.starting = false;
    a.seq += 1;
    render();
  }

  /** @param {string} name */
  function engineGone(name) {
    const a = st.analysis;
    if (!a.on || a.starting || (a.engine && a.engine !== name)) return;
    a.on = false;
    a.lines.clear();
    render();
  }

  /** Lines to ask for: three, or fewer when the engine offers fewer (its MultiPV option).
   * @param {string} name
   * @param {{engine: boolean}} shape */
  async function multipvFor(name, shape) {
    const a = st.analysis;
    // Asked of the attached engine (a finished game's engine is released after each analysis:
    // it is started again on demand, so it is not asked there).
    if (!a.multipvMax.has(name) && (!shape.engine || (st.engine === name && ongoing(st)))) {
      try {
        const view = await api('GET', `/v1/games/${id}/engine`);
        const decl = (view.options || []).find((/** @type {{name: string}} */ o) => o.name.toLowerCase() === 'multipv');
        a.multipvMax.set(view.name, decl && decl.max ? decl.max : 1);
      } catch {
        // Not attached after all: guess below.
      }
    }
    const max = a.multipvMax.get(name);
    if (max !== undefined) return Math.max(1, Math.min(3, max));
    // Not attached yet: the built-in engine searches one line; UCI engines offer MultiPV.
    const known = (a.engines || []).find((e) => e.name === name);
    return known && known.kind === 'builtin' ? 1 : 3;
  }

  /** The single request of a server that knows `engine`: it attaches (or swaps) the engine.
   * @param {string} name
   * @param {number} multipv
   * @param {number | null} ply
   * @returns {Promise<any>} */
  async function requestAnalysis(name, multipv, ply) {
    /** @type {{multipv: number, engine: string, ply?: number}} */
    const body = { multipv, engine: name };
    if (ply !== null) body.ply = ply;
    try {
      return await api('POST', `/v1/games/${id}/engine/analysis`, body, token);
    } catch (e) {
      // The engine offers fewer lines than guessed: ask for as many as it has.
      const fewer = fewerLines(/** @type {{code?: string, message?: string}} */ (e), multipv);
      if (fewer !== null) {
        st.analysis.multipvMax.set(name, fewer);
        return requestAnalysis(name, fewer, ply);
      }
      throw e;
    }
  }

  /** An older server: attach the chosen engine first, then analyse the live position.
   * @param {string} name */
  async function requestAnalysisOld(name) {
    if (st.engine !== name) {
      if (st.engine) await api('DELETE', `/v1/games/${id}/engine`, undefined, token);
      await api('POST', `/v1/games/${id}/engine`, { name }, token);
      st.engine = name;
    }
    const multipv = await multipvFor(name, { engine: false });
    return api('POST', `/v1/games/${id}/engine/analysis`, { multipv }, token);
  }

  async function startAnalysis() {
    const a = st.analysis;
    clearTimeout(restartTimer);
    const seq = ++a.seq;
    a.error = null;
    a.lines.clear();
    a.info = null;
    a.done = false;
    a.on = true;
    a.starting = true;
    a.ply = analysisTarget();
    render();
    /** @type {any} */
    let answer = null;
    const name = a.choice;
    try {
      if (!name) throw new Error('No engine is available on this server');
      let shape = analysisShape;
      if (shape.engine) {
        try {
          answer = await requestAnalysis(name, await multipvFor(name, shape), a.ply);
        } catch (e) {
          // The route does not know these fields: an older server.
          const err = /** @type {{code?: string, message?: string}} */ (e);
          if (!(err.code === 'invalid_request' && /unknown field/i.test(err.message || ''))) throw e;
          analysisShape = { engine: false, ply: false };
          shape = analysisShape;
        }
      }
      if (!shape.engine) {
        a.ply = null;
        answer = await requestAnalysisOld(name);
      }
    } catch (e) {
      if (seq !== a.seq) return;
      a.on = false;
      a.starting = false;
      a.error = explain(e);
      render();
      return;
    }
    if (seq !== a.seq || !a.on) {
      // Stopped (or restarted elsewhere) while this request was on its way: a stop that
      // reached the server first left this analysis running.
      if (!a.on && answer && answer.analysing) api('DELETE', `/v1/games/${id}/engine/analysis`, undefined, token).catch(() => {});
      return;
    }
    a.starting = false;
    a.engine = (answer && answer.engine) || name;
    a.multipv = answer && answer.multipv ? answer.multipv : null;
    if (a.engine && a.multipv && !a.multipvMax.has(a.engine)) a.multipvMax.set(a.engine, a.multipv);
    st.engine = a.engine;
    render();
  }

  async function stopAnalysis() {
    const a = st.analysis;
    clearTimeout(restartTimer);
    a.seq += 1;
    a.on = false;
    a.starting = false;
    a.done = false;
    a.lines.clear();
    a.info = null;
    render();
    try {
      await api('DELETE', `/v1/games/${id}/engine/analysis`, undefined, token);
    } catch (e) {
      if (/** @type {{code?: string}} */ (e).code !== 'no_engine') toast(explain(e), 'error');
    }
  }

  /** Restarts the running analysis on the position to analyse, after `delay` ms (stepping
   * through moves quickly asks once, for the position the user stops at).
   * @param {number} delay */
  function restartAnalysis(delay) {
    const a = st.analysis;
    a.seq += 1; // an answer on its way is for the position left
    a.ply = analysisTarget();
    a.lines.clear();
    a.info = null;
    a.starting = true;
    clearTimeout(restartTimer);
    restartTimer = setTimeout(() => {
      if (a.on) startAnalysis();
    }, delay);
  }

  function followView() {
    const a = st.analysis;
    const target = analysisTarget();
    if (a.on && target !== a.ply) restartAnalysis(250);
    else if (a.done && target !== a.ply) {
      a.done = false;
      a.lines.clear();
    }
    render();
  }

  /** @param {boolean} over */
  function afterMove(over) {
    const a = st.analysis;
    if (!a.on) return;
    if (over) afterEnd();
    else if (a.ply === null) {
      // The server restarts the analysis of the live position by itself.
      a.lines.clear();
      a.info = null;
    }
    // (An earlier position goes on being analysed: the move did not change it.)
  }

  /** The game ended while analysing. The analysis of an earlier position goes on; that of the
   * live position stops on the server, and a server that analyses finished games is asked again
   * for the final one (unless it is mate or stalemate); an older server leaves it stopped. */
  function afterEnd() {
    const a = st.analysis;
    if (!a.on || (a.ply !== null && analysisShape.ply)) return;
    if (analysisShape.engine && !terminalAt(st.moves.length)) {
      restartAnalysis(0);
    } else {
      clearTimeout(restartTimer);
      a.seq += 1;
      a.on = false;
      a.starting = false;
      a.lines.clear();
    }
  }

  /** The whole game was read again: an analysis of an earlier position starts again. */
  function reloaded() {
    if (st.analysis.on && st.analysis.ply !== null) restartAnalysis(0);
  }

  function dispose() {
    clearTimeout(restartTimer);
    if (st.analysis.on) api('DELETE', `/v1/games/${id}/engine/analysis`, undefined, token).catch(() => {});
  }

  return {
    el: analysisBox, render, onEngineInfo, onDone, onError, engineGone, afterMove, afterEnd, followView, reloaded, dispose,
  };
}
