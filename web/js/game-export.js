// @ts-check
// The game page's "Share & export" panel: invite and spectator links, the FEN of the position and
// the PGN (read when the panel is open).

import { api, explain, gameLink, rememberedGame } from './api.js';
import { copyField, copyText, h, setChildren } from './dom.js';
import { isPlayer } from './game-state.js';

/** @typedef {import('./game-state.js').GameState} GameState */

/**
 * @typedef {Object} ExportPanel
 * @property {HTMLDetailsElement} el  The panel (details#export).
 * @property {() => void} render
 * @property {() => void} changed  The game changed: the PGN is read again when on show.
 */

/**
 * Builds the export panel of the game `id`.
 * @param {{id: string, st: GameState}} ctx
 * @returns {ExportPanel}
 */
export function createExport({ id, st }) {
  const exportBox = /** @type {HTMLDetailsElement} */ (h('details.card.export#export', h('summary', 'Share & export')));
  const fenField = copyField('FEN (current position)', '', { id: 'fen-field' });
  const fenInput = /** @type {HTMLInputElement} */ (fenField.querySelector('input'));
  const pgnText = /** @type {HTMLTextAreaElement} */ (h('textarea.pgn#pgn-text', { readOnly: true, rows: 6, 'aria-label': 'PGN' }));
  const pgnActions = h('div.actions',
    h('button.btn.small', { type: 'button', onclick: () => copyText(pgnText.value, pgnText) }, 'Copy PGN'),
    h('a.btn.small', { href: `/v1/games/${id}/pgn`, download: `chessd-${id.slice(0, 8)}.pgn` }, 'Download PGN'));
  const inviteBox = h('div.invite');
  exportBox.append(inviteBox, fenField, h('div.copy-field', h('label', { for: 'pgn-text' }, 'PGN'), pgnText, pgnActions));
  exportBox.addEventListener('toggle', () => exportBox.open && refreshPgn());

  function render() {
    if (!st.game) return;
    fenInput.value = st.game.fen;
    const mine = rememberedGame(id);
    const links = [];
    if (mine && mine.invite && isPlayer(st)) {
      const other = st.role === 'white' ? 'black' : 'white';
      links.push(copyField(`Link for your opponent (${other})`, gameLink(id, mine.invite)));
    }
    links.push(copyField('Link for spectators', gameLink(id)));
    setChildren(inviteBox, links);
    // Before the first move, invite links are what the creator needs: show them.
    if (mine && mine.invite && st.moves.length === 0 && !exportBox.dataset.touched) exportBox.open = true;
  }
  /** @type {HTMLElement} */ (exportBox.querySelector('summary')).addEventListener('click', () => { exportBox.dataset.touched = '1'; });

  async function refreshPgn() {
    try {
      pgnText.value = await api('GET', `/v1/games/${id}/pgn`);
    } catch (e) {
      pgnText.value = explain(e);
    }
  }

  return {
    el: exportBox,
    render,
    changed: () => {
      if (exportBox.open) refreshPgn();
    },
  };
}
