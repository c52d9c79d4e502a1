// @ts-check
// An SVG chess board: click-click and drag-and-drop moves, legal-move hints, promotion chooser,
// last-move and check highlights, flip, keyboard play (arrows + Enter), piece animation.
//
// The page owns the game: it gives the board a position and the legal moves (UCI, from the
// server) with `set(...)`, and hears the moves the user makes through `onMove(uci)`.

import { applyUci, colorOf, squareIndex, squareName, FILES } from './chess.js';
import { installPieceDefs, pieceId, pieceName, pieceSvg } from './pieces.js';

/** @typedef {import('./chess.js').Squares} Squares */
/**
 * A piece picked up: the pointer `id`, where it started (`x`, `y`), whether it moved far enough
 * to be a drag (`active`), the square under it (`over`), and its image while dragged (`use`).
 * @typedef {{from: number, id: number, x: number, y: number, active: boolean, over: number,
 *   again: boolean, use?: SVGElement}} Drag
 */

/**
 * How one piece of a special kind is shown: the <symbol> `id` of its drawing (installed by the
 * page), the drawing's `kind` (data-drawing on the piece) and its `name` with its colour.
 * @typedef {{id: string, kind: string, name: string}} PieceLook
 */

const NS = 'http://www.w3.org/2000/svg';
const SIZE = 100; // one square in SVG units; the board is 800×800

/**
 * @param {string} tag
 * @param {Record<string, unknown>} [attrs]
 * @returns {SVGElement}
 */
function svgEl(tag, attrs = {}) {
  const el = /** @type {SVGElement} */ (document.createElementNS(NS, tag));
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  return el;
}

export class Board {
  /**
   * @param {object} opts
   * @param {'white'|'black'} [opts.orientation] the side at the bottom
   * @param {(uci: string) => void} [opts.onMove] called with each move the user makes
   * @param {() => void} [opts.onPremoveCancel] called when the user cancels the premove shown
   * @param {(piece: string) => PieceLook | null} [opts.look] how a piece of a special kind
   *   (Chess 2's army pieces) is drawn and named; null: as a plain piece
   * @param {string} [opts.label] accessible name
   */
  constructor(opts = {}) {
    installPieceDefs();
    /** @type {string} the side at the bottom: white or black */
    this.orientation = opts.orientation || 'white';
    this.onMove = opts.onMove || (() => {});
    this.onPremoveCancel = opts.onPremoveCancel || (() => {});
    this.look = opts.look || null;
    /** Whether the moves given are premoves (the opponent is to move). */
    this.premoveMode = false;
    /** @type {string | null} the premove queued, marked on the board */
    this.premove = null;
    /** @type {Squares} */
    this.board = new Array(64).fill(null);
    /** @type {string | null} */
    this.lastMove = null;
    this.check = -1;
    /** @type {string | null} */
    this.turn = null;
    /** @type {Map<number, Map<number, string[]>>} from -> Map(to -> [uci…]) */
    this.legal = new Map();
    this.selected = -1;
    this.cursor = squareIndex('e2');
    /** @type {Drag | null} */
    this.drag = null;
    /** @type {{box: HTMLElement, shade: HTMLElement} | null} */
    this.promotion = null;
    /** Whether the last move was dropped (dragged): it is not animated again. */
    this.dropped = false;

    this.el = document.createElement('div');
    this.el.className = 'board-wrap';
    this.svg = svgEl('svg', {
      viewBox: '0 0 800 800',
      class: 'board',
      tabindex: '0',
      role: 'application',
      'aria-roledescription': 'chess board',
      'aria-label': opts.label || 'Chess board',
    });
    /** @type {Record<string, SVGElement>} */
    this.layers = {};
    for (const name of ['squares', 'marks', 'coords', 'pieces', 'hints', 'cursor', 'drag']) {
      this.layers[name] = svgEl('g', { class: `layer-${name}` });
      this.svg.append(this.layers[name]);
    }
    this.live = document.createElement('div');
    this.live.className = 'sr-only';
    this.live.setAttribute('aria-live', 'polite');
    this.el.append(this.svg, this.live);

    this.svg.addEventListener('pointerdown', (e) => this.pointerDown(e));
    this.svg.addEventListener('pointermove', (e) => this.pointerMove(e));
    this.svg.addEventListener('pointerup', (e) => this.pointerUp(e));
    this.svg.addEventListener('pointercancel', () => this.cancelDrag());
    this.svg.addEventListener('keydown', (e) => this.keyDown(e));
    this.svg.addEventListener('focus', () => this.drawCursor());
    this.svg.addEventListener('blur', () => this.drawCursor());
    this.svg.addEventListener('contextmenu', (e) => e.preventDefault());
    this.drawSquares();
    this.render(false);
  }

