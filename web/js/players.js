// @ts-check
// Players in the browser: who this browser plays as (an anonymous player made the first time it
// plays a stranger, or a name claimed or logged into), and the player pages (#/player: yours,
// with the name and login forms; #/player/{name}: anyone's ratings and recent games). The
// player's token lives in the server's HttpOnly cookie; this browser keeps only its id and name.

import { api, explain } from './api.js';
import { h, setChildren, toast } from './dom.js';

const KEY = 'chessd.player';

/** @typedef {{id: string, name: string | null}} Me */

/** The player this browser plays as, if it has one. @returns {Me | null} */
export function me() {
  try {
    const v = JSON.parse(localStorage.getItem(KEY) || 'null');
    return v && typeof v.id === 'string' ? v : null;
  } catch {
    return null;
  }
}

/** @param {Me | null} player */
function remember(player) {
  try {
    if (player) localStorage.setItem(KEY, JSON.stringify({ id: player.id, name: player.name || null }));
    else localStorage.removeItem(KEY);
  } catch {
    // Storage refused: the cookie still holds the player for this session.
  }
  renderHeader();
}

/**
 * The player this browser plays as, made anonymous now if it has none (the server sets its
 * cookie). Null when the server keeps no players (no database) or refuses (rate limits).
 * @returns {Promise<Me | null>}
 */
export async function ensurePlayer() {
  const known = me();
  if (known) return known;
  try {
    const made = await api('POST', '/v1/players');
    const player = { id: made.id, name: made.name || null };
    remember(player);
    return player;
  } catch {
    return null;
  }
}

/** How a player is shown: its name, or "Anonymous". @param {{name?: string | null} | null | undefined} p */
export function displayName(p) {
  return p && p.name ? p.name : 'Anonymous';
}

/** The header's link to the player's own page. */
export function renderHeader() {
  const link = document.getElementById('player-link');
  if (!link) return;
  const player = me();
  link.textContent = player ? displayName(player) : 'Sign in';
  link.setAttribute('href', '#/player');
}

/** @param {any} r A rating row. */
function ratingText(r) {
  return `${Math.round(r.rating)}${r.provisional ? '?' : ''}`;
}

/**
 * A player's ratings and recent games.
 * @param {any} page `GET /v1/players/{name}`
 */
function profile(page) {
  const ratings = page.ratings || [];
  const games = page.recent_games || [];
  const who = page.player;
  const key = who.name || who.id;
  return [
    h('div.card',
      h('h2', 'Ratings'),
      ratings.length === 0
        ? h('p.muted', 'No rated game yet.')
        : h('table.ratings#ratings',
          h('thead', h('tr', h('th', 'Game'), h('th', 'Class'), h('th', 'Rating'), h('th', 'Games'))),
          h('tbody', ratings.map((/** @type {any} */ r) => h('tr', { dataset: { variant: r.variant, class: r.class } },
            h('td', r.variant === 'chess2' ? 'Chess 2' : 'Chess'),
            h('td', r.class),
            h('td.rating', { title: `deviation ${Math.round(r.rd)}${r.provisional ? ', provisional' : ''}` }, ratingText(r)),
            h('td', String(r.games))))))),
    h('div.card',
      h('h2', 'Recent games'),
      games.length === 0
        ? h('p.muted', 'No game yet.')
        : h('ul.my-games#recent-games', games.map((/** @type {any} */ g) => {
          const p = g.players || {};
          /** @type {Record<string, string>} */
          const results = { white_wins: '1–0', black_wins: '0–1', draw: '½–½', ongoing: 'playing' };
          return h('li',
            h('a', { href: `#/game/${g.id}` },
              h('span', `${displayName(p.white)} vs ${displayName(p.black)}`),
              h('span.muted.small', `${p.rated ? 'rated' : 'casual'} ${p.class || ''}`)),
            h('span.game-status', results[g.result] || g.result || ''));
        })),
      h('a.btn.small#player-pgn', { href: `/v1/players/${encodeURIComponent(key)}/games.pgn`, download: `chessd-${key}.pgn` }, 'Download the games (PGN)')),
  ];
}

/**
 * Mounts a player page: `name` null is this browser's own page (claim a name, log in, its
 * ratings). Returns the unmount function.
 * @param {HTMLElement} root
 * @param {string | null} name
 * @returns {() => void}
 */
export function mountPlayer(root, name) {
  const body = h('div.player-body');
  const title = h('h1#player-title', name || 'Your player');
  setChildren(root, h('section.page.narrow.player-page', h('div.hero', title), body));
  let gone = false;

  async function show() {
    const key = name || (me() && /** @type {Me} */ (me()).id);
    /** @type {any[]} */
    const parts = [];
    if (!name) parts.push(accountCard());
    if (key) {
      try {
        const page = await api('GET', `/v1/players/${encodeURIComponent(key)}`);
        if (gone) return;
        if (name) title.textContent = displayName(page.player);
        parts.push(...profile(page));
      } catch (err) {
        if (gone) return;
        parts.push(h('div.card', h('p', /** @type {any} */ (err).code === 'player_not_found' ? 'No player has this name.' : explain(err))));
      }
    }
    setChildren(body, parts);
  }

  /** The own page's forms: claim a name (an anonymous player) and log in. */
  function accountCard() {
    const mine = me();
    const nameInput = h('input#player-name', { type: 'text', autocomplete: 'username', minlength: '2', maxlength: '20', required: true, 'aria-label': 'Name' });
    const password = h('input#player-password', { type: 'password', autocomplete: 'current-password', minlength: '8', required: true, 'aria-label': 'Password' });
    const claim = h('button.btn.primary#player-claim', { type: 'submit', value: 'claim' }, mine && !mine.name ? 'Claim this name' : 'Create a player');
    const login = h('button.btn#player-login', { type: 'submit', value: 'login' }, 'Log in');
    const form = h('form.card.player-form',
      h('h2', mine && mine.name ? `You play as ${mine.name}` : 'Play under a name'),
      h('p.muted.small', mine && mine.name
        ? 'Log in as another player below.'
        : 'You play anonymously until you claim a name: your games and ratings come with you.'),
      h('label', { for: 'player-name' }, 'Name'), nameInput,
      h('label', { for: 'player-password' }, 'Password'), password,
      h('div.actions', mine && mine.name ? null : claim, login));
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      const which = /** @type {any} */ (e).submitter && /** @type {any} */ (e).submitter.value;
      const creds = { name: nameInput.value.trim(), password: password.value };
      try {
        const answer = which === 'login'
          ? await api('POST', '/v1/players/login', creds)
          : await api('POST', '/v1/players', creds);
        remember({ id: answer.id, name: answer.name || creds.name });
        toast(which === 'login' ? `Logged in as ${answer.name}` : `You play as ${answer.name || creds.name}`, 'success');
        show();
      } catch (err) {
        const code = /** @type {any} */ (err).code;
        toast(code === 'bad_credentials' ? 'Wrong name or password.' : code === 'name_taken' ? 'That name is taken.' : explain(err), 'error');
      }
    });
    return form;
  }

  show();
  return () => { gone = true; };
}

/**
 * The line naming a game's player in a bar: "Alice (1662?)", or null when the game has no
 * players.
 * @param {any} players The game's `players`.
 * @param {'white' | 'black'} color
 * @returns {string | null}
 */
export function seatLine(players, color) {
  if (!players || !players[color]) return null;
  const p = players[color];
  const rating = typeof p.rating === 'number' ? ` (${Math.round(p.rating)})` : '';
  return `${displayName(p)}${rating}`;
}

