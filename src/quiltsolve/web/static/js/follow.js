// Follow: a game at a real table, both sides human (set up on the Setup page: setup.js). Each move is entered
// as it is played there, for whichever player is to move, through the buy-and-hold flow every page shares
// (hand.js: pick a patch up, move, turn and put it down by pointer, touch, drag or keys); the moves go through
// the API (game/apply) and into the game as the Play page keeps it (play-game.js). A hint (play-hint.js) and
// the evaluation bar (analysis-eval.js) come on request; any move can be undone, even after a reload; the game
// is kept under Recent after every move (kind 'follow') and resumed where it was. "Analyse" and "Copy link"
// carry the whole game to the analysis board (links.js).

import { post, showMessage } from './api.js';
import * as S from './shapes.js';
import { clear, drawQuilt, drawTrack, markCells } from './draw.js';
import {
  addOwner, bindQuiltPointer, blankOwners, clearHandMarks, drawCircle, heldControls, holdFlow, markHeldCard,
  patchTable, statsInto, unknownOwners
} from './hand.js';
import { listRecent, loadRecent, saveRecent } from './store.js';
import { renderHintList } from './play-hint.js';
import { applyMove, gameRecord, snapshot } from './play-game.js';
import { renderEvaluation } from './analysis-eval.js';
import { moveName } from './analysis-moves.js';
import { analysisHash, analysisLink, copyText, flash } from './links.js';
import { HINT } from './play.js';
import { DEFAULT_BUDGET, TOP } from './analysis.js';
import { t, tn, translatePage } from './i18n.js';

const $ = (id) => document.getElementById(id);
export const KIND = 'follow';
const EVAL_IDS = { best: 'fl-best', info: 'fl-eval-info', bar: 'fl-evalbar', text: 'fl-evaltext', page: 'page-follow' };
const keyHints = () => !window.matchMedia('(max-width: 600px), (pointer: coarse)').matches;

let P = null;
let game = null;         // the game followed: Play's game data (play-game.js) with human null and strength 'human'
let busy = false;
let hint = null;         // {suggestions, selected, notation}
let evalOn = false;
let evalAbort = null;
let evalFor = null;      // the position being evaluated
const evals = new Map(); // notation → the evaluation drawn for it (analysis-eval.js's form)
let quilts = [null, null];
let pointers = [];
let circleFor = null;
let msg = null;

const section = () => $('page-follow');
const mover = () => (game && game.view ? game.view.current_player : 0);

// The patch in hand, for the player to move, put down on that player's quilt: hand.js's flow, as on the Play page
// and the Analysis board, without the solver's ghosts: the patch goes where it lies on the table, and advice
// comes only when asked for (Hint).
const hand = holdFlow({
  get P() { return P; }, view: () => game.view, player: () => mover(), canAct,
  quilt: () => quilts[mover()], pointer: () => pointers[mover()],
  get whose() { return [t('follow.quiltOf', { n: mover() + 1 }), t('follow.playerN', { n: mover() + 1 })]; },
  get where() { return t('follow.theQuilt'); },
  say: (text) => showMessage(msg, text, 'info'), play: (text) => { hand.drop(); playMove(text); },
  leatherFirst: () => { hand.holdLeather(); render(); },
  render: () => render(), redraw: () => drawOverlay(), ghosts: false, error: (e) => showMessage(msg, e),
});

// ------------------------------------------------------------------ a game to follow (made by setup.js)

export const followHash = (id) => `#follow?resume=${encodeURIComponent(id)}`;

// The game followed from a game/new answer (a circle as it lies on the table) or a game/view answer (a
// position under way, from the editor): Play's game data, both sides human.
export function followGame(r, fromPosition = false) {
  return {
    id: `follow-${Date.now().toString(36)}-${Math.floor(Math.random() * 1e6).toString(36)}`,
    kind: KIND,
    state: r.state,
    view: r.view,
    record: fromPosition ? { edition: r.view.edition, actions: [] } : { ...r.record, actions: [] },
    start: fromPosition ? { kind: 'position', state: r.state, notation: r.view.notation } : null,
    begin: { state: r.state, view: r.view },   // where undo replays from when the history is gone (a reload)
    owners: fromPosition ? unknownOwners(r.view) : blankOwners(),
    rootNotation: r.view.notation,
    human: null,
    strength: 'human',
    log: [],
    last: [null, null],
    history: [],
  };
}

// Keep the game under Recent (its undo history is not kept: undo replays from the start instead).
export function keepGame(g) {
  const { history, ...rest } = g;
  void history;
  const n = g.record.actions.length;
  const title = `${tn('follow.recentTitle', n)}${g.view.terminal ? t('follow.recentOver') : ''}`;
  return saveRecent(KIND, g.id, title, rest);
}

