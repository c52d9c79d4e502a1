// @ts-check
// The live-games page (#/watch): the newest or the highest rated ongoing games (two tabs), each
// a small board that follows the game, with its players' names and ratings, and a click to
// watch it. The list comes from `GET /v1/games?status=ongoing` (`&order=rating` for the highest
// rated; the store's games: a server with the memory store keeps no list) and each board from
// the game's own `GET`, read again every few seconds while the page is open.

import { api, explain } from './api.js';
import { Board } from './board.js';
import { parseFen } from './chess.js';
import { armyName } from './chess2.js';
import { armyLook } from './chess2-armies.js';
import { installArmyPieceDefs } from './chess2-pieces.js';
import { h, setChildren } from './dom.js';
import { formatClock } from './format.js';
import { seatLine } from './players.js';

/** How many games the page shows. */
const SHOWN = 12;
/** How often the list and the boards are read again. */
const REFRESH_MS = 3000;

/**
 * Who plays whom in `game`, in words.
 * @param {any} game A game as `GET /v1/games/{id}` shows it.
 * @returns {string}
 */
export function playersLine(game) {
  /** @type {Record<string, string>} */
  const seat = { white: 'White', black: 'Black' };
  const opponents = (game.options && game.options.opponents) || [];
  for (const o of opponents) seat[o.plays] = `${o.engine} (computer)`;
  const one = game.options && game.options.opponent;
  if (one) seat[one.plays] = `${one.engine} (computer)`;
  // A game made with players (a seek, a pool): their names and ratings at the start.
  if (game.players) {
    for (const side of /** @type {const} */ (['white', 'black'])) seat[side] = seatLine(game.players, side) || 'Anonymous';
  }
  return `${seat.white} vs ${seat.black}`;
}

/** The orders the page lists games in: the tab's label and the list's `order`. */
export const ORDERS = [
  { order: 'newest', label: 'Newest', intro: 'The newest games being played on this server. Click one to watch it.' },
  { order: 'rating', label: 'Highest rated', intro: 'The games of the highest rated players (their average when the game started). Click one to watch it.' },
];

/**
 * The list's address for an order.
 * @param {string} order @param {number} limit
 */
export function listPath(order, limit) {
  return `/v1/games?status=ongoing${order === 'rating' ? '&order=rating' : ''}&limit=${limit}`;
}

/**
 * Mounts the live-games page into `root`; returns the function that unmounts it.
 * @param {HTMLElement} root
 * @returns {() => void}
 */
export function mountWatch(root) {
  const grid = h('ul.live-games#live-games', { 'aria-live': 'polite' });
  const note = h('p.muted#live-note', 'Looking for games…');
  const intro = h('p.muted#live-intro', ORDERS[0].intro);
  let order = 'newest';
  /** Bumped when the order changes: reads begun before it are dropped. */
  let generation = 0;
  const tabs = h('div.tabs.live-tabs', { role: 'tablist', 'aria-label': 'Order' },
    ORDERS.map((o) => h('button.tab', {
      type: 'button',
      role: 'tab',
      id: `live-tab-${o.order}`,
      dataset: { order: o.order },
      'aria-selected': String(o.order === order),
      onclick: () => choose(o.order),
    }, o.label)));
  setChildren(root, h('section.page.watch-page',
    h('div.hero', h('h1', 'Live games'), intro),
    tabs, note, grid));

  /** Switches the order and reads the list at once. @param {string} next */
  function choose(next) {
    if (next === order) return;
    order = next;
    for (const tab of tabs.querySelectorAll('button.tab')) {
      tab.setAttribute('aria-selected', String(/** @type {HTMLElement} */ (tab).dataset.order === order));
    }
    intro.textContent = (ORDERS.find((o) => o.order === order) || ORDERS[0]).intro;
    generation += 1;
    clearTimeout(timer);
    refresh();
  }

  /** The cards shown, by game id: its board, its text lines and the game it shows. */
  /** @type {Map<string, {item: HTMLElement, board: Board, players: HTMLElement, state: HTMLElement, shown: {game: any}}>} */
  const cards = new Map();
  let stopped = false;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;

  /**
   * The card of one game, made once and updated at each refresh.
   * @param {any} game
   */
  function card(game) {
    let c = cards.get(game.id);
    if (!c) {
      // A Chess 2 game's army pieces are drawn as on its own page (the game read last says
      // the armies).
      if (game.variant === 'chess2') installArmyPieceDefs();
      /** @type {{game: any}} */
      const shown = { game };
      const board = new Board({
        label: `Game ${game.id}`,
        look: (piece) => armyLook(shown.game.chess2 && shown.game.chess2.armies, piece),
      });
      // A picture inside the link: not a control of its own (no focus stop, no pointer).
      board.svg.setAttribute('tabindex', '-1');
      board.svg.setAttribute('role', 'img');
      board.svg.removeAttribute('aria-roledescription');
      const players = h('span.live-players');
      const state = h('span.live-state.muted.small');
      const page = game.variant === 'chess2' ? 'chess2' : 'game';
      const item = h('li.live-game', { 'data-game': game.id },
        h('a.live-link', { href: `#/${page}/${encodeURIComponent(game.id)}`, 'aria-label': `Watch game ${game.id}` },
          board.el, players, state));
      c = { item, board, players, state, shown };
      cards.set(game.id, c);
    }
    c.shown.game = game;
    const chess2 = game.variant === 'chess2' && game.chess2;
    c.players.textContent = chess2
      ? `${playersLine(game)} · ${armyName(game.chess2.armies.white)} vs ${armyName(game.chess2.armies.black)}`
      : playersLine(game);
    const plies = game.moves.length;
    const clocks = game.clocks ? ` · ${formatClock(game.clocks.white_ms)} – ${formatClock(game.clocks.black_ms)}` : '';
    c.state.textContent = `${plies === 0 ? 'No move yet' : `Move ${Math.ceil(plies / 2)}`} · ${game.turn === 'white' ? 'White' : 'Black'} to play${clocks}`;
    const last = plies ? game.moves[plies - 1].uci.split(':')[0] : null;
    c.board.set({ board: parseFen(game.fen).board, lastMove: last && last !== '0000' ? last.slice(0, 4) : null, animate: false });
    return c.item;
  }

  /** Reads the list again; a read begun before the order changed is dropped. */
  async function refresh() {
    const asked = order;
    const mine = generation;
    try {
      const list = await api('GET', listPath(asked, SHOWN * 2));
      const live = (list.games || []).filter((/** @type {any} */ g) => g.live).slice(0, SHOWN);
      const games = (await Promise.all(live.map((/** @type {any} */ g) => api('GET', `/v1/games/${encodeURIComponent(g.id)}`).catch(() => null))))
        .filter((g) => g && g.status && g.status.result === 'ongoing');
      if (stopped || mine !== generation) return;
      for (const id of [...cards.keys()]) {
        if (!games.some((g) => g.id === id)) cards.delete(id);
      }
      setChildren(grid, games.map(card));
      note.textContent = games.length ? '' : 'No game is being played right now. Start one from the lobby, and it shows here.';
      note.hidden = games.length > 0;
    } catch (e) {
      if (stopped || mine !== generation) return;
      note.hidden = false;
      note.textContent = `The list of games could not be read: ${explain(e)}`;
    }
    if (!stopped) timer = setTimeout(refresh, REFRESH_MS);
  }

  refresh();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
