// The Play page's game as data: {state, view, record, start, owners, human, strength, engineSeed, history, log,
// last, ...}. A move applied to it (the quilts' owners, the record, the log in words), a copy for undo, and
// the record it makes (engine/record.py's form, with players and result).

import * as S from './shapes.js';
import { addOwner } from './hand.js';

// A move in words for the log ("bought patch 10 (...)", "advanced to space 12 (+3 buttons)").
function describeMove(P, move, before, after, player) {
  if (move.kind === 'MOVE_KIND_BUY') {
    const p = P[move.patch_id];
    return `bought patch ${p.id} (${p.buttons} buttons, ${p.time} time${p.income ? `, +${p.income} income` : ''})`;
  }
  if (move.kind === 'MOVE_KIND_LEATHER') {
    const [[r, c]] = S.fromMessage(move.cells);
    return `placed a leather patch on row ${r + 1}, column ${c + 1}`;
  }
  const gained = before.advance ? before.advance.buttons : 0;
  return `advanced to space ${after.players[player].position} (+${gained} button${gained === 1 ? '' : 's'})`;
}

// Apply r (a game/apply or game/engine-move answer) to game, in place; P: the patches.
export function applyMove(game, r, P) {
  const before = game.view;
  addOwner(game.owners, r.player, r.move);
  game.state = r.state;
  game.view = r.view;
  game.record.actions.push(r.move.text);
  game.last[r.player] = r.move;
  game.log.push({ player: r.player, text: describeMove(P, r.move, before, r.view, r.player), move: r.move.text });
}

// A deep copy of the game without its undo history: what undo goes back to.
export function snapshot(game) {
  const { history, ...rest } = game;
  void history;
  return JSON.parse(JSON.stringify(rest));
}

// The game's record: from its deal, or from the position it began at.
export function gameRecord(game) {
  const r = game.start
    ? { edition: game.view.edition, start: game.start, actions: game.record.actions.slice() }
    : { edition: game.record.edition, seed: game.record.seed, circle: game.record.circle, actions: game.record.actions.slice() };
  if (game.view.terminal && game.view.result) r.result = game.view.result;
  r.players = game.human === 0 ? ['human', game.strength] : [game.strength, 'human'];
  return r;
}
