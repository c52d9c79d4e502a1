// @ts-check
// The game page's DOM: the layout, the board, the players' bars with their clocks, the move
// list, the status, the seat's controls and the connection badge. It draws the state and calls
// back the controller's actions; it sends nothing itself.

import { Board } from './board.js';
import { kingSquare, resultText, sanChecks } from './chess.js';
import { h, icon, setChildren } from './dom.js';
import { startClocks } from './game-clock.js';
import { premoveTargets } from './premove.js';
import { canPremove, defaultOrientation, hasOwnMove, inGame, isPlayer, isUciText, materialEdge, moveRows, myTurn, ongoing, playerName, sideToMoveAt, viewPly } from './game-state.js';
import { pieceSvg } from './pieces.js';
import { seatLine } from './players.js';

/** @typedef {import('./game-state.js').GameState} GameState */

/**
 * What the view asks of the controller.
 * @typedef {Object} GameActions
 * @property {(uci: string) => void} move  A move made on the board.
 * @property {(move: {uci: string} | {san: string}) => void} send  A move typed.
 * @property {(ply: number | null) => void} goto  Show the position after `ply` (null: live).
 * @property {() => void} flip
 * @property {(type: string, restPath: string) => void} command  draw_offer, resign, …
 * @property {() => void} cancelPremove  The queued premove is cancelled.
 * @property {() => void} rematch  Offer a rematch, accept the opponent's, or open it.
 */

/**
 * @typedef {Object} Panel
 * @property {HTMLElement} el
 * @property {() => void} render
 */

/**
 * @typedef {Object} GameView
 * @property {Board} board
 * @property {() => void} render  Everything.
 * @property {() => void} renderBoard
 * @property {() => void} renderNavigation  What looking back changes: board, bars, moves, status.
 * @property {() => void} renderConn
 * @property {(message: string) => void} showMissing  The game does not exist (or no more).
 * @property {() => void} dispose
 */

const CONN_LABELS = /** @type {Record<string, string>} */ ({ connecting: 'Connecting…', open: 'Live', reconnecting: 'Reconnecting…', closed: 'Offline' });

/**
 * Lays the game page out in `root`.
 * @param {HTMLElement} root
 * @param {GameState} st
 * @param {GameActions} actions
 * @param {{analysis: Panel, exporter: Panel, chat: Panel}} panels
 * @returns {GameView}
 */
