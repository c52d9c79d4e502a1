// @ts-check
// Playing strangers from the lobby: the lobby socket (`GET /v1/lobby/ws`), the open seeks it
// lists live, the seeks this browser posted, and the quick-pairing pools (`/v1/pairing`) it
// waits in, each held while the page is open and followed to the game it ends in.

import { api, explain, rememberGame, wsUrl } from './api.js';
import { armyName } from './chess2.js';
import { h, setChildren, toast } from './dom.js';
import { describeTimeControl } from './format.js';
import { displayName, ensurePlayer, me } from './players.js';

/** Where this browser keeps the seeks it posted (id → secret and what it asked for), so that a
 * reload keeps holding them. */
const MINE = 'chessd.seeks';

/**
 * @typedef {{min: number, max: number}} RatingRange
 * @typedef {{name: string | null, rating: number | null, provisional: boolean}} SeekOwner
 * @typedef {{id: string, created_ms: number, class?: string, owner?: SeekOwner | null,
 *   seek: {variant?: string, armies?: {white: string, black: string},
 *   time_control?: {initial_ms: number, increment_ms: number} | null, color?: string, rated?: boolean,
 *   rating_range?: RatingRange}}} SeekView
 * A seek as the lobby lists it.
 */

/** @typedef {{variant: string, class: string, rating: number, provisional?: boolean}} MyRating */

/** The rating of a player never rated in a variant and class (Glicko-2's start), as the
 * server counts it for rating ranges. */
export const DEFAULT_RATING = 1500;

/** The spreads the seek form offers around the poster's rating. */
export const RANGE_SPREADS = [100, 200, 300, 500];

/**
 * A time control's class, by lichess's rule (initial + 40 × increment seconds), as the server
 * keeps ratings: untimed is classical.
 * @param {{initial_ms: number, increment_ms: number} | null | undefined} tc
 * @returns {string}
 */
export function timeClass(tc) {
  if (!tc) return 'classical';
  const secs = Math.floor((tc.initial_ms + 40 * tc.increment_ms) / 1000);
  if (secs <= 178) return 'bullet';
  if (secs <= 478) return 'blitz';
  if (secs <= 1498) return 'rapid';
  return 'classical';
}

/**
 * A player's rating in a variant and class (rounded), 1500 when never rated there.
 * @param {MyRating[]} ratings @param {string} variant @param {string} klass
 */
export function ratingFor(ratings, variant, klass) {
  const r = ratings.find((x) => x.variant === variant && x.class === klass);
  return r ? Math.round(r.rating) : DEFAULT_RATING;
}

/**
 * The range of `spread` around `rating`, within what the server takes (0 to 4000).
 * @param {number} rating @param {number} spread @returns {RatingRange}
 */
export function rangeAround(rating, spread) {
  return { min: Math.max(0, rating - spread), max: Math.min(4000, rating + spread) };
}

/**
 * Why the viewer (with `ratings`) cannot accept `view`: its rating range excludes the viewer's
 * rating in its variant and class. Null when it may.
 * @param {SeekView} view @param {MyRating[]} ratings @returns {string | null}
 */
export function rangeRefusal(view, ratings) {
  const range = view.seek.rating_range;
  if (!range) return null;
  const mine = ratingFor(ratings, view.seek.variant || 'standard', view.class || timeClass(view.seek.time_control));
  if (mine >= range.min && mine <= range.max) return null;
  return `For ratings ${range.min}–${range.max} (yours: ${mine})`;
}

/**
 * Who posted a seek, in words: its name (or Anonymous) and its rating, `?` when provisional.
 * @param {SeekOwner | null | undefined} owner
 */
export function ownerLine(owner) {
  if (!owner) return 'Anonymous';
  const rating = typeof owner.rating === 'number' ? owner.rating : DEFAULT_RATING;
  return `${displayName(owner)} (${rating}${owner.provisional ? '?' : ''})`;
}

/** @typedef {{id: string, secret: string, variant: string, pool?: string}} MySeek
 * A seek this browser posted, or (with `pool`) a pool entry it waits on. */

/** @typedef {{id: string, name: string, variant: string, class?: string, waiting: number,
 *   time_control?: {initial_ms: number, increment_ms: number} | null}} Pool */