  /**
   * Shows a position. `board`: 64 FEN letters or null; `lastMove`: UCI or null; `check`: square
   * index of a king in check or -1; `legal`: the UCI moves the user may play now (empty or null:
   * the board is not movable); `animate`: slide the moved piece; `premove`: the moves given
   * are premoves, queued while the opponent is to move.
   * @param {{board: (string | null)[], lastMove?: string | null, check?: number,
   *   legal?: string[] | null, animate?: boolean, turn?: string | null, premove?: boolean}} position
   */
  set({ board, lastMove = null, check = -1, legal = null, animate = true, turn = null, premove = false }) {
    const before = this.board;
    const changed = board.some((p, i) => p !== before[i]);
    this.board = board.slice();
    this.lastMove = lastMove;
    this.check = check;
    this.turn = turn;
    this.premoveMode = premove;
    this.setLegal(legal);
    if (changed) this.cancelPromotion();
    this.render(animate && changed ? { before } : false);
  }

  /**
   * Replaces the legal moves only (null/empty: not movable).
   * @param {string[] | null | undefined} legal
   */
  setLegal(legal) {
    this.legal = new Map();
    for (const uci of legal || []) {
      const from = squareIndex(uci.slice(0, 2));
      const to = squareIndex(uci.slice(2, 4));
      let targets = this.legal.get(from);
      if (!targets) {
        targets = new Map();
        this.legal.set(from, targets);
      }
      const ucis = targets.get(to);
      if (ucis) ucis.push(uci);
      else targets.set(to, [uci]);
      // Standard castling (e1g1) may also be played by dropping the king on its rook.
      const piece = this.board[from];
      if (piece && piece.toLowerCase() === 'k' && Math.abs((to % 8) - (from % 8)) === 2) {
        const rook = (to % 8 > from % 8 ? 7 : 0) + Math.floor(from / 8) * 8;
        if (!targets.has(rook)) targets.set(rook, [uci]);
      }
    }
    if (this.selected >= 0 && !this.legal.has(this.selected)) this.selected = -1;
    this.svg.dataset.movable = String(this.legal.size > 0 && !this.premoveMode);
    this.svg.dataset.premove = String(this.legal.size > 0 && this.premoveMode);
    this.drawHints();
  }

  /**
   * Marks the queued premove (null: none).
   * @param {string | null} uci
   */
  showPremove(uci) {
    this.premove = uci;
    this.svg.dataset.premoveQueued = uci || '';
    this.drawMarks();
  }

  /** Whether the user can move now. */
  movable() {
    return this.legal.size > 0;
  }

  /**
   * Puts `side` ('white'|'black') at the bottom.
   * @param {string} side
   */
  setOrientation(side) {
    if (side === this.orientation) return;
    this.orientation = side;
    this.cancelPromotion();
    this.drawSquares();
    this.render(false);
  }

  /** Turns the board around. */
  flip() {
    this.setOrientation(this.orientation === 'white' ? 'black' : 'white');
  }

  /**
   * Shows a move at once (before the server confirms it).
   * @param {string} uci
   */
  preview(uci) {
    const animate = !this.dropped;
    this.set({ board: applyUci(this.board, uci), lastMove: uci, check: -1, legal: [], animate, turn: this.turn });
  }

  /** The symbol id a piece is drawn with. @param {string} p */
  pieceHref(p) {
    const look = this.look && this.look(p);
    return look ? look.id : pieceId(p);
  }

