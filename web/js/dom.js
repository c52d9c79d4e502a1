// @ts-check
// Small DOM helpers shared by the pages: element builder, toasts, copy, icons (number and time
// formats are in format.js).

/** @typedef {HTMLElement & {[property: string]: any}} El */

/**
 * Builds an element: `h('button#play.btn.primary', {onclick}, 'Play')`. Attributes starting with `on`
 * are listeners, `dataset`/`style` objects are merged, `false`/`null` attributes are skipped.
 * @param {string} spec  tag, #id and .classes
 * @param {any} [attrs]  attributes (or a first child)
 * @param {...any} children  nodes, texts, arrays of them; null, undefined and false are skipped
 * @returns {El} an HTMLElement whose tag-specific properties (value, disabled…) are not checked
 */
export function h(spec, attrs = {}, ...children) {
  const tokens = spec.match(/^[a-z0-9]*|[.#][\w-]+/gi) || [];
  if (tokens.join('') !== spec) throw new Error(`bad element spec ${spec}`);
  const el = document.createElement(tokens[0] || 'div');
  const classes = [];
  for (const t of tokens.slice(1)) {
    if (t[0] === '#') el.id = t.slice(1);
    else classes.push(t.slice(1));
  }
  if (classes.length) el.className = classes.join(' ');
  if (attrs && (typeof attrs !== 'object' || attrs instanceof Node || Array.isArray(attrs))) {
    children.unshift(attrs);
    attrs = {};
  }
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === false || v === null || v === undefined) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'dataset') Object.assign(el.dataset, v);
    else if (k === 'style' && typeof v === 'object') Object.assign(el.style, v);
    else if (k === 'class') el.className = [el.className, v].filter(Boolean).join(' ');
    else if (k in el && typeof v !== 'string') /** @type {any} */ (el)[k] = v;
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  append(el, children);
  return el;
}

/**
 * @param {Element} el
 * @param {any[]} children
 */
function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

/**
 * Replaces an element's children.
 * @param {Element} el
 * @param {...any} children
 */
export function setChildren(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/** @type {HTMLElement | null} */
let toastBox = null;

/**
 * Shows a short message at the bottom of the screen (`kind`: info, error, success).
 * @param {string} message
 * @param {string} [kind]
 * @param {number} [ms]
 */
export function toast(message, kind = 'info', ms = 3500) {
  let box = toastBox;
  if (!box) {
    box = h('div.toasts', { role: 'status', 'aria-live': 'polite' });
    document.body.append(box);
    toastBox = box;
  }
  const t = h(`div.toast.${kind}`, message);
  box.append(t);
  setTimeout(() => t.classList.add('leaving'), ms - 300);
  setTimeout(() => t.remove(), ms);
}

/**
 * Copies text to the clipboard; says so (or selects `fallbackInput` when not allowed).
 * @param {string} text
 * @param {HTMLInputElement | HTMLTextAreaElement} [fallbackInput]
 */
export async function copyText(text, fallbackInput) {
  try {
    await navigator.clipboard.writeText(text);
    toast('Copied to the clipboard', 'success', 1800);
  } catch {
    if (fallbackInput) {
      fallbackInput.focus();
      fallbackInput.select();
    }
    toast('Press Ctrl+C to copy', 'info', 2500);
  }
}

/**
 * A copyable read-only field with a Copy button.
 * @param {string} label
 * @param {string} value
 * @param {Record<string, unknown>} [extra]  more attributes of the input
 */
export function copyField(label, value, extra = {}) {
  const input = /** @type {HTMLInputElement} */ (h('input.copy-input', { type: 'text', readOnly: true, value, 'aria-label': label, ...extra }));
  input.addEventListener('focus', () => input.select());
  return h('div.copy-field',
    h('label', label),
    h('div.copy-row', input, h('button.btn.small', { type: 'button', onclick: () => copyText(input.value, input) }, 'Copy')));
}

/** The query parameters of the hash route (`#/game/id?seat=x`). */
export function hashParams() {
  const q = location.hash.split('?')[1] || '';
  return new URLSearchParams(q);
}

/** @type {Record<string, string>} */
const ICONS = {
  first: 'M5 5h2.5v14H5z M19 5v14l-10-7z',
  prev: 'M16.5 5v14l-10-7z',
  next: 'M7.5 5v14l10-7z',
  last: 'M16.5 5H19v14h-2.5z M5 5v14l10-7z',
  flip: 'M7 3l-4.5 4.5H6V17h2V7.5h3.5z M17 21l4.5-4.5H18V7h-2v9.5h-3.5z',
};

/** A small inline SVG icon (`first`, `prev`, `next`, `last`, `flip`), drawn in currentColor. */
/** @param {string} name @param {number} [size] */
export function icon(name, size = 18) {
  const ns = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(ns, 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('width', String(size));
  svg.setAttribute('height', String(size));
  svg.setAttribute('aria-hidden', 'true');
  svg.setAttribute('fill', 'currentColor');
  const path = document.createElementNS(ns, 'path');
  path.setAttribute('d', ICONS[name]);
  svg.append(path);
  return svg;
}
