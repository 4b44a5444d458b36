// The Play page's game as data: {state, view, record, start, owners, human, strength, engineSeed, history, log,
// last, ...}. A move applied to it (the quilts' owners, the record, the log in words), a copy for undo, and
// the record it makes (engine/record.py's form, with players and result).

import * as S from './shapes.js';
import { addOwner } from './hand.js';
import { has, t, tn } from './i18n.js';

// What the log says of a move, as data (worded when shown, in the language of the moment).
function moveFacts(move, before, after, player) {
  if (move.kind === 'MOVE_KIND_BUY') return { kind: 'buy', id: move.patch_id };
  if (move.kind === 'MOVE_KIND_LEATHER') {
    const [[r, c]] = S.fromMessage(move.cells);
    return { kind: 'leather', row: r + 1, col: c + 1 };
  }
  return { kind: 'advance', to: after.players[player].position, gained: before.advance ? before.advance.buttons : 0 };
}

// A move in words for the log ("bought patch 10 (...)", "advanced to space 12 (+3 buttons)"); P: the patches.
export function describeFacts(P, f) {
  if (f.kind === 'buy') {
    const p = P[f.id];
    return tn(p.income ? 'play.log.buyIncome' : 'play.log.buy', p.buttons, { id: p.id, time: p.time, income: p.income });
  }
  if (f.kind === 'leather') return t('play.log.leather', { row: f.row, col: f.col });
  return tn('play.log.advance', f.gained, { to: f.to });
}

// A log item's words: from its facts, or (a game saved before the facts were kept) its text as saved.
export function logText(item, P) {
  return item.facts ? describeFacts(P, item.facts) : item.text;
}

// Both players of a record in words ('greedy v random').
export function playersText(players) {
  return players.map(strengthName).join(t('common.versus'));
}

// A player of a record or an engine strength ('human', 'greedy', 'search:0.5', 'level:3') in words.
export function strengthName(strength) {
  const s = String(strength);
  if (has(`strength.${s}`)) return t(`strength.${s}`);
  const m = /^(search|level):(.+)$/.exec(s);
  if (m && m[1] === 'search' && /^[0-9.]+$/.test(m[2])) return t('strength.search', { seconds: Number(m[2]) });
  if (m && m[1] === 'search' && /^\d+it$/.test(m[2])) return t('strength.searchIterations', { n: parseInt(m[2], 10) });
  if (m && m[1] === 'level') return t('strength.level', { n: m[2] });
  return s;
}

// Apply r (a game/apply or game/engine-move answer) to game, in place; P: the patches.
export function applyMove(game, r, P) {
  const before = game.view;
  addOwner(game.owners, r.player, r.move);
  game.state = r.state;
  game.view = r.view;
  game.record.actions.push(r.move.text);
  game.last[r.player] = r.move;
  const facts = moveFacts(r.move, before, r.view, r.player);
  game.log.push({ player: r.player, facts, text: describeFacts(P, facts), move: r.move.text });
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
