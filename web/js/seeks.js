// @ts-check
// Playing strangers from the lobby: the lobby socket (`GET /v1/lobby/ws`), the open seeks it
// lists live, and the seeks this browser posted, held while the page is open and followed to
// the game their accept creates.

import { api, explain, rememberGame, wsUrl } from './api.js';
import { armyName } from './chess2.js';
import { h, setChildren, toast } from './dom.js';
import { describeTimeControl } from './format.js';

/** Where this browser keeps the seeks it posted (id → secret and what it asked for), so that a
 * reload keeps holding them. */
const MINE = 'chessd.seeks';

/**
 * @typedef {{id: string, created_ms: number, seek: {variant?: string, armies?: {white: string, black: string},
 *   time_control?: {initial_ms: number, increment_ms: number} | null, color?: string, rated?: boolean}}} SeekView
 * A seek as the lobby lists it.
 */

/** @typedef {{id: string, secret: string, variant: string}} MySeek */

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
 * @returns {{game: string, clock: string, color: string}} */
export function describeSeek(seek) {
  const chess2 = seek.variant === 'chess2';
  const armies = chess2 && seek.armies ? ` (${armyName(seek.armies.white)} v ${armyName(seek.armies.black)})` : '';
  const game = `${chess2 ? 'Chess 2' : 'Chess'}${armies}`;
  const clock = describeTimeControl(seek.time_control || null);
  /** @type {Record<string, string>} */
  const colours = { white: 'plays White', black: 'plays Black', random: 'random colours' };
  return { game, clock, color: colours[seek.color || 'random'] || 'random colours' };
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
      case 'error':
        // A hold refused: the seek is gone (cancelled, expired or accepted while away).
        if (frame.id) this.held.delete(frame.id);
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

  /** Stops holding a seek (it was cancelled). @param {string} id */
  release(id) {
    this.held.delete(id);
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
 * @returns {{card: HTMLElement, waiting: HTMLElement, post: (body: Record<string, unknown>) => Promise<void>, available: () => boolean, unmount: () => void}}
 */
export function mountSeeks() {
  const list = h('ul.seek-list#seek-list', { 'aria-live': 'polite' });
  const status = h('p.muted.small#seek-status', 'Connecting to the lobby…');
  const card = h('div.card.seeks-card#seeks', h('h2', 'Open seeks'),
    h('p.muted.small', 'Players waiting for an opponent. Accept one to start playing.'), status, list);
  // The seeks this browser waits on, shown in place of the create form.
  const waiting = h('div.card.waiting#seek-waiting', { hidden: true });
  let usable = true;
  /** @type {SeekView[]} */
  let open = [];

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
      toast('Your seek was accepted: the game starts', 'success');
      location.hash = seatHash(variant, game.id, game.secret);
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
    }
  });

  // Seeks posted before a reload: hold them again, or forget those that are gone.
  for (const s of mySeeks()) {
    api('GET', `/v1/seeks/${s.id}`, undefined, s.secret).then((answer) => {
      if (answer.status === 'accepted' && answer.game) {
        saveMySeeks(mySeeks().filter((m) => m.id !== s.id));
        rememberGame({ id: answer.game.id, secret: answer.game.secret, color: answer.game.color, opponent: 'friend', variant: s.variant === 'chess2' ? 'chess2' : undefined });
      } else if (answer.status === 'open') {
        socket.hold(s.id, s.secret);
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
  }

  /** @param {SeekView} view @param {MySeek | null} own */
  function seekRow(view, own) {
    const words = describeSeek(view.seek);
    const button = own
      ? h('button.btn.small.ghost.seek-cancel', { type: 'button', onclick: () => cancel(own) }, 'Cancel')
      : h('button.btn.small.primary.seek-accept', { type: 'button', onclick: () => accept(view, button) }, 'Accept');
    return h('li.seek', { dataset: { seek: view.id } },
      h('span.seek-game', words.game),
      h('span.seek-clock', words.clock),
      h('span.muted.small.seek-color', own ? `yours · ${words.color}` : words.color),
      button);
  }

  /** @param {Map<string, MySeek>} mine */
  function renderWaiting(mine) {
    const ids = [...mine.keys()];
    waiting.hidden = ids.length === 0;
    if (waiting.hidden) return;
    setChildren(waiting,
      h('h2', 'Waiting for an opponent…'),
      h('p.muted', 'Your seek is listed in the lobby. Keep this page open: the game starts as soon as someone accepts it.'),
      h('div.spinner', { 'aria-hidden': 'true' }),
      h('div.actions', ids.map((id) => h('button.btn#seek-cancel-mine', { type: 'button', onclick: () => cancel(/** @type {MySeek} */ (mine.get(id))) }, 'Cancel the seek'))));
  }

  /** @param {SeekView} view @param {import("./dom.js").El} button */
  async function accept(view, button) {
    button.disabled = true;
    try {
      const seat = await api('POST', `/v1/seeks/${view.id}/accept`, undefined, null, { idempotent: false });
      const variant = view.seek.variant || 'standard';
      rememberGame({ id: seat.id, secret: seat.secret, color: seat.color, opponent: 'friend', variant: variant === 'chess2' ? 'chess2' : undefined });
      location.hash = seatHash(variant, seat.id, seat.secret);
    } catch (err) {
      button.disabled = false;
      toast(err && /** @type {any} */ (err).code === 'seek_taken' ? 'Someone else accepted that seek first.' : explain(err), 'error');
    }
  }

  /** @param {MySeek} own */
  async function cancel(own) {
    try {
      await api('DELETE', `/v1/seeks/${own.id}`, undefined, own.secret);
    } catch (err) {
      if (!(err && /** @type {any} */ (err).code === 'seek_not_found')) toast(explain(err), 'error');
    }
    socket.release(own.id);
    saveMySeeks(mySeeks().filter((s) => s.id !== own.id));
    render();
  }

  /** Posts a seek (the create form's body) and holds it. @param {Record<string, unknown>} body */
  async function post(body) {
    const posted = await api('POST', '/v1/seeks', body);
    const variant = String(body.variant || 'standard');
    saveMySeeks([...mySeeks(), { id: posted.id, secret: posted.secret, variant }]);
    socket.hold(posted.id, posted.secret);
    render();
  }

  render();
  return { card, waiting, post, available: () => usable, unmount: () => socket.close() };
}
