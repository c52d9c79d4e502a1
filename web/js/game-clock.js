// @ts-check
// The game page's clocks: the time each side has left, counted down locally between the server's
// updates (every move and end carries the clocks), drawn ten times a second.

import { formatClock } from './format.js';

/** @typedef {import('./game-state.js').Clocks} Clocks */
/**
 * What the clocks are drawn from (a game page's state: game-state.js's, or the Chess 2 page's):
 * the game (its status says whether clocks run), its clocks as the server last said and when
 * they came (performance.now()), and whether the server stopped the game.
 * @typedef {{game: {status: {result: string}} | null, clocks: Clocks | null, clockAt: number,
 *   stopped: string | boolean}} ClockSource
 */

/** Below this a clock is shown as low (ms). */
export const LOW_MS = 20_000;

/**
 * The time `color` has left: as the server last said, less the time since (`elapsed` ms) when
 * its clock runs.
 * @param {Clocks} clocks
 * @param {'white' | 'black'} color
 * @param {number} elapsed
 * @param {boolean} counting  Whether clocks run at all (the game goes on).
 */
export function clockMs(clocks, color, elapsed, counting) {
  const ms = color === 'white' ? clocks.white_ms : clocks.black_ms;
  return clocks.running === color && counting ? ms - elapsed : ms;
}

/**
 * Draws the clocks of `st` into the `.clock-white` / `.clock-black` elements of `page`, now and
 * every 100 ms until `stop()`: `low` under LOW_MS, `flagged` once a side's time is out.
 * @param {ClockSource} st
 * @param {ParentNode} page
 * @returns {{tick: () => void, stop: () => void}}
 */
export function startClocks(st, page) {
  const tick = () => {
    const clocks = st.clocks;
    const g = st.game;
    if (!clocks || !g) return;
    const counting = g.status.result === 'ongoing' && !st.stopped;
    const elapsed = performance.now() - st.clockAt;
    for (const color of /** @type {const} */ (['white', 'black'])) {
      const ms = clockMs(clocks, color, elapsed, counting);
      for (const el of page.querySelectorAll(`.clock-${color}`)) {
        el.textContent = formatClock(ms);
        el.classList.toggle('low', ms < LOW_MS);
        el.classList.toggle('flagged', ms <= 0);
      }
    }
  };
  const timer = setInterval(tick, 100);
  return { tick, stop: () => clearInterval(timer) };
}
