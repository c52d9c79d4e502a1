// @ts-check
// The perft page: start a perft job (standard chess or Chess 2; position, depth, statistics,
// threads), follow its progress live, see the Grand Chess Tree table fill in, cancel it.

import { api, explain, followJob } from './api.js';
import { Board } from './board.js';
import { armyName } from './chess2.js';
import { parseFen, START_FEN } from './chess.js';
import { h, setChildren, toast } from './dom.js';
import { formatDuration, formatInt, formatRate } from './format.js';

const PRESETS = [
  { name: 'Start position', fen: START_FEN },
  { name: 'Kiwipete', fen: 'r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1' },
  { name: 'Position 3', fen: '8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1' },
  { name: 'Position 4', fen: 'r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1' },
  { name: 'Position 5', fen: 'rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8' },
  { name: 'Position 6', fen: 'r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10' },
];

/** Chess 2 positions: the rows of the Go engine's perft file (tests/data/chess2), as EPDs, named
 * by their setup (the start position, or the open one of the file's last six rows) and armies. */
const CHESS2_PRESETS = [
  'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 cc 33',
  'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 nc 33',
  'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 ec 33',
  'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 rc 33',
  'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBKKBNR w KQkq - 0 1 kc 33',
  'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 ac 33',
  'r3k2r/pnbq1bnp/8/8/8/8/PNBQ1BNP/R3K2R w KQkq - 0 1 cc 33',
  'r3k2r/pnbq1bnp/8/8/8/8/PNBQ1BNP/R3K2R w KQkq - 0 1 nn 33',
  'r3k2r/pnbq1bnp/8/8/8/8/PNBQ1BNP/R3K2R w KQkq - 0 1 ee 33',
  'r3k2r/pnbq1bnp/8/8/8/8/PNBQ1BNP/R3K2R w KQkq - 0 1 rr 33',
  'r3k2r/pnbk1bnp/8/8/8/8/PNBK1BNP/R3K2R w KQkq - 0 1 kk 33',
  'r3k2r/pnbq1bnp/8/8/8/8/PNBQ1BNP/R3K2R w KQkq - 0 1 aa 33',
].map((fen) => {
  const armies = fen.split(' ')[6];
  const setup = fen.startsWith('r3k2r') ? 'Open' : 'Start';
  return { name: `${setup}: ${armyName(armies[0])} vs ${armyName(armies[1])}`, fen };
});

/** The presets of a variant. @param {string} variant */
function presetsOf(variant) {
  return variant === 'chess2' ? CHESS2_PRESETS : PRESETS;
}

/**
 * The rows of the Grand Chess Tree table: key, label, how to read the value from a job.
 * @type {[string, string, (job: any) => unknown][]}
 */
const ROWS = [
  ['depth', 'depth', (j) => j.depth],
  ['workers', 'workers', (j) => (j.workers && j.workers.length ? j.workers.length : 'local')],
  ['threads', 'threads', (j) => (typeof j.threads === 'number' ? j.threads : '–')],
  ['processed', 'processed', (j) => (j.progress ? `${formatInt(j.progress.done)} / ${formatInt(j.progress.total)}` : '–')],
  ['elapsed', 'time', (j) => jobTime(j)],
  ['nps', 'nps', (j) => formatRate(j.result && j.result.nps !== undefined ? j.result.nps : j.nps)],
  ['nodes', 'nodes', (j) => stat(j, 'nodes', true)],
  ['captures', 'captures', (j) => stat(j, 'captures')],
  ['enpassants', 'en passant', (j) => stat(j, 'enpassants')],
  ['castles', 'castles', (j) => stat(j, 'castles')],
  ['promotions', 'promotions', (j) => stat(j, 'promotions')],
  ['checks', 'checks', (j) => stat(j, 'checks')],
  ['discovered_checks', 'discovered checks', (j) => stat(j, 'discovered_checks')],
  ['double_checks', 'double checks', (j) => stat(j, 'double_checks')],
  ['checkmates', 'checkmates', (j) => stat(j, 'checkmates')],
];

/** The job's time: the result's own when done, else the time so far. @param {any} job */
function jobTime(job) {
  return formatDuration(job.result && typeof job.result.seconds === 'number' ? job.result.seconds * 1000 : job.elapsed_ms);
}

/**
 * A statistic of a job: from the result when done, else the running statistics.
 * @param {any} job
 * @param {string} key
 * @param {boolean} always  whether the result's node count stands in for a missing statistic
 * @returns {number | null}
 */
function statValue(job, key, always) {
  const src = job.result || job.statistics;
  if (src && typeof src[key] === 'number') return src[key];
  if (key === 'nodes' && typeof job.nodes === 'number') return job.nodes;
  if (always && job.result && typeof job.result.nodes === 'number') return job.result.nodes;
  return null;
}

/** A statistic as shown: "off" when not counted. @param {any} job @param {string} key @param {boolean} [always] */
function stat(job, key, always = false) {
  if (!job.stats && key !== 'nodes') return 'off';
  const v = statValue(job, key, always);
  return v === null ? '–' : formatInt(v);
}