  /** A piece's name for screen readers ("white Reaper", "black knight"). @param {string} p */
  nameOf(p) {
    const look = this.look && this.look(p);
    return look ? look.name : pieceName(p);
  }

  // ----- geometry -----

  /** @param {number} sq @returns {[number, number]} */
  xy(sq) {
    const f = sq % 8;
    const r = Math.floor(sq / 8);
    return this.orientation === 'white' ? [f * SIZE, (7 - r) * SIZE] : [(7 - f) * SIZE, r * SIZE];
  }

  /** @param {number} clientX @param {number} clientY */
  squareAt(clientX, clientY) {
    const rect = this.svg.getBoundingClientRect();
    const x = ((clientX - rect.left) / rect.width) * 8;
    const y = ((clientY - rect.top) / rect.height) * 8;
    if (x < 0 || y < 0 || x >= 8 || y >= 8) return -1;
    const col = Math.floor(x);
    const row = Math.floor(y);
    return this.orientation === 'white' ? (7 - row) * 8 + col : row * 8 + (7 - col);
  }

  /** @param {number} clientX @param {number} clientY @returns {[number, number]} */
  svgPoint(clientX, clientY) {
    const rect = this.svg.getBoundingClientRect();
    return [((clientX - rect.left) / rect.width) * 800, ((clientY - rect.top) / rect.height) * 800];
  }

  // ----- drawing -----

  drawSquares() {
    const g = this.layers.squares;
    g.replaceChildren();
    const coords = this.layers.coords;
    coords.replaceChildren();
    for (let sq = 0; sq < 64; sq++) {
      const [x, y] = this.xy(sq);
      const light = (sq % 8 + Math.floor(sq / 8)) % 2 === 1;
      g.append(svgEl('rect', {
        x, y, width: SIZE, height: SIZE,
        class: light ? 'sq light' : 'sq dark',
        'data-square': squareName(sq),
      }));
    }
    // Coordinates inside the edge squares, as on the big sites.
    for (let i = 0; i < 8; i++) {
      const file = this.orientation === 'white' ? i : 7 - i;
      const fileSq = (this.orientation === 'white' ? 0 : 56) + file;
      const onLight = (fileSq % 8 + Math.floor(fileSq / 8)) % 2 === 1;
      const t = svgEl('text', { x: i * SIZE + SIZE - 6, y: 800 - 7, class: `coord ${onLight ? 'on-light' : 'on-dark'}`, 'text-anchor': 'end' });
      t.textContent = FILES[file];
      coords.append(t);
      const rank = this.orientation === 'white' ? 7 - i : i;
      const rankSq = rank * 8 + (this.orientation === 'white' ? 0 : 7);
      const rOnLight = (rankSq % 8 + Math.floor(rankSq / 8)) % 2 === 1;
      const r = svgEl('text', { x: 6, y: i * SIZE + 24, class: `coord ${rOnLight ? 'on-light' : 'on-dark'}` });
      r.textContent = String(rank + 1);
      coords.append(r);
    }
  }

  /** @param {number[]} [extra] squares to mark instead of the last move */
  drawMarks(extra) {
    const g = this.layers.marks;
    g.replaceChildren();
    const mark = (/** @type {number} */ sq, /** @type {string} */ cls) => {
      const [x, y] = this.xy(sq);
      g.append(svgEl('rect', { x, y, width: SIZE, height: SIZE, class: cls }));
    };
    const last = extra || (this.lastMove ? [squareIndex(this.lastMove.slice(0, 2)), squareIndex(this.lastMove.slice(2, 4))] : null);
    if (last) last.forEach((sq) => sq >= 0 && mark(sq, 'mark-last'));
    if (this.premove) [this.premove.slice(0, 2), this.premove.slice(2, 4)].forEach((name) => mark(squareIndex(name), 'mark-premove'));
    if (this.selected >= 0) mark(this.selected, 'mark-selected');
    if (this.check >= 0) {
      const [x, y] = this.xy(this.check);
      g.append(svgEl('rect', { x, y, width: SIZE, height: SIZE, fill: 'url(#check-glow)', class: 'mark-check', 'data-check': squareName(this.check) }));
    }
    if (this.drag && this.drag.over >= 0 && this.drag.active) mark(this.drag.over, 'mark-hover');
  }

