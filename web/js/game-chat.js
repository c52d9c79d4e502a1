// @ts-check
// The game page's chat panel: two tabs, the players' chat (between the two seats) and the
// spectators' chat (anyone without a seat). The server sends each caller its own room only
// (players never see the spectators' chat, spectators never the players'), so the other tab says
// why it is empty. Text is shown with textContent only (h() makes text nodes), never as markup.

import { api, explain } from './api.js';
import { h, setChildren, toast } from './dom.js';
import { inGame, isPlayer } from './game-state.js';

/** @typedef {import('./game-state.js').GameState} GameState */

/**
 * @typedef {Object} ChatLine
 * @property {string} room  players or spectators
 * @property {string} from  white, black or spectator
 * @property {string} text
 * @property {number} at_ms
 */

/**
 * @typedef {Object} ChatPanel
 * @property {HTMLElement} el
 * @property {() => void} render  Shows or hides the panel (no chat against an engine).
 * @property {(line: ChatLine) => void} onLine  A `chat` frame.
 * @property {() => Promise<void>} load  Reads the recent lines of the caller's room.
 */

/** Characters a message may have (the server's `chat.max_length` decides). */
const MAX_LENGTH = 140;

/**
 * @param {{id: string, token: string | null, st: GameState}} ctx
 * @param {(text: string) => Promise<void>} send  Sends a message (socket, or REST).
 * @returns {ChatPanel}
 */
export function createChat({ id, token, st }, send) {
  /** @type {ChatLine[]} */
  let lines = [];
  /** @type {'players' | 'spectators' | null} */
  let tab = null;
  const list = h('ol.chat-lines#chat-lines', { 'aria-live': 'polite', 'aria-label': 'Chat messages' });
  const input = /** @type {HTMLInputElement} */ (h('input#chat-input', { type: 'text', maxlength: MAX_LENGTH, placeholder: 'Say something', 'aria-label': 'Chat message', autocomplete: 'off' }));
  const form = h('form.chat-form', input, h('button.btn.small#chat-send', { type: 'submit' }, 'Send'));
  const tabPlayers = h('button.chat-tab#chat-tab-players', { type: 'button', role: 'tab', onclick: () => show('players') }, 'Players');
  const tabSpectators = h('button.chat-tab#chat-tab-spectators', { type: 'button', role: 'tab', onclick: () => show('spectators') }, 'Spectators');
  const el = h('div.card.chat-card#chat', { hidden: true },
    h('div.chat-tabs', { role: 'tablist' }, tabPlayers, tabSpectators),
    list, form);

  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const text = input.value.trim();
    if (!text) return;
    try {
      await send(text);
      input.value = '';
    } catch (err) {
      toast(explain(err), 'error');
    }
  });

  /** The caller's own room. */
  function own() {
    return isPlayer(st) ? 'players' : 'spectators';
  }

  /** @param {'players' | 'spectators'} which */
  function show(which) {
    tab = which;
    renderLines();
  }

  function renderLines() {
    const mine = own();
    const shown = tab || mine;
    tabPlayers.classList.toggle('active', shown === 'players');
    tabSpectators.classList.toggle('active', shown === 'spectators');
    tabPlayers.setAttribute('aria-selected', String(shown === 'players'));
    tabSpectators.setAttribute('aria-selected', String(shown === 'spectators'));
    form.hidden = shown !== mine;
    if (shown !== mine) {
      setChildren(list, h('li.muted', mine === 'players'
        ? 'The spectators’ chat is not shown to players.'
        : 'The players’ chat is private to the two players.'));
      return;
    }
    const items = lines.map((l) => h('li.chat-line', { dataset: { from: l.from } },
      h('span.chat-from', l.from === 'spectator' ? 'Spectator' : l.from === st.role ? 'You' : l.from === 'white' ? 'White' : 'Black'),
      h('span.chat-text', l.text)));
    setChildren(list, items.length ? items : h('li.muted', 'No messages yet'));
    list.scrollTop = list.scrollHeight;
  }

  function render() {
    const g = st.game;
    el.hidden = !g || !inGame(g).chat || !st.role;
    if (!el.hidden) renderLines();
  }

  /** @param {ChatLine} line */
  function onLine(line) {
    lines.push(line);
    if (lines.length > 100) lines = lines.slice(-100);
    renderLines();
  }

  async function load() {
    try {
      const log = await api('GET', `/v1/games/${id}/chat`, undefined, token);
      lines = log.lines || [];
      render();
    } catch {
      // Chat off (a game against an engine), or an older server.
    }
  }

  return { el, render, onLine, load };
}