/** The seeks this browser posted and has not seen end. @returns {MySeek[]} */
export function mySeeks() {
  try {
    const list = JSON.parse(sessionStorage.getItem(MINE) || '[]');
    return Array.isArray(list) ? list : [];
  } catch {
    return [];
  }
}

/** @param {MySeek[]} list */
function saveMySeeks(list) {
  try {
    sessionStorage.setItem(MINE, JSON.stringify(list));
  } catch {
    // Storage disabled: the seek is held while this page lives.
  }
}

/** The words for a seek: the game, its time control and the colour its owner plays.
 * @param {SeekView['seek']} seek
 * @returns {{game: string, clock: string, color: string}} `color` also says rated or casual */
export function describeSeek(seek) {
  const chess2 = seek.variant === 'chess2';
  const armies = chess2 && seek.armies ? ` (${armyName(seek.armies.white)} v ${armyName(seek.armies.black)})` : '';
  const game = `${chess2 ? 'Chess 2' : 'Chess'}${armies}`;
  const clock = describeTimeControl(seek.time_control || null);
  /** @type {Record<string, string>} */
  const colours = { white: 'plays White', black: 'plays Black', random: 'random colours' };
  return { game, clock, color: `${seek.rated ? 'rated' : 'casual'} · ${colours[seek.color || 'random'] || 'random colours'}` };
}

/** The page a game of `variant` opens on, for the seat `secret`.
 * @param {string} variant @param {string} id @param {string} secret */
function seatHash(variant, id, secret) {
  return `#/${variant === 'chess2' ? 'chess2' : 'game'}/${id}?seat=${encodeURIComponent(secret)}`;
}

/**
 * The lobby socket: the open seeks, live; holds this browser's seeks and hears their accept.
 * Reconnects by itself (holding its seeks again) until closed.
 */
export class LobbySocket {
  /**
   * @param {{onSeeks: (seeks: SeekView[]) => void, onAccepted: (seek: string, game: {id: string, color: string, secret: string}) => void,
   *   onPairingFailed: (entry: string, message: string) => void,
   *   onStatus: (status: 'open' | 'reconnecting' | 'unavailable') => void}} handlers
   */
  constructor(handlers) {
    this.handlers = handlers;
    /** @type {Map<string, SeekView>} */
    this.seeks = new Map();
    /** @type {WebSocket | null} */
    this.ws = null;
    this.closed = false;
    this.attempt = 0;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    this.timer = undefined;
    /** @type {Map<string, string>} seek id → secret, held on every connection */
    this.held = new Map();
    /** @type {Map<string, string>} pool entry id → secret, held on every connection */
    this.heldEntries = new Map();
    this.ping = setInterval(() => this.sendFrame({ type: 'ping' }), 15_000);
    this.connect();
  }

  connect() {
    this.timer = undefined;
    if (this.closed) return;
    const ws = new WebSocket(wsUrl('/v1/lobby/ws'));
    this.ws = ws;
    ws.onopen = () => {
      this.attempt = 0;
      this.handlers.onStatus('open');
      for (const [id, secret] of this.held) this.sendFrame({ type: 'hold', id, secret });
      for (const [id, secret] of this.heldEntries) this.sendFrame({ type: 'hold_pairing', id, secret });
    };
    ws.onmessage = (ev) => {
      let frame;
      try {
        frame = JSON.parse(ev.data);
      } catch {
        return;
      }
      this.frame(frame);
    };
    ws.onclose = () => {
      if (this.ws !== ws) return;
      this.ws = null;
      if (this.closed) return;
      this.handlers.onStatus('reconnecting');
      const delay = Math.min(5000, 500 * 2 ** this.attempt);
      this.attempt += 1;
      this.timer = setTimeout(() => this.connect(), delay);
    };
  }

  /** @param {any} frame */
  frame(frame) {
    switch (frame.type) {
      case 'seeks':
        this.seeks = new Map((frame.seeks || []).map((/** @type {SeekView} */ s) => [s.id, s]));
        break;
      case 'seek_added':
        this.seeks.set(frame.seek.id, frame.seek);
        break;
      case 'seek_removed':
        this.seeks.delete(frame.id);
        break;
      case 'accepted':
        this.held.delete(frame.seek);
        this.handlers.onAccepted(frame.seek, frame.game);
        return;
      case 'paired':
        this.heldEntries.delete(frame.entry);
        this.handlers.onAccepted(frame.entry, frame.game);
        return;
      case 'pairing_failed':
        this.heldEntries.delete(frame.entry);
        this.handlers.onPairingFailed(frame.entry, frame.message || frame.code);
        return;
      case 'error':
        // A hold refused: the seek is gone (cancelled, expired or accepted while away).
        if (frame.id) {
          this.held.delete(frame.id);
          this.heldEntries.delete(frame.id);
        }
        return;
      default:
        return;
    }
    this.handlers.onSeeks([...this.seeks.values()].sort((a, b) => a.created_ms - b.created_ms));
  }

