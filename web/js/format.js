// @ts-check
// Number and time formats shared by the pages. Pure: no DOM, so node's tests import it.

/**
 * 197281 → "197,281".
 * @param {unknown} n
 * @returns {string}
 */
export function formatInt(n) {
  return typeof n === 'number' && Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '–';
}

/**
 * Nodes per second in a short form: "12.3 M".
 * @param {unknown} n
 * @returns {string}
 */
export function formatRate(n) {
  if (typeof n !== 'number' || !Number.isFinite(n)) return '–';
  if (n >= 1e9) return `${(n / 1e9).toFixed(2)} G`;
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)} M`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(1)} k`;
  return String(Math.round(n));
}

/**
 * A running search's positions and their rate: "1,234,567 positions · 2.5 M positions/s"; empty
 * before the first count.
 * @param {{nodes?: number, nps?: number}} job
 * @returns {string}
 */
export function formatSearchProgress(job) {
  if (!job.nodes) return '';
  const rate = job.nps ? ` · ${formatRate(job.nps)} positions/s` : '';
  return `${formatInt(job.nodes)} positions${rate}`;
}

/**
 * Milliseconds as a clock: "5:03", "0:09.4", "1:02:03".
 * @param {number} ms
 * @returns {string}
 */
export function formatClock(ms) {
  const t = Math.max(0, ms);
  if (t < 10_000) return `0:0${Math.floor(t / 1000)}.${Math.floor((t % 1000) / 100)}`;
  const s = Math.floor(t / 1000);
  const hours = Math.floor(s / 3600);
  const mins = Math.floor((s % 3600) / 60);
  const secs = String(s % 60).padStart(2, '0');
  return hours ? `${hours}:${String(mins).padStart(2, '0')}:${secs}` : `${mins}:${secs}`;
}

/**
 * Milliseconds as a duration: "850 ms", "3.2 s", "2 min 5 s".
 * @param {unknown} ms
 * @returns {string}
 */
export function formatDuration(ms) {
  if (typeof ms !== 'number' || !Number.isFinite(ms)) return '–';
  if (ms < 10) return `${ms.toFixed(2)} ms`;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/**
 * A time control in the usual words: "3 + 2 · Blitz", "Untimed". The class is lichess's, from
 * the estimated duration (initial + 40 × increment): bullet under 3 min, blitz under 8, rapid
 * under 25, classical beyond.
 * @param {{initial_ms: number, increment_ms: number} | null | undefined} tc
 * @returns {string}
 */
export function describeTimeControl(tc) {
  if (!tc) return 'Untimed';
  const minutes = tc.initial_ms / 60_000;
  const base = Number.isInteger(minutes) ? String(minutes) : minutes < 1 ? `${minutes * 60}s` : minutes.toFixed(1);
  const inc = Math.round(tc.increment_ms / 1000);
  const estimate = tc.initial_ms / 1000 + 40 * (tc.increment_ms / 1000);
  const kind = estimate < 180 ? 'Bullet' : estimate < 480 ? 'Blitz' : estimate < 1500 ? 'Rapid' : 'Classical';
  return `${base} + ${inc} · ${kind}`;
}
