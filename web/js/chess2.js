// @ts-check
// The Chess 2 game page: the board (each side's pieces move as its army says, its special
// pieces drawn as their own pieces, chess2-pieces.js, which the legend shows and explains), the
// players' bars with their clocks (game-clock.js, as on the standard game page), both armies
// and their stones, the duel panel (challenge or decline, then a bid the opponent sees only
// once both are in), the move list numbered by turn (a click, the arrows or the keys step
// through the game), flip and PGN, over the game's live WebSocket. Every state shown comes
// from the server: after each event the page reads the game again.

import { api, explain, GameSocket, rememberedGame, rememberGame } from './api.js';
import { Board } from './board.js';
import { parseFen, resultText } from './chess.js';
import { ARMY_PIECES, armyLook } from './chess2-armies.js';
import { describeDuels } from './chess2-duels.js';
import { chess2MoveText, chess2Rows } from './chess2-notation.js';
import { armyPieceSvg, installArmyPieceDefs } from './chess2-pieces.js';
import { h, setChildren, toast } from './dom.js';
import { startClocks } from './game-clock.js';
import { seatLine } from './players.js';

/** The armies by their letters. */
export const ARMIES = [
  { id: 'c', name: 'Classic' },
  { id: 'n', name: 'Nemesis' },
  { id: 'e', name: 'Empowered' },
  { id: 'r', name: 'Reaper' },
  { id: 'k', name: 'Two Kings' },
  { id: 'a', name: 'Animals' },
];

/** The name of the army with the letter `letter`. @param {string} letter @returns {string} */
export const armyName = (letter) => (ARMIES.find((a) => a.id === letter) || { name: letter }).name;

/** The page link of a Chess 2 game for a seat secret (or a spectator when none).
 * @param {string} id @param {string | null} [secret] */
export function chess2Link(id, secret) {
  const base = `${location.origin}${location.pathname}#/chess2/${id}`;
  return secret ? `${base}?seat=${encodeURIComponent(secret)}` : base;
}

/**
 * Mounts the Chess 2 game `id` into `root`; `params` holds `seat` (a seat secret).
 * @param {HTMLElement} root
 * @param {string} id
 * @param {URLSearchParams} params
 * @returns {() => void}
 */
