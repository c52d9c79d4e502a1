// Engine sessions in the lobby (engine-sessions.js): how each can be freed with what this
// browser remembers of its game.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { freeing, roleWords } from '../js/engine-sessions.js';

const game = '0b6f1e4c-2d1a-4f7e-9c3b-5a8d7e6f1a2b';

test('an attached engine is detached with the admin secret, else the seat\'s', () => {
  const attached = { game, engine: 'stockfish', role: 'attached' };
  assert.deepEqual(freeing(attached, { id: game, admin: 'A', secret: 'S' }),
    { label: 'Detach', method: 'DELETE', path: `/v1/games/${game}/engine`, secret: 'A' });
  assert.equal(freeing(attached, { id: game, secret: 'S' })?.secret, 'S');
  assert.equal(freeing(attached, { id: game }), null);
  assert.equal(freeing(attached, null), null);
});

test('a playing engine is freed by resigning its game, or ending a match drawn', () => {
  const opponent = { game, engine: 'builtin', role: 'opponent' };
  assert.deepEqual(freeing(opponent, { id: game, admin: 'A', secret: 'S' }),
    { label: 'Resign', method: 'POST', path: `/v1/games/${game}/resign`, secret: 'S' });
  assert.deepEqual(freeing({ ...opponent, role: 'chess2_player' }, { id: game, admin: 'A' }),
    { label: 'End (draw)', method: 'POST', path: `/v1/games/${game}/draw`, secret: 'A' });
  assert.equal(freeing(opponent, { id: game }), null);
});

test('roles read as words', () => {
  assert.equal(roleWords('attached'), 'analysis');
  assert.equal(roleWords('opponent'), 'playing');
  assert.equal(roleWords('chess2_player'), 'playing Chess 2');
});
