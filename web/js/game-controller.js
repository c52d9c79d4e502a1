// @ts-check
// The game page's controller: the state's changes, the live WebSocket (reconnecting and catching
// up; commands sent while it is down are played over REST with an idempotency key), moves and
// the seat's commands, and which position is shown. It draws nothing itself: it asks the view
// and the panels to.

import { api, explain, GameSocket, rememberGame } from './api.js';
import { applyUci, parseFen, sanChecks } from './chess.js';
import { toast } from './dom.js';
import { canPremove, defaultOrientation, inGame, isPlayer, myTurn, ongoing } from './game-state.js';
import { premoveToPlay } from './premove.js';
import { moveSound, play } from './sounds.js';

/** @typedef {import('./game-state.js').GameState} GameState */
/** @typedef {import('./game-state.js').GameView} GameData */
/** @typedef {import('./game-view.js').GameView} GameView */
/** @typedef {import('./game-analysis.js').AnalysisPanel} AnalysisPanel */
/** @typedef {import('./game-export.js').ExportPanel} ExportPanel */
/** @typedef {import('./game-chat.js').ChatPanel} ChatPanel */

/** Frames that carry the game's version: one already applied is skipped. */
const VERSIONED = ['move', 'draw_offered', 'draw_declined', 'game_end', 'reset', 'stopped',
  'takeback_offered', 'takeback_declined', 'taken_back', 'rematch_offered', 'rematch_declined', 'rematch'];

/**
 * @typedef {Object} GameController
 * @property {() => Promise<void>} reload  Reads the whole game (and its engine).
 * @property {(uci: string) => void} userMove  A move made on the board (a premove while the
 * opponent is to move).
 * @property {() => void} cancelPremove
 * @property {(move: {uci: string} | {san: string}, uci?: string) => Promise<void>} sendMove
 * @property {(type: string, restPath: string, body?: unknown) => Promise<void>} command
 * @property {() => Promise<void>} rematch  Offers a rematch, or accepts the opponent's.
 * @property {(text: string) => Promise<void>} chat  Sends a chat message.
 * @property {(ply: number | null) => void} goto
 * @property {() => void} flip
 * @property {() => void} close  Leaving the page.
 */

/**
 * @param {{id: string, token: string | null, st: GameState}} ctx
 * @param {{view: GameView, analysis: AnalysisPanel, exporter: ExportPanel, chat: ChatPanel}} ui
 * @returns {GameController}
 */
