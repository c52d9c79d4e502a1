// The words for a Chess 2 move's duels (web/js/chess2-duels.js), from its notation.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { describeDuels } from '../js/chess2-duels.js';

test('a move without duels says nothing', () => {
  assert.deepEqual(describeDuels('e2e4'), []);
});

test('the defender bidding more destroys the capturing piece', () => {
  assert.deepEqual(describeDuels('b4c4:21'), [
    'Duel on c4: the defender bid 2, the attacker 1. The defender wins: the capturing piece is destroyed too.',
  ]);
});

test('an equal or higher attacker bid lets the capture stand', () => {
  assert.deepEqual(describeDuels('b4c4:12'), ['Duel on c4: the defender bid 1, the attacker 2. The capture stands.']);
  assert.deepEqual(describeDuels('b4c4:11'), ['Duel on c4: the defender bid 1, the attacker 1. The capture stands.']);
});

test('a called bluff names who gains or loses the stone', () => {
  assert.match(describeDuels('b4c4:00+')[0], /the attacker gains a stone/);
  assert.match(describeDuels('b4c4:00-')[0], /the defender loses a stone/);
});

test('a rampage numbers its duels, declined ones included', () => {
  assert.deepEqual(describeDuels('c6c8::10'), [
    'Duel 1: not challenged, the capture stands.',
    'Duel 2: the defender bid 1, the attacker 0. The defender wins: the capturing piece is destroyed too.',
  ]);
});
