// @ts-check
// The single-page app: hash routes (#/ lobby, #/game/{id}?seat=…, #/chess2/{id}?seat=…,
// #/watch, #/player[/{name}], #/puzzles, #/perft), each page
// mounted into <main> and unmounted (sockets closed, timers stopped) when leaving it.

import { h, setChildren } from './dom.js';
import { mountChess2Game } from './chess2.js';
import { mountGame } from './game.js';
import { mountLobby } from './lobby.js';
import { mountPerft } from './perft.js';
import { mountPlayer, renderHeader } from './players.js';
import { mountPuzzles } from './puzzles.js';
import { mountWatch } from './watch.js';
import { wireSoundButton } from './sounds.js';
import { applyTheme, chosenTheme, wireThemeButton } from './theme.js';

applyTheme(chosenTheme());
wireThemeButton(/** @type {HTMLButtonElement} */ (document.getElementById('theme-toggle')));
renderHeader();
wireSoundButton(/** @type {HTMLButtonElement} */ (document.getElementById('sound-toggle')));

const main = /** @type {HTMLElement} */ (document.getElementById('app'));
/** @type {(() => void) | null} */
let unmount = null;

function route() {
  if (unmount) {
    unmount();
    unmount = null;
  }
  const hash = location.hash || '#/';
  const [path, query] = hash.slice(1).split('?');
  const params = new URLSearchParams(query || '');
  const parts = path.split('/').filter(Boolean);
  let section = 'play';
  if (parts[0] === 'chess2' && parts[1]) {
    unmount = mountChess2Game(main, decodeURIComponent(parts[1]), params);
    document.title = 'Chess 2 · chessd';
  } else if (parts[0] === 'game' && parts[1]) {
    unmount = mountGame(main, decodeURIComponent(parts[1]), params);
    document.title = 'Game · chessd';
  } else if (parts[0] === 'player') {
    section = 'player';
    unmount = mountPlayer(main, parts[1] ? decodeURIComponent(parts[1]) : null);
    document.title = 'Player · chessd';
  } else if (parts[0] === 'puzzles') {
    section = 'puzzles';
    unmount = mountPuzzles(main);
    document.title = 'Puzzles · chessd';
  } else if (parts[0] === 'watch') {
    section = 'watch';
    unmount = mountWatch(main);
    document.title = 'Live games · chessd';
  } else if (parts[0] === 'perft') {
    section = 'perft';
    unmount = mountPerft(main);
    document.title = 'Perft · chessd';
  } else if (parts.length === 0) {
    unmount = mountLobby(main);
    document.title = 'chessd · play chess';
  } else {
    setChildren(main, h('section.page.narrow', h('div.card', h('h1', 'Page not found'), h('a.btn.primary', { href: '#/' }, 'Back to the lobby'))));
  }
  for (const a of document.querySelectorAll('.site-nav a')) {
    if (!(a instanceof HTMLElement)) continue;
    if (a.dataset.section === section) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  main.focus({ preventScroll: true });
  window.scrollTo(0, 0);
}

window.addEventListener('hashchange', route);
route();