export function createController({ id, token, st }, { view, analysis, exporter, chat }) {
  /** @param {GameData} data */
  function loadState(data) {
    // A Chess 2 game has its own page.
    if (data.variant === 'chess2') {
      location.replace(`#/chess2/${encodeURIComponent(id)}${token ? `?seat=${encodeURIComponent(token)}` : ''}`);
      return;
    }
    // An answer older than what the socket already delivered changes nothing.
    if (st.game && data.version < st.version) return;
    st.game = data;
    st.version = data.version;
    st.start = parseFen(data.start_fen);
    st.moves = data.moves.map((m) => ({ uci: m.uci, san: m.san }));
    st.boards = [st.start.board];
    for (const m of st.moves) st.boards.push(applyUci(st.boards[st.boards.length - 1], m.uci));
    setClocks(data.clocks);
    st.pending = null;
    st.premove = null;
    st.view = null;
    // The game says who its engine opponent is (a page opened from a link knows it too).
    const opponent = data.options && data.options.opponent;
    st.engineSeats = {};
    for (const seat of (data.options && data.options.opponents) || []) st.engineSeats[/** @type {'white' | 'black'} */ (seat.plays)] = seat.engine;
    if (opponent) {
      st.enginePlays = opponent.plays;
      st.opponentName = opponent.engine;
      if (!st.engine && data.status.result === 'ongoing') st.engine = opponent.engine;
    }
    analysis.reloaded();
    view.render();
    refreshLegal();
  }

  /** @param {import('./game-state.js').Clocks | null | undefined} clocks */
  function setClocks(clocks) {
    st.clocks = clocks || null;
    st.clockAt = performance.now();
  }

  /** @param {any} f A `move` frame. */
  function applyMove(f) {
    const g = st.game;
    if (!g) return;
    if (f.ply !== st.moves.length + 1) {
      // Out of step (a missed event): read the whole game again.
      reload();
      return;
    }
    st.moves.push({ uci: f.uci, san: f.san });
    play(moveSound(f.san));
    view.board.say(`${g.turn === 'white' ? 'White' : 'Black'} played ${f.san}`);
    st.boards.push(applyUci(st.boards[st.boards.length - 1], f.uci));
    g.fen = f.fen;
    g.status = f.status;
    g.turn = g.turn === 'white' ? 'black' : 'white';
    g.check = sanChecks(f.san);
    g.draw_offer = null;
    const extra = inGame(g);
    extra.takeback_offer = null;
    extra.abortable = extra.abortable && st.moves.length < 2 && f.status.result === 'ongoing';
    g.moves = st.moves;
    setClocks(f.clocks);
    if (st.pending === f.uci) st.pending = null;
    if (st.view !== null && st.view === st.moves.length - 1) st.view = null;
    st.legal = [];
    analysis.afterMove(f.status.result !== 'ongoing');
    view.render();
    refreshLegal();
    exporter.changed();
  }

  async function reload() {
    try {
      loadState(await api('GET', `/v1/games/${id}`));
    } catch (e) {
      showMissing(e);
      return;
    }
    socket.open();
    // Only games with chat read it: for the others the answer is 409 chat_disabled, which
    // browsers log.
    if (st.game && inGame(st.game).chat) chat.load();
    // Only games known to have an engine ask for it: for the others the answer is an error
    // (409 no_engine), which browsers log.
    if (st.engine) loadEngine();
  }

  /** Reads which engine the game has (and whether it plays a side). */
  async function loadEngine() {
    try {
      const data = await api('GET', `/v1/games/${id}/engine`);
      st.engine = data.name;
      if (data.opponent) {
        // The game's opponent, which may not be the engine attached now (an analysis of a
        // finished game runs the engine the player chose).
        st.enginePlays = data.opponent.plays;
        st.opponentName = data.opponent.engine || st.opponentName;
      } else if (ongoing(st)) {
        st.enginePlays = null;
      }
    } catch {
      // No engine attached (409 no_engine), or a server without engines.
      st.engine = null;
      if (ongoing(st)) st.enginePlays = null;
    }
    view.render();
  }

  /** @param {any} f A frame of the game's WebSocket. */
  function onFrame(f) {
    if (typeof f.version === 'number' && VERSIONED.includes(f.type)) {
      if (f.version <= st.version) return; // seen already (a replay after reconnecting)
      st.version = f.version;
    }
    const g = st.game;
    switch (f.type) {
      case 'hello':
        st.role = f.role;
        if (st.role === 'white' || st.role === 'black') rememberGame({ id, secret: token, color: st.role });
        view.render();
        break;
      case 'state':
      case 'resync':
        loadState(f);
        break;
      case 'move':
        applyMove(f);
        break;
      case 'draw_offered':
        if (!g) return;
        g.draw_offer = f.by;
        view.render();
        break;
      case 'draw_declined':
        if (!g) return;
        g.draw_offer = null;
        if (f.by !== st.role && isPlayer(st)) toast('Your draw offer was declined');
        view.render();
        break;
      case 'takeback_offered':
        if (!g) return;
        inGame(g).takeback_offer = f.by;
        view.render();
        break;
      case 'takeback_declined':
        if (!g) return;
        inGame(g).takeback_offer = null;
        if (f.by !== st.role && isPlayer(st)) toast('Your takeback offer was declined');
        view.render();
        break;
      case 'taken_back':
        // The moves undone leave the list: read the whole game again.
        reload();
        break;
      case 'rematch_offered':
        if (!g) return;
        inGame(g).rematch_offer = f.by;
        view.render();
        break;
      case 'rematch_declined':
        if (!g) return;
        inGame(g).rematch_offer = null;
        if (f.by !== st.role && isPlayer(st)) toast('Your rematch offer was declined');
        view.render();
        break;
      case 'rematch':
        if (!g) return;
        inGame(g).rematch = f.game;
        inGame(g).rematch_offer = null;
        view.render();
        break;
      case 'rematch_seat':
        // Sent to this seat only: its secret in the rematch.
        goToRematch(f);
        break;
      case 'chat':
        chat.onLine(f);
        break;
      case 'game_end':
        if (!g) return;
        inGame(g).abortable = false;
        inGame(g).takeback_offer = null;
        g.status = f.status;
        play('end');
        analysis.afterEnd();
        g.draw_offer = null;
        setClocks(f.clocks);
        st.legal = [];
        st.premove = null;
        view.render();
        exporter.changed();
        break;
      case 'reset':
        reload();
        break;
      case 'stopped':
        st.stopped = f.reason || 'stopped';
        socket.stop();
        view.render();
        break;
      case 'engine_info':
        analysis.onEngineInfo(f);
        break;
      case 'engine_error':
        analysis.onError(f);
        break;
      case 'engine_attached':
        st.engine = f.name;
        loadEngine();
        break;
      case 'engine_detached':
        // (Another engine replacing it for an analysis also detaches it: only a running game
        // loses its opponent.)
        if (st.engine === f.name) st.engine = null;
        if (ongoing(st)) st.enginePlays = null;
        analysis.engineGone(f.name);
        view.render();
        break;
      case 'engine_analysis_done':
        analysis.onDone(f);
        break;
      case 'error':
        if (f.ack === null || f.ack === undefined) toast(f.message || f.code, 'error');
        break;
      default:
        break;
    }
  }

  const socket = new GameSocket(id, token, {
    onFrame,
    onStatus: (/** @type {string} */ s) => {
      st.conn = s;
      view.renderConn();
      if (s === 'open') refreshLegal();
    },
    version: () => st.version,
  });

  async function refreshLegal() {
    const g = st.game;
    if (!g || !myTurn(st)) {
      st.legal = [];
      view.renderBoard();
      return;
    }
    const fen = g.fen;
    try {
      const answer = await api('GET', `/v1/games/${id}/legal-moves`);
      if (!st.game || st.game.fen !== fen) return; // a move came in meanwhile
      st.legal = answer.moves || [];
      st.legalFor = fen;
      if (st.premove) {
        // The turn came: the premove is played if it is legal now, else dropped.
        const uci = premoveToPlay(st.premove, st.legal);
        st.premove = null;
        if (uci && st.view === null) {
          sendMove({ uci }, uci);
          return;
        }
        view.board.say('The premove is not legal now: cancelled');
      }
      view.renderBoard();
    } catch (e) {
      if (/** @type {{code?: string}} */ (e).code === 'game_not_found') showMissing(e);
    }
  }

  /** @param {string} uci */
  function userMove(uci) {
    if (!myTurn(st) && canPremove(st)) {
      st.premove = uci;
      view.board.say(`Premove ${uci} queued: it is played when your turn comes`);
      view.renderBoard();
      return;
    }
    sendMove({ uci }, uci);
  }

  function cancelPremove() {
    if (!st.premove) return;
    st.premove = null;
    view.board.say('Premove cancelled');
    view.renderBoard();
  }

  /**
   * @param {{uci: string} | {san: string}} move
   * @param {string} [uci]  The move as drawn on the board (previewed until confirmed).
   */
  async function sendMove(move, uci) {
    if (!myTurn(st)) {
      toast(isPlayer(st) ? 'It is not your turn' : 'Spectators cannot move', 'error');
      return;
    }
    if (uci) {
      st.pending = uci;
      view.board.preview(uci);
    }
    try {
      // Made on the version shown: refused (version_mismatch) if the game moved meanwhile.
      const asked = { ...move, version: st.version };
      if (socket.isOpen()) {
        await socket.send({ type: 'move', ...asked });
      } else {
        // The socket is reconnecting: play over REST (with an idempotency key, so a retry is
        // never played twice); the event arrives with the catch-up. The board keeps showing
        // the move until its event arrives.
        const answer = await api('POST', `/v1/games/${id}/moves`, asked, token, { idempotent: true });
        st.pending = answer.uci;
      }
    } catch (e) {
      st.pending = null;
      toast(explain(e), 'error');
      view.render();
      refreshLegal();
    }
  }

  /**
   * A seat's command: over the socket, or over REST (idempotent) while it reconnects.
   * @param {string} type
   * @param {string} restPath
   * @param {unknown} [body]
   */
  async function command(type, restPath, body) {
    try {
      if (socket.isOpen()) await socket.send({ type });
      else await api('POST', `/v1/games/${id}${restPath}`, body, token, { idempotent: true });
    } catch (e) {
      toast(explain(e), 'error');
    }
  }

  /**
   * Opens the rematch with this seat's secret in it.
   * @param {{id: string, secret: string, color?: string}} seat
   */
  function goToRematch(seat) {
    if (!seat || !seat.id || !seat.secret) return;
    rememberGame({ id: seat.id, secret: seat.secret, color: seat.color });
    location.hash = `#/game/${encodeURIComponent(seat.id)}?seat=${encodeURIComponent(seat.secret)}`;
  }

  /** Offers a rematch, or accepts the opponent's offer (then opens the rematch). */
  async function rematch() {
    const g = st.game;
    if (!g) return;
    const extra = inGame(g);
    try {
      if (extra.rematch) {
        goToRematch(await api('GET', `/v1/games/${id}/rematch`, undefined, token));
        return;
      }
      const accepting = !!extra.rematch_offer && extra.rematch_offer !== st.role;
      if (socket.isOpen()) {
        const ack = await socket.send({ type: accepting ? 'rematch_accept' : 'rematch_offer' });
        if (ack && ack.rematch) goToRematch(ack.rematch);
      } else {
        const answer = await api('POST', `/v1/games/${id}/rematch${accepting ? '/accept' : ''}`, undefined, token);
        if (answer && answer.secret) goToRematch(answer);
        else if (answer && answer.in_game) loadState(answer);
      }
    } catch (e) {
      toast(explain(e), 'error');
    }
  }

  /** @param {string} text */
  async function sendChat(text) {
    if (socket.isOpen()) await socket.send({ type: 'chat', text });
    else await api('POST', `/v1/games/${id}/chat`, { text }, token);
  }

  /** @param {number | null} ply */
  function goto(ply) {
    if (ply === null || ply >= st.moves.length) st.view = null;
    else st.view = Math.max(0, ply);
    view.renderNavigation();
    analysis.followView();
  }

  function flip() {
    st.orientation = (st.orientation || defaultOrientation(st)) === 'white' ? 'black' : 'white';
    view.render();
  }

  /** @param {unknown} e */
  function showMissing(e) {
    socket.close();
    view.showMissing(explain(e));
  }

  return {
    reload, userMove, cancelPremove, sendMove, command, rematch, chat: sendChat, goto, flip, close: () => socket.close(),
  };
}
