// @ts-check
// The lobby: create a game (colour, time control; against anyone through a seek, a friend or an
// engine), the open seeks, open a game by link, and the games this browser knows.

import { api, explain, forgetGame, gameLink, myGames, rememberGame } from './api.js';
import { copyField, h, setChildren, toast } from './dom.js';
import { mountEngineSessions } from './engine-sessions.js';
import { pieceSvg } from './pieces.js';
import { ARMIES, chess2Link } from './chess2.js';
import { RANGE_SPREADS, mountSeeks } from './seeks.js';

const TIME_CONTROLS = [
  { id: 'none', label: 'Unlimited' },
  { id: '1+0', label: '1 + 0 · Bullet', initial: 1, inc: 0 },
  { id: '3+2', label: '3 + 2 · Blitz', initial: 3, inc: 2 },
  { id: '5+0', label: '5 + 0 · Blitz', initial: 5, inc: 0 },
  { id: '10+0', label: '10 + 0 · Rapid', initial: 10, inc: 0 },
  { id: '15+10', label: '15 + 10 · Rapid', initial: 15, inc: 10 },
  { id: '30+0', label: '30 + 0 · Classical', initial: 30, inc: 0 },
  { id: 'custom', label: 'Custom…' },
];

const THINK_TIMES = [
  { ms: 200, label: '0.2 s per move' },
  { ms: 500, label: '0.5 s per move' },
  { ms: 1000, label: '1 s per move' },
  { ms: 2000, label: '2 s per move' },
  { ms: 5000, label: '5 s per move' },
];

/**
 * @typedef {{value: string, label: string, title?: string, icon?: Element}} SegmentOption
 */

/**
 * A row of radio buttons drawn as one segmented control.
 * @param {string} name
 * @param {SegmentOption[]} options
 * @param {string} checked
 * @param {(value: string) => void} [onChange]
 */
function segmented(name, options, checked, onChange) {
  return h('div.segmented', { role: 'radiogroup' },
    options.map((o) => {
      const id = `${name}-${o.value}`;
      const input = h('input', { type: 'radio', name, id, value: o.value, checked: o.value === checked });
      input.addEventListener('change', () => onChange && onChange(o.value));
      return [input, h('label', { for: id, title: o.title || '' }, o.icon || null, h('span', o.label))];
    }));
}

function randomIcon() {
  const wrap = h('span.icon-random');
  wrap.append(pieceSvg('K', 26), pieceSvg('k', 26));
  return wrap;
}

/** Mounts the lobby into `root`; returns the unmount function.
 * @param {HTMLElement} root
 * @returns {() => void} */
