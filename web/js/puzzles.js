// @ts-check
// The puzzles page: a mate-in-N problem (pasted FEN or a built-in sample) solved by the server's
// prover as a job; keys, uniqueness and the main line; then the solution tree stepped through
// on the board ("Next move"), with every defence open to explore. "Try it" trains instead, as
// lichess puzzles do: the solution stays hidden, each move is told right or wrong (a wrong one
// is taken back), the defence is played against the solver, and "Reveal" shows it all. Mates
// from 6 moves on are asked for in the solver's find mode (a proven mate in at most N).
// Helpmates (h#N: both sides play for the mate of the side to move) list every solution, and
// selfmates (s#N: the side to move forces the other to mate it) every key; both step through
// on the board like a mate's tree. While the server searches, the page shows the positions
// searched and their rate.

import { api, explain, followJob } from './api.js';
import { Board } from './board.js';
import { applyUci, kingSquare, numberedLine, parseFen, sanChecks } from './chess.js';
import { h, icon, setChildren, toast } from './dom.js';
import { formatDuration, formatInt, formatSearchProgress } from './format.js';
import { PUZZLE_SAMPLES } from './puzzle-samples.js';

/** The mate lengths the page offers. */
const MATE_LENGTHS = [1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 15, 20, 25, 30];
/** From this length on, the page asks for the find mode. */
const FIND_FROM = 6;
/** The lengths offered for helpmates and selfmates (the server's defaults allow 6 and 5). */
const HELP_LENGTHS = [1, 2, 3, 4, 5, 6];
const SELF_LENGTHS = [1, 2, 3, 4, 5];

/** The genres the page solves: its stipulation prefix, its name and the lengths it offers. */
const GENRES = {
  '#': { name: 'Direct mate (#N)', lengths: MATE_LENGTHS },
  'h#': { name: 'Helpmate (h#N)', lengths: HELP_LENGTHS },
  's#': { name: 'Selfmate (s#N)', lengths: SELF_LENGTHS },
};


/**
 * A move the explorer offers: a key (with the tree after it) or a defence (with its reply).
 * @typedef {{uci: string, san: string, tree?: any, defence?: any}} TreeMove
 */

/** Mounts the puzzles page into `root`; returns the unmount function.
 * @param {HTMLElement} root
 * @returns {() => void} */