  /** @param {{before: Squares} | false} anim */
  drawPieces(anim) {
    const g = this.layers.pieces;
    g.replaceChildren();
    this.board.forEach((p, sq) => {
      if (!p) return;
      const [x, y] = this.xy(sq);
      const look = this.look && this.look(p);
      const use = svgEl('use', {
        href: `#${look ? look.id : pieceId(p)}`, x, y, width: SIZE, height: SIZE,
        class: 'piece', 'data-piece': p, 'data-square': squareName(sq),
      });
      if (look) use.dataset.drawing = look.kind;
      if (this.drag && this.drag.active && this.drag.from === sq) use.classList.add('ghost');
      g.append(use);
    });
    if (anim) this.animate(anim);
  }

  /**
   * Slides the pieces that moved (castling and en passant included) from their old squares.
   * @param {{before: Squares}} anim
   */
  animate({ before }) {
    if (window.matchMedia('(prefers-reduced-motion: reduce)').matches) return;
    const left = [];
    const arrived = [];
    for (let sq = 0; sq < 64; sq++) {
      if (before[sq] && before[sq] !== this.board[sq]) left.push(sq);
      if (this.board[sq] && this.board[sq] !== before[sq]) arrived.push(sq);
    }
    if (arrived.length > 2 || left.length > 3) return; // not one move: just show it
    for (const sq of arrived) {
      const p = this.board[sq];
      let origin = left.find((o) => before[o] === p);
      if (origin === undefined) {
        // A promotion: the pawn of the same colour that left.
        origin = left.find((o) => (before[o] || '').toLowerCase() === 'p' && colorOf(before[o]) === colorOf(p));
      }
      if (origin === undefined) continue;
      const use = /** @type {SVGElement | null} */ (this.layers.pieces.querySelector(`use[data-square="${squareName(sq)}"]`));
      if (!use) continue;
      const [x0, y0] = this.xy(origin);
      const [x1, y1] = this.xy(sq);
      use.style.transition = 'none';
      use.style.transform = `translate(${x0 - x1}px, ${y0 - y1}px)`;
      use.getBoundingClientRect();
      requestAnimationFrame(() => {
        use.style.transition = 'transform 160ms ease-out';
        use.style.transform = '';
      });
    }
  }

  drawHints() {
    const g = this.layers.hints;
    g.replaceChildren();
    if (this.selected < 0) return;
    const targets = this.legal.get(this.selected);
    if (!targets) return;
    for (const to of targets.keys()) {
      const [x, y] = this.xy(to);
      const occupied = this.board[to] && colorOf(this.board[to]) !== colorOf(this.board[this.selected]);
      if (this.premoveMode) {
        g.append(svgEl('circle', { cx: x + 50, cy: y + 50, r: 12, class: 'hint-premove', 'data-premove-hint': squareName(to) }));
      } else if (occupied) {
        g.append(svgEl('circle', { cx: x + 50, cy: y + 50, r: 46, class: 'hint-capture', 'data-hint': squareName(to) }));
      } else {
        g.append(svgEl('circle', { cx: x + 50, cy: y + 50, r: 15, class: 'hint-move', 'data-hint': squareName(to) }));
      }
    }
  }

  drawCursor() {
    const g = this.layers.cursor;
    g.replaceChildren();
    if (document.activeElement !== this.svg || this.cursor < 0) return;
    const [x, y] = this.xy(this.cursor);
    g.append(svgEl('rect', { x: x + 3, y: y + 3, width: SIZE - 6, height: SIZE - 6, class: 'mark-cursor' }));
  }

  /** @param {{before: Squares} | false} anim */
  render(anim) {
    this.drawMarks();
    this.drawPieces(anim);
    this.drawHints();
    this.drawCursor();
    this.svg.dataset.turn = this.turn || '';
  }

  // ----- selecting and moving -----

  /** @param {number} sq */
  select(sq) {
    this.selected = sq;
    this.drawMarks();
    this.drawHints();
    if (sq >= 0 && this.board[sq]) this.say(`${this.nameOf(this.board[sq])} on ${squareName(sq)} selected`);
  }

