// @ts-check
// The server's REST API and WebSockets, as the pages use them.

/** An error answer of the API: `code` (stable), `message`, HTTP `status`. */
export class ApiError extends Error {
  /**
   * @param {number} status
   * @param {string} code
   * @param {string} [message]
   */
  constructor(status, code, message) {
    super(message || code);
    this.status = status;
    this.code = code;
  }
}

/** A fresh random id: idempotency keys and WebSocket acks. */
export function newKey() {
  const bytes = new Uint8Array(12);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * Calls the API; resolves to the JSON answer (or null for 204), rejects with an ApiError. With
 * `idempotent`, the request carries an `Idempotency-Key` and is sent again (same key) when the
 * network fails or the answer is `outcome_unknown`: the server carries it out once.
 * @param {string} method
 * @param {string} path
 * @param {unknown} [body]
 * @param {string | null} [secret]
 * @param {{idempotent?: boolean}} [options]
 * @returns {Promise<any>}
 */
export async function api(method, path, body, secret, { idempotent = false } = {}) {
  /** @type {Record<string, string>} */
  const headers = {};
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (secret) headers.Authorization = `Bearer ${secret}`;
  if (idempotent) headers['Idempotency-Key'] = newKey();
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await apiOnce(method, path, body, headers);
    } catch (e) {
      const unknown = e instanceof ApiError && (e.code === 'network' || e.code === 'outcome_unknown' || e.code === 'store_unavailable');
      if (!idempotent || !unknown || attempt >= 3) throw e;
      await new Promise((r) => setTimeout(r, 500 * (attempt + 1)));
    }
  }
}

/**
 * @param {string} method
 * @param {string} path
 * @param {unknown} body
 * @param {Record<string, string>} headers
 * @returns {Promise<any>}
 */
async function apiOnce(method, path, body, headers) {
  let res;
  try {
    res = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: 'no-store',
    });
  } catch (e) {
    throw new ApiError(0, 'network', 'The server cannot be reached');
  }
  if (res.status === 204) return null;
  const text = await res.text();
  /** @type {any} */
  let json = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  if (!res.ok) {
    const err = json && json.error;
    throw new ApiError(res.status, err ? err.code : `http_${res.status}`, err ? err.message : text || res.statusText);
  }
  return json === null ? text : json;
}

/** The ws:// URL of a server path. @param {string} path */
export function wsUrl(path) {
  const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
  return `${proto}//${location.host}${path}`;
}

/**
 * A human sentence for an API error.
 * @param {unknown} err
 * @returns {string}
 */
export function explain(err) {
  if (!(err instanceof ApiError)) {
    const m = err && /** @type {{message?: unknown}} */ (err).message;
    return String(m || err);
  }
  /** @type {Record<string, string>} */
  const known = {
    network: 'The server cannot be reached.',
    not_found: 'This feature is not available on this server.',
    game_not_found: 'This game does not exist (or it has ended and was removed).',
    job_not_found: 'This job is no longer known to the server.',
    unauthorized: 'You are not playing in this game.',
    forbidden: 'You are not allowed to do that in this game.',
    not_your_turn: 'It is not your turn.',
    game_over: 'The game is over.',
    version_mismatch: 'The game moved on meanwhile; look again and play your move.',
    outcome_unknown: 'The server did not say whether that was done; look at the game before trying again.',
  };
  if (err.code === 'quota_exceeded' && /engine sessions/.test(err.message || '')) {
    return 'You hold all the engine sessions this server allows you: free one under "Your engine sessions" in the lobby.';
  }
  return known[err.code] || err.message || err.code;
}

/** How often an idle game socket pings the server, and how long a silence means it is dead. */
const PING_MS = 10_000;
const LIVENESS_MS = 25_000;

/**
 * The WebSocket of a game, reconnecting by itself and catching up with `?since=`. Calls
 * `onFrame(frame)` for every server frame and `onStatus('connecting'|'open'|'closed')`.
 * `version()` must return the last version the page has applied.
 */