export function mountPuzzles(root) {
  /** @type {{fen: string, start: any, job: any, secret: string | null, unfollow: (() => void) | null, result: any, steps: any[], node: any, training: boolean, trainFen: string, trainLegal: string[], mistakes: number, verdict: string | null}} */
  const st = {
    fen: PUZZLE_SAMPLES[0].fen,
    start: null, // parsed FEN of the problem
    job: null,
    secret: null, // the creation answer's secret, which cancels the job
    unfollow: null,
    result: null,
    // The explorer: steps played from the problem position, and where in the tree we are.
    steps: [],
    node: null,
    // A try ("Try it"): the solution hidden, the position's FEN and legal moves, the wrong
    // moves so far and the word on the last one (right, wrong, solved).
    training: false,
    trainFen: '',
    trainLegal: [],
    mistakes: 0,
    verdict: null,
  };

  const board = new Board({ onMove: (uci) => (st.training ? tryMove(uci) : playTreeMove(uci)), label: 'Puzzle board' });
  const boardStatus = h('div.status-box#puzzle-status', { role: 'status', 'aria-live': 'polite' });
  const lineBox = h('p.solution-line#explore-line');
  const choices = h('div.choices#defences');
  const btnReset = h('button.btn#puzzle-reset', { type: 'button', onclick: () => resetExplorer(), title: 'Back to the problem position (Home)' }, icon('first'), 'Start');
  const btnBack = h('button.btn#puzzle-back', { type: 'button', onclick: () => stepBack(), title: 'Take back a move (←)' }, icon('prev'), 'Back');
  const btnNext = h('button.btn.primary#next-move', { type: 'button', onclick: () => nextMove(), title: 'Play the next move of the solution (→)' }, 'Next move', icon('next'));
  const explorer = h('div.explorer', h('div.nav-buttons', btnReset, btnBack, btnNext), lineBox, choices);

  // The form.
  const sampleSelect = h('select#puzzle-sample', { 'aria-label': 'Sample puzzles' },
    h('option', { value: '' }, 'Pick a sample puzzle…'),
    PUZZLE_SAMPLES.map((p, i) => h('option', { value: String(i) }, `Mate in ${p.mate} · #${p.id} · rated ${p.rating}${p.themes ? ` · ${p.themes}` : ''}`)));
  const fenInput = h('textarea#puzzle-fen', { rows: 2, spellcheck: false, 'aria-label': 'Position (FEN)', placeholder: 'Paste a FEN: the side to move mates' });
  fenInput.value = st.fen;
  const fenError = h('p.error-text#fen-error', { hidden: true });
  const genreSelect = h('select#puzzle-genre', { 'aria-label': 'Kind of problem' },
    Object.entries(GENRES).map(([prefix, g]) => h('option', { value: prefix }, g.name)));
  const mateSelect = h('select#puzzle-mate', { 'aria-label': 'Mate in' });
  const genreNote = h('p.muted.small#puzzle-genre-note', { hidden: true });
  // Long mates go to the find mode: a proven mate in at most N, not necessarily the shortest.
  const modeNote = h('p.muted.small#puzzle-mode-note', { hidden: true },
    `From mate in ${FIND_FROM} the server looks for any forced mate in at most N moves (its find mode, a proof-number search): the mate is proven, but a shorter one may exist, and only one key is given.`);
  const allKeys = h('input#puzzle-all-keys', { type: 'checkbox', checked: true });
  const timeLimit = h('input#puzzle-time', { type: 'number', min: '1', step: '1', placeholder: 'default', 'aria-label': 'Time limit in seconds' });
  const solveBtn = h('button.btn.primary.big#solve', { type: 'submit' }, 'Solve');
  const tryBtn = h('button.btn.big#puzzle-try', { type: 'button', onclick: () => startTry(), title: 'Find the solution yourself: each move is told right or wrong' }, 'Try it');
  const revealBtn = h('button.btn#puzzle-reveal', { type: 'button', hidden: true, onclick: () => reveal() }, 'Reveal the solution');
  const cancelBtn = h('button.btn#puzzle-cancel', { type: 'button', hidden: true, onclick: () => cancel() }, 'Cancel');
  const form = h('form.card.puzzle-form',
    h('h2', 'Mate in N'),
    h('div.field', h('label.label', { for: 'puzzle-sample' }, 'Samples'), sampleSelect),
    h('div.field', h('label.label', { for: 'puzzle-fen' }, 'Position (FEN)'), fenInput, fenError),
    h('div.field.inline', h('label.label', { for: 'puzzle-genre' }, 'Problem'), genreSelect),
    h('div.field.inline',
      h('label.label', { for: 'puzzle-mate' }, 'Find'), mateSelect,
      h('label.check', allKeys, ' every key (decides uniqueness)')),
    modeNote,
    genreNote,
    h('div.field.inline', h('label.label', { for: 'puzzle-time' }, 'Time limit (s)'), timeLimit),
    h('div.actions', solveBtn, tryBtn, cancelBtn));
  const jobBox = h('div.card.job-box#puzzle-job', { hidden: true });

  mateSelect.addEventListener('change', () => showMode());
  genreSelect.addEventListener('change', () => {
    fillLengths();
    showMode();
    renderExplorer();
  });

  /** The stipulation prefix chosen: `#`, `h#` or `s#`. @returns {'#' | 'h#' | 's#'} */
  function genre() {
    const g = genreSelect.value;
    return g === 'h#' || g === 's#' ? g : '#';
  }

  /** Offers the chosen genre's lengths, keeping the chosen one where it is offered. */
  function fillLengths() {
    const g = genre();
    const keep = Number(mateSelect.value) || 2;
    const lengths = GENRES[g].lengths;
    const chosen = lengths.includes(keep) ? keep : Math.min(2, lengths[lengths.length - 1]);
    setChildren(mateSelect, lengths.map((n) => h('option', { value: String(n), selected: n === chosen },
      g === '#' ? (n < FIND_FROM ? `Mate in ${n}` : `Mate in ≤ ${n}`) : `${g}${n}`)));
    mateSelect.value = String(chosen);
  }

  function showMode() {
    const g = genre();
    const find = g === '#' && Number(mateSelect.value) >= FIND_FROM;
    modeNote.hidden = !find;
    // Helpmates and selfmates always list every solution; a try is for direct mates.
    allKeys.disabled = find || g !== '#';
    tryBtn.hidden = g !== '#';
    genreNote.hidden = g === '#';
    genreNote.textContent = g === 'h#'
      ? 'Helpmate: the side to move (usually Black) and the other side cooperate so that the side to move is mated by the other side\'s Nth move. Every solution is listed.'
      : 'Selfmate: the side to move forces the other side to mate it in N moves, whatever the other side plays. Every key is listed.';
  }

  sampleSelect.addEventListener('change', () => {
    const p = PUZZLE_SAMPLES[Number(sampleSelect.value)];
    if (!p) return;
    fenInput.value = p.fen;
    genreSelect.value = '#';
    fillLengths();
    mateSelect.value = String(p.mate);
    showMode();
    showProblem(p.fen);
  });
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let fenTimer;
  fenInput.addEventListener('input', () => {
    clearTimeout(fenTimer);
    fenTimer = setTimeout(() => showProblem(fenInput.value.trim()), 250);
  });
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    solve();
  });

  const page = h('section.page.puzzles-page',
    h('div.game-grid',
      h('div.board-col', board.el, boardStatus, h('div.actions', revealBtn), explorer),
      h('div.side-col', form, jobBox)));
  setChildren(root, page);

  // ----- the problem position -----

  /** @param {string} fen @param {boolean} [force] */
  async function showProblem(fen, force = false) {
    if (!force && st.start && fen === st.fen) return;
    fenError.hidden = true;
    let parsed;
    try {
      parsed = parseFen(fen);
    } catch (e) {
      fenError.hidden = false;
      fenError.textContent = `Not a FEN: ${/** @type {Error} */ (e).message}`;
      return;
    }
    st.fen = fen;
    st.start = parsed;
    st.result = null;
    st.node = null;
    st.steps = [];
    st.training = false;
    renderJob();
    renderExplorer();
    // Ask the server whether the position is valid (and for its status).
    try {
      const info = await api('GET', `/v1/position?fen=${encodeURIComponent(fen)}`);
      if (st.fen !== fen) return;
      if (info.status && info.status.result !== 'ongoing') {
        fenError.hidden = false;
        fenError.textContent = 'The game is already over in this position.';
      }
    } catch (e) {
      if (st.fen !== fen) return;
      fenError.hidden = false;
      fenError.textContent = explain(e);
    }
  }

  /** @param {string} turn */
  function side(turn) {
    return turn === 'w' ? 'White' : 'Black';
  }

  // ----- solving -----

  /** @param {boolean} [training] Keep the solution hidden for a try. */
  async function solve(training = false) {
    const fen = fenInput.value.trim();
    clearTimeout(fenTimer);
    await showProblem(fen, true);
    // A try is for direct mates only.
    st.training = training && genre() === '#';
    st.mistakes = 0;
    st.verdict = null;
    if (!st.start || st.fen !== fen) return;
    if (st.unfollow) st.unfollow();
    const mateIn = Number(mateSelect.value);
    const g = genre();
    /** @type {Record<string, unknown>} */
    const body = g !== '#'
      ? { fen, stipulation: `${g}${mateIn}` }
      : mateIn >= FIND_FROM
        ? { fen, mate_in: mateIn, mode: 'find' }
        : { fen, mate_in: mateIn, find_all_keys: allKeys.checked };
    if (timeLimit.value) body.time_limit_ms = Math.round(Number(timeLimit.value) * 1000);
    solveBtn.disabled = true;
    try {
      st.job = await api('POST', '/v1/puzzles', body);
      st.secret = st.job.secret; // only the creation answer carries it; it cancels the job
      renderJob();
      st.unfollow = followJob('puzzles', st.job.id, (job, type, err) => {
        if (!job) {
          if (err) toast(explain(err), 'error');
          return;
        }
        if (!st.job || job.id !== st.job.id) return;
        st.job = job;
        if (job.state === 'done' && job.result && !st.result) {
          st.result = job.result;
          if (st.training) startTraining();
          else {
            resetExplorer();
            boardIntoView();
          }
        }
        renderJob();
      });
    } catch (e) {
      toast(explain(e), 'error');
      solveBtn.disabled = false;
    }
  }

  async function cancel() {
    if (!st.job) return;
    try {
      st.job = await api('DELETE', `/v1/puzzles/${st.job.id}`, undefined, st.secret) || st.job;
    } catch (e) {
      toast(explain(e), 'error');
    }
    renderJob();
  }

  function renderJob() {
    const job = st.job;
    const running = job && (job.state === 'queued' || job.state === 'running');
    solveBtn.disabled = !!running;
    tryBtn.disabled = !!running;
    cancelBtn.hidden = !running;
    revealBtn.hidden = !st.training;
    explorer.hidden = st.training;
    if (!job) {
      jobBox.hidden = true;
      return;
    }
    jobBox.hidden = false;
    jobBox.dataset.state = job.state;
    /** @type {(import('./dom.js').El | null)[]} */
    const parts = [h('h2', 'Solution')];
    if (running) {
      parts.push(h('p.working', h('span.spinner', { 'aria-hidden': 'true' }), `Solving… ${job.elapsed_ms ? formatDuration(job.elapsed_ms) : ''}`),
        h('p.muted.small#puzzle-progress', { 'data-nodes': String(job.nodes || 0) }, formatSearchProgress(job)));
    } else if (job.state === 'failed') {
      parts.push(h('p.error-text', job.error ? job.error.message : 'The search failed.'));
    } else if (job.state === 'cancelled') {
      parts.push(h('p.muted', 'Cancelled.'));
    } else if (job.state === 'done' && job.result && st.training) {
      parts.push(h('p.muted#puzzle-hidden', 'The solution is hidden while you try. Press "Reveal the solution" to see it.'));
    } else if (job.state === 'done' && job.result && job.result.solutions) {
      parts.push(...helpFacts(job.result));
    } else if (job.state === 'done' && job.result && job.result.trees) {
      parts.push(...selfFacts(job.result));
    } else if (job.state === 'done' && job.result) {
      const r = job.result;
      const start = st.start;
      if (r.mate === null || r.mate === undefined) {
        parts.push(h('p.verdict.none#puzzle-verdict', `No mate in ${job.mate_in || mateSelect.value} or fewer moves.`));
      } else {
        const keyTrees = [r.tree, ...(r.cooks || [])].filter(Boolean);
        const keySans = r.keys.map((/** @type {string} */ k) => (keyTrees.find((t) => t.uci === k) || {}).move || k);
        /** @type {import('./dom.js').El} */
        let unique;
        if (r.all_keys === false) unique = h('span.badge', 'uniqueness not decided');
        else if (r.unique) unique = h('span.badge.good#puzzle-unique', 'unique solution');
        else unique = h('span.badge.warn#puzzle-unique', `cooked: ${r.keys.length} keys`);
        parts.push(
          h('p.verdict#puzzle-verdict', `${side(start.turn)} mates in ${r.mate}`, ' ', unique,
            r.shortest === false ? h('span.badge#puzzle-not-shortest', { title: 'The find mode proves a mate, not that none is shorter' }, 'shortest not proven') : null),
          h('dl.facts',
            h('dt', r.keys.length > 1 ? 'Keys' : 'Key'),
            h('dd#puzzle-keys', { 'data-keys': r.keys.join(' ') }, keySans.join(', ')),
            h('dt', 'Main line'),
            h('dd#puzzle-line', numberedLine(r.line || [], start.turn, start.fullmove)),
            h('dt', 'Searched'),
            h('dd', `${formatInt(r.nodes)} positions in ${formatDuration((r.seconds || 0) * 1000)}`)),
          r.tree_complete === false ? h('p.muted.small', 'The tree was cut at the size limit; deep branches show the mating length only.') : null);
      }
    }
    setChildren(jobBox, parts);
  }

  /** The positions searched and the time, as a fact list's last row. @param {any} r */
  function searched(r) {
    return [h('dt', 'Searched'), h('dd', `${formatInt(r.nodes)} positions in ${formatDuration((r.seconds || 0) * 1000)}`)];
  }

  /** A helpmate's verdict and every solution (each opens on the board). @param {any} r */
  function helpFacts(r) {
    const n = r.stipulation;
    if (!r.solutions.length) return [h('p.verdict.none#puzzle-verdict', `No helpmate: ${n} has no solution.`), h('dl.facts', searched(r))];
    const sound = r.sound
      ? h('span.badge.good#puzzle-sound', 'sound: one solution')
      : h('span.badge.warn#puzzle-sound', 'more than one solution');
    const start = st.start;
    return [
      h('p.verdict#puzzle-verdict', `${n}: ${r.solutions.length} solution${r.solutions.length === 1 ? '' : 's'}`, ' ', sound),
      h('ol.solutions#puzzle-solutions', r.solutions.map((/** @type {any} */ line, /** @type {number} */ i) => h('li',
        h('button.btn.small.link', { type: 'button', 'data-uci': line.uci.join(' '), title: 'Show this solution on the board', onclick: () => showSolution(i) },
          numberedLine(line.san, start.turn, start.fullmove))))),
      h('dl.facts', searched(r)),
    ];
  }

  /** A selfmate's verdict and keys. @param {any} r */
  function selfFacts(r) {
    const n = r.stipulation;
    if (!r.keys.length) return [h('p.verdict.none#puzzle-verdict', `No selfmate: ${n} has no solution.`), h('dl.facts', searched(r))];
    const sound = r.sound
      ? h('span.badge.good#puzzle-sound', 'sound: one key')
      : h('span.badge.warn#puzzle-sound', `cooked: ${r.keys.length} keys`);
    return [
      h('p.verdict#puzzle-verdict', `${n}: ${side(st.start.turn)} forces the mate of its own king`, ' ', sound),
      h('dl.facts',
        h('dt', r.keys.length > 1 ? 'Keys' : 'Key'),
        h('dd#puzzle-keys', { 'data-keys': r.keys.join(' ') }, r.keys_san.join(', ')),
        ...searched(r)),
      r.tree_complete === false ? h('p.muted.small', 'The tree was cut at the size limit.') : null,
    ];
  }

  /** Plays helpmate solution `i` from the problem position, move by move with Next. @param {number} i */
  function showSolution(i) {
    const r = st.result;
    if (!r || !r.solutions || !r.solutions[i]) return;
    st.steps = [];
    st.node = { kind: 'help', lines: [r.solutions[i]], ply: 0 };
    renderExplorer();
    boardIntoView();
  }

  // ----- a try -----

  function startTry() {
    solve(true);
  }

  /** The solver's answer is in: the try starts from the problem position. */
  async function startTraining() {
    st.steps = [];
    st.node = rootNode();
    if (!st.node) {
      // No mate to find: nothing to try; show the verdict.
      st.training = false;
      renderJob();
      renderExplorer();
      return;
    }
    st.trainFen = st.fen;
    st.trainLegal = [];
    renderExplorer();
    try {
      const info = await api('GET', `/v1/position?fen=${encodeURIComponent(st.fen)}`);
      if (!st.training) return;
      st.trainLegal = info.moves || [];
    } catch (e) {
      toast(explain(e), 'error');
    }
    renderExplorer();
    boardIntoView();
  }

  /**
   * A move tried on the board: right when it is one the proof plays here (a key, or a reply
   * of the tree), and then the defence that resists longest answers; wrong moves are taken back.
   * @param {string} uci
   */
  async function tryMove(uci) {
    const choice = nodeMoves().find((m) => m.uci === uci);
    const fen = st.trainFen;
    if (!choice) {
      // Any mate in one is right, as on lichess (the proof holds one of them).
      const node = st.node;
      if (node && node.kind === 'attack' && node.options[0].mate_in === 1) {
        try {
          const after = await api('POST', '/v1/position/move', { fen, move: uci });
          if (after.status && after.status.reason === 'checkmate') {
            st.steps.push({ uci: after.uci, san: after.san, node });
            st.node = null;
            finishTry();
            return;
          }
        } catch (e) {
          toast(explain(e), 'error');
        }
      }
      st.mistakes += 1;
      st.verdict = 'wrong';
      renderExplorer();
      return;
    }
    play(choice);
    st.verdict = 'right';
    if (/#$/.test(choice.san)) {
      finishTry();
      return;
    }
    renderExplorer();
    try {
      let after = await api('POST', '/v1/position/move', { fen, move: uci });
      const d = st.node && st.node.kind === 'defend' ? mainDefence(st.node.tree) : null;
      if (!st.training || !d) return;
      play({ uci: d.uci, san: d.move, defence: d });
      after = await api('POST', '/v1/position/move', { fen: after.fen, move: d.uci });
      if (!st.training) return;
      st.trainFen = after.fen;
      st.trainLegal = after.legal_moves || [];
    } catch (e) {
      toast(explain(e), 'error');
    }
    renderExplorer();
  }

  /** The try reached mate: the solution is shown, the explorer open. */
  function finishTry() {
    st.training = false;
    st.verdict = 'solved';
    renderJob();
    renderExplorer();
  }

  /** Ends the try and shows the solution from the problem position. */
  function reveal() {
    st.training = false;
    st.verdict = null;
    resetExplorer();
    renderJob();
  }

  /** On a narrow screen (one column, as the style sheet's 860 px) the board is above the form: bring it back into view. */
  function boardIntoView() {
    if (window.matchMedia('(max-width: 860px)').matches) board.el.scrollIntoView({ block: 'start', behavior: 'smooth' });
  }

  // ----- the explorer -----

  function rootNode() {
    const r = st.result;
    if (r && r.solutions) return r.solutions.length ? { kind: 'help', lines: r.solutions, ply: 0 } : null;
    if (r && r.trees) return r.trees.length ? { kind: 'attack', options: r.trees } : null;
    if (!r || !r.tree) return null;
    return { kind: 'attack', options: [r.tree, ...(r.cooks || [])] };
  }

  function resetExplorer() {
    st.steps = [];
    st.node = rootNode();
    renderExplorer();
  }

  function currentBoard() {
    let b = st.start.board;
    for (const s of st.steps) b = applyUci(b, s.uci);
    return b;
  }

  /** The side to move after `n` plies from the problem position. @param {number} n */
  function turnAt(n) {
    const first = st.start.turn;
    return n % 2 === 0 ? first : first === 'w' ? 'b' : 'w';
  }

  /** The moves allowed at the current node: the tree's own. @returns {TreeMove[]} */
  function nodeMoves() {
    const n = st.node;
    if (!n) return [];
    if (n.kind === 'help') {
      // The next moves of the solutions that go on from here, each once.
      /** @type {TreeMove[]} */
      const out = [];
      for (const line of n.lines) {
        const uci = line.uci[n.ply];
        if (uci && !out.some((m) => m.uci === uci)) out.push({ uci, san: line.san[n.ply] });
      }
      return out;
    }
    if (n.kind === 'attack') return n.options.map((/** @type {any} */ t) => ({ uci: t.uci, san: t.move, tree: t }));
    return n.tree.defences.map((/** @type {any} */ d) => ({ uci: d.uci, san: d.move, defence: d }));
  }

  /** @param {TreeMove} choice */
  function play(choice) {
    const from = st.node;
    st.steps.push({ uci: choice.uci, san: choice.san, node: from });
    if (from && from.kind === 'help') {
      const ply = from.ply + 1;
      const lines = from.lines.filter((/** @type {any} */ l) => l.uci[from.ply] === choice.uci && l.uci.length > ply);
      st.node = lines.length ? { kind: 'help', lines, ply } : null;
    } else if (choice.tree) st.node = { kind: 'defend', tree: choice.tree };
    // A selfmate's mating defence ends the line: it has no reply.
    else st.node = choice.defence.reply ? { kind: 'attack', options: [choice.defence.reply] } : null;
    renderExplorer();
  }

  /** @param {string} uci */
  function playTreeMove(uci) {
    const c = nodeMoves().find((m) => m.uci === uci);
    if (c) play(c);
  }

  /** The defence that resists longest (the main line's choice). @param {any} tree */
  function mainDefence(tree) {
    /** @type {any} */
    let best = null;
    // A selfmate's mating defence has no reply: it resists least.
    const resists = (/** @type {any} */ d) => (d.reply ? d.reply.mate_in : 0);
    for (const d of tree.defences) if (!best || resists(d) > resists(best)) best = d;
    return best;
  }

  function nextMove() {
    const n = st.node;
    if (!n) return;
    if (n.kind === 'help') {
      const m = nodeMoves()[0];
      if (m) play(m);
    } else if (n.kind === 'attack') {
      play({ uci: n.options[0].uci, san: n.options[0].move, tree: n.options[0] });
    } else {
      const d = mainDefence(n.tree);
      if (d) play({ uci: d.uci, san: d.move, defence: d });
    }
  }

  function stepBack() {
    const s = st.steps.pop();
    if (s) st.node = s.node;
    renderExplorer();
  }

  function renderExplorer() {
    if (!st.start) return;
    const b = currentBoard();
    const n = st.steps.length;
    const last = st.steps[n - 1];
    const turn = turnAt(n);
    const mated = last && /#$/.test(last.san);
    // A mate is seen from the mating side; a helpmate or selfmate, as problems are printed,
    // from White.
    board.setOrientation(genre() !== '#' || st.start.turn === 'w' ? 'white' : 'black');
    board.set({
      board: b,
      lastMove: last ? last.uci : null,
      check: last && sanChecks(last.san) ? kingSquare(b, turn) : -1,
      // A try offers every legal move (a wrong one is told so); the explorer, the tree's own.
      legal: st.training ? (turn === st.start.turn ? st.trainLegal : []) : nodeMoves().map((m) => m.uci),
      turn,
    });
    board.svg.dataset.ply = String(n);
    const node = st.node;
    const moves = nodeMoves();
    btnBack.disabled = n === 0;
    btnReset.disabled = n === 0;
    btnNext.disabled = !node || !moves.length;
    explorerLine();
    boardStatus.className = 'status-box';
    boardStatus.dataset.state = mated ? 'mate' : 'open';
    boardStatus.dataset.verdict = st.verdict || '';
    boardStatus.dataset.fen = st.training ? st.trainFen : '';
    if (st.training && node) {
      const left = node.kind === 'attack' ? node.options[0].mate_in : null;
      const task = left ? `${side(turn)} to play: mate in ${left}` : `${side(turn)} defends…`;
      if (st.verdict === 'wrong') {
        setChildren(boardStatus, h('strong.wrong', '✗ Not the solution here.'), h('span', `Try again (${st.mistakes} wrong so far), or reveal the solution. ${task}.`));
      } else if (st.verdict === 'right') {
        setChildren(boardStatus, h('strong.right', '✓ Right!'), h('span', `${task}.`));
      } else {
        setChildren(boardStatus, h('strong', task), h('span.muted', st.trainLegal.length ? 'Find the best move on the board.' : 'Getting the position ready…'));
      }
      setChildren(choices);
      return;
    }
    if (mated && st.verdict === 'solved') {
      boardStatus.classList.add('ended');
      setChildren(boardStatus, h('strong', 'Solved!'), h('span', `${side(turnAt(n - 1))} mates${st.mistakes ? ` (${st.mistakes} wrong move${st.mistakes === 1 ? '' : 's'} on the way)` : ', without a wrong move'}. The solution is shown; go back to try another defence.`));
    } else if (mated) {
      boardStatus.classList.add('ended');
      setChildren(boardStatus, h('strong', 'Checkmate!'), h('span', `${side(turnAt(n - 1))} wins. Go back to try another defence.`));
    } else if (!st.result) {
      setChildren(boardStatus, h('strong', `${side(st.start.turn)} to play`), h('span.muted', 'Choose N and press Solve.'));
    } else if (!node) {
      setChildren(boardStatus, h('strong', `${side(st.start.turn)} to play`), h('span.muted', 'There is no mate to show.'));
    } else if (node.kind === 'help') {
      const left = node.lines[0].uci.length - node.ply;
      setChildren(boardStatus, h('strong', `${side(turn)} to play: helpmate, ${left} move${left === 1 ? '' : 's'} to the mate`), h('span.muted', moves.length > 1 ? `${moves.length} solutions go on differently: pick one below, or press Next move.` : 'Press Next move, or play it on the board.'));
    } else if (node.kind === 'attack' && st.result && st.result.trees) {
      const left = node.options[0].mate_in;
      setChildren(boardStatus, h('strong', `${side(turn)} to play: selfmate in ${left}`), h('span.muted', 'Force the other side to mate: find the move, or press Next move.'));
    } else if (node.kind === 'attack') {
      const left = node.options[0].mate_in;
      setChildren(boardStatus, h('strong', `${side(turn)} to play: mate in ${left}`), h('span.muted', n === 0 ? 'Find the key on the board, or press Next move.' : 'Find the answer, or press Next move.'));
    } else {
      setChildren(boardStatus, h('strong', `${side(turn)} to defend`), h('span.muted', `${moves.length} defence${moves.length === 1 ? '' : 's'}: pick one on the board or below.`));
    }
    // Choices: the other keys at the root, every defence at a defending node.
    if (node && node.kind === 'defend' && moves.length) {
      const main = mainDefence(node.tree);
      setChildren(choices, h('span.label', 'Defences'), moves.map((m) => h('button.btn.small.chip', {
        type: 'button',
        class: m.defence === main ? 'main' : '',
        'data-uci': m.uci,
        title: m.defence === main ? 'The longest defence (main line)' : 'Explore this defence',
        onclick: () => play(m),
      }, m.san)));
    } else if (node && node.kind === 'help' && moves.length > 1) {
      setChildren(choices, h('span.label', 'Solutions go on with'), moves.map((m) => h('button.btn.small.chip', { type: 'button', 'data-uci': m.uci, onclick: () => play(m) }, m.san)));
    } else if (node && node.kind === 'attack' && moves.length > 1) {
      setChildren(choices, h('span.label', 'Keys'), moves.map((m) => h('button.btn.small.chip', { type: 'button', 'data-uci': m.uci, onclick: () => play(m) }, m.san)));
    } else {
      setChildren(choices);
    }
  }

  function explorerLine() {
    if (!st.steps.length) {
      setChildren(lineBox, h('span.muted', st.result ? 'The problem position.' : ''));
      return;
    }
    setChildren(lineBox, numberedLine(st.steps.map((/** @type {{san: string}} */ s) => s.san), st.start.turn, st.start.fullmove));
  }

  /** @param {KeyboardEvent} e */
  const onKey = (e) => {
    const t = /** @type {Element | null} */ (e.target);
    if (t && (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA' || t.tagName === 'SELECT' || t === board.svg)) return;
    if (e.key === 'ArrowRight') nextMove();
    else if (e.key === 'ArrowLeft') stepBack();
    else if (e.key === 'Home') resetExplorer();
    else return;
    e.preventDefault();
  };
  document.addEventListener('keydown', onKey);

  showProblem(st.fen, true);
  fillLengths();
  mateSelect.value = String(PUZZLE_SAMPLES[0].mate);
  showMode();
  sampleSelect.value = '0';
  return () => {
    if (st.unfollow) st.unfollow();
    document.removeEventListener('keydown', onKey);
    clearTimeout(fenTimer);
  };
}