  /** @param {number} sq */
  canMoveFrom(sq) {
    return this.legal.has(sq);
  }

  /** @param {number} from @param {number} to */
  isTarget(from, to) {
    const targets = from >= 0 ? this.legal.get(from) : undefined;
    return !!targets && targets.has(to);
  }

  /**
   * Plays from→to: asks for the promotion piece when there is a choice.
   * @param {number} from
   * @param {number} to
   * @param {boolean} [dropped]
   */
  tryMove(from, to, dropped = false) {
    this.dropped = dropped;
    const targets = this.legal.get(from);
    const ucis = (targets && targets.get(to)) || [];
    this.select(-1);
    if (ucis.length > 1) {
      this.askPromotion(from, to, ucis);
      return;
    }
    this.onMove(ucis[0]);
  }

  /**
   * A square was activated (click, tap or Enter).
   * @param {number} sq
   */
  activate(sq) {
    if (this.promotion) return;
    // A click anywhere but on a piece that can premove cancels the premove queued.
    if (this.premove && !(this.selected >= 0 && this.isTarget(this.selected, sq)) && !this.canMoveFrom(sq)) {
      this.select(-1);
      this.onPremoveCancel();
      return;
    }
    if (this.selected >= 0 && this.isTarget(this.selected, sq)) {
      this.tryMove(this.selected, sq);
    } else if (sq === this.selected) {
      this.select(-1);
    } else if (this.canMoveFrom(sq)) {
      this.select(sq);
    } else {
      this.select(-1);
    }
  }

  /** @param {PointerEvent} e */
  pointerDown(e) {
    if (e.button !== undefined && e.button !== 0) return;
    if (this.promotion) return;
    const sq = this.squareAt(e.clientX, e.clientY);
    if (sq < 0) return;
    this.cursor = sq;
    if (this.selected >= 0 && this.isTarget(this.selected, sq)) {
      e.preventDefault();
      this.tryMove(this.selected, sq);
      return;
    }
    if (this.canMoveFrom(sq)) {
      e.preventDefault();
      const again = sq === this.selected;
      this.select(sq);
      this.drag = { from: sq, id: e.pointerId, x: e.clientX, y: e.clientY, active: false, over: sq, again };
      try {
        this.svg.setPointerCapture(e.pointerId);
      } catch {
        // Synthetic pointers may not be capturable; dragging still works inside the board.
      }
      return;
    }
    this.select(-1);
  }

  /** @param {PointerEvent} e */
  pointerMove(e) {
    const d = this.drag;
    if (!d || e.pointerId !== d.id) return;
    if (!d.active && Math.hypot(e.clientX - d.x, e.clientY - d.y) < 5) return;
    if (!d.active) {
      d.active = true;
      this.svg.classList.add('dragging');
      const layer = this.layers.drag;
      layer.replaceChildren();
      d.use = svgEl('use', { href: `#${this.pieceHref(this.board[d.from] || '')}`, width: SIZE * 1.1, height: SIZE * 1.1, class: 'piece dragged' });
      layer.append(d.use);
      this.drawPieces(false);
    }
    const [px, py] = this.svgPoint(e.clientX, e.clientY);
    if (d.use) {
      d.use.setAttribute('x', String(px - SIZE * 0.55));
      d.use.setAttribute('y', String(py - SIZE * 0.55));
    }
    const over = this.squareAt(e.clientX, e.clientY);
    if (over !== d.over) {
      d.over = over;
      this.drawMarks();
    }
  }

  /** @param {PointerEvent} e */
  pointerUp(e) {
    const d = this.drag;
    if (!d || e.pointerId !== d.id) return;
    this.drag = null;
    this.layers.drag.replaceChildren();
    this.svg.classList.remove('dragging');
    if (!d.active) {
      // A click: a second click on the selected piece deselects it.
      if (d.again) this.select(-1);
      return;
    }
    const to = this.squareAt(e.clientX, e.clientY);
    this.drawPieces(false);
    if (to !== d.from && this.isTarget(d.from, to)) {
      this.tryMove(d.from, to, true);
    } else {
      this.drawMarks();
    }
  }

