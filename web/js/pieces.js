// @ts-check
// The chess pieces, drawn here as SVG in a 100×100 box (simple shapes of our own, no piece set
// downloaded from anywhere). `pieceDefs()` gives the <symbol>s; a board shows a piece with
// <use href="#piece-wK">.

const SHAPES = {
  p: {
    body: `<circle cx="50" cy="27" r="12.5"/>
      <path d="M36 46 Q50 39 64 46 L60 52 C60 62 67 70 73 78 L27 78 C33 70 40 62 40 52 Z"/>
      <rect x="22" y="77" width="56" height="11" rx="4"/>`,
    detail: '<path d="M40 52 H60"/>',
  },
  r: {
    body: `<path d="M25 13 H36 V21 H45 V13 H55 V21 H64 V13 H75 V32 H25 Z"/>
      <path d="M32 32 H68 L65 69 H35 Z"/>
      <path d="M29 69 H71 V77 H29 Z"/>
      <rect x="22" y="77" width="56" height="11" rx="4"/>`,
    detail: '<path d="M32 32 H68 M35 69 H65"/>',
  },
  n: {
    body: `<path d="M30 80 H76 C77 62 75 45 67 31 C62 22 56 17 51 15 L48 6 L42 15 C34 18 28 25 24 33 L14 47 C12 51 14 56 19 57 L26 58 C31 57 36 54 41 51 C43 61 35 69 30 80 Z"/>
      <rect x="22" y="77" width="57" height="11" rx="4"/>`,
    detail: `<circle cx="38" cy="29" r="3" class="dot"/><circle cx="20" cy="50" r="1.8" class="dot"/>
      <path d="M57 19 C65 29 70 43 70 60" fill="none"/>`,
  },
  b: {
    body: `<circle cx="50" cy="13" r="5.5"/>
      <path d="M50 19 C37 29 31 42 36 55 H64 C69 42 63 29 50 19 Z"/>
      <path d="M36 55 H64 L62 62 H38 Z"/>
      <path d="M40 62 C40 68 34 73 29 78 H71 C66 73 60 68 60 62 Z"/>
      <rect x="22" y="77" width="56" height="11" rx="4"/>`,
    detail: '<path d="M55 31 L46 44 M36 55 H64 M38 62 H62" fill="none"/>',
  },
  q: {
    body: `<circle cx="15" cy="26" r="5.5"/><circle cx="32" cy="17" r="5.5"/><circle cx="50" cy="12" r="5.5"/>
      <circle cx="68" cy="17" r="5.5"/><circle cx="85" cy="26" r="5.5"/>
      <path d="M16 30 L30 64 H70 L84 30 L67 51 L67 21 L56 47 L50 16 L44 47 L33 21 L33 51 Z"/>
      <path d="M30 64 H70 L72 73 H28 Z"/>
      <rect x="23" y="75" width="54" height="12" rx="4"/>`,
    detail: '<path d="M30 64 H70 M28 73 H72" fill="none"/>',
  },
  k: {
    body: `<path d="M46 4 H54 V11 H61 V18 H54 V27 H46 V18 H39 V11 H46 Z"/>
      <path d="M44 27 H56 L54 40 H46 Z"/>
      <path d="M50 41 C55 28 74 26 78 40 C82 52 71 58 67 66 H33 C29 58 18 52 22 40 C26 26 45 28 50 41 Z"/>
      <path d="M33 66 H67 L69 74 H31 Z"/>
      <rect x="24" y="75" width="52" height="12" rx="4"/>`,
    detail: '<path d="M50 41 V66 M33 66 H67 M31 74 H69" fill="none"/>',
  },
};

const COLORS = {
  w: { fill: '#fbfaf7', stroke: '#1f1f1f', detail: '#1f1f1f' },
  b: { fill: '#2c2b29', stroke: '#0d0d0d', detail: '#e9e6df' },
};

/**
 * @typedef {{body: string, detail: string, accent?: string}} Shape
 * A piece's drawing in a 100×100 box: `body` in the piece's colour with its outline, `detail`
 * (lines and dots) in the colour that stands out on it, `accent` (optional) in its own colours,
 * the same for both sides.
 */