// ------------------------------------------------------------------ set-up

export async function init() {
  msg = $('fl-msg');
  translatePage(section());
  P = await patchTable();
  bind();
  open(location.hash);
}

function resumeId(hash) {
  const m = /^#follow\?resume=([^&]+)/.exec(hash);
  return m ? decodeURIComponent(m[1]) : null;
}

function latestUnfinished() {
  const it = listRecent(KIND)[0];
  const full = it && loadRecent(it.id);
  return full && full.data && full.data.view && !full.data.view.terminal ? it.id : null;
}

// Take up a kept game (by its Recent id); false when there is none.
function resume(id) {
  const it = id ? loadRecent(id) : null;
  if (!it || it.kind !== KIND || !it.data || !it.data.state || !it.data.view) return false;
  game = { ...it.data, history: [] };
  reset();
  render();
  return true;
}

function open(hash) {
  const asked = resumeId(hash);
  if (resume(asked) || (!asked && resume(latestUnfinished()))) return;
  game = null;
  if (asked) showMessage(msg, t('follow.gone'), 'info');
  render();
}

function reset() {
  hand.drop(); hint = null; circleFor = null;
  if (game && !game.view.terminal && game.view.leather_to_place > 0) hand.holdLeather();
}

function bind() {
  $('fl-hint').addEventListener('click', () => showHint());
  $('fl-hint-close').addEventListener('click', () => { hint = null; render(); });
  $('fl-eval-toggle').addEventListener('click', () => {
    evalOn = !evalOn;
    if (evalOn) evaluate(); else if (evalAbort) { evalAbort.abort(); evalFor = null; }
    render();
  });
  $('fl-undo').addEventListener('click', () => undo());
  const analyse = () => { if (game) location.hash = analysisHash(game.rootNotation, game.record.actions); };
  $('fl-analyse').addEventListener('click', analyse);
  $('fl-analyse-game').addEventListener('click', analyse);
  $('fl-copy-link').addEventListener('click', async () => {
    if (!game) return;
    const ok = await copyText(analysisLink(game.rootNotation, game.record.actions));
    flash($('fl-copy-link'), ok ? t('follow.copied') : t('follow.copyFailed'));
  });
  $('fl-review-game').addEventListener('click', async () => {
    if (!game || game.start) return;
    const { packRecord } = await import('./review-links.js');
    location.hash = `#review?rec=${await packRecord(gameRecord(game))}&ply=0`;
  });
  $('fl-advance').addEventListener('click', () => playMove('advance'));
  $('fl-rotate').addEventListener('click', () => hand.turn('rotate'));
  $('fl-flip').addEventListener('click', () => hand.turn('flip'));
  $('fl-place').addEventListener('click', () => hand.place());
  $('fl-cancel').addEventListener('click', () => { hand.drop(); render(); });
  pointers = [0, 1].map((i) => bindQuiltPointer($(`fl-quilt-${i}`), {
    hand: () => hand.held, quilt: () => quilts[i], canAct: () => canAct() && mover() === i,
    redraw: drawOverlay, place: () => hand.place(),
  }));
  document.addEventListener('keydown', onKey);
  window.addEventListener('hashchange', () => {
    if (!location.hash.startsWith('#follow')) return;
    const id = resumeId(location.hash);
    if (id && (!game || game.id !== id) && !busy) open(location.hash);
  });
}

function onKey(e) {
  if (section().hidden || e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || !game) return;
  const tgt = e.target;
  if (tgt && (tgt.closest('input, textarea, select, dialog') || tgt.isContentEditable)) return;
  if (hand.key(e)) return;
  const k = e.key.length === 1 ? e.key.toLowerCase() : e.key;
  const handled = () => e.preventDefault();
  if (k === 'Escape') { if (hand.held) { handled(); hand.drop(); render(); } else if (hint) { handled(); hint = null; render(); } }
  else if (k === 'a') { handled(); playMove('advance'); }
  else if (k === 'h') { handled(); showHint(); }
  else if (k === 'u') { handled(); undo(); }
}

// ------------------------------------------------------------------ moves

function canAct() { return !!game && !busy && !game.view.terminal; }

async function playMove(text) {
  if (!canAct()) return;
  showMessage(msg, null);
  const g = game;
  const snap = snapshot(g);
  setBusy(true, t('follow.playing'));
  try {
    const r = await post('game/apply', { state: g.state, move: text });
    if (game !== g) return;
    g.history.push(snap);
    applyMove(g, r, P);
    keepGame(g);
  } catch (e) {
    if (game === g) showMessage(msg, e);
  } finally {
    if (game === g) { setBusy(false); reset(); render(); }
  }
}

