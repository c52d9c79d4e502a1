// @ts-check
// The game page: puts together its state (game-state.js), its controller (game-controller.js:
// socket, REST, commands), its view (game-view.js: board, bars and clocks, move list, controls),
// the analysis panel (game-analysis.js) and the export panel (game-export.js), and the keys.

import { rememberedGame, rememberGame } from './api.js';
import { createAnalysis } from './game-analysis.js';
import { createChat } from './game-chat.js';
import { createController } from './game-controller.js';
import { createExport } from './game-export.js';
import { createGameState, viewPly } from './game-state.js';
import { createGameView } from './game-view.js';

/**
 * Mounts the game `id` into `root`; `params` holds `seat` (a seat secret). Returns the function
 * that unmounts it (closing the socket, stopping timers and a running analysis).
 * @param {HTMLElement} root
 * @param {string} id
 * @param {URLSearchParams} params
 * @returns {() => void}
 */
export function mountGame(root, id, params) {
  const remembered = rememberedGame(id);
  const token = params.get('seat') || (remembered && remembered.secret) || null;
  if (params.get('seat')) rememberGame({ id, secret: params.get('seat') });

  const st = createGameState(remembered, token);
  const ctx = { id, token, st };
  const analysis = createAnalysis(ctx);
  const exporter = createExport(ctx);
  const chat = createChat(ctx, (text) => ctl.chat(text));
  // The view calls the controller back (created below, once the view it draws into exists).
  const view = createGameView(root, st, {
    move: (uci) => ctl.userMove(uci),
    send: (move) => ctl.sendMove(move),
    goto: (ply) => ctl.goto(ply),
    flip: () => ctl.flip(),
    command: (type, restPath) => ctl.command(type, restPath),
    cancelPremove: () => ctl.cancelPremove(),
    rematch: () => ctl.rematch(),
  }, { analysis, exporter, chat });
  const ctl = createController(ctx, { view, analysis, exporter, chat });

  /** @param {KeyboardEvent} e */
  const onKey = (e) => {
    const t = /** @type {Element | null} */ (e.target);
    if (t && (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA' || t.tagName === 'SELECT' || t === view.board.svg)) return;
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    if (e.key === 'ArrowLeft') ctl.goto(viewPly(st) - 1);
    else if (e.key === 'ArrowRight') ctl.goto(viewPly(st) + 1);
    else if (e.key === 'Home') ctl.goto(0);
    else if (e.key === 'End') ctl.goto(null);
    else if (e.key === 'f') ctl.flip();
    else return;
    e.preventDefault();
  };
  document.addEventListener('keydown', onKey);

  ctl.reload();

  return () => {
    ctl.close();
    view.dispose();
    analysis.dispose();
    document.removeEventListener('keydown', onKey);
  };
}