export class GameSocket {
  /**
   * @param {string} gameId
   * @param {string | null} token
   * @param {{onFrame: (frame: any) => void, onStatus: (status: string) => void, version: () => number}} handlers
   */
  constructor(gameId, token, { onFrame, onStatus, version }) {
    this.gameId = gameId;
    this.token = token;
    this.onFrame = onFrame;
    this.onStatus = onStatus;
    this.version = version;
    /** @type {WebSocket | null} */
    this.ws = null;
    this.closed = false;
    this.stopped = false;
    this.everOpened = false;
    this.attempt = 0;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    this.timer = undefined;
    // Acks are the commands' idempotency keys: unique across this page's connections.
    this.ackPrefix = newKey();
    this.ackSeq = 0;
    /** @type {Map<string, {resolve: (frame: any) => void, reject: (e: unknown) => void, timer: ReturnType<typeof setTimeout>, text: string}>} */
    this.pending = new Map();
    this.lastFrame = Date.now();
    // Liveness: the server answers pings at once, so a socket silent for long is dead (a
    // network that dropped without closing it); close it and reconnect.
    this.liveness = setInterval(() => {
      if (!this.isOpen()) return;
      if (Date.now() - this.lastFrame > LIVENESS_MS) {
        // Do not wait for the closing handshake of a dead connection.
        const dead = /** @type {WebSocket} */ (this.ws);
        dead.close(4000, 'no answer');
        this.socketClosed(dead, 4000);
        return;
      }
      /** @type {WebSocket} */ (this.ws).send(JSON.stringify({ type: 'ping' }));
    }, PING_MS);
  }

  /**
   * Connects, once: a page opens its socket only after reading the game, so that a link to a
   * game that does not exist shows "not found" without a refused WebSocket in the console.
   */
  open() {
    if (this.ws || this.timer !== undefined) return;
    this.connect();
  }

  connect() {
    this.timer = undefined;
    if (this.closed) return;
    const q = new URLSearchParams();
    if (this.token) q.set('token', this.token);
    const v = this.version();
    if (typeof v === 'number' && this.everOpened) q.set('since', String(v));
    this.onStatus(this.everOpened ? 'reconnecting' : 'connecting');
    const ws = new WebSocket(wsUrl(`/v1/games/${encodeURIComponent(this.gameId)}/ws?${q}`));
    this.ws = ws;
    ws.onopen = () => {
      this.attempt = 0;
      this.everOpened = true;
      this.lastFrame = Date.now();
      this.onStatus('open');
      // Commands whose answer the last connection lost go again with the same ack: the
      // server carries each out once.
      for (const [, p] of this.pending) ws.send(p.text);
    };
    ws.onmessage = (ev) => {
      this.lastFrame = Date.now();
      let frame;
      try {
        frame = JSON.parse(ev.data);
      } catch {
        return;
      }
      if ((frame.type === 'ack' || frame.type === 'error') && frame.ack !== null && frame.ack !== undefined) {
        const p = this.pending.get(frame.ack);
        if (p) {
          this.pending.delete(frame.ack);
          clearTimeout(p.timer);
          if (frame.type === 'ack') p.resolve(frame);
          else p.reject(new ApiError(0, frame.code, frame.message));
        }
      }
      this.onFrame(frame);
    };
    ws.onclose = (ev) => this.socketClosed(ws, ev.code);
    ws.onerror = () => {
      // onclose follows and schedules the reconnection.
    };
  }

  /**
   * The socket `ws` closed (or was given up): reconnect after a pause. Waiting commands are sent
   * again once it is open (they fail at their own deadline, or now if nothing reconnects).
   */
  /** @param {WebSocket} ws @param {number} code */
  socketClosed(ws, code) {
    if (this.ws !== ws) return;
    this.ws = null;
    if (this.closed || this.stopped) {
      for (const [, p] of this.pending) {
        clearTimeout(p.timer);
        p.reject(new ApiError(0, 'network', 'The connection dropped'));
      }
      this.pending.clear();
      this.onStatus('closed');
      return;
    }
    // 1008 (too many messages): our fault, wait longer; otherwise back off 0.5 s, 1 s … 5 s.
    this.onStatus('reconnecting');
    const delay = Math.min(5000, 500 * 2 ** this.attempt) * (code === 1008 ? 4 : 1);
    this.attempt += 1;
    this.timer = setTimeout(() => this.connect(), delay);
  }

  /** Whether frames can be sent now. */
  isOpen() {
    return !!this.ws && this.ws.readyState === WebSocket.OPEN;
  }

  /**
   * Sends a command; resolves with the `ack` frame, rejects with an ApiError.
   * @param {Record<string, unknown>} frame
   * @returns {Promise<any>}
   */
  send(frame) {
    return new Promise((resolve, reject) => {
      if (!this.isOpen()) {
        reject(new ApiError(0, 'network', 'Not connected: reconnecting…'));
        return;
      }
      this.ackSeq += 1;
      const ack = `${this.ackPrefix}-${this.ackSeq}`;
      const timer = setTimeout(() => {
        this.pending.delete(ack);
        reject(new ApiError(0, 'timeout', 'The server did not answer'));
      }, 10_000);
      const text = JSON.stringify({ ...frame, ack });
      this.pending.set(ack, { resolve, reject, timer, text });
      /** @type {WebSocket} */ (this.ws).send(text);
    });
  }