// Take back the last move: from the undo history, or, after a reload (no history kept), by playing the game
// again from its start without it.
async function undo() {
  if (!game || busy || !game.record.actions.length) return;
  showMessage(msg, null);
  const g = game;
  if (g.history.length) {
    game = { ...g.history.pop(), history: g.history };
  } else {
    setBusy(true, t('follow.undoing'));
    try {
      game = await replayed(g, g.record.actions.slice(0, -1));
    } catch (e) {
      showMessage(msg, e);
    } finally {
      setBusy(false);
    }
  }
  keepGame(game);
  reset();
  render();
}

// The game g played again from its start with these moves (each through game/apply, as when it was followed).
async function replayed(g, actions) {
  const again = { ...g, state: g.begin.state, view: g.begin.view, record: { ...g.record, actions: [] },
    owners: g.start ? unknownOwners(g.begin.view) : blankOwners(), log: [], last: [null, null], history: [] };
  for (const move of actions) {
    const r = await post('game/apply', { state: again.state, move });
    again.history.push(snapshot(again));
    applyMove(again, r, P);
  }
  return again;
}

// ------------------------------------------------------------------ hints and the evaluation bar (on request)

async function showHint() {
  if (!canAct()) return;
  const g = game;
  const notation = g.view.notation;
  $('fl-hint-panel').hidden = false;
  $('fl-hint-info').textContent = t('follow.thinking');
  clear($('fl-hint-list'));
  try {
    const r = await post('suggest-move', { state: g.state, ...HINT }, { deadlineMs: 30000 });
    if (game !== g || g.view.notation !== notation) return;
    hint = { suggestions: r.suggestions, selected: 0, notation };
    $('fl-hint-info').textContent = r.proven ? t('follow.hintProven', { n: mover() + 1 })
      : t('follow.hintHeading', { n: mover() + 1 });
  } catch (e) {
    $('fl-hint-info').textContent = '';
    showMessage(msg, e);
    return;
  }
  render();
}

function renderHint() {
  const panel = $('fl-hint-panel');
  if (!hint || hint.notation !== game.view.notation) { hint = null; panel.hidden = true; return; }
  panel.hidden = false;
  renderHintList($('fl-hint-list'), hint.suggestions, hint.selected, {
    name: (m) => moveName(m.text), select: (i) => { hint.selected = i; render(); }, play: (text) => playMove(text),
  });
}

// The position's evaluation (as the Analysis board's: suggest-move at its default budget), kept by position.
async function evaluate() {
  if (!evalOn || !game) return;
  const g = game;
  const notation = g.view.notation;
  if (evalFor === notation) return;
  if (evalAbort) evalAbort.abort();
  evalAbort = null;
  evalFor = null;
  if (g.view.terminal || evals.has(notation)) { renderEval(); return; }
  const ctl = new AbortController();
  evalAbort = ctl;
  evalFor = notation;
  renderEval();
  const t0 = performance.now();
  try {
    const r = await post('suggest-move', { state: g.state, top: TOP, iterations: DEFAULT_BUDGET, seed: 0 },
      { signal: ctl.signal, deadlineMs: 60000 });
    evals.set(notation, { budget: DEFAULT_BUDGET, player: r.player, proven: r.proven, ms: Math.round(performance.now() - t0),
      best: r.suggestions.map((s) => ({ move: s.move, win: s.win_chance, margin: s.proven_margin })) });
  } catch (e) {
    if (e.name !== 'AbortError' && game === g) showMessage(msg, e);
    return;
  } finally {
    if (evalAbort === ctl) { evalAbort = null; evalFor = null; }
  }
  if (game === g && g.view.notation === notation) renderEval();
}

function renderEval() {
  const panel = $('fl-eval-panel');
  panel.hidden = !evalOn || !game;
  $('fl-eval-toggle').setAttribute('aria-pressed', String(evalOn));
  if (!evalOn || !game) return;
  const node = { view: game.view, notation: game.view.notation, eval: evals.get(game.view.notation) || null };
  renderEvaluation(node, String(DEFAULT_BUDGET), playMove, EVAL_IDS);
}

// ------------------------------------------------------------------ drawing

function setBusy(on, text = '') {
  busy = on;
  section().dataset.busy = on ? '1' : '0';
  const status = $('fl-status');
  status.classList.toggle('busy', on);
  if (on) status.textContent = text;
}

function statusText() {
  const v = game.view;
  const n = v.current_player + 1;
  if (v.terminal) {
    const [a, b] = v.scores;
    return t('follow.gameOver', { n: v.winner + 1, a, b });
  }
  if (v.leather_to_place > 0) return t(keyHints() ? 'follow.leatherKeys' : 'follow.leatherTouch', { n });
  if (hand.held) return t(keyHints() ? 'follow.heldKeys' : 'follow.heldTouch', { n });
  return tn('follow.toMove', v.advance ? v.advance.buttons : 0, { player: n, to: v.advance ? v.advance.to : '' });
}

