// @ts-check
// "Your engine sessions" (a lobby card): which games hold this client's engine sessions
// (`GET /v1/engines/sessions`), out of how many it may hold, and a way to free each one with the
// secret this browser remembers for its game: an attached engine is detached, a game against
// the computer is resigned, a computer-v-computer game is ended as a draw. Without a remembered
// secret only the game's link is offered.

import { api, explain, rememberedGame } from './api.js';
import { h, setChildren, toast } from './dom.js';

/** @typedef {{game: string, engine: string, role: string}} EngineSession */
/** @typedef {{id: string, secret?: string | null, admin?: string}} Remembered */

/**
 * What the role of a session is, in words.
 * @param {string} role
 * @returns {string}
 */
export function roleWords(role) {
  /** @type {Record<string, string>} */
  const words = { attached: 'analysis', opponent: 'playing', chess2_player: 'playing Chess 2' };
  return words[role] || role;
}

/**
 * How a session can be freed with what this browser remembers of its game, or null when it
 * cannot: `{label, method, path, secret}`.
 * @param {EngineSession} session
 * @param {Remembered | null} game
 * @returns {{label: string, method: string, path: string, secret: string} | null}
 */
export function freeing(session, game) {
  if (!game) return null;
  const path = `/v1/games/${encodeURIComponent(session.game)}`;
  if (session.role === 'attached') {
    const secret = game.admin || game.secret;
    return secret ? { label: 'Detach', method: 'DELETE', path: `${path}/engine`, secret } : null;
  }
  // An engine that plays is freed when its game ends: the player resigns; the creator of a
  // game between engines (no seat of its own) ends it drawn.
  if (game.secret) return { label: 'Resign', method: 'POST', path: `${path}/resign`, secret: game.secret };
  if (game.admin) return { label: 'End (draw)', method: 'POST', path: `${path}/draw`, secret: game.admin };
  return null;
}

/**
 * The card, hidden while the client holds no engine session, and its refresh.
 * @returns {{card: HTMLElement, refresh: () => Promise<EngineSession[]>}}
 */
export function mountEngineSessions() {
  const list = h('ul.engine-sessions#engine-sessions');
  const count = h('span.muted.small#engine-sessions-count');
  const card = h('div.card.side-card#engine-sessions-card', { hidden: true },
    h('h2', 'Your engine sessions ', count),
    h('p.muted.small', 'Each game with a computer holds one. Free one to start another.'),
    list);

  /** @param {{limit: number, sessions: EngineSession[]}} answer */
  function render(answer) {
    const sessions = answer.sessions || [];
    card.hidden = sessions.length === 0;
    count.textContent = `${sessions.length} of ${answer.limit}`;
    setChildren(list, sessions.map((s) => {
      const game = rememberedGame(s.game);
      const how = freeing(s, game);
      const page = s.role === 'chess2_player' ? 'chess2' : 'game';
      const seat = game && game.secret ? `?seat=${encodeURIComponent(game.secret)}` : '';
      const button = how
        ? h('button.btn.small.ghost', {
          type: 'button',
          'data-free': s.game,
          onclick: async () => {
            try {
              await api(how.method, how.path, how.method === 'POST' ? {} : undefined, how.secret, { idempotent: true });
            } catch (err) {
              toast(explain(err), 'error');
              refresh();
              return;
            }
            // An engine that was searching lets go of its session when its search stops, a
            // moment after the answer: the list is read again until the game has left it.
            for (let i = 0; i < 20; i += 1) {
              const left = await refresh();
              if (!left.some((x) => x.game === s.game)) break;
              await new Promise((r) => setTimeout(r, 250));
            }
          },
        }, how.label)
        : h('span.muted.small', 'not from this browser');
      return h('li', { 'data-game': s.game },
        h('a', { href: `#/${page}/${encodeURIComponent(s.game)}${seat}` }, `${s.engine} · ${roleWords(s.role)}`),
        button);
    }));
  }

  /** Reads the list again and shows it; gives the sessions listed. @returns {Promise<EngineSession[]>} */
  async function refresh() {
    try {
      const answer = await api('GET', '/v1/engines/sessions');
      render(answer);
      return answer.sessions || [];
    } catch {
      card.hidden = true;
      return [];
    }
  }

  return { card, refresh };
}
