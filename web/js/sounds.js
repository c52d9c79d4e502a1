// @ts-check
// Move sounds: short tones made with Web Audio (no sound files to load), muted by default; the
// header's sound button turns them on and off, remembered in this browser.

const KEY = 'chessd-sound';

/** The sound a move makes, from its SAN: mate and game ends first, then check, capture, move.
 * @param {string} san
 * @returns {'check' | 'capture' | 'move'} */
export function moveSound(san) {
  if (san.includes('+') || san.includes('#')) return 'check';
  if (san.includes('x')) return 'capture';
  return 'move';
}

/** Tones of each sound: [frequency in Hz, start s, length s]. */
const TONES = {
  move: [[520, 0, 0.07]],
  capture: [[380, 0, 0.06], [300, 0.05, 0.08]],
  check: [[660, 0, 0.07], [880, 0.08, 0.09]],
  end: [[523, 0, 0.12], [659, 0.12, 0.12], [784, 0.24, 0.2]],
};

/** Whether sounds are on in this browser (off unless turned on). */
export function soundOn() {
  try {
    return localStorage.getItem(KEY) === 'on';
  } catch {
    return false;
  }
}

/** @type {AudioContext | null} */
let context = null;

/**
 * Plays a sound if sounds are on.
 * @param {'move' | 'capture' | 'check' | 'end'} kind
 */
export function play(kind) {
  if (!soundOn() || typeof AudioContext === 'undefined') return;
  context = context || new AudioContext();
  const ctx = context;
  const now = ctx.currentTime;
  for (const [freq, start, length] of TONES[kind]) {
    const osc = ctx.createOscillator();
    const gain = ctx.createGain();
    osc.type = 'sine';
    osc.frequency.value = freq;
    gain.gain.setValueAtTime(0.0001, now + start);
    gain.gain.exponentialRampToValueAtTime(0.15, now + start + 0.01);
    gain.gain.exponentialRampToValueAtTime(0.0001, now + start + length);
    osc.connect(gain).connect(ctx.destination);
    osc.start(now + start);
    osc.stop(now + start + length + 0.02);
  }
  document.documentElement.dataset.lastSound = kind;
}

/** @param {HTMLButtonElement} button */
function label(button) {
  const on = soundOn();
  button.textContent = on ? 'Sound: on' : 'Sound: off';
  button.setAttribute('aria-pressed', String(on));
}

/**
 * Wires the header's sound button: each click turns sounds on or off.
 * @param {HTMLButtonElement} button
 */
export function wireSoundButton(button) {
  button.addEventListener('click', () => {
    try {
      localStorage.setItem(KEY, soundOn() ? 'off' : 'on');
    } catch {
      // Not remembered.
    }
    label(button);
    // A click is the user gesture browsers want before audio may start.
    if (soundOn()) play('move');
  });
  label(button);
}
