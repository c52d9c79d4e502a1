// The game page: the board, both clocks, the move list, the controls of a seat, the live
// WebSocket (reconnecting and catching up), exports and the engine analysis panel.

import { api, explain, gameLink, GameSocket, rememberedGame, rememberGame } from './api.js';
import { Board } from './board.js';
import { applyUci, colorOf, kingSquare, numberedLine, parseFen, resultText, sanChecks, squareIndex, START_FEN } from './chess.js';
import { copyField, copyText, formatClock, formatInt, formatRate, h, icon, setChildren, toast } from './dom.js';
import { pieceSvg } from './pieces.js';

const VALUES = { p: 1, n: 3, b: 3, r: 5, q: 9, k: 0 };

/** Where the engine last chosen for analysis is remembered (localStorage). */
const ENGINE_CHOICE = 'chessd.analysisEngine';

/**
 * The engine the analysis chooser starts on, among the reachable `engines`: the one chosen last
 * time, else Stockfish (a name with "stockfish" or "sf"), else the server's default.
 */
function preferredEngine(engines) {
  let saved = null;
  try {
    saved = localStorage.getItem(ENGINE_CHOICE);
  } catch {
    saved = null;
  }
  const byName = (test) => engines.find((e) => test(e.name.toLowerCase()));
  const pick = engines.find((e) => e.name === saved)
    || byName((n) => n === 'stockfish')
    || byName((n) => n.includes('stockfish'))
    || byName((n) => n === 'sf')
    || byName((n) => n.includes('sf'))
    || engines.find((e) => e.default)
    || engines[0];
  return pick ? pick.name : null;
}