  cancelDrag() {
    if (!this.drag) return;
    this.drag = null;
    this.layers.drag.replaceChildren();
    this.svg.classList.remove('dragging');
    this.render(false);
  }

  /** @param {KeyboardEvent} e */
  keyDown(e) {
    if (this.promotion) return;
    const up = this.orientation === 'white' ? 8 : -8;
    const right = this.orientation === 'white' ? 1 : -1;
    let next = this.cursor;
    switch (e.key) {
      case 'ArrowUp': next += up; break;
      case 'ArrowDown': next -= up; break;
      case 'ArrowRight': if ((this.cursor % 8) + right >= 0 && (this.cursor % 8) + right <= 7) next += right; break;
      case 'ArrowLeft': if ((this.cursor % 8) - right >= 0 && (this.cursor % 8) - right <= 7) next -= right; break;
      case 'Enter':
      case ' ':
        e.preventDefault();
        e.stopPropagation();
        this.activate(this.cursor);
        return;
      case 'Escape':
        this.select(-1);
        if (this.premove) this.onPremoveCancel();
        return;
      default:
        return;
    }
    e.preventDefault();
    e.stopPropagation();
    if (next >= 0 && next < 64) {
      this.cursor = next;
      this.drawCursor();
      const p = this.board[next];
      this.say(`${squareName(next)}${p ? `, ${this.nameOf(p)}` : ''}${this.isTarget(this.selected, next) ? ', legal move' : ''}`);
    }
  }

  /** @param {string} text */
  say(text) {
    this.live.textContent = text;
  }

  // ----- promotion -----

  /** @param {number} from @param {number} to @param {string[]} ucis */
  askPromotion(from, to, ucis) {
    this.cancelPromotion();
    const white = colorOf(this.board[from]) === 'w';
    const [x, y] = this.xy(to);
    const topDown = y === 0;
    const box = document.createElement('div');
    box.className = 'promotion';
    box.setAttribute('role', 'dialog');
    box.setAttribute('aria-label', 'Promote to');
    box.style.left = `${(x / 800) * 100}%`;
    box.style.top = topDown ? '0' : 'auto';
    box.style.bottom = topDown ? 'auto' : '0';
    box.style.flexDirection = topDown ? 'column' : 'column-reverse';
    /** @type {Record<string, string>} */
    const names = { q: 'Queen', n: 'Knight', r: 'Rook', b: 'Bishop' };
    for (const role of ['q', 'n', 'r', 'b']) {
      const uci = ucis.find((u) => u[4] === role);
      if (!uci) continue;
      const btn = document.createElement('button');
      btn.type = 'button';
      btn.className = 'promo-choice';
      btn.dataset.promotion = role;
      // A Chess 2 army's piece is offered as its army draws and names it.
      const piece = white ? role.toUpperCase() : role;
      const look = this.look && this.look(piece);
      const name = look ? look.name.replace(/^(white|black) /, '') : names[role];
      btn.title = name;
      btn.setAttribute('aria-label', `Promote to ${look ? name : name.toLowerCase()}`);
      const icon = pieceSvg(piece, 56);
      if (look) icon.querySelector('use')?.setAttribute('href', `#${look.id}`);
      btn.append(icon);
      btn.addEventListener('click', () => {
        this.cancelPromotion();
        this.onMove(uci);
      });
      box.append(btn);
    }
    box.addEventListener('keydown', (e) => {
      if (e.key === 'Escape') {
        this.cancelPromotion();
        this.svg.focus();
      }
    });
    const shade = document.createElement('div');
    shade.className = 'promotion-shade';
    shade.addEventListener('click', () => this.cancelPromotion());
    this.el.append(shade, box);
    this.promotion = { box, shade };
    // Show the pawn on its new square while choosing.
    this.drawMarks([from, to]);
    /** @type {HTMLButtonElement} */ (box.querySelector('button')).focus();
  }

  cancelPromotion() {
    if (!this.promotion) return;
    this.promotion.box.remove();
    this.promotion.shade.remove();
    this.promotion = null;
    this.drawMarks();
  }
}