export function mountChess2Game(root, id, params) {
  const remembered = rememberedGame(id);
  const token = params.get('seat') || (remembered && remembered.secret) || null;
  if (params.get('seat')) rememberGame({ id, secret: params.get('seat'), variant: 'chess2' });
  /** @type {{view: any, role: string | null, busy: boolean, gain: boolean, stopped: boolean, ply: number | null, flipped: boolean}} */
  const st = { view: null, role: token ? null : 'spectator', busy: false, gain: true, stopped: false, ply: null, flipped: false };

  installArmyPieceDefs();
  const board = new Board({
    label: 'Chess 2 board',
    onMove: (uci) => step({ type: 'move', uci }),
    look: (piece) => armyLook(st.view && st.view.chess2 && st.view.chess2.armies, piece),
  });
  // The clocks as game-clock.js reads them: the view's clocks, and when they came.
  /** @type {import('./game-clock.js').ClockSource} */
  const clockSource = { game: null, clocks: null, clockAt: 0, stopped: false };
  const topBar = h('div.player-bar.top');
  const bottomBar = h('div.player-bar.bottom');
  const role = h('span.badge#role', token ? '' : 'Spectating');
  const players = h('p#c2-players.small');
  const legend = h('div#c2-legend.small');
  const navButton = (/** @type {string} */ name, /** @type {string} */ label, /** @type {() => number | null} */ to) =>
    h(`button.btn.small#c2-${name}`, { type: 'button', title: label, 'aria-label': label, onclick: () => goto(to()) }, label.split(' ')[0]);
  const lastPly = () => (st.view ? st.view.moves.length : 0);
  const shownPly = () => (st.ply === null ? lastPly() : st.ply);
  const nav = h('div.actions.c2-nav',
    navButton('first', 'First position', () => 0),
    navButton('prev', 'Previous move (←)', () => shownPly() - 1),
    navButton('next', 'Next move (→)', () => shownPly() + 1),
    navButton('last', 'Last move (End)', () => null),
    h('button.btn.small#c2-flip', { type: 'button', title: 'Flip the board (f)', onclick: () => { st.flipped = !st.flipped; drawBoard(); } }, 'Flip'),
    h('a.btn.small#c2-pgn', { href: `/v1/games/${encodeURIComponent(id)}/pgn`, download: `chessd-chess2-${id.slice(0, 8)}.pgn` }, 'PGN'));
  const title = h('h1#c2-title', 'Chess 2');
  const armiesLine = h('p#c2-armies.muted');
  const stones = h('p#c2-stones');
  const turnLine = h('p#c2-turn', { 'aria-live': 'polite' });
  const banner = h('p#c2-result.result', { hidden: true });
  // What the last move's duels came to (both bids, once revealed, and the outcome).
  const duelResult = h('div#c2-duel-result.small', { hidden: true, 'aria-live': 'polite' });
  const duelBox = h('div#c2-duel.card', { hidden: true, role: 'group', 'aria-labelledby': 'c2-duel-title' });
  const extraMoves = h('div#c2-extra.actions');
  const moveList = h('ol#moves.c2-moves');
  const conn = h('span#conn.muted.small', { 'data-state': 'connecting' }, 'Connecting…');
  const resign = h('button#c2-resign.btn', { type: 'button', hidden: true }, 'Resign');
  resign.addEventListener('click', () => step({ type: 'resign' }));

  const page = h('section.page.game-page.chess2-page',
    h('div.game-grid',
      h('div.board-col', topBar, board.el, bottomBar),
      h('div.side-col',
        h('div.card.game-card',
          h('div.c2-head', title, role), players, armiesLine, stones, turnLine, banner, duelResult, extraMoves,
          h('h2', 'Moves'), moveList, nav, h('div.actions', resign), conn),
        duelBox,
        h('div.card#c2-legend-card', h('h2', 'The armies\' pieces'), legend))));
  setChildren(root, page);
  const clocks = startClocks(clockSource, page);

  /** Shows the position after `ply` (null: the game as it stands). @param {number | null} ply */
  function goto(ply) {
    st.ply = ply === null || ply >= lastPly() ? null : Math.max(0, ply);
    drawBoard();
    markCurrent();
  }

  /** @param {KeyboardEvent} e */
  const onKey = (e) => {
    const t = /** @type {Element | null} */ (e.target);
    if (t && (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA' || t.tagName === 'SELECT' || t === board.svg)) return;
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    if (e.key === 'ArrowLeft') goto(shownPly() - 1);
    else if (e.key === 'ArrowRight') goto(shownPly() + 1);
    else if (e.key === 'Home') goto(0);
    else if (e.key === 'End') goto(null);
    else if (e.key === 'f') { st.flipped = !st.flipped; drawBoard(); }
    else return;
    e.preventDefault();
  };
  document.addEventListener('keydown', onKey);

  /** The moves this seat may make now (read with the state), for the live board. */
  /** @type {string[]} */
  let liveLegal = [];

  /** Draws the board: the position shown (live or looked back at), its orientation. */
  function drawBoard() {
    const view = st.view;
    if (!view) return;
    const me = mySide();
    const bottom = me || 'white';
    board.setOrientation(st.flipped ? (bottom === 'white' ? 'black' : 'white') : bottom);
    const ply = shownPly();
    const live = st.ply === null;
    /** @type {{epd?: string, uci: string}[]} */
    const moves = view.moves;
    const epd = ply === 0 ? (view.start_fen || view.fen) : (moves[ply - 1].epd || view.fen);
    const lastText = ply > 0 ? moves[ply - 1].uci.split(':')[0] : null;
    board.set({
      board: parseFen(live ? view.fen : epd).board,
      lastMove: lastText && lastText !== '0000' ? lastText.slice(0, 4) : null,
      legal: live ? liveLegal : [],
      turn: view.turn === 'white' ? 'w' : 'b',
    });
    board.svg.dataset.ply = String(ply);
    board.svg.dataset.live = String(live);
    renderBars();
  }

  /** The players' bars, the side at the top of the board first. */
  function renderBars() {
    const bottom = board.orientation === 'black' ? 'black' : 'white';
    playerBar(topBar, bottom === 'white' ? 'black' : 'white');
    playerBar(bottomBar, bottom);
    clocks.tick();
  }

  /**
   * One player's bar: the side, who plays it with which army, whether it is to act, its clock.
   * @param {HTMLElement} bar
   * @param {'white' | 'black'} color
   */
  function playerBar(bar, color) {
    const view = st.view;
    if (!view) return;
    const c2 = view.chess2;
    const ongoing = view.status.result === 'ongoing' && !st.stopped;
    const clock = h(`div.clock.clock-${color}`, { 'data-color': color });
    clock.classList.toggle('running', !!(view.clocks && ongoing && view.clocks.running === color));
    clock.hidden = !view.clocks;
    const toAct = ongoing && c2.to_act === color;
    setChildren(bar,
      h('div.player',
        h('span.side-dot', { class: color }),
        h('span.player-name', `${seatName(view, color)} · ${armyName(c2.armies[color])}`),
        toAct ? h('span.to-move', { title: 'To act' }, '●') : null,
        h('span.c2-bar-stones.muted.small', { title: 'Stones' }, `${c2.stones[color]} ◆`)),
      clock);
    bar.dataset.color = color;
  }

  function markCurrent() {
    const ply = shownPly();
    for (const b of moveList.querySelectorAll('button.move')) {
      if (!(b instanceof HTMLElement)) continue;
      if (Number(b.dataset.ply) === ply) b.setAttribute('aria-current', 'true');
      else b.removeAttribute('aria-current');
    }
  }

  const mySide = () => (st.role === 'white' || st.role === 'black' ? st.role : null);

  /** @param {Record<string, unknown>} frame */
  async function step(frame) {
    if (st.busy) return;
    st.busy = true;
    try {
      await socket.send(frame);
    } catch (err) {
      toast(explain(err), 'error');
    } finally {
      st.busy = false;
    }
    await refresh();
  }

  async function refresh() {
    try {
      show(await api('GET', `/v1/games/${encodeURIComponent(id)}`));
    } catch (err) {
      toast(explain(err), 'error');
    }
  }

  /** @param {any} view The game as the server shows it. */
  async function show(view) {
    st.view = view;
    const c2 = view.chess2;
    const me = mySide();
    role.textContent = me ? `You play ${me}` : 'Spectating';
    players.textContent = playersOf(view);
    renderLegend(c2.armies);
    title.textContent = `Chess 2 · ${armyName(c2.armies.white)} vs ${armyName(c2.armies.black)}`;
    armiesLine.textContent = `White: ${armyName(c2.armies.white)} · Black: ${armyName(c2.armies.black)}`;
    stones.textContent = `Stones: White ${c2.stones.white} · Black ${c2.stones.black}`;
    stones.dataset.white = String(c2.stones.white);
    stones.dataset.black = String(c2.stones.black);
    const result = resultText(view.status);
    const over = result && result.sentence;
    banner.hidden = !over;
    banner.textContent = over || '';
    turnLine.textContent = over ? '' : `${c2.to_act === 'white' ? 'White' : 'Black'} to act${c2.king_turn ? ' (king turn)' : ''}`;
    clockSource.game = view;
    clockSource.clocks = view.clocks || null;
    clockSource.clockAt = performance.now();
    clockSource.stopped = st.stopped;
    // The duels of the last two moves: an opponent who answers at once (the computer) would
    // otherwise hide the outcome of the duel just fought.
    /** @type {string[]} */
    const told = c2.duel ? [] : view.moves.slice(-2).flatMap((/** @type {{uci: string}} */ m) =>
      describeDuels(m.uci).map((line) => `${m.uci.split(':')[0]}: ${line}`));
    duelResult.hidden = told.length === 0;
    setChildren(duelResult, told.map((line) => h('p', line)));
    renderMoves(view);
    resign.hidden = !me || !!over;

    // The board: the pieces, and the moves this seat may make now.
    /** @type {string[]} */
    let legal = [];
    const myMove = me && !over && !c2.duel && c2.to_act === me;
    if (myMove) {
      const answer = await api('GET', `/v1/games/${encodeURIComponent(id)}/legal-moves`);
      legal = answer.moves;
    }
    if (st.view !== view) return; // a newer state came meanwhile
    // The board names promotions in lower case (the server reads either case).
    liveLegal = legal.filter((m) => m !== '0000' && m.slice(0, 2) !== m.slice(2, 4)).map((m) => m.toLowerCase());
    // A move played takes the page back to the game as it stands.
    if (myMove) st.ply = null;
    drawBoard();
    markCurrent();
    // Moves that are not a piece going somewhere: a king-turn pass and the Whirlwind.
    setChildren(extraMoves, legal.filter((m) => m === '0000' || m.slice(0, 2) === m.slice(2, 4)).map((m) => {
      const label = m === '0000' ? 'Pass the king turn' : `Whirlwind on ${m.slice(0, 2)}`;
      const b = h('button.btn', { type: 'button', 'data-move': m }, label);
      b.addEventListener('click', () => step({ type: 'move', uci: m }));
      return b;
    }));
    showDuel(c2, me, over);
  }

  /**
   * The move list: numbered by turn, each move in words (chess2-notation.js), a click shows it.
   * @param {any} view
   */
  function renderMoves(view) {
    /** @type {{uci: string, by?: string, epd?: string}[]} */
    const moves = view.moves;
    let before = parseFen(view.start_fen || view.fen).board;
    const worded = moves.map((m, i) => {
      const text = chess2MoveText(before, m.uci);
      before = parseFen(m.epd || view.fen).board;
      return { text, by: m.by || (i % 2 === 0 ? 'white' : 'black') };
    });
    const first = Number(String(view.start_fen || '').split(' ')[5]) || 1;
    const entry = (/** @type {{ply: number, text: string}} */ e) =>
      h('button.move', { type: 'button', 'data-ply': String(e.ply), title: moves[e.ply - 1].uci, onclick: () => goto(e.ply) }, e.text);
    setChildren(moveList, chess2Rows(worded, first).map((row) =>
      h('li.c2-row', h('span.move-number', `${row.number}.`),
        h('span.c2-side', row.white.length ? row.white.map(entry) : h('span.muted', '…')),
        h('span.c2-side', row.black.map(entry)))));
  }

  /**
   * Who plays `color`: "You", the computer, the player's name, or the side.
   * @param {any} view
   * @param {'white' | 'black'} color
   */
  function seatName(view, color) {
    const engines = [...((view.options && view.options.opponents) || []), ...(view.options && view.options.opponent ? [view.options.opponent] : [])];
    const engine = engines.find((o) => o.plays === color);
    if (engine) return `${engine.engine} (computer)`;
    const seat = seatLine(view.players, color);
    if (mySide() === color) return seat ? `You · ${seat}` : 'You';
    return seat || (color === 'white' ? 'White' : 'Black');
  }

  /** @param {any} view @returns {string} who plays whom */
  function playersOf(view) {
    /** @type {Record<string, string>} */
    const seat = { white: 'White', black: 'Black' };
    for (const o of (view.options && view.options.opponents) || []) seat[o.plays] = `${o.engine} (computer)`;
    const one = view.options && view.options.opponent;
    if (one) seat[one.plays] = `${one.engine} (computer)`;
    return `${seat.white} vs ${seat.black}`;
  }

  /** @type {string} */
  let legendFor = '';
  /** The legend of both armies' special pieces. @param {{white: string, black: string}} armies */
  function renderLegend(armies) {
    const key = `${armies.white}${armies.black}`;
    if (key === legendFor) return;
    legendFor = key;
    const side = (/** @type {string} */ color, /** @type {string} */ army) => {
      const pieces = ARMY_PIECES[army] || [];
      const c = color === 'White' ? 'w' : 'b';
      return h('div.c2-legend-army',
        h('h3', `${color}: ${armyName(army)}`),
        pieces.length === 0
          ? h('p.muted', 'The usual pieces.')
          : h('ul', pieces.map((p) => h('li.c2-legend-piece',
            h('span.c2-legend-drawings', Object.values(p.kinds).map((kind) => armyPieceSvg(kind, c, 40))),
            h('span', h('b', p.name), `: ${p.rule}.`)))));
    };
    setChildren(legend, side('White', armies.white), side('Black', armies.black));
  }

  /**
   * @param {any} c2 The game's Chess 2 part (armies, stones, duel).
   * @param {string | null} me
   * @param {unknown} over
   */
  function showDuel(c2, me, over) {
    const duel = c2.duel;
    duelBox.hidden = !duel || !!over;
    if (!duel || over) {
      setChildren(duelBox);
      return;
    }
    const who = duel.attacker === 'white' ? 'White' : 'Black';
    const parts = [
      h('h2#c2-duel-title', 'Duel'),
      h('p', `${who} takes on ${duel.square} with ${duel.move}.`),
    ];
    // The stone a defender owes to start a duel against a higher-ranked attacker.
    const cost = duel.challenge_cost || 0;
    const costNote = cost > 0
      ? `Challenging costs the defender ${cost} stone on top of its bid: the capturing piece ranks above the one at stake.`
      : 'Challenging costs nothing on top of the bid.';
    if (duel.stage === 'challenge') {
      if (me === duel.defender) {
        const challenge = h('button#c2-challenge.btn.primary', { type: 'button' }, cost > 0 ? `Challenge (costs ${cost} stone)` : 'Challenge');
        const decline = h('button#c2-decline.btn', { type: 'button' }, 'Let it happen');
        challenge.addEventListener('click', () => step({ type: 'duel', action: 'challenge' }));
        decline.addEventListener('click', () => step({ type: 'duel', action: 'decline' }));
        parts.push(h('p.muted', 'Challenge the capture with a duel, or let it happen.'), h('p.small#c2-duel-cost', costNote), h('div.actions', challenge, decline));
      } else {
        parts.push(h('p.muted', 'Waiting for the defender to challenge or let it happen…'));
      }
    } else {
      const inBids = duel.bids_in.map((/** @type {string} */ c) => (c === 'white' ? 'White' : 'Black'));
      parts.push(h('p.muted#c2-bids-in', inBids.length ? `Bid in: ${inBids.join(', ')} (hidden until both are in)` : 'Both sides bid 0 to 2 stones, unseen.'));
      parts.push(h('p.small#c2-duel-cost', costNote));
      if (me && !duel.bids_in.includes(me)) {
        // The bids the server allows this side (its stones, the cost, a stoneless attacker).
        /** @type {number[]} */
        const allowed = (me === duel.defender ? duel.defender_bids : duel.attacker_bids)
          || [0, 1, 2].filter((n) => n <= c2.stones[me]);
        parts.push(h('p.small#c2-allowed-bids', `You may bid ${allowed.join(' or ')}.`));
        const buttons = [0, 1, 2].map((n) => {
          const b = h('button.btn', { type: 'button', 'data-bid': String(n), disabled: !allowed.includes(n) }, `Bid ${n}`);
          b.addEventListener('click', () => {
            /** @type {{type: string, action: string, stones: number, gain?: boolean}} */
            const frame = { type: 'duel', action: 'bid', stones: n };
            if (me === duel.attacker) frame.gain = st.gain;
            step(frame);
          });
          return b;
        });
        parts.push(h('div.actions#c2-bid', buttons));
        if (me === duel.attacker) {
          const gain = h('input#c2-gain', { type: 'checkbox', checked: st.gain });
          gain.addEventListener('change', () => { st.gain = gain.checked; });
          parts.push(h('label.small', gain, ' If both bid 0, gain a stone (else the defender loses one)'));
        }
      }
    }
    if (duel.settled.length) parts.push(h('p.small.muted', `Settled so far: ${duel.settled.map((/** @type {string | null} */ d) => d || 'declined').join(', ')}`));
    setChildren(duelBox, parts);
  }

  const socket = new GameSocket(id, token, {
    version: () => (st.view ? /** @type {any} */ (st.view).version : undefined),
    onStatus: (s) => {
      conn.dataset.state = s;
      conn.textContent = s === 'open' ? 'Live' : s === 'closed' ? 'Closed' : 'Connecting…';
    },
    onFrame: (f) => {
      if (f.type === 'hello') {
        st.role = f.role;
      } else if (f.type === 'state' || f.type === 'resync') {
        show(f);
      } else if (['chess2_step', 'game_end', 'reset', 'draw_offered', 'draw_declined'].includes(f.type)) {
        refresh();
      } else if (f.type === 'stopped') {
        st.stopped = true;
        clockSource.stopped = true;
        socket.stop();
      }
    },
  });
  // Read the game first: a link to one that does not exist says so, and opens no socket.
  api('GET', `/v1/games/${encodeURIComponent(id)}`).then((view) => {
    show(view);
    socket.open();
  }, (err) => {
    if (/** @type {{code?: string}} */ (err).code === 'game_not_found') {
      socket.close();
      setChildren(root, h('section.page.narrow',
        h('div.card',
          h('h1', 'Game not found'),
          h('p', explain(err)),
          h('a.btn.primary', { href: '#/' }, 'Back to the lobby'))));
      return;
    }
    toast(explain(err), 'error');
    socket.open();
  });
  return () => {
    clocks.stop();
    socket.close();
    document.removeEventListener('keydown', onKey);
  };
}
