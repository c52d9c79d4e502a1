// @ts-check
// The header's theme button: the system's colour scheme (the default), light or dark, kept in
// this browser. The choice is `data-theme` on <html>; the style sheet does the rest.

const KEY = 'chessd-theme';
/** @type {readonly ('system' | 'light' | 'dark')[]} */
const THEMES = ['system', 'light', 'dark'];

/** The theme chosen in this browser. @returns {'system' | 'light' | 'dark'} */
export function chosenTheme() {
  let stored = null;
  try {
    stored = localStorage.getItem(KEY);
  } catch {
    // Storage refused (a private window's policy): the system's scheme.
  }
  return THEMES.find((t) => t === stored) || 'system';
}

/** Applies `theme` to the page. @param {'system' | 'light' | 'dark'} theme */
export function applyTheme(theme) {
  const root = document.documentElement;
  if (theme === 'system') delete root.dataset.theme;
  else root.dataset.theme = theme;
}

/**
 * Shows `theme` on the button: "Theme: dark" (the first word hidden on a phone).
 * @param {HTMLButtonElement} button
 * @param {'system' | 'light' | 'dark'} theme
 */
function label(button, theme) {
  const word = document.createElement('span');
  word.className = 'theme-word';
  word.textContent = 'Theme: ';
  button.replaceChildren(word, theme);
  button.dataset.theme = theme;
  button.setAttribute('aria-label', `Colour theme: ${theme}`);
}

/**
 * Wires the theme button: each click moves to the next theme and remembers it.
 * @param {HTMLButtonElement} button
 */
export function wireThemeButton(button) {
  button.addEventListener('click', () => {
    const next = THEMES[(THEMES.indexOf(chosenTheme()) + 1) % THEMES.length];
    try {
      localStorage.setItem(KEY, next);
    } catch {
      // Not remembered; still applied to this page.
    }
    applyTheme(next);
    label(button, next);
  });
  label(button, chosenTheme());
}