  /** The game stopped on the server: no more reconnections. */
  stop() {
    this.stopped = true;
  }

  /** Closes for good (leaving the page). */
  close() {
    this.closed = true;
    clearTimeout(this.timer);
    clearInterval(this.liveness);
    if (this.ws) this.ws.close(1000);
    this.ws = null;
  }
}

/**
 * Follows a job (`kind`: "perft" or "puzzles") until it ends: its events WebSocket, falling back
 * to polling `GET` when the socket cannot be used. Calls `onUpdate(job, type)`; returns a
 * function that stops following.
 * @param {string} kind
 * @param {string} id
 * @param {(job: any, type: string, error?: unknown) => void} onUpdate
 * @returns {() => void}
 */
export function followJob(kind, id, onUpdate) {
  let stopped = false;
  /** @type {WebSocket | null} */
  let ws = null;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let pollTimer;
  let gotFrame = false;
  let ended = false;
  const finished = (/** @type {any} */ job) => job && ['done', 'cancelled', 'failed'].includes(job.state);
  const poll = async () => {
    if (stopped) return;
    try {
      const job = await api('GET', `/v1/${kind}/${encodeURIComponent(id)}`);
      onUpdate(job, 'poll');
      if (finished(job)) return;
    } catch (e) {
      onUpdate(null, 'error', e);
      if (e instanceof ApiError && e.status === 404) return;
    }
    pollTimer = setTimeout(poll, 250);
  };
  try {
    ws = new WebSocket(wsUrl(`/v1/${kind}/${encodeURIComponent(id)}/events`));
    ws.onmessage = (ev) => {
      let frame;
      try {
        frame = JSON.parse(ev.data);
      } catch {
        return;
      }
      gotFrame = true;
      if (frame && frame.job) onUpdate(frame.job, frame.type);
      if (frame && frame.job && finished(frame.job)) {
        ended = true;
        if (ws) ws.close(1000);
      }
    };
    ws.onclose = () => {
      // Closed before the end (or never opened): poll for the rest.
      if (!stopped && !ended) {
        ws = null;
        poll();
      }
    };
    ws.onerror = () => {};
  } catch {
    poll();
  }
  // Also read the job once at once, so a page shows something even before the first event.
  if (!gotFrame) {
    api('GET', `/v1/${kind}/${encodeURIComponent(id)}`).then((job) => {
      if (!stopped && !gotFrame) onUpdate(job, 'poll');
    }, () => {});
  }
  return () => {
    stopped = true;
    clearTimeout(pollTimer);
    if (ws) ws.close(1000);
  };
}

// ----- The games this browser created or joined (localStorage) -----

const STORE = 'chessd.games';

/** The games remembered by this browser, newest first. @returns {RememberedGame[]} */
export function myGames() {
  try {
    const list = JSON.parse(localStorage.getItem(STORE) || '[]');
    return Array.isArray(list) ? list : [];
  } catch {
    return [];
  }
}

/**
 * @typedef {{id: string, secret?: string | null, color?: string, admin?: string,
 *   invite?: string | null, opponent?: string | {engine?: string} | null, tc?: unknown,
 *   variant?: string, created?: number}} RememberedGame
 * A game this browser remembers; `opponent` is "friend" or the engine played.
 */

/** Remembers (or updates) a game: `{id, secret?, color?, admin?, invite?, opponent?, created?}`.
 * @param {RememberedGame} entry */
export function rememberGame(entry) {
  const list = myGames().filter((g) => g.id !== entry.id);
  /** @type {Partial<RememberedGame>} */
  const old = myGames().find((g) => g.id === entry.id) || {};
  list.unshift({ ...old, ...entry, created: old.created || entry.created || Date.now() });
  try {
    localStorage.setItem(STORE, JSON.stringify(list.slice(0, 30)));
  } catch {
    // Storage full or disabled: the links still work.
  }
}

/** The remembered entry of a game, if any. @param {string} id @returns {RememberedGame | null} */
export function rememberedGame(id) {
  return myGames().find((g) => g.id === id) || null;
}

/** Forgets a game. @param {string} id */
export function forgetGame(id) {
  try {
    localStorage.setItem(STORE, JSON.stringify(myGames().filter((g) => g.id !== id)));
  } catch {
    // ignore
  }
}

/** The page link of a game for a seat secret (or a spectator when none).
 * @param {string} id @param {string | null} [secret] */
export function gameLink(id, secret) {
  const base = `${location.origin}${location.pathname}#/game/${id}`;
  return secret ? `${base}?seat=${encodeURIComponent(secret)}` : base;
}
