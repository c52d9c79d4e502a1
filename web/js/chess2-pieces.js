// @ts-check
// The Chess 2 armies' special pieces, drawn here as SVG in the 100×100 box of pieces.js (shapes
// of our own, nothing downloaded): each keeps the outline and colours of a plain piece of its
// side and a silhouette of its own, so that it reads at a glance on a small board. Which piece
// gets which drawing is chess2-armies.js's (`armyLook`); a board shows one with
// <use href="#piece-w-reaper">.

import { armyPieceId, KIND_NAMES } from './chess2-armies.js';
import { installDefs, symbolMarkup, symbolSvg } from './pieces.js';

/** The pedestal every piece stands on (as in pieces.js). */
const BASE = '<rect x="22" y="77" width="56" height="11" rx="4"/>';

/** The Empowered army's mark: a lightning bolt, amber on both sides. */
const BOLT = '<path fill="#f4b400" d="M56 30 L38 54 H49 L43 72 L63 46 H52 L59 30 Z"/>';

/** The plain knight, bishop, rook and queen the Empowered pieces are drawn over (pieces.js's). */
const KNIGHT = `<path d="M30 80 H76 C77 62 75 45 67 31 C62 22 56 17 51 15 L48 6 L42 15 C34 18 28 25 24 33 L14 47 C12 51 14 56 19 57 L26 58 C31 57 36 54 41 51 C43 61 35 69 30 80 Z"/>
      <rect x="22" y="77" width="57" height="11" rx="4"/>`;
const BISHOP = `<circle cx="50" cy="13" r="5.5"/>
      <path d="M50 19 C37 29 31 42 36 55 H64 C69 42 63 29 50 19 Z"/>
      <path d="M36 55 H64 L62 62 H38 Z"/>
      <path d="M40 62 C40 68 34 73 29 78 H71 C66 73 60 68 60 62 Z"/>${BASE}`;
const ROOK = `<path d="M25 13 H36 V21 H45 V13 H55 V21 H64 V13 H75 V32 H25 Z"/>
      <path d="M32 32 H68 L65 69 H35 Z"/>
      <path d="M29 69 H71 V77 H29 Z"/>${BASE}`;
const QUEEN = `<circle cx="15" cy="26" r="5.5"/><circle cx="32" cy="17" r="5.5"/><circle cx="50" cy="12" r="5.5"/>
      <circle cx="68" cy="17" r="5.5"/><circle cx="85" cy="26" r="5.5"/>
      <path d="M16 30 L30 64 H70 L84 30 L67 51 L67 21 L56 47 L50 16 L44 47 L33 21 L33 51 Z"/>
      <path d="M30 64 H70 L72 73 H28 Z"/>
      <rect x="23" y="75" width="54" height="12" rx="4"/>`;

/**
 * A leaf of the Jungle Queen's crown, pointing up from (50, 44), turned by `deg`.
 * @param {number} deg
 */
const leaf = (deg) => `<path transform="rotate(${deg} 50 50)" d="M50 6 C60 14 61 28 50 40 C39 28 40 14 50 6 Z"/>`;

/**
 * A sword pointing up from its hilt at (50, 84), turned by `deg` about (50, 56).
 * @param {number} deg
 */
const sword = (deg) => `<g transform="rotate(${deg} 50 56)"><path d="M46 66 V12 L50 3 L54 12 V66 Z"/>
      <path d="M38 66 H62 V72 H38 Z"/><path d="M47 72 H53 V82 H47 Z"/><circle cx="50" cy="85" r="4"/></g>`;