/** Mounts the game `id` into `root`; `params` holds `seat` (a seat secret). */
export function mountGame(root, id, params) {
  const remembered = rememberedGame(id);
  const token = params.get('seat') || (remembered && remembered.secret) || null;
  if (params.get('seat')) rememberGame({ id, secret: params.get('seat') });

  const st = {
    game: null,
    version: 0,
    role: token ? null : 'spectator',
    start: parseFen(START_FEN),
    moves: [],
    boards: [],
    view: null, // null: live; else the ply shown
    legal: [],
    legalFor: null,
    clocks: null,
    clockAt: 0,
    pending: null,
    conn: 'connecting',
    orientation: null,
    resignArmed: false,
    // The analysis panel: `on` while an analysis runs (or is being started) for the position
    // after `ply` plies (null: the live position, which the server follows move by move);
    // `engines` are the reachable engines offered, `choice` the one chosen; `seq` numbers the
    // starts, so that a late answer of an earlier one changes nothing.
    analysis: {
      on: false, lines: new Map(), error: null, info: null, done: false,
      ply: null, engine: null, multipv: null, engines: null, choice: null, seq: 0,
    },
    stopped: false,
    // The engine attached to the game, if any (from GET …/engine and the engine events).
    engine: remembered && remembered.opponent && remembered.opponent.engine ? remembered.opponent.engine : null,
    // The engine opponent, if any: the side it plays and its name. Kept once the game is over
    // (the bars still name it) even when an analysis engine replaces it.
    enginePlays: remembered && remembered.opponent && remembered.opponent.engine && remembered.color
      ? (remembered.color === 'white' ? 'black' : 'white') : null,
    opponentName: remembered && remembered.opponent && remembered.opponent.engine ? remembered.opponent.engine : null,
    // Every side an engine plays, by side (an engine match has both): `{white?: name, black?: name}`.
    engineSeats: {},
  };

  // ----- layout -----
  const board = new Board({ onMove: (uci) => userMove(uci), label: 'Game board' });
  const topBar = h('div.player-bar.top');
  const bottomBar = h('div.player-bar.bottom');
  const connDot = h('span.conn-dot');
  const connText = h('span.conn-text', 'Connecting…');
  const conn = h('div.conn#conn', { role: 'status', 'aria-live': 'polite' }, connDot, connText);
  const roleBadge = h('span.badge#role');
  const statusBox = h('div.status-box#game-status', { role: 'status', 'aria-live': 'polite' });
  const offerBox = h('div.offer-box', { hidden: true });
  const moveList = h('ol.move-list#moves', { 'aria-label': 'Moves' });
  const navButtons = h('div.nav-buttons',
    navBtn('first', 'First position (Home)', () => goto(0)),
    navBtn('prev', 'Previous move (←)', () => goto(viewPly() - 1)),
    navBtn('next', 'Next move (→)', () => goto(viewPly() + 1)),
    navBtn('last', 'Last move (End)', () => goto(null)),
    navBtn('flip', 'Flip the board (f)', () => flip()));
  const controls = h('div.controls#controls');
  const moveInput = h('input#move-input', { type: 'text', placeholder: 'Type a move (e4, Nf3, e7e8q)', 'aria-label': 'Type a move', autocomplete: 'off', spellcheck: false });
  const moveForm = h('form.move-form', moveInput, h('button.btn.small', { type: 'submit' }, 'Play'));
  moveForm.addEventListener('submit', (e) => {
    e.preventDefault();
    const text = moveInput.value.trim();
    if (!text) return;
    moveInput.value = '';
    sendMove(/^[a-h][1-8][a-h][1-8][qrbn]?$/.test(text) ? { uci: text } : { san: text });
  });

  const exportBox = h('details.card.export#export', h('summary', 'Share & export'));
  const analysisBox = h('section.card.analysis#analysis', { 'aria-label': 'Analysis' });

  const boardCol = h('div.board-col', topBar, board.el, bottomBar, moveForm);
  const sideCol = h('div.side-col',
    h('div.card.game-card',
      h('div.game-head', roleBadge, conn),
      statusBox, offerBox,
      moveList, navButtons, controls),
    analysisBox, exportBox);
  const page = h('section.page.game-page', h('div.game-grid', boardCol, sideCol));
  setChildren(root, page);

  function navBtn(name, title, onclick) {
    return h(`button.btn.icon.nav-${name}`, { type: 'button', title, 'aria-label': title, onclick }, icon(name));
  }

  // ----- state -----

  function loadState(view) {
    // A Chess 2 game has its own page.
    if (view.variant === 'chess2') {
      location.replace(`#/chess2/${encodeURIComponent(id)}${token ? `?seat=${encodeURIComponent(token)}` : ''}`);
      return;
    }
    // An answer older than what the socket already delivered changes nothing.
    if (st.game && view.version < st.version) return;
    st.game = view;
    st.version = view.version;
    st.start = parseFen(view.start_fen);
    st.moves = view.moves.map((m) => ({ uci: m.uci, san: m.san }));
    st.boards = [st.start.board];
    for (const m of st.moves) st.boards.push(applyUci(st.boards[st.boards.length - 1], m.uci));
    setClocks(view.clocks);
    st.pending = null;
    st.view = null;
    // The game says who its engine opponent is (a page opened from a link knows it too).
    const opponent = view.options && view.options.opponent;
    st.engineSeats = {};
    for (const seat of (view.options && view.options.opponents) || []) st.engineSeats[seat.plays] = seat.engine;
    if (opponent) {
      st.enginePlays = opponent.plays;
      st.opponentName = opponent.engine;
      if (!st.engine && view.status.result === 'ongoing') st.engine = opponent.engine;
    }
    if (st.analysis.on && st.analysis.ply !== null) restartAnalysis(0);
    render();
    refreshLegal();
  }

  function setClocks(clocks) {
    st.clocks = clocks || null;
    st.clockAt = performance.now();
  }

  function applyMove(f) {
    if (f.ply !== st.moves.length + 1) {
      // Out of step (a missed event): read the whole game again.
      reload();
      return;
    }
    st.moves.push({ uci: f.uci, san: f.san });
    board.say(`${st.game.turn === 'white' ? 'White' : 'Black'} played ${f.san}`);
    st.boards.push(applyUci(st.boards[st.boards.length - 1], f.uci));
    const g = st.game;
    g.fen = f.fen;
    g.status = f.status;
    g.turn = g.turn === 'white' ? 'black' : 'white';
    g.check = sanChecks(f.san);
    g.draw_offer = null;
    g.moves = st.moves;
    setClocks(f.clocks);
    if (st.pending === f.uci) st.pending = null;
    if (st.view !== null && st.view === st.moves.length - 1) st.view = null;
    st.legal = [];
    analysisAfterMove(f.status.result !== 'ongoing');
    render();
    refreshLegal();
    if (exportBox.open) refreshPgn();
  }

  async function reload() {
    try {
      loadState(await api('GET', `/v1/games/${id}`));
    } catch (e) {
      showMissing(e);
      return;
    }
    // Only games known to have an engine ask for it: for the others the answer is an error
    // (409 no_engine), which browsers log.
    if (st.engine) loadEngine();
  }

  /** Reads which engine the game has (and whether it plays a side). */
  async function loadEngine() {
    try {
      const view = await api('GET', `/v1/games/${id}/engine`);
      st.engine = view.name;
      if (view.opponent) {
        st.enginePlays = view.opponent.plays;
        st.opponentName = view.name;
      } else if (ongoing()) {
        st.enginePlays = null;
      }
    } catch {
      // No engine attached (409 no_engine), or a server without engines.
      st.engine = null;
      if (ongoing()) st.enginePlays = null;
    }
    render();
  }

  function onFrame(f) {
    if (typeof f.version === 'number' && ['move', 'draw_offered', 'draw_declined', 'game_end', 'reset', 'stopped'].includes(f.type)) {
      if (f.version <= st.version) return; // seen already (a replay after reconnecting)
      st.version = f.version;
    }
    switch (f.type) {
      case 'hello':
        st.role = f.role;
        if (st.role === 'white' || st.role === 'black') rememberGame({ id, secret: token, color: st.role });
        render();
        break;
      case 'state':
      case 'resync':
        loadState(f);
        break;
      case 'move':
        if (!st.game) return;
        applyMove(f);
        break;
      case 'draw_offered':
        st.game.draw_offer = f.by;
        render();
        break;
      case 'draw_declined':
        st.game.draw_offer = null;
        if (f.by !== st.role && isPlayer()) toast('Your draw offer was declined');
        render();
        break;
      case 'game_end':
        st.game.status = f.status;
        analysisAfterEnd();
        st.game.draw_offer = null;
        setClocks(f.clocks);
        st.legal = [];
        render();
        if (exportBox.open) refreshPgn();
        break;
      case 'reset':
        reload();
        break;
      case 'stopped':
        st.stopped = f.reason || 'stopped';
        socket.stop();
        render();
        break;
      case 'engine_info':
        onEngineInfo(f);
        break;
      case 'engine_error':
        if (st.analysis.on) st.analysis.error = f.message || f.code;
        else toast(`Engine: ${f.message || f.code}`, 'error', 6000);
        st.analysis.on = false;
        st.analysis.starting = false;
        st.analysis.seq += 1;
        renderAnalysis();
        break;
      case 'engine_attached':
        st.engine = f.name;
        loadEngine();
        break;
      case 'engine_detached':
        // (Another engine replacing it for an analysis also detaches it: only a running game
        // loses its opponent.)
        if (st.engine === f.name) st.engine = null;
        if (ongoing()) st.enginePlays = null;
        analysisEngineGone(f.name);
        render();
        break;
      case 'engine_analysis_done':
        onAnalysisDone(f);
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
    onStatus: (s) => {
      st.conn = s;
      renderConn();
      if (s === 'open') refreshLegal();
    },
    version: () => st.version,
  });

  // ----- moves -----

  function isPlayer() {
    return st.role === 'white' || st.role === 'black';
  }

  function ongoing() {
    return st.game && st.game.status.result === 'ongoing' && !st.stopped;
  }

  function myTurn() {
    return isPlayer() && ongoing() && st.game.turn === st.role;
  }

  async function refreshLegal() {
    if (!myTurn()) {
      st.legal = [];
      renderBoard();
      return;
    }
    const fen = st.game.fen;
    try {
      const answer = await api('GET', `/v1/games/${id}/legal-moves`);
      if (st.game.fen !== fen) return; // a move came in meanwhile
      st.legal = answer.moves || [];
      st.legalFor = fen;
      renderBoard();
    } catch (e) {
      if (e.code === 'game_not_found') showMissing(e);
    }
  }

  function userMove(uci) {
    sendMove({ uci }, uci);
  }

  async function sendMove(move, uci) {
    if (!myTurn()) {
      toast(isPlayer() ? 'It is not your turn' : 'Spectators cannot move', 'error');
      return;
    }
    if (uci) {
      st.pending = uci;
      board.preview(uci);
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
      render();
      refreshLegal();
    }
  }

  async function command(type, restPath, body) {
    try {
      if (socket.isOpen()) await socket.send({ type });
      else await api('POST', `/v1/games/${id}${restPath}`, body, token, { idempotent: true });
    } catch (e) {
      toast(explain(e), 'error');
    }
  }

  // ----- navigation -----

  function viewPly() {
    return st.view === null ? st.moves.length : st.view;
  }

  function goto(ply) {
    if (ply === null || ply >= st.moves.length) st.view = null;
    else st.view = Math.max(0, ply);
    renderBoard();
    renderBars();
    renderMoves();
    renderStatus();
    analysisFollowView();
  }

  function flip() {
    st.orientation = (st.orientation || defaultOrientation()) === 'white' ? 'black' : 'white';
    render();
  }

  function defaultOrientation() {
    return st.role === 'black' ? 'black' : 'white';
  }

  const onKey = (e) => {
    const t = e.target;
    if (t && (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA' || t.tagName === 'SELECT' || t === board.svg)) return;
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    if (e.key === 'ArrowLeft') goto(viewPly() - 1);
    else if (e.key === 'ArrowRight') goto(viewPly() + 1);
    else if (e.key === 'Home') goto(0);
    else if (e.key === 'End') goto(null);
    else if (e.key === 'f') flip();
    else return;
    e.preventDefault();
  };
  document.addEventListener('keydown', onKey);

  // ----- rendering -----

  function render() {
    if (!st.game) return;
    renderBoard();
    renderBars();
    renderMoves();
    renderStatus();
    renderControls();
    renderConn();
    renderAnalysis();
    renderExport();
  }

  function sideToMoveAt(ply) {
    const whiteFirst = st.start.turn === 'w';
    return (ply % 2 === 0) === whiteFirst ? 'w' : 'b';
  }

  function renderBoard() {
    if (!st.game) return;
    board.setOrientation(st.orientation || defaultOrientation());
    const ply = viewPly();
    const live = st.view === null;
    const squares = st.boards[ply];
    const last = ply > 0 ? st.moves[ply - 1] : null;
    const checked = live ? st.game.check : last && sanChecks(last.san);
    const turn = sideToMoveAt(ply);
    const legal = live && !st.pending && myTurn() && st.legalFor === st.game.fen ? st.legal : [];
    if (st.pending && live) return; // keep the previewed move until the server confirms it
    board.set({
      board: squares,
      lastMove: last ? last.uci : null,
      check: checked ? kingSquare(squares, turn) : -1,
      legal,
      turn,
    });
    board.svg.dataset.ply = String(ply);
    board.svg.dataset.live = String(live);
    page.classList.toggle('looking-back', !live);
  }

  function material(squares) {
    const count = { w: {}, b: {} };
    let score = 0;
    for (const p of squares) {
      if (!p) continue;
      const c = p === p.toUpperCase() ? 'w' : 'b';
      const r = p.toLowerCase();
      count[c][r] = (count[c][r] || 0) + 1;
      score += (c === 'w' ? 1 : -1) * VALUES[r];
    }
    return { count, score };
  }

  function playerBar(bar, color) {
    const g = st.game;
    const you = st.role === color;
    const engineSide = st.enginePlays === color;
    const seatEngine = st.engineSeats[color];
    const name = you ? 'You'
      : seatEngine && !engineSide ? `Computer · ${seatEngine}`
      : engineSide ? `Computer · ${st.opponentName || st.engine}` : color === 'white' ? 'White' : 'Black';
    const { count, score } = material(st.boards[viewPly()]);
    // The material difference, as the big sites show it: beside each side, the opponent's
    // pieces it is up (so it also reads right for games started from a FEN), and the lead.
    const me = color === 'white' ? 'w' : 'b';
    const opp = color === 'white' ? 'b' : 'w';
    const captured = h('span.captured');
    for (const r of ['q', 'r', 'b', 'n', 'p']) {
      const up = (count[me][r] || 0) - (count[opp][r] || 0);
      for (let i = 0; i < up; i++) captured.append(pieceSvg(opp === 'w' ? r.toUpperCase() : r, 18));
    }
    const lead = color === 'white' ? score : -score;
    const clock = h(`div.clock.clock-${color}`, { 'data-color': color });
    const running = g.clocks && g.status.result === 'ongoing' && st.clocks && st.clocks.running === color;
    clock.classList.toggle('running', !!running);
    clock.hidden = !st.clocks;
    const toMove = g.status.result === 'ongoing' && g.turn === color && st.view === null;
    setChildren(bar,
      h('div.player',
        h('span.side-dot', { class: color }),
        h('span.player-name', name),
        toMove ? h('span.to-move', { title: 'To move' }, '●') : null,
        captured, lead > 0 ? h('span.lead', `+${lead}`) : null),
      clock);
    bar.dataset.color = color;
  }

  function renderBars() {
    const bottom = st.orientation || defaultOrientation();
    const top = bottom === 'white' ? 'black' : 'white';
    playerBar(topBar, top);
    playerBar(bottomBar, bottom);
    tickClocks();
  }

  function tickClocks() {
    if (!st.clocks) return;
    const g = st.game;
    for (const color of ['white', 'black']) {
      let ms = st.clocks[`${color}_ms`];
      if (st.clocks.running === color && g.status.result === 'ongoing' && !st.stopped) ms -= performance.now() - st.clockAt;
      for (const el of page.querySelectorAll(`.clock-${color}`)) {
        el.textContent = formatClock(ms);
        el.classList.toggle('low', ms < 20_000);
      }
    }
  }
  const clockTimer = setInterval(tickClocks, 100);

  function renderMoves() {
    const items = [];
    const whiteFirst = st.start.turn === 'w';
    let number = st.start.fullmove;
    let row = null;
    st.moves.forEach((m, i) => {
      const white = (i % 2 === 0) === whiteFirst;
      if (white || !row) {
        row = h('li.move-row', h('span.move-no', `${number}.`));
        if (!white) row.append(h('span.move.empty', '…'));
        items.push(row);
      }
      const ply = i + 1;
      const current = viewPly() === ply;
      row.append(h('button.move', {
        type: 'button',
        class: current ? 'current' : '',
        'data-ply': String(ply),
        'aria-current': current ? 'true' : false,
        onclick: () => goto(ply),
      }, m.san));
      if (!white) number += 1;
    });
    const res = resultText(st.game.status);
    if (res) items.push(h('li.move-result', res.score));
    setChildren(moveList, items.length ? items : h('li.muted.empty-moves', 'No moves yet'));
    const cur = moveList.querySelector('.current');
    if (st.view === null) moveList.scrollTop = moveList.scrollHeight;
    else if (cur) cur.scrollIntoView({ block: 'nearest' });
  }

  function renderStatus() {
    const g = st.game;
    const res = resultText(g.status);
    statusBox.className = 'status-box';
    if (st.stopped && !res) {
      statusBox.classList.add('ended');
      setChildren(statusBox, h('strong', 'Game stopped'), h('span', `The server stopped this game (${st.stopped}).`));
      return;
    }
    if (res) {
      statusBox.classList.add('ended');
      const mine = isPlayer() && ((g.status.result === 'white_wins' && st.role === 'white') || (g.status.result === 'black_wins' && st.role === 'black'));
      const lost = isPlayer() && g.status.result !== 'draw' && !mine;
      statusBox.dataset.result = g.status.result;
      // One sentence with the reason once ("White wins by checkmate"); a player reads it about
      // themselves ("You won by checkmate") with the side that won below.
      const decisive = g.status.result !== 'draw';
      setChildren(statusBox,
        h('span.score', res.score),
        h('strong.result-title', mine ? `You won ${res.detail}` : lost ? `You lost ${res.detail}` : res.sentence),
        isPlayer() && decisive ? h('span.result-detail', res.title) : null);
      return;
    }
    statusBox.dataset.result = 'ongoing';
    const side = g.turn === 'white' ? 'White' : 'Black';
    let text = `${side} to move`;
    if (st.enginePlays === g.turn) text = 'The computer is thinking…';
    else if (isPlayer()) text = myTurn() ? 'Your turn' : 'Waiting for your opponent…';
    const check = g.check ? h('span.check-flag', 'Check!') : null;
    setChildren(statusBox, h('strong', text), check,
      st.view !== null ? h('button.btn.small.link', { type: 'button', onclick: () => goto(null) }, 'Back to the game') : null);
  }

  function renderControls() {
    const g = st.game;
    setChildren(controls);
    offerBox.hidden = true;
    moveForm.hidden = !isPlayer() || !ongoing();
    if (!isPlayer()) {
      roleBadge.textContent = st.role === 'spectator' ? 'Spectating' : st.role === 'admin' ? 'Admin' : '…';
      roleBadge.className = 'badge spectator';
      return;
    }
    roleBadge.textContent = `You play ${st.role}`;
    roleBadge.className = `badge ${st.role}`;
    if (!ongoing()) {
      controls.append(h('a.btn', { href: '#/' }, 'New game'));
      return;
    }
    const offer = g.draw_offer;
    if (offer && offer !== st.role) {
      offerBox.hidden = false;
      setChildren(offerBox,
        h('span', 'Your opponent offers a draw.'),
        h('button.btn.small.primary#accept-draw', { type: 'button', onclick: () => command('draw_accept', '/draw-offer/accept') }, 'Accept'),
        h('button.btn.small#decline-draw', { type: 'button', onclick: () => command('draw_decline', '/draw-offer/decline') }, 'Decline'));
    }
    const drawBtn = offer === st.role
      ? h('button.btn#offer-draw', { type: 'button', disabled: true }, 'Draw offered')
      : h('button.btn#offer-draw', { type: 'button', onclick: () => command('draw_offer', '/draw-offer'), disabled: !!st.enginePlays }, '½ Offer draw');
    const resignBtn = h('button.btn.danger#resign', {
      type: 'button',
      onclick: () => {
        if (!st.resignArmed) {
          st.resignArmed = true;
          resignBtn.textContent = 'Confirm resign';
          resignBtn.classList.add('armed');
          setTimeout(() => {
            st.resignArmed = false;
            if (resignBtn.isConnected) renderControls();
          }, 3000);
          return;
        }
        st.resignArmed = false;
        command('resign', '/resign');
      },
    }, st.resignArmed ? 'Confirm resign' : '⚑ Resign');
    controls.append(drawBtn, resignBtn);
  }

  function renderConn() {
    const labels = { connecting: 'Connecting…', open: 'Live', reconnecting: 'Reconnecting…', closed: 'Offline' };
    conn.dataset.state = st.conn;
    connText.textContent = st.stopped ? 'Game stopped' : labels[st.conn] || st.conn;
  }

  // ----- export -----

  const fenField = copyField('FEN (current position)', '', { id: 'fen-field' });
  const pgnText = h('textarea.pgn#pgn-text', { readOnly: true, rows: 6, 'aria-label': 'PGN' });
  const pgnActions = h('div.actions',
    h('button.btn.small', { type: 'button', onclick: () => copyText(pgnText.value, pgnText) }, 'Copy PGN'),
    h('a.btn.small', { href: `/v1/games/${id}/pgn`, download: `chessd-${id.slice(0, 8)}.pgn` }, 'Download PGN'));
  const inviteBox = h('div.invite');
  exportBox.append(inviteBox, fenField, h('div.copy-field', h('label', { for: 'pgn-text' }, 'PGN'), pgnText, pgnActions));
  exportBox.addEventListener('toggle', () => exportBox.open && refreshPgn());

  function renderExport() {
    fenField.querySelector('input').value = st.game.fen;
    const mine = rememberedGame(id);
    const links = [];
    if (mine && mine.invite && isPlayer()) {
      const other = st.role === 'white' ? 'black' : 'white';
      links.push(copyField(`Link for your opponent (${other})`, gameLink(id, mine.invite)));
    }
    links.push(copyField('Link for spectators', gameLink(id)));
    setChildren(inviteBox, links);
    // Before the first move, invite links are what the creator needs: show them.
    if (mine && mine.invite && st.moves.length === 0 && !exportBox.dataset.touched) exportBox.open = true;
  }
  exportBox.querySelector('summary').addEventListener('click', () => { exportBox.dataset.touched = '1'; });

  async function refreshPgn() {
    try {
      pgnText.value = await api('GET', `/v1/games/${id}/pgn`);
    } catch (e) {
      pgnText.value = explain(e);
    }
  }

  // ----- analysis -----

  // The panel's head and its engine chooser stay in place (they keep the focus); only the body
  // is redrawn. The analysis is of the position shown: the live one (which the server follows
  // move by move), or, looking back or after the game, the one chosen in the move list.
  const analysisToggle = h('button.btn.small#analysis-toggle', {
    type: 'button',
    onclick: () => (st.analysis.on ? stopAnalysis() : startAnalysis()),
  });
  const engineSelect = h('select#analysis-engine', {
    disabled: true,
    'aria-describedby': 'analysis-position',
    onchange: () => chooseEngine(engineSelect.value),
  }, h('option', { value: '' }, 'Loading engines…'));
  const engineRow = h('div.analysis-engine',
    h('label', { for: 'analysis-engine' }, 'Engine'), engineSelect);
  const analysisBody = h('div.analysis-body', { 'aria-live': 'off' });
  analysisBox.append(h('div.analysis-head', h('h2', 'Analysis'), analysisToggle), engineRow, analysisBody);
  let restartTimer = null;

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
      a.engines = (list.engines || []).filter((e) => e.reachable !== false);
    } catch {
      a.engines = [];
    }
    a.enginesLoaded = true;
    a.choice = preferredEngine(a.engines);
    setChildren(engineSelect, a.engines.length
      ? a.engines.map((e) => h('option', { value: e.name, selected: e.name === a.choice }, `${e.name}${e.default ? ' (default)' : ''}`))
      : h('option', { value: '' }, 'No engine available'));
    engineSelect.value = a.choice || '';
    renderAnalysis();
  }

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
      renderAnalysis();
      return;
    }
    // Analysing: restart with the new engine. The running analysis stops first (the server
    // replaces only an idle engine by another one).
    const seq = ++a.seq;
    clearTimeout(restartTimer);
    a.starting = true;
    a.lines.clear();
    a.info = null;
    renderAnalysis();
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

  /** Whether the game ended in the position after `ply` with no move left (mate, stalemate). */
  function terminalAt(ply) {
    const s = st.game && st.game.status;
    return !!s && s.result !== 'ongoing' && ply === st.moves.length && ['checkmate', 'stalemate'].includes(s.reason);
  }

  function renderAnalysis() {
    if (!st.game) return;
    const a = st.analysis;
    const seat = isPlayer() || st.role === 'admin';
    if (seat && !a.engines) loadAnalysisEngines();
    const finished = st.game.status.result !== 'ongoing';
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
    engineRow.hidden = !seat || (a.enginesLoaded && !engines.length);
    engineSelect.disabled = !canAsk || engines.length < 2;
    analysisBox.dataset.state = a.on ? (a.starting ? 'starting' : 'on') : a.done ? 'done' : 'off';
    analysisBox.dataset.engine = a.on || a.done ? a.engine || a.choice || '' : '';
    const body = [];
    if (!seat) body.push(h('p.muted.small', 'Engine analysis is available to the players.'));
    else if (st.stopped) body.push(h('p.muted.small', 'The game is stopped: no analysis.'));
    else if (vsComputer) body.push(h('p.muted.small', 'The engine is your opponent in this game: no analysis while you play it.'));
    else if (finished && !finishedOk) body.push(h('p.muted.small', 'The game is over.'));
    else if (a.enginesLoaded && !engines.length) body.push(h('p.muted.small', 'No engine is available on this server.'));
    if (a.error) body.push(h('p.error-text', a.error));
    if (canAsk || a.on) {
      body.push(h('p.muted.small.analysis-position#analysis-position', { 'data-ply': String(target) }, positionText(target, a.on)));
    }
    if (a.on || a.done) {
      const lines = [...a.lines.values()].sort((x, y) => x.multipv - y.multipv);
      if (!lines.length && a.on) body.push(h('p.muted.small', terminal ? 'No legal move in this position.' : 'The engine is thinking…'));
      const ply = analysedPly();
      body.push(h('ol.pv-lines#pv-lines', { 'aria-label': `Best lines of ${a.engine || a.choice || 'the engine'}, scores from White's side` },
        lines.map((l) => h('li.pv-line', { 'data-multipv': String(l.multipv || 1) },
          h('span.pv-score', { title: "Score from White's side (pawns; # = mate in)" }, scoreText(l, ply)),
          h('span.pv-depth', { title: 'Depth (plies)' }, `d${l.depth ?? '?'}`),
          h('span.pv-moves', pvText(l, ply))))));
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

  /** Names the position after `ply` plies: "the starting position", "after 2… Nc6". */
  function positionText(ply, on) {
    const live = ply === st.moves.length && st.view === null;
    let where;
    if (ply === 0) where = 'the starting position';
    else {
      const whiteMoved = sideToMoveAt(ply - 1) === 'w';
      const n = st.start.fullmove + Math.floor((ply - 1 + (st.start.turn === 'w' ? 0 : 1)) / 2);
      where = `the position after ${n}${whiteMoved ? '.' : '…'} ${st.moves[ply - 1].san}`;
    }
    const over = st.game.status.result !== 'ongoing' && ply === st.moves.length;
    const tail = over ? ' (final)' : live && st.analysis.ply === null ? ' (live)' : '';
    return `${on ? 'Analysing' : 'Position:'} ${where}${tail}`;
  }

  /** The score of a line from White's side: the server's `white_score`, or the UCI score
   * (from the side to move) turned round when Black is to move. */
  function whiteScore(line, ply) {
    if (line.white_score && typeof line.white_score === 'object') return line.white_score;
    const s = line.score || {};
    const flip = (line.pov ? line.pov === 'black' : sideToMoveAt(ply) === 'b') ? -1 : 1;
    const out = {};
    if (typeof s.mate === 'number') out.mate = s.mate * flip;
    if (typeof s.cp === 'number') out.cp = s.cp * flip;
    return out;
  }

  function scoreText(line, ply) {
    const s = whiteScore(line, ply);
    if (typeof s.mate === 'number') return `${s.mate < 0 ? '-' : ''}#${Math.abs(s.mate)}`;
    if (typeof s.cp === 'number') {
      const v = s.cp / 100;
      return `${v > 0 ? '+' : ''}${v.toFixed(2)}`;
    }
    return '…';
  }

  function pvText(line, ply) {
    const sans = (line.pv_san && line.pv_san.length ? line.pv_san : line.pv_uci) || [];
    const fullmove = st.start.fullmove + Math.floor((ply + (st.start.turn === 'w' ? 0 : 1)) / 2);
    return numberedLine(sans.slice(0, 12), sideToMoveAt(ply), fullmove);
  }

  /** Whether an `engine_info` frame is about the position analysed (a frame of the search the
   * engine is leaving may still arrive after a restart elsewhere). */
  function aboutAnalysed(f) {
    const ply = analysedPly();
    const turn = sideToMoveAt(ply);
    if (f.pov && f.pov !== (turn === 'w' ? 'white' : 'black')) return false;
    const first = (f.pv_uci || [])[0];
    if (!first) return true;
    if (f.pv_san && !f.pv_san.length) return false; // not legal where the engine started
    const piece = st.boards[ply] && st.boards[ply][squareIndex(first.slice(0, 2))];
    return !!piece && colorOf(piece) === turn;
  }

  function onEngineInfo(f) {
    const a = st.analysis;
    if (!a.on || !aboutAnalysed(f)) return;
    if ((f.pv_san && f.pv_san.length) || (f.pv_uci && f.pv_uci.length)) a.lines.set(f.multipv || 1, f);
    a.info = f;
    renderAnalysis();
  }

  /** `engine_analysis_done`: a finite analysis ended by itself; its lines stay on show. */
  function onAnalysisDone(f) {
    const a = st.analysis;
    if (!a.on || a.starting) return;
    a.on = false;
    a.done = true;
    const lines = (f.lines || []).filter(aboutAnalysed);
    if (lines.length) {
      a.lines.clear();
      for (const l of lines) a.lines.set(l.multipv || 1, l);
    }
    renderAnalysis();
  }

  /** The attached engine `name` went away (detached, died). */
  function analysisEngineGone(name) {
    const a = st.analysis;
    if (!a.on || a.starting || (a.engine && a.engine !== name)) return;
    a.on = false;
    a.lines.clear();
    renderAnalysis();
  }

  /** Lines to ask for: three, or fewer when the engine offers fewer (its MultiPV option). */
  async function multipvFor(name, shape) {
    const a = st.analysis;
    if (!a.multipvMax) a.multipvMax = new Map();
    // Asked of the attached engine (a finished game's engine is released after each analysis:
    // it is started again on demand, so it is not asked there).
    if (!a.multipvMax.has(name) && (!shape.engine || (st.engine === name && ongoing()))) {
      try {
        const view = await api('GET', `/v1/games/${id}/engine`);
        const decl = (view.options || []).find((o) => o.name.toLowerCase() === 'multipv');
        a.multipvMax.set(view.name, decl && decl.max ? decl.max : 1);
      } catch {
        // Not attached after all: guess below.
      }
    }
    if (a.multipvMax.has(name)) return Math.max(1, Math.min(3, a.multipvMax.get(name)));
    // Not attached yet: the built-in engine searches one line; UCI engines offer MultiPV.
    const known = (a.engines || []).find((e) => e.name === name);
    return known && known.kind === 'builtin' ? 1 : 3;
  }

  /** The single request of a server that knows `engine`: it attaches (or swaps) the engine. */
  async function requestAnalysis(name, multipv, ply) {
    const body = { multipv, engine: name };
    if (ply !== null) body.ply = ply;
    try {
      return await api('POST', `/v1/games/${id}/engine/analysis`, body, token);
    } catch (e) {
      // The engine offers fewer lines than guessed: ask for as many as it has.
      const fewer = e.code === 'invalid_request' && /multipv must be 1 to (\d+)/i.exec(e.message || '');
      if (fewer && Number(fewer[1]) >= 1 && Number(fewer[1]) < multipv) {
        st.analysis.multipvMax.set(name, Number(fewer[1]));
        return requestAnalysis(name, Number(fewer[1]), ply);
      }
      throw e;
    }
  }

  /** An older server: attach the chosen engine first, then analyse the live position. */
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
    renderAnalysis();
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
          if (!(e.code === 'invalid_request' && /unknown field/i.test(e.message || ''))) throw e;
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
      renderAnalysis();
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
    if (a.multipv && !a.multipvMax.has(a.engine)) a.multipvMax.set(a.engine, a.multipv);
    st.engine = a.engine;
    renderAnalysis();
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
    renderAnalysis();
    try {
      await api('DELETE', `/v1/games/${id}/engine/analysis`, undefined, token);
    } catch (e) {
      if (e.code !== 'no_engine') toast(explain(e), 'error');
    }
  }

  /** Restarts the running analysis on the position to analyse, after `delay` ms (stepping
   * through moves quickly asks once, for the position the user stops at). */
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

  /** The position shown changed (looking back or forward): follow it. */
  function analysisFollowView() {
    const a = st.analysis;
    const target = analysisTarget();
    if (a.on && target !== a.ply) restartAnalysis(250);
    else if (a.done && target !== a.ply) {
      a.done = false;
      a.lines.clear();
    }
    renderAnalysis();
  }

  /** A move was played (`over`: it ended the game). */
  function analysisAfterMove(over) {
    const a = st.analysis;
    if (!a.on) return;
    if (over) analysisAfterEnd();
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
  function analysisAfterEnd() {
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

  // ----- missing game -----

  function showMissing(e) {
    socket.close();
    setChildren(root, h('section.page.narrow',
      h('div.card',
        h('h1', 'Game not found'),
        h('p', explain(e)),
        h('a.btn.primary', { href: '#/' }, 'Back to the lobby'))));
  }

  reload();

  return () => {
    socket.close();
    clearInterval(clockTimer);
    clearTimeout(restartTimer);
    document.removeEventListener('keydown', onKey);
    if (st.analysis.on) api('DELETE', `/v1/games/${id}/engine/analysis`, undefined, token).catch(() => {});
  };
}