  /** @param {Record<string, unknown>} frame */
  sendFrame(frame) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(frame));
  }

  /** Holds a seek from this socket (and from every reconnection). @param {string} id @param {string} secret */
  hold(id, secret) {
    this.held.set(id, secret);
    this.sendFrame({ type: 'hold', id, secret });
  }

  /** Holds a pool entry from this socket. @param {string} id @param {string} secret */
  holdEntry(id, secret) {
    this.heldEntries.set(id, secret);
    this.sendFrame({ type: 'hold_pairing', id, secret });
  }

  /** Stops holding a seek or an entry (it was cancelled). @param {string} id */
  release(id) {
    this.held.delete(id);
    this.heldEntries.delete(id);
  }

  close() {
    this.closed = true;
    clearTimeout(this.timer);
    clearInterval(this.ping);
    if (this.ws) this.ws.close(1000);
    this.ws = null;
  }
}

/**
 * The lobby's online part: the card of open seeks (accept one, cancel yours) and `post(body)`
 * for the create form's "Anyone" choice. Returns the card, `post`, and the unmount function.
 * @returns {{card: HTMLElement, poolsCard: HTMLElement, waiting: HTMLElement, post: (body: Record<string, unknown>, spread?: number) => Promise<void>, available: () => boolean, unmount: () => void}}
 */