/**
 * The <symbol> of `shape` in `color`, as markup, with the id `id`. The outline of each colour
 * can be changed from CSS on the <svg> that shows a piece (custom properties reach into <use>):
 * `--piece-b-outline` and `--piece-b-outline-width` (`w` for White), so that a black piece drawn
 * on a dark page (a dark theme's lobby, captured pieces) keeps a visible edge.
 * @param {string} id
 * @param {'w' | 'b'} color
 * @param {Shape} shape
 */
export function symbolMarkup(id, color, shape) {
  const c = COLORS[color];
  const outline = `stroke: var(--piece-${color}-outline, ${c.stroke}); stroke-width: var(--piece-${color}-outline-width, 3.2)`;
  const accent = shape.accent
    ? `<g stroke="#1f1f1f" stroke-width="2.2" stroke-linejoin="round" stroke-linecap="round">${shape.accent}</g>`
    : '';
  return `<symbol id="${id}" viewBox="0 0 100 100">
        <g fill="${c.fill}" style="${outline}" stroke-linejoin="round" stroke-linecap="round">${shape.body}</g>
        <g fill="${c.detail}" stroke="${c.detail}" stroke-width="2.4" stroke-linecap="round" stroke-linejoin="round">${shape.detail}</g>${accent}
      </symbol>`;
}

/** The SVG <symbol> elements of all twelve pieces, as markup (see `symbolMarkup`). */
export function pieceDefs() {
  let out = '';
  for (const color of /** @type {const} */ (['w', 'b'])) {
    for (const [role, shape] of Object.entries(SHAPES)) out += symbolMarkup(`piece-${color}${role.toUpperCase()}`, color, shape);
  }
  return out;
}

/** The symbol id of a FEN piece letter: "K" → "piece-wK", "n" → "piece-bN". @param {string} letter */
export function pieceId(letter) {
  const color = letter === letter.toUpperCase() ? 'w' : 'b';
  return `piece-${color}${letter.toUpperCase()}`;
}

/** English name of a FEN piece letter, for screen readers. @param {string} letter */
export function pieceName(letter) {
  /** @type {Record<string, string>} */
  const names = { p: 'pawn', n: 'knight', b: 'bishop', r: 'rook', q: 'queen', k: 'king' };
  const color = letter === letter.toUpperCase() ? 'white' : 'black';
  return `${color} ${names[letter.toLowerCase()]}`;
}

/**
 * A standalone <svg> of one piece (for the promotion chooser and legends), of class
 * `piece-icon` (the stylesheet outlines black pieces on dark backgrounds).
 * @param {string} letter
 * @param {number} [size]
 */
export function pieceSvg(letter, size = 40) {
  installPieceDefs();
  const svg = symbolSvg(pieceId(letter), size);
  svg.dataset.piece = letter;
  return svg;
}

/**
 * A standalone <svg> of class `piece-icon` showing the <symbol> `id` (installed by its owner).
 * @param {string} id
 * @param {number} size
 */
export function symbolSvg(id, size) {
  const ns = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(ns, 'svg');
  svg.setAttribute('class', 'piece-icon');
  svg.setAttribute('viewBox', '0 0 100 100');
  svg.setAttribute('width', String(size));
  svg.setAttribute('height', String(size));
  svg.setAttribute('aria-hidden', 'true');
  const use = document.createElementNS(ns, 'use');
  use.setAttribute('href', `#${id}`);
  svg.append(use);
  return svg;
}

/**
 * Puts `defs` (SVG definitions, as markup) into the document in a hidden <svg> of its own, to be
 * shared by every board on the page through `<use href>`.
 * @param {string} defs
 */
export function installDefs(defs) {
  const ns = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(ns, 'svg');
  svg.setAttribute('width', '0');
  svg.setAttribute('height', '0');
  svg.setAttribute('aria-hidden', 'true');
  svg.style.position = 'absolute';
  svg.innerHTML = `<defs>${defs}</defs>`;
  document.body.prepend(svg);
}

let installed = false;

/** Puts the piece symbols once into the document (shared by every board on the page). */
export function installPieceDefs() {
  if (installed) return;
  installed = true;
  installDefs(`${pieceDefs()}
    <radialGradient id="check-glow">
      <stop offset="0%" stop-color="#ff3b30" stop-opacity="1"/>
      <stop offset="30%" stop-color="#e8221a" stop-opacity="0.85"/>
      <stop offset="100%" stop-color="#a4160f" stop-opacity="0"/>
    </radialGradient>`);
}