/** @type {Record<string, import('./pieces.js').Shape>} The drawings, by kind (chess2-armies.js). */
export const ARMY_SHAPES = {
  // A queen of three horns, an open eye on her breast.
  nemesis: {
    body: `<path d="M22 44 L14 6 L36 30 L50 2 L64 30 L86 6 L78 44 Z"/>
      <path d="M26 44 H74 L66 68 H34 Z"/>
      <path d="M31 68 H69 L72 76 H28 Z"/>${BASE}`,
    detail: `<path d="M34 55 Q50 42 66 55 Q50 68 34 55 Z" fill="none"/>
      <path d="M50 49 C47 53 47 57 50 61 C53 57 53 53 50 49 Z"/>
      <path d="M26 44 H74" fill="none"/>`,
  },
  // A horned pawn with slanted eyes.
  'nemesis-pawn': {
    body: `<path d="M39 22 L31 4 L47 16 Z"/><path d="M61 22 L69 4 L53 16 Z"/>
      <circle cx="50" cy="28" r="14"/>
      <path d="M36 48 Q50 41 64 48 L60 54 C60 63 67 70 73 78 L27 78 C33 70 40 63 40 54 Z"/>${BASE}`,
    detail: `<path d="M41 26 L47 30 M59 26 L53 30" fill="none" stroke-width="3.4"/>
      <path d="M40 54 H60" fill="none"/>`,
  },
  // The plain pieces, each with the army's bolt.
  'empowered-knight': {
    body: KNIGHT,
    detail: '<circle cx="38" cy="29" r="3"/><circle cx="20" cy="50" r="1.8"/>',
    accent: `<g transform="translate(10 12) scale(0.85)">${BOLT}</g>`,
  },
  'empowered-bishop': {
    body: BISHOP,
    detail: '<path d="M36 55 H64 M38 62 H62" fill="none"/>',
    accent: `<g transform="translate(13 1) scale(0.74)">${BOLT}</g>`,
  },
  'empowered-rook': {
    body: ROOK,
    detail: '<path d="M32 32 H68 M35 69 H65" fill="none"/>',
    accent: `<g transform="translate(7.5 8) scale(0.85)">${BOLT}</g>`,
  },
  'empowered-queen': {
    body: QUEEN,
    detail: '<path d="M30 64 H70 M28 73 H72" fill="none"/>',
    accent: `<g transform="translate(9.6 11.2) scale(0.8)">${BOLT}</g>`,
  },
  // A hooded figure with a scythe.
  reaper: {
    body: `<path d="M83 88 L79 88 L82 6 L86 6 Z"/>
      <path d="M86 7 C66 -3 36 1 12 22 C38 10 62 10 84 18 Z"/>
      <path d="M46 20 C30 20 24 36 26 52 L20 78 H72 L66 52 C68 36 62 20 46 20 Z"/>${BASE}`,
    detail: `<path d="M46 30 C37 30 33 39 35 50 C39 56 53 56 57 50 C59 39 55 30 46 30 Z"/>
      <path d="M46 60 V76" fill="none"/>`,
    accent: '<circle cx="41.5" cy="43" r="2.8" fill="#e5484d" stroke="none"/><circle cx="50.5" cy="43" r="2.8" fill="#e5484d" stroke="none"/>',
  },
  // A sheet ghost: round head, ragged hem, hollow eyes.
  ghost: {
    body: `<path d="M22 88 V44 C22 12 78 12 78 44 V88 L68.7 78 L59.3 88 L50 78 L40.7 88 L31.3 78 Z"/>
      <path d="M22 56 L10 48 L22 66 Z"/><path d="M78 56 L90 48 L78 66 Z"/>`,
    detail: `<ellipse cx="39" cy="43" rx="6" ry="8.5"/><ellipse cx="61" cy="43" rx="6" ry="8.5"/>
      <ellipse cx="50" cy="63" rx="5" ry="6.5"/>`,
  },
  // A king crowned with spikes, a red shield on his breast, two swords crossed behind.
  'warrior-king': {
    body: `${[-44, 44].map(sword).join('')}
      <path d="M37 33 L34 10 L43 20 L50 5 L57 20 L66 10 L63 33 Z"/>
      <path d="M44 33 H56 L54 41 H46 Z"/>
      <path d="M50 41 C55 28 74 26 78 40 C82 52 71 58 67 66 H33 C29 58 18 52 22 40 C26 26 45 28 50 41 Z"/>
      <path d="M33 66 H67 L69 74 H31 Z"/>
      <rect x="24" y="75" width="52" height="12" rx="4"/>`,
    detail: '<path d="M33 66 H67 M31 74 H69 M37 33 H63" fill="none"/>',
    accent: `<path fill="#c8372d" d="M38 42 H62 V52 C62 60 56 64 50 67 C44 64 38 60 38 52 Z"/>
      <path d="M50 45 V63 M42 51 H58" stroke="#f4b400" stroke-width="3"/>`,
  },
  // A knight's head turned the other way, a wild mane streaming behind, nostrils flared.
  'wild-horse': {
    body: `<path d="M70 80 H24 C23 64 24 50 30 40 L10 46 L26 32 L8 28 L28 20 L16 8 L36 12 L40 2 L48 12 C58 14 66 20 72 28 L86 44 C88 48 86 53 82 54 L74 56 C69 55 64 52 59 49 C57 59 65 69 70 80 Z"/>
      <rect x="21" y="77" width="57" height="11" rx="4"/>`,
    detail: `<path d="M56 25 L66 28 L60 31 Z"/><circle cx="81" cy="47" r="2.2"/>
      <path d="M43 18 C35 30 31 44 31 62" fill="none"/>`,
  },
  // A tiger's face: round ears, striped brow and cheeks.
  tiger: {
    body: `<circle cx="28" cy="22" r="10"/><circle cx="72" cy="22" r="10"/>
      <path d="M50 15 C72 15 84 30 82 48 C80 64 66 74 50 74 C34 74 20 64 18 48 C16 30 28 15 50 15 Z"/>${BASE}`,
    detail: `<path d="M50 18 V28 M41 20 L44 29 M59 20 L56 29 M20 44 L31 47 M19 54 L30 54 M80 44 L69 47 M81 54 L70 54" fill="none" stroke-width="3"/>
      <path d="M35 38 L45 42 L36 44 Z M65 38 L55 42 L64 44 Z"/>
      <path d="M44 52 H56 L50 59 Z"/>
      <path d="M50 59 V62 M50 62 Q44 68 39 63 M50 62 Q56 68 61 63" fill="none"/>`,
  },
  // An elephant's head, ears spread, trunk down, a little tower on its back.
  elephant: {
    body: `<path d="M37 14 V4 H44 V9 H48 V4 H52 V9 H56 V4 H63 V14 Z"/>
      <path d="M35 30 C16 16 4 30 8 48 C10 60 22 66 35 60 Z"/>
      <path d="M65 30 C84 16 96 30 92 48 C90 60 78 66 65 60 Z"/>
      <path d="M50 13 C66 13 72 28 68 44 C66 52 59 56 57 64 L57 70 C57 74 61 75 64 72 L68 73 C64 81 50 80 50 70 L48 64 C44 58 34 54 32 44 C28 28 34 13 50 13 Z"/>${BASE}`,
    detail: '<circle cx="42" cy="36" r="2.8"/><circle cx="58" cy="36" r="2.8"/>',
    accent: `<path fill="#f3ecd8" d="M45 55 C38 60 35 66 36 72 C40 66 44 63 48 62 Z"/>
      <path fill="#f3ecd8" d="M59 55 C65 59 68 63 69 67 C65 64 62 63 58 62 Z"/>`,
  },
  // A queen crowned with leaves.
  'jungle-queen': {
    body: `${[-64, -32, 0, 32, 64].map(leaf).join('')}
      <path d="M28 46 H72 L66 66 H34 Z"/>
      <path d="M32 66 H68 L71 75 H29 Z"/>${BASE}`,
    detail: `<path d="M28 46 H72 M32 66 H68" fill="none"/>
      ${[-64, -32, 0, 32, 64].map((deg) => `<path transform="rotate(${deg} 50 50)" d="M50 14 V36" fill="none" stroke-width="2"/>`).join('')}`,
  },
};

/** The <symbol>s of every army piece in both colours, as markup. */
export function armyPieceDefs() {
  let out = '';
  for (const color of /** @type {const} */ (['w', 'b'])) {
    for (const [kind, shape] of Object.entries(ARMY_SHAPES)) out += symbolMarkup(armyPieceId(kind, color), color, shape);
  }
  return out;
}

let installed = false;

/** Puts the army pieces' symbols once into the document (shared by every board on the page). */
export function installArmyPieceDefs() {
  if (installed) return;
  installed = true;
  installDefs(armyPieceDefs());
}

/**
 * A standalone <svg> of the army piece `kind` in `color` (for the legend), named by a <title>.
 * @param {string} kind
 * @param {'w' | 'b'} color
 * @param {number} [size]
 */
export function armyPieceSvg(kind, color, size = 40) {
  installArmyPieceDefs();
  const svg = symbolSvg(armyPieceId(kind, color), size);
  svg.dataset.drawing = kind;
  svg.dataset.color = color;
  const title = document.createElementNS('http://www.w3.org/2000/svg', 'title');
  title.textContent = `${color === 'w' ? 'White' : 'Black'} ${KIND_NAMES[kind]}`;
  svg.prepend(title);
  return svg;
}