export function createGameView(root, st, actions, { analysis, exporter, chat }) {
  const board = new Board({
    onMove: (/** @type {string} */ uci) => actions.move(uci),
    onPremoveCancel: () => actions.cancelPremove(),
    label: 'Game board',
  });
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
    navBtn('first', 'First position (Home)', () => actions.goto(0)),
    navBtn('prev', 'Previous move (←)', () => actions.goto(viewPly(st) - 1)),
    navBtn('next', 'Next move (→)', () => actions.goto(viewPly(st) + 1)),
    navBtn('last', 'Last move (End)', () => actions.goto(null)),
    navBtn('flip', 'Flip the board (f)', () => actions.flip()));
  const controls = h('div.controls#controls');
  const moveInput = /** @type {HTMLInputElement} */ (h('input#move-input', { type: 'text', placeholder: 'Type a move (e4, Nf3, e7e8q)', 'aria-label': 'Type a move', autocomplete: 'off', spellcheck: false }));
  const moveForm = h('form.move-form', moveInput, h('button.btn.small', { type: 'submit' }, 'Play'));
  moveForm.addEventListener('submit', (e) => {
    e.preventDefault();
    const text = moveInput.value.trim();
    if (!text) return;
    moveInput.value = '';
    actions.send(isUciText(text) ? { uci: text } : { san: text });
  });

  const boardCol = h('div.board-col', topBar, board.el, bottomBar, moveForm);
  const sideCol = h('div.side-col',
    h('div.card.game-card',
      h('div.game-head', roleBadge, conn),
      statusBox, offerBox,
      moveList, navButtons, controls),
    analysis.el, chat.el, exporter.el);
  const page = h('section.page.game-page', h('div.game-grid', boardCol, sideCol));
  setChildren(root, page);
  const clocks = startClocks(st, page);

  /**
   * @param {string} name
   * @param {string} title
   * @param {() => void} onclick
   */
  function navBtn(name, title, onclick) {
    return h(`button.btn.icon.nav-${name}`, { type: 'button', title, 'aria-label': title, onclick }, icon(name));
  }

  function render() {
    if (!st.game) return;
    renderBoard();
    renderBars();
    renderMoves();
    renderStatus();
    renderControls();
    renderConn();
    chat.render();
    analysis.render();
    exporter.render();
  }

  function renderNavigation() {
    renderBoard();
    renderBars();
    renderMoves();
    renderStatus();
  }

  function renderBoard() {
    const g = st.game;
    if (!g) return;
    board.setOrientation(st.orientation || defaultOrientation(st));
    const ply = viewPly(st);
    const live = st.view === null;
    const squares = st.boards[ply];
    const last = ply > 0 ? st.moves[ply - 1] : null;
    const checked = live ? g.check : last && sanChecks(last.san);
    const turn = sideToMoveAt(st.start.turn, ply);
    // While the opponent is to move the player may queue a premove (by the pieces' geometry).
    const premove = live && canPremove(st);
    let legal = live && !st.pending && myTurn(st) && st.legalFor === g.fen ? st.legal : [];
    if (premove) legal = premoveTargets(squares, /** @type {'white' | 'black'} */ (st.role));
    if (st.pending && live) return; // keep the previewed move until the server confirms it
    board.set({
      board: squares,
      lastMove: last ? last.uci : null,
      check: checked ? kingSquare(squares, turn) : -1,
      legal,
      turn,
      premove,
    });
    board.showPremove(live ? st.premove : null);
    board.svg.dataset.ply = String(ply);
    board.svg.dataset.live = String(live);
    page.classList.toggle('looking-back', !live);
  }

  /**
   * @param {HTMLElement} bar
   * @param {'white' | 'black'} color
   */
  function playerBar(bar, color) {
    const g = st.game;
    if (!g) return;
    const { pieces, lead } = materialEdge(st.boards[viewPly(st)], color);
    const captured = h('span.captured');
    for (const p of pieces) captured.append(pieceSvg(p, 18));
    const clock = h(`div.clock.clock-${color}`, { 'data-color': color });
    const running = g.clocks && g.status.result === 'ongoing' && st.clocks && st.clocks.running === color;
    clock.classList.toggle('running', !!running);
    clock.hidden = !st.clocks;
    const toMove = g.status.result === 'ongoing' && g.turn === color && st.view === null;
    setChildren(bar,
      h('div.player',
        h('span.side-dot', { class: color }),
        h('span.player-name', barName(color)),
        toMove ? h('span.to-move', { title: 'To move' }, '●') : null,
        captured, lead > 0 ? h('span.lead', `+${lead}`) : null),
      clock);
    bar.dataset.color = color;
  }

  /** A bar's name: the game's player (name and rating) when it has players, else the seat's
   * role ("You", "White", "Computer · …"). @param {'white' | 'black'} color */
  function barName(color) {
    const g = /** @type {any} */ (st.game);
    const seat = seatLine(g && g.players, color);
    const role = playerName(st, color);
    if (!seat) return role;
    return role === 'You' ? `You · ${seat}` : seat;
  }

  function renderBars() {
    const bottom = st.orientation || defaultOrientation(st);
    playerBar(topBar, bottom === 'white' ? 'black' : 'white');
    playerBar(bottomBar, bottom === 'white' ? 'white' : 'black');
    clocks.tick();
  }

  function renderMoves() {
    const g = st.game;
    if (!g) return;
    const shown = viewPly(st);
    const items = moveRows(st.moves, st.start).map((row) => h('li.move-row',
      h('span.move-no', `${row.number}.`),
      row.gap ? h('span.move.empty', '…') : null,
      row.moves.map(({ ply, san }) => h('button.move', {
        type: 'button',
        class: shown === ply ? 'current' : '',
        'data-ply': String(ply),
        'aria-current': shown === ply ? 'true' : false,
        onclick: () => actions.goto(ply),
      }, san))));
    const res = resultText(g.status);
    if (res) items.push(h('li.move-result', res.score));
    setChildren(moveList, items.length ? items : h('li.muted.empty-moves', 'No moves yet'));
    const cur = moveList.querySelector('.current');
    if (st.view === null) moveList.scrollTop = moveList.scrollHeight;
    else if (cur) cur.scrollIntoView({ block: 'nearest' });
  }

  function renderStatus() {
    const g = st.game;
    if (!g) return;
    const res = resultText(g.status);
    statusBox.className = 'status-box';
    if (st.stopped && !res) {
      statusBox.classList.add('ended');
      setChildren(statusBox, h('strong', 'Game stopped'), h('span', `The server stopped this game (${st.stopped}).`));
      return;
    }
    if (res) {
      statusBox.classList.add('ended');
      const mine = isPlayer(st) && ((g.status.result === 'white_wins' && st.role === 'white') || (g.status.result === 'black_wins' && st.role === 'black'));
      const decisive = g.status.result === 'white_wins' || g.status.result === 'black_wins';
      const lost = isPlayer(st) && decisive && !mine;
      statusBox.dataset.result = g.status.result;
      // One sentence with the reason once ("White wins by checkmate"); a player reads it about
      // themselves ("You won by checkmate") with the side that won below.
      setChildren(statusBox,
        h('span.score', res.score),
        h('strong.result-title', mine ? `You won ${res.detail}` : lost ? `You lost ${res.detail}` : res.sentence),
        isPlayer(st) && decisive ? h('span.result-detail', res.title) : null);
      return;
    }
    statusBox.dataset.result = 'ongoing';
    const side = g.turn === 'white' ? 'White' : 'Black';
    let text = `${side} to move`;
    if (st.enginePlays === g.turn) text = 'The computer is thinking…';
    else if (isPlayer(st)) text = myTurn(st) ? 'Your turn' : 'Waiting for your opponent…';
    const check = g.check ? h('span.check-flag', 'Check!') : null;
    setChildren(statusBox, h('strong', text), check,
      st.view !== null ? h('button.btn.small.link', { type: 'button', onclick: () => actions.goto(null) }, 'Back to the game') : null);
  }

  function renderControls() {
    const g = st.game;
    if (!g) return;
    setChildren(controls);
    offerBox.hidden = true;
    moveForm.hidden = !isPlayer(st) || !ongoing(st);
    const extra = inGame(g);
    if (!isPlayer(st)) {
      roleBadge.textContent = st.role === 'spectator' ? 'Spectating' : st.role === 'admin' ? 'Admin' : '…';
      roleBadge.className = 'badge spectator';
      if (extra.rematch) controls.append(h('a.btn#watch-rematch', { href: `#/game/${encodeURIComponent(extra.rematch)}` }, 'Watch the rematch'));
      return;
    }
    roleBadge.textContent = `You play ${st.role}`;
    roleBadge.className = `badge ${st.role}`;
    if (!ongoing(st)) {
      renderRematch(extra);
      controls.append(h('a.btn', { href: '#/' }, 'New game'));
      return;
    }
    const takeback = extra.takeback_offer;
    if (takeback && takeback !== st.role) {
      offerBox.hidden = false;
      setChildren(offerBox,
        h('span', 'Your opponent asks to take back their move.'),
        h('button.btn.small.primary#accept-takeback', { type: 'button', onclick: () => actions.command('takeback_accept', '/takeback/accept') }, 'Accept'),
        h('button.btn.small#decline-takeback', { type: 'button', onclick: () => actions.command('takeback_decline', '/takeback/decline') }, 'Decline'));
    }
    if (extra.abortable) {
      controls.append(h('button.btn#abort', { type: 'button', onclick: () => actions.command('abort', '/abort') }, '✕ Abort'));
    }
    if (extra.takebacks && hasOwnMove(st.start, st.moves.length, st.role)) {
      controls.append(takeback === st.role
        ? h('button.btn#offer-takeback', { type: 'button', disabled: true }, 'Takeback offered')
        : h('button.btn#offer-takeback', { type: 'button', onclick: () => actions.command('takeback_offer', '/takeback') }, '↶ Takeback'));
    }
    const offer = g.draw_offer;
    if (offer && offer !== st.role) {
      offerBox.hidden = false;
      setChildren(offerBox,
        h('span', 'Your opponent offers a draw.'),
        h('button.btn.small.primary#accept-draw', { type: 'button', onclick: () => actions.command('draw_accept', '/draw-offer/accept') }, 'Accept'),
        h('button.btn.small#decline-draw', { type: 'button', onclick: () => actions.command('draw_decline', '/draw-offer/decline') }, 'Decline'));
    }
    const drawBtn = offer === st.role
      ? h('button.btn#offer-draw', { type: 'button', disabled: true }, 'Draw offered')
      : h('button.btn#offer-draw', { type: 'button', onclick: () => actions.command('draw_offer', '/draw-offer'), disabled: !!st.enginePlays }, '½ Offer draw');
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
        actions.command('resign', '/resign');
      },
    }, st.resignArmed ? 'Confirm resign' : '⚑ Resign');
    controls.append(drawBtn, resignBtn);
  }

  /**
   * A finished game's rematch: offer it, accept the opponent's offer, or open it once made.
   * @param {import('./game-state.js').InGame} extra
   */
  function renderRematch(extra) {
    if (st.enginePlays || !extra.chat) return; // no rematch against an engine
    if (extra.rematch) {
      controls.append(h('button.btn.primary#open-rematch', { type: 'button', onclick: () => actions.rematch() }, 'Go to the rematch'));
      return;
    }
    const offer = extra.rematch_offer;
    if (offer && offer !== st.role) {
      offerBox.hidden = false;
      setChildren(offerBox,
        h('span', 'Your opponent offers a rematch.'),
        h('button.btn.small.primary#accept-rematch', { type: 'button', onclick: () => actions.rematch() }, 'Accept'),
        h('button.btn.small#decline-rematch', { type: 'button', onclick: () => actions.command('rematch_decline', '/rematch/decline') }, 'Decline'));
      return;
    }
    controls.append(offer === st.role
      ? h('button.btn#offer-rematch', { type: 'button', disabled: true }, 'Rematch offered')
      : h('button.btn.primary#offer-rematch', { type: 'button', onclick: () => actions.rematch() }, '⟳ Rematch'));
  }

  function renderConn() {
    conn.dataset.state = st.conn;
    connText.textContent = st.stopped ? 'Game stopped' : CONN_LABELS[st.conn] || st.conn;
  }

  /** @param {string} message */
  function showMissing(message) {
    setChildren(root, h('section.page.narrow',
      h('div.card',
        h('h1', 'Game not found'),
        h('p', message),
        h('a.btn.primary', { href: '#/' }, 'Back to the lobby'))));
  }

  return {
    board, render, renderBoard, renderNavigation, renderConn, showMissing, dispose: () => clocks.stop(),
  };
}