export function mountLobby(root) {
  /** @type {{name: string, default?: boolean, reachable?: boolean, variants?: string[]}[] | null} */
  let engines = null;
  const form = h('form.card.create-game', { 'aria-labelledby': 'create-title' });
  const result = h('div.card.created', { hidden: true });
  const engineSessions = mountEngineSessions();
  const state = { opponent: 'friend', color: 'random', tc: 'none', variant: 'standard' };

  // Chess 2: each side's army.
  const armySelect = (/** @type {string} */ side) => h(`select#army-${side}`, { 'aria-label': `${side === 'white' ? 'White' : 'Black'}'s army` },
    ARMIES.map((a) => h('option', { value: a.id }, a.name)));
  const whiteArmy = armySelect('white');
  const blackArmy = armySelect('black');
  const armiesRow = h('div.field.armies', { hidden: true },
    h('label', { for: 'army-white' }, 'White\'s army'), whiteArmy,
    h('label', { for: 'army-black' }, 'Black\'s army'), blackArmy);
  const variantSeg = segmented('variant', [
    { value: 'standard', label: 'Chess' },
    { value: 'chess2', label: 'Chess 2', title: 'David Sirlin\'s Chess 2: six armies, duels, midline invasion' },
  ], 'standard', (/** @type {string} */ v) => {
    state.variant = v;
    armiesRow.hidden = v !== 'chess2';
    thinkSelect.disabled = v === 'chess2';
    thinkNote.hidden = v !== 'chess2' || !playsComputer();
    renderEngines();
  });

  const engineSelect = h('select#engine', { 'aria-label': 'Engine' });
  // An engine match: the engine playing Black (the one above plays White).
  const rivalSelect = h('select#engine-rival', { 'aria-label': 'Black\'s engine' });
  const rivalLabel = h('label', { for: 'engine-rival', hidden: true }, 'Black\'s engine');
  const engineLabel = h('label', { for: 'engine' }, 'Engine');
  rivalSelect.hidden = true;
  /** Whether the form's game has an engine in it (against the computer, or an engine match). */
  const playsComputer = () => state.opponent === 'engine' || state.opponent === 'match';
  const thinkSelect = h('select#think', { 'aria-label': 'Engine thinking time' },
    THINK_TIMES.map((t) => h('option', { value: String(t.ms), selected: t.ms === 500 }, t.label)));
  const engineRow = h('div.field.engine-options', { hidden: true },
    engineLabel, engineSelect, rivalLabel, rivalSelect,
    h('label', { for: 'think' }, 'Strength'), thinkSelect);
  const engineNote = h('p.muted.small');
  // Why "Strength" is greyed out for Chess 2.
  const thinkNote = h('p.muted.small#think-note', { hidden: true },
    'In Chess 2 the computer is chessd\'s own player, which searches three moves deep: its strength is fixed.');

  const tcSelect = h('select#tc', { 'aria-label': 'Time control' },
    TIME_CONTROLS.map((t) => h('option', { value: t.id }, t.label)));
  const minutes = h('input#tc-min', { type: 'number', min: '0.25', max: '180', step: '0.25', value: '10', 'aria-label': 'Minutes per side' });
  const increment = h('input#tc-inc', { type: 'number', min: '0', max: '60', step: '1', value: '0', 'aria-label': 'Increment in seconds' });
  const customRow = h('div.field.custom-tc', { hidden: true },
    h('label', { for: 'tc-min' }, 'Minutes'), minutes, h('label', { for: 'tc-inc' }, 'Increment (s)'), increment);
  tcSelect.addEventListener('change', () => {
    state.tc = tcSelect.value;
    customRow.hidden = state.tc !== 'custom';
  });

  const opponentSeg = segmented('opponent', [
    { value: 'anyone', label: 'Anyone', title: 'Post a seek in the lobby: the first player who accepts it plays you' },
    { value: 'friend', label: 'A friend' },
    { value: 'engine', label: 'The computer' },
    { value: 'match', label: 'Computer v computer', title: 'Watch two engines play each other' },
  ], 'friend', (/** @type {string} */ v) => {
    state.opponent = v;
    engineRow.hidden = !playsComputer();
    rivalSelect.hidden = v !== 'match';
    rivalLabel.hidden = v !== 'match';
    engineLabel.textContent = v === 'match' ? 'White\'s engine' : 'Engine';
    colorRow.hidden = v === 'match';
    ratedRow.hidden = v !== 'anyone';
    rangeRow.hidden = v !== 'anyone';
    thinkNote.hidden = !playsComputer() || state.variant !== 'chess2';
    submit.textContent = v === 'anyone' ? 'Post a seek' : 'Create game';
  });

  const colorSeg = segmented('color', [
    { value: 'white', label: 'White', icon: pieceSvg('K', 26) },
    { value: 'random', label: 'Random', icon: randomIcon() },
    { value: 'black', label: 'Black', icon: pieceSvg('k', 26) },
  ], 'random', (/** @type {string} */ v) => { state.color = v; });

  const submit = h('button.btn.primary.big#create-game', { type: 'submit' }, 'Create game');
  const colorRow = h('div.field', h('span.label', 'Your colour'), colorSeg);
  // A seek may be rated: the game then changes both players' ratings.
  const ratedBox = h('input#seek-rated', { type: 'checkbox' });
  const ratedRow = h('label.field.rated-row', { for: 'seek-rated', hidden: true }, ratedBox, ' Rated (both players\' ratings change)');
  // An optional rating range: only opponents rated within that of this player may accept.
  const rangeSelect = h('select#seek-range', { 'aria-label': 'Opponent\'s rating' },
    h('option', { value: '0' }, 'Any rating'),
    RANGE_SPREADS.map((d) => h('option', { value: String(d) }, `±${d} of my rating`)));
  const rangeRow = h('div.field.range-row', { hidden: true }, h('label.label', { for: 'seek-range' }, 'Opponent\'s rating'), rangeSelect);
  setChildren(form,
    h('h2#create-title', 'Create a game'),
    h('div.field', h('span.label', 'Game'), variantSeg),
    armiesRow,
    h('div.field', h('span.label', 'Play against'), opponentSeg),
    engineRow,
    thinkNote,
    engineNote,
    colorRow,
    ratedRow,
    rangeRow,
    h('div.field', h('label.label', { for: 'tc' }, 'Time control'), tcSelect),
    customRow,
    submit);

  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    submit.disabled = true;
    try {
      await create();
    } catch (err) {
      toast(explain(err), 'error');
      engineSessions.refresh();
    } finally {
      submit.disabled = false;
    }
  });

  async function create() {
    if (state.opponent === 'anyone') {
      await seeks.post(seekBody(), Number(rangeSelect.value) || 0);
      return;
    }
    if (state.opponent === 'match') {
      await createMatch();
      return;
    }
    const color = state.color === 'random' ? (Math.random() < 0.5 ? 'white' : 'black') : state.color;
    const other = color === 'white' ? 'black' : 'white';
    /** @type {Record<string, any>} */
    const body = {};
    const tc = chosenTimeControl();
    if (tc) body.time_control = tc;
    /** @type {string | {engine: string}} */
    let opponent = 'friend';
    if (state.opponent === 'engine') {
      const name = engineSelect.value;
      if (!name) throw new Error('No engine is available on this server');
      body.opponent = { engine: name, plays: other, go: { movetime: Number(thinkSelect.value) } };
      opponent = { engine: name };
    }
    const chess2 = state.variant === 'chess2';
    if (chess2) {
      body.variant = 'chess2';
      body.armies = { white: whiteArmy.value, black: blackArmy.value };
      // chessd's own Chess 2 player searches to a depth; it takes no time limit.
      if (body.opponent) body.opponent.go = { depth: 3 };
    }
    const created = await api('POST', '/v1/games', body);
    const secrets = created.secrets;
    rememberGame({
      id: created.id,
      secret: secrets[color],
      color,
      admin: secrets.admin,
      invite: opponent === 'friend' ? secrets[other] : null,
      opponent,
      tc: body.time_control || null,
      variant: chess2 ? 'chess2' : undefined,
    });
    const page = chess2 ? 'chess2' : 'game';
    if (opponent !== 'friend') {
      location.hash = `#/${page}/${created.id}?seat=${encodeURIComponent(secrets[color])}`;
      return;
    }
    showCreated(created.id, color, secrets[color], secrets[other], other, chess2);
    renderGames();
  }

  /** An engine match: both engines chosen, watched as a spectator (the admin secret kept). */
  async function createMatch() {
    const white = engineSelect.value;
    const black = rivalSelect.value;
    if (!white || !black) throw new Error('No engine is available on this server');
    const chess2 = state.variant === 'chess2';
    // chessd's own Chess 2 player searches to a depth; it takes no time limit.
    const go = chess2 ? { depth: 3 } : { movetime: Number(thinkSelect.value) };
    /** @type {Record<string, any>} */
    const body = { opponents: [{ engine: white, plays: 'white', go }, { engine: black, plays: 'black', go }] };
    const tc = chosenTimeControl();
    if (tc) body.time_control = tc;
    if (chess2) {
      body.variant = 'chess2';
      body.armies = { white: whiteArmy.value, black: blackArmy.value };
    }
    const created = await api('POST', '/v1/games', body);
    rememberGame({ id: created.id, admin: created.secrets.admin, opponent: { engine: `${white} v ${black}` }, tc: tc || null, variant: chess2 ? 'chess2' : undefined });
    location.hash = `#/${chess2 ? 'chess2' : 'game'}/${created.id}`;
  }

  /** The time control the form gives: `undefined` for untimed. */
  function chosenTimeControl() {
    const tc = TIME_CONTROLS.find((t) => t.id === state.tc);
    if (state.tc === 'custom') {
      const m = Number(minutes.value);
      const i = Number(increment.value);
      if (!(m > 0) || !(i >= 0)) throw new Error('Give the minutes per side (and an increment of 0 or more)');
      return { initial_ms: Math.round(m * 60_000), increment_ms: Math.round(i * 1000) };
    }
    if (tc && tc.initial) return { initial_ms: tc.initial * 60_000, increment_ms: tc.inc * 1000 };
    return undefined;
  }

  /** The seek the form describes (`POST /v1/seeks`). */
  function seekBody() {
    /** @type {Record<string, unknown>} */
    const body = { variant: state.variant, color: state.color, rated: !!ratedBox.checked };
    const tc = chosenTimeControl();
    if (tc) body.time_control = tc;
    if (state.variant === 'chess2') body.armies = { white: whiteArmy.value, black: blackArmy.value };
    return body;
  }

  /**
   * The links of a game just created.
   * @param {string} id
   * @param {string} color  the creator's side
   * @param {string} mine  the creator's seat secret
   * @param {string | null} theirs  the opponent's seat secret (a friend's game)
   * @param {string} other  the opponent's side
   * @param {boolean} [chess2]
   */
  function showCreated(id, color, mine, theirs, other, chess2 = false) {
    const link = chess2 ? chess2Link : gameLink;
    form.hidden = true;
    result.hidden = false;
    setChildren(result,
      h('h2', 'Game created'),
      h('p', `You play ${color}. Send the first link to your opponent; they play ${other}. Anyone with the second link can watch.`),
      copyField(`Link for your opponent (${other})`, link(id, theirs), { id: 'invite-link' }),
      copyField('Link for spectators', link(id), { id: 'watch-link' }),
      h('div.actions',
        h('a.btn.primary.big#go-to-game', { href: `#/${chess2 ? 'chess2' : 'game'}/${id}?seat=${encodeURIComponent(mine)}` }, 'Go to the game'),
        h('button.btn', { type: 'button', onclick: () => { result.hidden = true; form.hidden = false; } }, 'Create another')));
    /** @type {HTMLElement} */ (result.querySelector('#go-to-game')).focus();
  }

  // Join by link or id.
  const joinInput = h('input#join-input', { type: 'text', placeholder: 'Paste a game link or id', 'aria-label': 'Game link or id', autocomplete: 'off' });
  const joinForm = h('form.join-row', joinInput, h('button.btn', { type: 'submit' }, 'Open'));
  joinForm.addEventListener('submit', (e) => {
    e.preventDefault();
    const text = joinInput.value.trim();
    // A standard game's link or a Chess 2 game's (a bare id opens the game page, which sends a
    // Chess 2 game on to its own page).
    const link = text.match(/#\/(game|chess2)\/.+$/);
    if (link) {
      location.hash = link[0];
    } else if (/^[0-9a-f-]{36}$/i.test(text)) {
      location.hash = `#/game/${text}`;
    } else {
      toast('That is not a game link or id', 'error');
    }
  });

  const list = h('ul.my-games');
  const side = h('div.card.side-card',
    h('h2', 'Open a game'), joinForm,
    h('h3', 'Your games'), list);

  function renderGames() {
    const games = myGames();
    if (!games.length) {
      setChildren(list, h('li.muted', 'Games you create or join appear here.'));
      return;
    }
    setChildren(list, games.slice(0, 10).map((g) => {
      const status = h('span.game-status.muted', '…');
      const engine = g.opponent && typeof g.opponent === 'object' ? g.opponent.engine : null;
      const vs = engine ? `vs ${engine}` : g.opponent === 'analysis' ? 'analysis copy' : 'vs a friend';
      const when = new Date(g.created || Date.now()).toLocaleString();
      const item = h('li',
        h('a', { href: `#/${g.variant === 'chess2' ? 'chess2' : 'game'}/${g.id}${g.secret ? `?seat=${encodeURIComponent(g.secret)}` : ''}` },
          g.color ? pieceSvg(g.color === 'white' ? 'K' : 'k', 22) : null,
          h('span', `${vs}`), h('span.muted.small', when)),
        status);
      api('GET', `/v1/games/${g.id}/status`).then((s) => {
        const r = s.status.result;
        status.textContent = r === 'ongoing' ? 'playing' : /** @type {Record<string, string>} */ ({ white_wins: '1–0', black_wins: '0–1', draw: '½–½' })[r];
      }, () => {
        status.textContent = 'gone';
        item.classList.add('gone');
        item.append(h('button.btn.small.ghost', { type: 'button', title: 'Forget this game', 'aria-label': 'Forget this game', onclick: () => { forgetGame(g.id); renderGames(); } }, '×'));
      });
      return item;
    }));
  }

  async function loadEngines() {
    try {
      const answer = await api('GET', '/v1/engines');
      engines = answer.engines || [];
    } catch {
      engines = [];
    }
    renderEngines();
  }

  /** The engine choices for the chosen variant: one that cannot play it is shown, disabled. */
  function renderEngines() {
    const list = engines;
    if (!list) return;
    const variant = state.variant;
    /** @param {{reachable?: boolean, variants?: string[]}} e */
    const playsVariant = (e) => !e.variants || e.variants.includes(variant);
    /** @param {{reachable?: boolean, variants?: string[]}} e */
    const usableEngine = (e) => e.reachable !== false && playsVariant(e);
    const previous = engineSelect.value;
    const fallback = list.find((e) => usableEngine(e) && e.default) || list.find(usableEngine);
    const chosen = list.find((e) => e.name === previous && usableEngine(e)) || fallback;
    const options = () => list.map((e) => {
      let why = '';
      if (e.reachable === false) why = ' – unreachable';
      else if (!playsVariant(e)) why = variant === 'chess2' ? ' – plays standard chess only' : ' – cannot play this game';
      return h('option', {
        value: e.name,
        selected: !!chosen && chosen.name === e.name,
        disabled: !usableEngine(e),
      }, `${e.name}${e.default ? ' (default)' : ''}${why}`);
    });
    const previousRival = rivalSelect.value;
    setChildren(engineSelect, options());
    setChildren(rivalSelect, options());
    if (previousRival) rivalSelect.value = previousRival;
    const usable = !!chosen;
    const engineRadio = /** @type {HTMLInputElement | null} */ (document.getElementById('opponent-engine'));
    if (engineRadio) engineRadio.disabled = !usable;
    const matchRadio = /** @type {HTMLInputElement | null} */ (document.getElementById('opponent-match'));
    if (matchRadio) matchRadio.disabled = !usable;
    if (!usable && playsComputer()) {
      const friend = /** @type {HTMLInputElement | null} */ (document.getElementById('opponent-friend'));
      if (friend) friend.click();
    }
    engineNote.textContent = usable ? '' : variant === 'chess2'
      ? 'No engine on this server plays Chess 2, so only games against a friend can be created.'
      : 'No engine is available on this server, so only games against a friend can be created.';
  }

  const seeks = mountSeeks();
  const page = h('section.page.lobby',
    h('div.hero', h('h1', 'Play chess'), h('p.muted', 'Against anyone waiting in the lobby, a friend with a link, or the computer. ', h('a#watch-games-link', { href: '#/watch' }, 'Watch the games being played live.'))),
    h('div.lobby-grid', h('div', seeks.waiting, seeks.poolsCard, form, result), h('div.side-column', seeks.card, side, engineSessions.card)));
  setChildren(root, page);
  renderGames();
  engineSessions.refresh();
  loadEngines();
  return () => seeks.unmount();
}