function render() {
  const sec = section();
  $('fl-none').hidden = !!game;
  $('fl-board').hidden = !game;
  for (const id of ['fl-hint', 'fl-eval-toggle', 'fl-undo', 'fl-analyse', 'fl-copy-link']) $(id).disabled = !game || busy;
  if (!game) {
    sec.dataset.turn = '';
    if (!busy) $('fl-status').textContent = '';
    return;
  }
  const v = game.view;
  sec.dataset.turn = v.terminal ? 'over' : String(v.current_player);
  sec.dataset.plies = String(game.record.actions.length);
  sec.dataset.notation = v.notation;
  sec.dataset.game = game.id;
  for (const i of [0, 1]) {
    const svg = $(`fl-quilt-${i}`);
    const mine = !v.terminal && v.current_player === i;
    svg.classList.toggle('interactive', mine);
    if (mine) {
      svg.setAttribute('tabindex', '0');
      svg.setAttribute('role', 'application');
      svg.setAttribute('aria-label', t('follow.quiltToMove', { n: i + 1 }));
    } else {
      svg.removeAttribute('tabindex');
      svg.setAttribute('role', 'img');
      svg.setAttribute('aria-label', t('follow.quiltOf', { n: i + 1 }));
    }
    quilts[i] = drawQuilt(svg, v.players[i].rows, game.owners[i], P);
    statsInto($(`fl-stats-${i}`), v.players[i], t('follow.playerN', { n: i + 1 }), v.terminal);
    $(`fl-side-${i}`).classList.toggle('to-move', mine);
  }
  drawTrack($('fl-track'), v, ['1', '2']);
  if (circleFor !== v) {
    circleFor = v;
    drawCircle($('fl-circle'), v, P, !v.terminal, { pick: hand.pick, ...hand.drag });
  }
  markHeldCard($('fl-circle'), hand.held);
  const adv = $('fl-advance');
  adv.textContent = v.advance ? t('follow.advance', { to: v.advance.to, buttons: v.advance.buttons }) : t('follow.advanceNone');
  adv.disabled = busy || !v.advance || v.terminal || v.leather_to_place > 0;
  $('fl-held').hidden = !hand.held || v.terminal;
  if (hand.held) heldControls($('fl-held-label'), $('fl-rotate'), $('fl-flip'), hand.held);
  $('fl-undo').disabled = busy || !game.record.actions.length;
  $('fl-over').hidden = !v.terminal;
  $('fl-review-game').disabled = !!game.start;
  if (!busy) {
    $('fl-status').classList.remove('busy');
    $('fl-status').textContent = statusText();
  }
  const log = $('fl-log');
  clear(log);
  for (const item of game.log) {
    const li = document.createElement('li');
    li.textContent = `${t('follow.playerN', { n: item.player + 1 })}: ${item.text}`;
    li.dataset.move = item.move;
    log.appendChild(li);
  }
  drawOverlay();
  renderHint();
  renderEval();
  if (evalOn && !evals.has(v.notation) && evalFor !== v.notation && !v.terminal) evaluate();
}

// The last move of each player outlined on their quilt; the hint drawn on the mover's; the patch in hand with
// the solver's spots for it.
function drawOverlay() {
  if (!game) return;
  const v = game.view;
  const me = mover();
  for (const i of [0, 1]) {
    const q = quilts[i];
    if (!q) continue;
    clear(q.overlay);
    const last = game.last[i];
    if (last && last.cells && last.cells.length) markCells(q.overlay, S.fromMessage(last.cells), 'last', { move: last.text });
  }
  clearHandMarks($('fl-quilt-0'));
  clearHandMarks($('fl-quilt-1'));
  const q = quilts[me];
  if (!q || v.terminal) { $('fl-place').disabled = true; return; }
  if (hint && hint.notation === v.notation && hint.suggestions[hint.selected]) {
    const m = hint.suggestions[hint.selected].move;
    const cells = S.fromMessage(m.cells);
    const g = markCells(q.overlay, cells, 'hint-mark', { move: m.text, cells: S.cellsText(cells) }, cells.length ? '★' : null);
    g.setAttribute('aria-label', t('follow.hintMark', { move: moveName(m.text) }));
  }
  if (hand.held) $('fl-place').disabled = !hand.draw(q.overlay, $(`fl-quilt-${me}`)) || busy;
  else $('fl-place').disabled = true;
}

// What the browser tests read of the page (the game followed). Nothing in the app uses it and no global
// carries it: a test imports this module and puts it where it looks.
export const inspect = { game: () => game, held: () => hand.held };