export function mountSeeks() {
  const list = h('ul.seek-list#seek-list', { 'aria-live': 'polite' });
  const status = h('p.muted.small#seek-status', 'Connecting to the lobby…');
  const card = h('div.card.seeks-card#seeks', h('h2', 'Open seeks'),
    h('p.muted.small', 'Players waiting for an opponent. Accept one to start playing.'), status, list);
  // Quick pairing: one click waits in a pool; the server pairs players of close ratings.
  const poolGrid = h('div.pool-grid#pools');
  const poolsCard = h('div.card.pools-card#quick-pairing', h('h2', 'Quick pairing'),
    h('p.muted.small', 'Pick a time control: you are paired with the next player of a close rating.'), poolGrid);
  /** @type {Pool[]} */
  let pools = [];
  // The seeks this browser waits on, shown in place of the create form.
  const waiting = h('div.card.waiting#seek-waiting', { hidden: true });
  let usable = true;
  /** @type {SeekView[]} */
  let open = [];
  /** This browser's player's ratings (none known: every rating counts 1500). @type {MyRating[]} */
  let myRatings = [];

  /** Reads this browser's player's ratings (for the seeks it cannot accept, and ranges). */
  async function loadMyRatings() {
    const player = me();
    if (!player) return;
    try {
      const page = await api('GET', `/v1/players/${encodeURIComponent(player.id)}`);
      myRatings = page.ratings || [];
      render();
    } catch {
      // Unknown ratings count as 1500, as the server counts them.
    }
  }
  loadMyRatings();

  const socket = new LobbySocket({
    onSeeks: (seeks) => {
      open = seeks;
      render();
    },
    onAccepted: (seekId, game) => {
      const mine = mySeeks().find((s) => s.id === seekId);
      saveMySeeks(mySeeks().filter((s) => s.id !== seekId));
      const variant = mine ? mine.variant : 'standard';
      rememberGame({ id: game.id, secret: game.secret, color: game.color, opponent: 'friend', variant: variant === 'chess2' ? 'chess2' : undefined });
      toast(mine && mine.pool ? 'Paired: the game starts' : 'Your seek was accepted: the game starts', 'success');
      location.hash = seatHash(variant, game.id, game.secret);
    },
    onPairingFailed: (entry, message) => {
      saveMySeeks(mySeeks().filter((s) => s.id !== entry));
      toast(`No game could be made: ${message}`, 'error');
      render();
    },
    onStatus: (s) => {
      if (s === 'reconnecting' && usable) status.textContent = 'Reconnecting to the lobby…';
      if (s === 'open') status.textContent = '';
    },
  });

  // The lobby needs a database: a server on the memory store answers 503 lobby_unavailable.
  api('GET', '/v1/seeks').catch((err) => {
    if (err && err.code === 'lobby_unavailable') {
      usable = false;
      socket.close();
      status.textContent = 'This server keeps no lobby (it runs without a database): play a friend by link or the computer.';
      setChildren(list);
      poolsCard.hidden = true;
    }
  });

  /** Reads the pools and their waiting counts. */
  async function loadPools() {
    try {
      const answer = await api('GET', '/v1/pairing');
      pools = answer.pools || [];
    } catch {
      pools = [];
    }
    poolsCard.hidden = pools.length === 0;
    renderPools();
  }
  const poolTimer = setInterval(loadPools, 5000);
  loadPools();

  function renderPools() {
    const waitingIn = new Set(mySeeks().filter((s) => s.pool).map((s) => s.pool));
    setChildren(poolGrid, pools.map((p) => {
      const words = describeTimeControl(p.time_control || null).split(' · ');
      const label = p.variant === 'chess2' ? `Chess 2 · ${words[0]}` : words[0];
      return h('button.btn.pool', {
        type: 'button',
        dataset: { pool: p.id },
        disabled: waitingIn.size > 0,
        'aria-pressed': String(waitingIn.has(p.id)),
        onclick: () => joinPool(p),
      }, h('span.pool-name', label), h('span.muted.small', `${words[1] || p.class || ''}${p.waiting ? ` · ${p.waiting} waiting` : ''}`));
    }));
  }

  /** Waits in a pool. @param {Pool} pool */
  async function joinPool(pool) {
    try {
      await ensurePlayer();
      const entry = await api('POST', `/v1/pairing/${encodeURIComponent(pool.id)}`);
      saveMySeeks([...mySeeks(), { id: entry.id, secret: entry.secret, variant: pool.variant, pool: pool.id }]);
      socket.holdEntry(entry.id, entry.secret);
      render();
    } catch (err) {
      toast(explain(err), 'error');
    }
  }

  // Seeks and pool entries from before a reload: hold them again, or forget those that are gone.
  for (const s of mySeeks()) {
    const path = s.pool ? `/v1/pairing/${encodeURIComponent(s.pool)}/${s.id}` : `/v1/seeks/${s.id}`;
    api('GET', path, undefined, s.secret).then((answer) => {
      if ((answer.status === 'accepted' || answer.status === 'paired') && answer.game) {
        saveMySeeks(mySeeks().filter((m) => m.id !== s.id));
        rememberGame({ id: answer.game.id, secret: answer.game.secret, color: answer.game.color, opponent: 'friend', variant: s.variant === 'chess2' ? 'chess2' : undefined });
      } else if (answer.status === 'open') {
        socket.hold(s.id, s.secret);
      } else if (answer.status === 'waiting') {
        socket.holdEntry(s.id, s.secret);
      } else {
        saveMySeeks(mySeeks().filter((m) => m.id !== s.id));
      }
      render();
    }, () => {
      saveMySeeks(mySeeks().filter((m) => m.id !== s.id));
      render();
    });
  }

  function render() {
    const mine = new Map(mySeeks().map((s) => [s.id, s]));
    if (usable) {
      setChildren(list, open.length === 0
        ? h('li.muted', 'No one is waiting right now. Post a seek with “Anyone” in the form.')
        : open.map((s) => seekRow(s, mine.get(s.id) || null)));
    }
    renderWaiting(mine);
    renderPools();
  }

  /** @param {SeekView} view @param {MySeek | null} own */
  function seekRow(view, own) {
    const words = describeSeek(view.seek);
    const refusal = own ? null : rangeRefusal(view, myRatings);
    const range = view.seek.rating_range ? ` · ${view.seek.rating_range.min}–${view.seek.rating_range.max}` : '';
    const button = own
      ? h('button.btn.small.ghost.seek-cancel', { type: 'button', onclick: () => cancel(own) }, 'Cancel')
      : h('button.btn.small.primary.seek-accept', {
        type: 'button',
        disabled: !!refusal,
        title: refusal,
        'aria-describedby': refusal ? `seek-why-${view.id}` : null,
        onclick: () => accept(view, button),
      }, 'Accept');
    return h('li.seek', { dataset: { seek: view.id }, class: refusal ? 'out-of-range' : null },
      h('span.seek-owner', ownerLine(view.owner)),
      h('span.seek-game', words.game),
      h('span.seek-clock', words.clock),
      h('span.muted.small.seek-color', `${own ? 'yours · ' : ''}${words.color}${range}`),
      refusal ? h('span.small.seek-why', { id: `seek-why-${view.id}` }, refusal) : null,
      button);
  }

  /** @param {Map<string, MySeek>} mine */
  function renderWaiting(mine) {
    const list = [...mine.values()];
    waiting.hidden = list.length === 0;
    if (waiting.hidden) return;
    const entry = list.find((s) => s.pool);
    const pool = entry && pools.find((p) => p.id === entry.pool);
    setChildren(waiting,
      h('h2', 'Waiting for an opponent…'),
      h('p.muted', entry
        ? `You wait in the ${pool ? pool.name : entry.pool} pool. Keep this page open: the game starts as soon as you are paired.`
        : 'Your seek is listed in the lobby. Keep this page open: the game starts as soon as someone accepts it.'),
      h('div.spinner', { 'aria-hidden': 'true' }),
      h('div.actions', list.map((s) => h(`button.btn#${s.pool ? 'pool-leave' : 'seek-cancel-mine'}`, { type: 'button', onclick: () => cancel(s) }, s.pool ? 'Leave the pool' : 'Cancel the seek'))));
  }

  /** @param {SeekView} view @param {import("./dom.js").El} button */
  async function accept(view, button) {
    button.disabled = true;
    try {
      await ensurePlayer();
      const seat = await api('POST', `/v1/seeks/${view.id}/accept`, undefined, null, { idempotent: false });
      const variant = view.seek.variant || 'standard';
      rememberGame({ id: seat.id, secret: seat.secret, color: seat.color, opponent: 'friend', variant: variant === 'chess2' ? 'chess2' : undefined });
      location.hash = seatHash(variant, seat.id, seat.secret);
    } catch (err) {
      button.disabled = false;
      const code = err && /** @type {any} */ (err).code;
      toast(code === 'seek_taken' ? 'Someone else accepted that seek first.'
        : code === 'rating_out_of_range' ? `Your rating is outside that seek's range. ${explain(err)}` : explain(err), 'error');
      if (code === 'rating_out_of_range') loadMyRatings();
    }
  }

  /** @param {MySeek} own */
  async function cancel(own) {
    const path = own.pool ? `/v1/pairing/${encodeURIComponent(own.pool)}/${own.id}` : `/v1/seeks/${own.id}`;
    try {
      await api('DELETE', path, undefined, own.secret);
    } catch (err) {
      const code = err && /** @type {any} */ (err).code;
      if (code === 'pairing_entry_paired') return; // the game is on its way: the socket says so
      if (code !== 'seek_not_found' && code !== 'pairing_entry_not_found') toast(explain(err), 'error');
    }
    socket.release(own.id);
    saveMySeeks(mySeeks().filter((s) => s.id !== own.id));
    render();
  }

  /**
   * Posts a seek (the create form's body) and holds it; with `spread`, for opponents rated
   * within that of this player's rating in the seek's variant and class.
   * @param {Record<string, unknown>} body @param {number} [spread]
   */
  async function post(body, spread = 0) {
    await ensurePlayer();
    if (spread > 0) {
      await loadMyRatings();
      const tc = /** @type {{initial_ms: number, increment_ms: number} | undefined} */ (body.time_control);
      const mine = ratingFor(myRatings, String(body.variant || 'standard'), timeClass(tc));
      body = { ...body, rating_range: rangeAround(mine, spread) };
    }
    const posted = await api('POST', '/v1/seeks', body);
    const variant = String(body.variant || 'standard');
    saveMySeeks([...mySeeks(), { id: posted.id, secret: posted.secret, variant }]);
    socket.hold(posted.id, posted.secret);
    render();
  }

  render();
  return {
    card, poolsCard, waiting, post, available: () => usable,
    unmount: () => {
      clearInterval(poolTimer);
      socket.close();
    },
  };
}