/** Mounts the perft page into `root`; returns the unmount function.
 * @param {HTMLElement} root
 * @returns {() => void} */
export function mountPerft(root) {
  /** @type {{job: any, secret: string | null, unfollow: (() => void) | null, history: any[]}} */
  const st = { job: null, secret: null, unfollow: null, history: [] };
  const board = new Board({ label: 'Perft position' });

  const variantSelect = h('select#perft-variant', { 'aria-label': 'Game' },
    h('option', { value: 'standard' }, 'Chess'),
    h('option', { value: 'chess2' }, 'Chess 2'));
  const presetSelect = h('select#perft-preset', { 'aria-label': 'Position' });
  const fenInput = h('input#perft-fen', { type: 'text', value: START_FEN, spellcheck: false, 'aria-label': 'FEN' });
  const fenLabel = h('label.label', { for: 'perft-fen' }, 'FEN');
  const depthInput = h('input#perft-depth', { type: 'number', min: '1', max: '9', value: '5', 'aria-label': 'Depth' });
  const statsInput = h('input#perft-stats', { type: 'checkbox', checked: true });
  // The statistics choice for standard chess, kept while Chess 2 (node counts only) is chosen.
  let standardStats = true;
  const threadsSelect = h('select#perft-threads', { 'aria-label': 'Threads' });
  // "All" (the default) sends no `threads`: the server then gives the job every thread it allows
  // (`jobs.max_threads`, else its whole pool), as the API does. A number asks for fewer.
  /** @param {number} n the most threads offered */
  function threadOptions(n) {
    const count = Math.max(1, Math.min(64, n));
    const chosen = threadsSelect.value;
    setChildren(threadsSelect,
      h('option', { value: '' }, 'All threads'),
      Array.from({ length: count }, (_, i) => h('option', { value: String(i + 1) }, `${i + 1} thread${i ? 's' : ''}`)));
    threadsSelect.value = Number(chosen) <= count ? chosen : '';
  }
  threadOptions(navigator.hardwareConcurrency || 2);
  // The server bounds the threads a job of ours can use (its pool, our limits and share of it).
  api('GET', '/v1/jobs').then((list) => list && threadOptions(list.client_threads || list.pool_threads), () => {});
  const startBtn = h('button.btn.primary.big#perft-start', { type: 'submit' }, 'Start perft');
  const cancelBtn = h('button.btn.danger#perft-cancel', { type: 'button', hidden: true, onclick: () => cancel() }, 'Cancel');
  const fenError = h('p.error-text', { hidden: true });
  const form = h('form.card.perft-form',
    h('h2', 'Perft'),
    h('p.muted.small', 'Counts every move sequence to the given depth, with the Grand Chess Tree statistics.'),
    h('div.field', h('label.label', { for: 'perft-variant' }, 'Game'), variantSelect),
    h('div.field', h('label.label', { for: 'perft-preset' }, 'Position'), presetSelect),
    h('div.field', fenLabel, fenInput, fenError),
    h('div.field.inline',
      h('label.label', { for: 'perft-depth' }, 'Depth'), depthInput,
      h('label.label', { for: 'perft-threads' }, 'Threads'), threadsSelect),
    h('div.field', h('label.check', statsInput, ' Statistics (captures, checks, mates, …)')),
    h('div.actions', startBtn, cancelBtn));

  const bar = h('div.progress-fill');
  const progress = h('div.progress#perft-progress', { role: 'progressbar', 'aria-valuemin': '0', 'aria-valuemax': '100', 'aria-valuenow': '0', 'aria-label': 'Progress' }, bar);
  const progressText = h('div.progress-text#perft-progress-text');
  const stateBadge = h('span.badge#perft-state');
  const table = h('table.gct#perft-table');
  const resultCard = h('section.card.perft-result', { hidden: true },
    h('div.result-head', h('h2', 'Result'), stateBadge), progress, progressText, table);
  const historyList = h('ol.history#perft-history');
  const historyCard = h('section.card', { hidden: true }, h('h2', 'Earlier runs'), historyList);

  /** The notation of the chosen game's positions. */
  const notation = () => (variantSelect.value === 'chess2' ? 'EPD' : 'FEN');

  /** Offers the chosen game's positions, and its statistics choice, starting from its first. */
  function chooseVariant() {
    const chess2 = variantSelect.value === 'chess2';
    const presets = presetsOf(variantSelect.value);
    setChildren(presetSelect,
      presets.map((p, i) => h('option', { value: String(i) }, p.name)),
      h('option', { value: 'custom' }, `Custom ${notation()}…`));
    presetSelect.value = '0';
    fenInput.value = presets[0].fen;
    fenLabel.textContent = notation();
    fenInput.setAttribute('aria-label', notation());
    // A Chess 2 perft counts nodes only.
    if (chess2 && !statsInput.disabled) standardStats = statsInput.checked;
    statsInput.disabled = chess2;
    statsInput.checked = chess2 ? false : standardStats;
    showPosition();
  }

  variantSelect.addEventListener('change', chooseVariant);
  presetSelect.addEventListener('change', () => {
    const p = presetsOf(variantSelect.value)[Number(presetSelect.value)];
    if (p) fenInput.value = p.fen;
    else fenInput.focus();
    showPosition();
  });
  fenInput.addEventListener('input', () => {
    const i = presetsOf(variantSelect.value).findIndex((p) => p.fen === fenInput.value.trim());
    presetSelect.value = i >= 0 ? String(i) : 'custom';
    showPosition();
  });
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    start();
  });

  function showPosition() {
    try {
      const parsed = parseFen(fenInput.value);
      board.set({ board: parsed.board, legal: [], animate: false });
      fenError.hidden = true;
    } catch (e) {
      fenError.hidden = false;
      fenError.textContent = `Not ${notation() === 'EPD' ? 'an EPD' : 'a FEN'}: ${/** @type {Error} */ (e).message}`;
    }
  }

  async function start() {
    if (st.unfollow) st.unfollow();
    const fen = fenInput.value.trim();
    /** @type {Record<string, unknown>} */
    const body = variantSelect.value === 'chess2'
      ? { variant: 'chess2', depth: Number(depthInput.value), fen }
      : { depth: Number(depthInput.value), stats: statsInput.checked };
    if (threadsSelect.value) body.threads = Number(threadsSelect.value);
    if (!body.variant && fen && fen !== START_FEN) body.fen = fen;
    startBtn.disabled = true;
    try {
      st.job = await api('POST', '/v1/perft', body);
      st.secret = st.job.secret; // only the creation answer carries it; it cancels the job
      render();
      const id = st.job.id;
      st.unfollow = followJob('perft', id, (job, type, err) => {
        if (!job) {
          if (err) toast(explain(err), 'error');
          return;
        }
        if (!st.job || st.job.id !== id) return;
        st.job = job;
        render();
        if (['done', 'cancelled', 'failed'].includes(job.state)) finished(job);
      });
    } catch (e) {
      toast(explain(e), 'error');
      startBtn.disabled = false;
    }
  }

  /** @param {any} job */
  function finished(job) {
    if (st.history.some((j) => j.id === job.id)) return;
    st.history.unshift(job);
  }

  async function cancel() {
    if (!st.job) return;
    cancelBtn.disabled = true;
    try {
      const job = await api('DELETE', `/v1/perft/${st.job.id}`, undefined, st.secret);
      if (job && job.id) st.job = job;
    } catch (e) {
      toast(explain(e), 'error');
    }
    cancelBtn.disabled = false;
    render();
  }

  function render() {
    const job = st.job;
    const running = job && (job.state === 'queued' || job.state === 'running');
    startBtn.disabled = !!running;
    cancelBtn.hidden = !running;
    if (!job) return;
    resultCard.hidden = false;
    resultCard.dataset.state = job.state;
    stateBadge.textContent = job.state;
    stateBadge.className = `badge state-${job.state}`;
    const p = job.progress || { done: 0, total: 0 };
    const pct = job.state === 'done' ? 100 : p.total ? Math.floor((p.done / p.total) * 100) : 0;
    bar.style.width = `${pct}%`;
    progress.setAttribute('aria-valuenow', String(pct));
    progress.dataset.done = String(p.done);
    progress.dataset.total = String(p.total);
    progress.classList.toggle('active', !!running);
    progressText.textContent = job.state === 'failed'
      ? (job.error ? job.error.message : 'failed')
      : `${pct}% · ${formatInt(p.done)} of ${formatInt(p.total)} tasks · ${jobTime(job)}`;
    setChildren(table,
      h('caption.sr-only', 'Perft statistics'),
      h('tbody', ROWS.map(([key, label, read]) => {
        const raw = ['nodes', 'captures', 'enpassants', 'castles', 'promotions', 'checks', 'discovered_checks', 'double_checks', 'checkmates'].includes(key)
          ? statValue(job, key, key === 'nodes') : null;
        return h('tr', { 'data-field': key, 'data-value': raw === null ? '' : String(raw) },
          h('th', { scope: 'row' }, label), h('td', String(read(job))));
      })));
    renderHistory();
  }

  function renderHistory() {
    historyCard.hidden = st.history.length === 0;
    setChildren(historyList, st.history.map((j) => {
      const nodes = statValue(j, 'nodes', true);
      const name = ([...PRESETS, ...CHESS2_PRESETS].find((p) => p.fen === j.fen) || {}).name || j.fen;
      return h('li', h('strong', `${name}, depth ${j.depth}`), ' · ',
        j.state === 'done' ? `${formatInt(nodes)} nodes in ${jobTime(j)}` : j.state);
    }));
  }

  form.append(board.el);
  const page = h('section.page.perft-page',
    h('div.game-grid',
      h('div.board-col', form),
      h('div.side-col', resultCard, historyCard)));
  setChildren(root, page);
  chooseVariant();
  return () => {
    if (st.unfollow) st.unfollow();
  };
}
