// The Chess 2 armies' special pieces (chess2-armies.js): which drawing each piece gets, for
// each army and colour, and that every drawing named exists (chess2-pieces.js).

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { ARMY_PIECES, KIND_NAMES, armyLook } from '../js/chess2-armies.js';
import { ARMY_SHAPES, armyPieceDefs } from '../js/chess2-pieces.js';

/** The drawing of `piece` in `armies`, or null for a plain piece. */
const kind = (armies, piece) => {
  const look = armyLook(armies, piece);
  return look ? look.kind : null;
};

test('each side\'s pieces are drawn by its own army', () => {
  const armies = { white: 'a', black: 'r' };
  // White: Animals.
  assert.deepEqual(armyLook(armies, 'Q'), { kind: 'jungle-queen', id: 'piece-w-jungle-queen', name: 'white Jungle Queen' });
  assert.equal(kind(armies, 'N'), 'wild-horse');
  assert.equal(kind(armies, 'B'), 'tiger');
  assert.equal(kind(armies, 'R'), 'elephant');
  assert.equal(kind(armies, 'K'), null);
  assert.equal(kind(armies, 'P'), null);
  // Black: Reaper.
  assert.deepEqual(armyLook(armies, 'q'), { kind: 'reaper', id: 'piece-b-reaper', name: 'black Reaper' });
  assert.deepEqual(armyLook(armies, 'r'), { kind: 'ghost', id: 'piece-b-ghost', name: 'black Ghost' });
  for (const plain of 'nbkp') assert.equal(armyLook(armies, plain), null, plain);
});

test('the same piece letter is drawn by the army of its colour', () => {
  assert.equal(kind({ white: 'r', black: 'a' }, 'Q'), 'reaper');
  assert.equal(kind({ white: 'r', black: 'a' }, 'q'), 'jungle-queen');
  assert.equal(kind({ white: 'k', black: 'c' }, 'K'), 'warrior-king');
  assert.equal(kind({ white: 'k', black: 'c' }, 'k'), null);
  assert.equal(kind({ white: 'c', black: 'k' }, 'k'), 'warrior-king');
  assert.equal(armyLook({ white: 'c', black: 'k' }, 'k')?.id, 'piece-b-warrior-king');
});

test('Nemesis and Empowered pieces', () => {
  const armies = { white: 'n', black: 'e' };
  assert.equal(kind(armies, 'Q'), 'nemesis');
  assert.equal(kind(armies, 'P'), 'nemesis-pawn');
  assert.equal(kind(armies, 'N'), null);
  assert.equal(kind(armies, 'n'), 'empowered-knight');
  assert.equal(kind(armies, 'b'), 'empowered-bishop');
  assert.equal(kind(armies, 'r'), 'empowered-rook');
  assert.equal(kind(armies, 'q'), 'empowered-queen');
  assert.equal(kind(armies, 'p'), null);
  assert.equal(armyLook(armies, 'b')?.name, 'black Empowered bishop');
});

test('no armies (a standard game) or no piece: plain drawings', () => {
  assert.equal(armyLook(null, 'Q'), null);
  assert.equal(armyLook(undefined, 'q'), null);
  assert.equal(armyLook({ white: 'c', black: 'c' }, 'Q'), null);
  assert.equal(armyLook({ white: 'a', black: 'a' }, null), null);
  assert.equal(armyLook({ white: 'x', black: 'a' }, 'Q'), null); // an unknown army
});

test('every army but Classic has its pieces, and every drawing exists with a name', () => {
  for (const army of ['n', 'e', 'r', 'k', 'a']) assert.ok(ARMY_PIECES[army].length > 0, army);
  assert.deepEqual(ARMY_PIECES.c, []);
  const kinds = Object.values(ARMY_PIECES).flat().flatMap((p) => Object.values(p.kinds));
  assert.equal(new Set(kinds).size, kinds.length, 'one drawing per piece');
  assert.deepEqual([...kinds].sort(), Object.keys(ARMY_SHAPES).sort());
  assert.deepEqual([...kinds].sort(), Object.keys(KIND_NAMES).sort());
  const defs = armyPieceDefs();
  for (const k of kinds) {
    for (const c of ['w', 'b']) assert.ok(defs.includes(`<symbol id="piece-${c}-${k}"`), `${c} ${k}`);
  }
  // Each drawing is its own, not a copy of another's.
  const bodies = Object.values(ARMY_SHAPES).map((s) => s.body + s.detail + (s.accent || ''));
  assert.equal(new Set(bodies).size, bodies.length);
});
