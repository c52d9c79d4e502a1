// Seeks in the lobby (seeks.js) and the live-games list (watch.js): time classes, rating
// ranges and who may accept, owners and players in words.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { ownerLine, rangeAround, rangeRefusal, ratingFor, timeClass } from '../js/seeks.js';
import { listPath, playersLine } from '../js/watch.js';

test('time classes follow lichess\'s rule, as the server keeps ratings', () => {
  assert.equal(timeClass(null), 'classical');
  assert.equal(timeClass({ initial_ms: 60_000, increment_ms: 0 }), 'bullet');
  assert.equal(timeClass({ initial_ms: 120_000, increment_ms: 1000 }), 'bullet'); // 160 s
  assert.equal(timeClass({ initial_ms: 180_000, increment_ms: 0 }), 'blitz');
  assert.equal(timeClass({ initial_ms: 178_999, increment_ms: 0 }), 'bullet');
  assert.equal(timeClass({ initial_ms: 180_000, increment_ms: 2000 }), 'blitz');
  assert.equal(timeClass({ initial_ms: 600_000, increment_ms: 0 }), 'rapid');
  assert.equal(timeClass({ initial_ms: 1_800_000, increment_ms: 0 }), 'classical');
});

const ratings = [
  { variant: 'standard', class: 'blitz', rating: 1649.6 },
  { variant: 'chess2', class: 'blitz', rating: 1900 },
];

test('a player\'s rating is the one of the seek\'s variant and class, 1500 when never rated', () => {
  assert.equal(ratingFor(ratings, 'standard', 'blitz'), 1650);
  assert.equal(ratingFor(ratings, 'chess2', 'blitz'), 1900);
  assert.equal(ratingFor(ratings, 'standard', 'bullet'), 1500);
  assert.equal(ratingFor([], 'standard', 'blitz'), 1500);
  assert.deepEqual(rangeAround(1650, 200), { min: 1450, max: 1850 });
  assert.deepEqual(rangeAround(150, 200), { min: 0, max: 350 });
  assert.deepEqual(rangeAround(3900, 200), { min: 3700, max: 4000 });
});

test('a seek whose range excludes the viewer says why; inside, or without a range, it does not', () => {
  const blitz = { initial_ms: 180_000, increment_ms: 2000 };
  const seek = (/** @type {any} */ extra) => ({ id: 's', created_ms: 0, class: 'blitz', owner: null, seek: { time_control: blitz, ...extra } });
  assert.equal(rangeRefusal(seek({}), ratings), null);
  assert.equal(rangeRefusal(seek({ rating_range: { min: 1600, max: 1800 } }), ratings), null);
  assert.equal(rangeRefusal(seek({ rating_range: { min: 1650, max: 1650 } }), ratings), null);
  assert.equal(rangeRefusal(seek({ rating_range: { min: 1700, max: 1800 } }), ratings), 'For ratings 1700–1800 (yours: 1650)');
  // Chess 2's rating counts for a Chess 2 seek; none known counts 1500.
  assert.equal(rangeRefusal(seek({ variant: 'chess2', rating_range: { min: 1850, max: 2000 } }), ratings), null);
  assert.equal(rangeRefusal(seek({ rating_range: { min: 1600, max: 1800 } }), []), 'For ratings 1600–1800 (yours: 1500)');
  // Without the class in the view, it is read from the time control.
  const bare = { id: 's', created_ms: 0, seek: { time_control: { initial_ms: 60_000, increment_ms: 0 }, rating_range: { min: 1400, max: 1600 } } };
  assert.equal(rangeRefusal(bare, ratings), null);
});

test('a seek\'s owner is named with their rating, ? while provisional, or Anonymous', () => {
  assert.equal(ownerLine({ name: 'Olga', rating: 1650, provisional: false }), 'Olga (1650)');
  assert.equal(ownerLine({ name: null, rating: 1750, provisional: true }), 'Anonymous (1750?)');
  assert.equal(ownerLine({ name: 'Rita', rating: null, provisional: true }), 'Rita (1500?)');
  assert.equal(ownerLine(null), 'Anonymous');
  assert.equal(ownerLine(undefined), 'Anonymous');
});

test('live games name their players with ratings, and list by the order asked', () => {
  const players = { white: { id: 'a', name: 'Alice', rating: 1662 }, black: null, rated: false };
  assert.equal(playersLine({ players }), 'Alice (1662) vs Anonymous');
  assert.equal(playersLine({ options: { opponent: { engine: 'stockfish', plays: 'black' } } }), 'White vs stockfish (computer)');
  assert.equal(listPath('newest', 24), '/v1/games?status=ongoing&limit=24');
  assert.equal(listPath('rating', 24), '/v1/games?status=ongoing&order=rating&limit=24');
});
