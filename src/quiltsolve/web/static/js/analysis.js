// Analysis: a board where any legal move of either side can be tried from any position. The moves made form a
// tree (the main line and its variations), shown as a nested list and navigated with the keys players know;
// the engine evaluates the current position (suggest-move at a stated budget, the fetch aborted when the
// position changes), or, with infinite analysis on, streams its evaluation while it thinks (analyze-position
// until cancelled: restarted on every new node, stopped by the toggle or while the page is hidden); Solve proves
// its exact value (analysis-solve.js: solve-position, stopped by Stop or another node). The position
// and the line live in the URL (links.js); the tree in localStorage (store.js).

import { describe, post, showMessage, stream } from './api.js';
import * as S from './shapes.js';
import { clear, drawQuilt, drawTrack, markCells } from './draw.js';
import {
  addOwner, bindQuiltPointer, cellsOfMoveText, clearHandMarks, drawCircle, drawGhosts, heldControls, holdFlow,
  markHeldCard, patchTable, statsInto, unknownOwners
} from './hand.js';
import { listRecent, loadRecent, saveRecent } from './store.js';
import { analysisHash, analysisLink, copyText, flash, parseAnalysisHash } from './links.js';
import {
  branchPoint, countNodes, deserialize, endOfLine, lineOf, makeNode, onMainLine, pathOf, promoteLine, removeNode,
  serialize
} from './analysis-tree.js';
import { moveName, renderMoves } from './analysis-moves.js';
import { ANALYSIS_IDS, renderEvaluation } from './analysis-eval.js';
import { renderSolve, solving, startSolve, stopSolve } from './analysis-solve.js';
import { renderRecent } from './recent-list.js';
import { formatPercent, onLanguageChange, t, tn } from './i18n.js';

const $ = (id) => document.getElementById(id);
export const DEFAULT_BUDGET = 1000;   // iterations: bench_web measures the evaluation drawn at this budget
export const TOP = 3;
export const TREE_FORMAT = 1;
export const LIVE_INTERVAL = '0.25s';  // infinite analysis: four updates a second

let P = null;
let root = null;        // the tree: nodes {move, player, ply, notation, state, view, children, parent, eval}
let cur = null;         // the node on the board
// The patch in hand (hand.js), for the player to move, with the solver's ghosts for it; put down, it is a move
// on the board. (The functions it calls are hoisted; msg is set before any of them runs.)
const hand = holdFlow({
  get P() { return P; }, view: () => cur.view, player: () => mover(), canAct,
  quilt: () => quilts[mover()], pointer: () => pointers[mover()],
  who: () => mover(),
  say: (text) => showMessage(msg, text, 'info'), play: (text) => { hand.drop(); playMove(text); },
  leatherFirst: () => { hand.holdLeather(); render(); },
  render: () => render(), redraw: () => drawOverlay(), ghosts: true, error: (e) => showMessage(msg, e),
});
let busy = false;       // a move is being played
let evalAbort = null;   // the current evaluation's fetch
let infinite = false;   // infinite analysis on (the toggle); it streams only while the board is seen
let writtenHash = '';   // the hash this page wrote last (its own changes are not reloads)
let circleFor = null;
let quilts = [null, null];
let pointers = [];
let msg = null;

const section = () => $('page-analysis');
// Key hints only where there is likely a keyboard: not on a phone's width or a touch screen (as app.css's .key-hint).
const keyHints = () => !window.matchMedia('(max-width: 600px), (pointer: coarse)').matches;
const mover = () => (cur && cur.view ? cur.view.current_player : 0);

// ------------------------------------------------------------------ set-up

export async function init() {
  msg = $('an-msg');
  $('an-budget').value = String(DEFAULT_BUDGET);
  P = await patchTable();
  bind();
  onLanguageChange(() => { circleFor = null; render(); renderRecent($('an-recent'), openStored); });
  await openFromHash(location.hash);
}

function bind() {
  $('an-copy').addEventListener('click', async () => {
    flash($('an-copy'), t(await copyText($('an-notation').value) ? 'common.copied' : 'common.copyFailed'));
  });
  $('an-notation').addEventListener('focus', (e) => e.target.select());
  $('an-copy-link').addEventListener('click', async () => {
    if (!root) return;
    flash($('an-copy-link'), t(await copyText(analysisLink(root.notation, lineOf(cur))) ? 'common.copied' : 'common.copyFailed'));
  });
  const toggle = $('an-paste-toggle');
  toggle.addEventListener('click', () => {
    const form = $('an-paste');
    form.hidden = !form.hidden;
    toggle.setAttribute('aria-expanded', String(!form.hidden));
    if (!form.hidden) $('an-paste-text').focus();
  });
  $('an-paste-cancel').addEventListener('click', () => { $('an-paste').hidden = true; toggle.setAttribute('aria-expanded', 'false'); });
  $('an-paste').addEventListener('submit', async (e) => {
    e.preventDefault();
    if (await openText($('an-paste-text').value, [])) {
      $('an-paste').hidden = true;
      toggle.setAttribute('aria-expanded', 'false');
    }
  });
  $('an-new').addEventListener('click', newDeal);
  $('an-first').addEventListener('click', () => go(root));
  $('an-prev').addEventListener('click', () => cur && cur.parent && go(cur.parent));
  $('an-next').addEventListener('click', () => cur && cur.children[0] && go(cur.children[0]));
  $('an-last').addEventListener('click', () => cur && go(endOfLine(cur)));
  $('an-delete').addEventListener('click', () => deleteNode(cur));
  $('an-promote').addEventListener('click', () => promote(cur));
  $('an-budget').addEventListener('change', () => { if (cur) { cur.eval = null; evaluate(cur); } });
  $('an-infinite').addEventListener('change', (e) => setInfinite(e.target.checked));
  $('an-solve').addEventListener('click', () => {
    if (solving(cur)) stopSolve();
    else startSolve(cur, () => cur, msg);
  });
  // Infinite analysis thinks only while the board is seen: not in a hidden tab, not on another page of the app.
  document.addEventListener('visibilitychange', seenChanged);
  new MutationObserver(seenChanged).observe(section(), { attributes: true, attributeFilter: ['hidden'] });
  $('an-advance').addEventListener('click', () => playMove('advance'));
  $('an-rotate').addEventListener('click', () => hand.turn('rotate'));
  $('an-flip').addEventListener('click', () => hand.turn('flip'));
  $('an-place').addEventListener('click', () => hand.place());
  $('an-cancel').addEventListener('click', () => { hand.drop(); render(); });
  pointers = [0, 1].map((i) => bindQuiltPointer($(`an-quilt-${i}`), {
    hand: () => hand.held, quilt: () => quilts[i], canAct: () => canAct() && mover() === i,
    redraw: drawOverlay, place: () => hand.place(),
  }));
  document.addEventListener('keydown', onKey);
  window.addEventListener('hashchange', () => {
    if (location.hash.startsWith('#analysis') && location.hash !== writtenHash) openFromHash(location.hash);
  });
}

function onKey(e) {
  if (section().hidden || e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || !cur) return;
  const t = e.target;
  if (t && (t.closest('input, textarea, select, dialog') || t.isContentEditable)) return;
  if (hand.key(e)) return;
  const k = e.key.length === 1 ? e.key.toLowerCase() : e.key;
  const handled = () => e.preventDefault();
  if (hand.held) {
    // While a patch is held the keys are the hand's (hand.key), as on the Play page: the board stays put.
    if (k === 'Escape') { handled(); hand.drop(); render(); }
    return;
  }
  if (k === 'ArrowLeft' && e.shiftKey) { handled(); go(branchPoint(cur)); }
  else if (k === 'ArrowLeft') { handled(); if (cur.parent) go(cur.parent); }
  else if (k === 'ArrowRight') { handled(); if (cur.children[0]) go(cur.children[0]); }
  else if (k === 'ArrowUp' || k === 'Home') { handled(); go(root); }
  else if (k === 'ArrowDown' || k === 'End') { handled(); go(endOfLine(cur)); }
  else if (k === 'Delete') { handled(); deleteNode(cur); }
  else if (k === 'a') { handled(); playMove('advance'); }
}

// ------------------------------------------------------------------ the tree (analysis-tree.js)

function deleteNode(node) {
  if (!node || !node.parent || busy) return;
  const parent = node.parent;
  removeNode(node);
  go(parent);
}

function promote(node) {
  if (!node || busy) return;
  promoteLine(node);
  go(node);
}

// A node's position: known when the move was played here, else loaded from its notation.
async function loaded(node) {
  if (node.state) return node;
  const r = await post('game/load', { text: node.notation });
  node.state = r.state;
  node.view = r.view;
  return node;
}

// ------------------------------------------------------------------ opening a board

function treeId(notation) { return `analysis:${notation}`; }

async function openFromHash(hash) {
  const { pos, line } = parseAnalysisHash(hash);
  if (pos) return openText(pos, line, 'pos');
  const latest = listRecent('analysis')[0];
  if (latest && await openStored(latest.id)) return true;
  return newDeal();
}

async function newDeal() {
  showMessage(msg, null);
  try {
    const r = await post('game/new', {});
    return start(r.state, r.view, []);
  } catch (e) { showMessage(msg, e); return false; }
}

async function openStored(id) {
  const it = loadRecent(id);
  if (!it || it.kind !== 'analysis' || !it.data || it.data.format !== TREE_FORMAT) return false;
  return openText(it.data.tree.n, it.data.line || [], 'pos');
}

// Open text (a notation, state JSON or record) with the moves of line played from it; the stored tree of the
// same position, if any, comes back with it.
async function openText(text, line, field = 'text') {
  showMessage(msg, null);
  setBusy(true, t('common.loadingPosition'));
  let r;
  try {
    r = await post('game/load', { text });
  } catch (e) {
    setBusy(false);
    const where = field === 'pos' ? `${t('analysis.badLink')} ` : '';
    showMessage(msg, `${where}${describe(e)}`);
    if (e.field) msg.dataset.field = e.field;
    if (!root) $('an-status').textContent = t('analysis.loadOrDeal');
    return false;
  }
  setBusy(false);
  return start(r.state, r.view, line);
}

async function start(state, view, line) {
  hand.drop();
  circleFor = null;
  const stored = loadRecent(treeId(view.notation));
  if (stored && stored.data && stored.data.format === TREE_FORMAT && stored.data.tree.n === view.notation) {
    root = deserialize(stored.data.tree);
  } else {
    root = makeNode(null, null, null, view.notation);
  }
  root.state = state;
  root.view = view;
  root.owners = unknownOwners(view);
  // Walk the line, playing the moves the tree does not have yet.
  let node = root;
  if (line.length) setBusy(true, tn('analysis.playingLine', line.length));
  for (let i = 0; i < line.length; i++) {
    const next = await child(node, line[i]);
    if (!next) {
      showMessage(msg, t('analysis.badLine', { n: i + 1, move: line[i] }));
      break;
    }
    node = next;
  }
  setBusy(false);
  await go(node);
  return true;
}

// The child of node reached by move text (made if new); null when the move is illegal.
async function child(node, text) {
  const want = text.trim();
  const known = node.children.find((c) => c.move === want);
  if (known) return known;
  try {
    await loaded(node);
    const r = await post('game/apply', { state: node.state, move: want });
    const known2 = node.children.find((c) => c.move === r.move.text);
    if (known2) return known2;
    const c = makeNode(node, r.move.text, r.player, r.view.notation, r.state, r.view);
    node.children.push(c);
    return c;
  } catch (e) {
    if (e.name === 'AbortError') throw e;
    return null;
  }
}

// ------------------------------------------------------------------ moving about

async function go(node) {
  if (!node) return;
  if (solving() && !solving(node)) stopSolve();   // a solve is of the node it started on
  cur = node;
  hand.drop();
  if (evalAbort) evalAbort.abort();
  try {
    await loaded(node);
  } catch (e) {
    if (cur === node) showMessage(msg, e);
    return;
  }
  if (cur !== node) return;
  evaluate(node);   // the request goes first: the server thinks while the page draws
  writeHash();
  save();
  render();
  renderRecent($('an-recent'), openStored);
}

function writeHash() {
  const h = analysisHash(root.notation, lineOf(cur));
  writtenHash = h;
  if (location.hash !== h && location.hash.startsWith('#analysis')) history.replaceState(null, '', h);
}

function save() {
  const n = countNodes(root) - 1;
  // A board merely opened (no move made on it) is not work to come back to: Recent lists it from the first
  // move on. One already listed is kept up to date (its moves deleted, its current line moved).
  if (!n && !loadRecent(treeId(root.notation))) return;
  const label = { key: 'recent.analysis', n, vars: { notation: `${root.notation.slice(0, 40)}${root.notation.length > 40 ? '…' : ''}` } };
  saveRecent('analysis', treeId(root.notation), tn(label.key, n, label.vars),
    { format: TREE_FORMAT, tree: serialize(root), line: lineOf(cur) }, label);
}

async function playMove(text) {
  if (!canAct()) return;
  showMessage(msg, null);
  setBusy(true, t('analysis.playing'));
  const node = cur;
  const next = await child(node, text);
  setBusy(false);
  if (cur !== node) return;
  if (!next) { showMessage(msg, t('analysis.illegal', { move: text })); render(); return; }
  await go(next);
}

function canAct() { return !!cur && !!cur.view && !busy && !cur.view.terminal; }

// ------------------------------------------------------------------ the engine's view

async function evaluate(node) {
  if (evalAbort) evalAbort.abort();
  evalAbort = null;
  if (infinite) { evaluateLive(node); return; }
  const budget = Number($('an-budget').value) || DEFAULT_BUDGET;
  if (node.view.terminal || (node.eval && node.eval.budget === budget)) { renderEval(); return; }
  const ctl = new AbortController();
  evalAbort = ctl;
  section().dataset.evaluated = '';
  renderEval();
  const t0 = performance.now();
  try {
    const r = await post('suggest-move', { state: node.state, top: TOP, iterations: budget, seed: 0 },
      { signal: ctl.signal, deadlineMs: 60000 });
    node.eval = { budget, player: r.player, proven: r.proven, ms: Math.round(performance.now() - t0),
      best: r.suggestions.map((s) => ({ move: s.move, win: s.win_chance, margin: s.proven_margin })) };
  } catch (e) {
    if (e.name === 'AbortError') return;
    if (cur === node) showMessage(msg, e);
    return;
  } finally {
    if (evalAbort === ctl) evalAbort = null;
  }
  if (cur !== node) return;
  renderEval();
  drawOverlay();
}

// ------------------------------------------------------------------ infinite analysis

const seen = () => !document.hidden && !section().hidden;

function liveState() { return !infinite ? 'off' : seen() ? 'on' : 'paused'; }

function setInfinite(on) {
  infinite = on;
  $('an-infinite').checked = on;
  $('an-budget').disabled = on;
  section().dataset.live = liveState();
  if (!cur) return;
  if (on) { evaluate(cur); return; }
  stopLive();
  if (!cur.eval) evaluate(cur);   // the budget's evaluation; a streamed one stays shown
  else renderEval();
}

function stopLive() {
  if (evalAbort) evalAbort.abort();   // closing the stream cancels the analysis: its worker is free at once
  evalAbort = null;
  if (cur && cur.eval && cur.eval.streaming) cur.eval.streaming = false;
}

function seenChanged() {
  if (section().hidden) stopSolve();   // another page of the app: the solve ends (a hidden tab keeps it)
  if (!infinite) return;
  section().dataset.live = liveState();
  if (!seen()) { stopLive(); if (cur) renderEval(); return; }
  if (cur && !evalAbort) evaluate(cur);
}

// The position's analysis streamed into node.eval (the evaluation bar, the best three, the ghosts), until the
// stream ends (proven, or the server's cap), the toggle goes off, the page is hidden or another node is shown.
async function evaluateLive(node) {
  if (node.view.terminal || !seen() || (node.eval && node.eval.live && node.eval.final)) {
    section().dataset.live = liveState();
    renderEval();
    return;
  }
  const ctl = new AbortController();
  evalAbort = ctl;
  section().dataset.live = 'on';
  if (!node.eval || !node.eval.live) section().dataset.evaluated = '';
  renderEval();
  const t0 = performance.now();
  const body = { state: node.state, top: TOP, seed: 0, until_cancelled: true, report_interval: LIVE_INTERVAL };
  const onUpdate = (u) => {
    if (ctl.signal.aborted || !u.moves || !u.moves.length) return;   // none yet: the solver or lookahead first
    node.eval = { budget: 'live', live: true, streaming: !u.final, final: !!u.final, player: u.player || 0,
      proven: !!u.proven, iterations: u.iterations || 0, ms: Math.round(performance.now() - t0),
      best: u.moves.map((m) => ({ move: m.move, win: m.win_chance || 0, margin: m.proven_margin,
        visits: m.visits || 0, line: (m.principal_variation || []).map((x) => x.text) })) };
    if (cur !== node) return;
    renderEval();
    if (!hand.held) drawOverlay();
  };
  try {
    await stream('analyze-position', body, onUpdate, { signal: ctl.signal });
  } catch (e) {
    if (e.name === 'AbortError') return;
    if (cur === node) { showMessage(msg, e); setInfinite(false); }
    return;
  } finally {
    if (evalAbort === ctl) evalAbort = null;
    if (node.eval && node.eval.live) node.eval.streaming = false;
  }
  if (cur === node) renderEval();
}

function renderEval() { renderEvaluation(cur, $('an-budget').value, playMove, ANALYSIS_IDS, liveState()); }

// ------------------------------------------------------------------ drawing

function setBusy(on, text = '') {
  busy = on;
  section().dataset.busy = on ? '1' : '0';
  if (on) $('an-status').textContent = text;
}

function ownersAt(node) {
  const path = [];
  for (let n = node; n.parent; n = n.parent) path.push(n);
  const owners = root.owners.map((o) => o.slice());
  for (const n of path.reverse()) addOwner(owners, n.player, { text: n.move });
  return owners;
}

function statusText() {
  const v = cur.view;
  const vars = { n: cur.ply, p: cur.player + 1, move: cur.parent ? moveName(cur.move) : '' };
  const after = cur.parent ? `${t(onMainLine(cur) ? 'analysis.after' : 'analysis.afterVariation', vars)} ` : '';
  if (v.terminal) return `${after}${t('analysis.over', { p: v.winner + 1, a: v.scores[0], b: v.scores[1] })}`;
  const p = { p: v.current_player + 1 };
  if (!keyHints()) {
    if (v.leather_to_place > 0) return `${after}${t('analysis.status.leatherTouch', p)}`;
    if (hand.held) return `${after}${t('analysis.status.heldTouch', p)}`;
    return `${after}${t('analysis.status.toMoveTouch', p)}`;
  }
  if (v.leather_to_place > 0) return `${after}${t('analysis.status.leather', p)}`;
  if (hand.held) return `${after}${t('analysis.status.held', p)}`;
  return `${after}${t('analysis.status.toMove', p)}`;
}

function render() {
  if (!cur || !cur.view) return;
  const v = cur.view;
  const sec = section();
  const board = $('an-board');
  sec.dataset.notation = cur.notation;
  board.dataset.notation = cur.notation;
  sec.dataset.line = lineOf(cur).join('~');
  sec.dataset.path = pathOf(cur);
  sec.dataset.turn = v.terminal ? 'over' : String(v.current_player);
  $('an-notation').value = cur.notation;
  const owners = ownersAt(cur);
  for (const i of [0, 1]) {
    const svg = $(`an-quilt-${i}`);
    const mine = !v.terminal && v.current_player === i;
    svg.classList.toggle('interactive', mine);
    if (mine) {
      svg.setAttribute('tabindex', '0');
      svg.setAttribute('role', 'application');
      svg.setAttribute('aria-label', t('analysis.quiltToMove', { n: i + 1 }));
    } else {
      svg.removeAttribute('tabindex');
      svg.setAttribute('role', 'img');
      svg.setAttribute('aria-label', t('quilt.player', { n: i + 1 }));
    }
    quilts[i] = drawQuilt(svg, v.players[i].rows, owners[i], P);
    statsInto($(`an-stats-${i}`), v.players[i], t('player.n', { n: i + 1 }), v.terminal);
    $(`an-side-${i}`).classList.toggle('to-move', mine);
  }
  drawTrack($('an-track'), v, [t('track.p1'), t('track.p2')]);
  if (circleFor !== v) {
    circleFor = v;
    drawCircle($('an-circle'), v, P, !v.terminal, { pick: hand.pick, ...hand.drag });
  }
  markHeldCard($('an-circle'), hand.held);
  const adv = $('an-advance');
  adv.textContent = v.advance ? t('common.advanceTo', { to: v.advance.to, n: v.advance.buttons }) : t('common.advance');
  adv.disabled = !v.advance || v.terminal || v.leather_to_place > 0;
  $('an-held').hidden = !hand.held;
  if (hand.held) heldControls($('an-held-label'), $('an-rotate'), $('an-flip'), hand.held);
  $('an-first').disabled = !cur.parent;
  $('an-prev').disabled = !cur.parent;
  $('an-next').disabled = !cur.children.length;
  $('an-last').disabled = !cur.children.length;
  $('an-delete').disabled = !cur.parent;
  $('an-promote').disabled = onMainLine(cur);
  if (!busy) $('an-status').textContent = statusText();
  drawOverlay();
  renderMoves($('an-moves'), root, cur, go);
  renderEval();
  renderSolve(cur);
}

// The last move outlined; the engine's best moves as numbered ghosts on the mover's quilt (a click plays one);
// the patch in hand with the solver's spots for it.
function drawOverlay() {
  const v = cur.view;
  for (const i of [0, 1]) {
    const q = quilts[i];
    if (!q) continue;
    clear(q.overlay);
    if (cur.parent && cur.player === i) {
      const cells = cellsOfMoveText(cur.move);
      if (cells.length) markCells(q.overlay, cells, 'last', { move: cur.move });
    }
  }
  const me = mover();
  const q = quilts[me];
  const svg = $(`an-quilt-${me}`);
  clearHandMarks($('an-quilt-0'));
  clearHandMarks($('an-quilt-1'));
  if (!q || v.terminal) { $('an-place').disabled = true; return; }
  if (hand.held) {
    $('an-place').disabled = !hand.draw(q.overlay, svg) || busy;
  } else if (cur.eval) {
    const best = cur.eval.best;
    const g = best.map((s) => S.fromMessage(s.move.cells));
    drawGhosts(q.overlay, g, (cells, i) => playMove(best[i].move.text),
      (i) => t('analysis.ghost', { n: i + 1, move: moveName(best[i].move.text), pct: formatPercent(best[i].win) }));
    for (const el of q.overlay.querySelectorAll('.ghost')) {
      el.classList.add('engine-ghost');
      el.dataset.move = best[Number(el.dataset.rank) - 1].move.text;
    }
    $('an-place').disabled = true;
  }
}

// What the browser tests read of the board (the tree, the current node, the budget). Nothing in the app
// uses it and no global carries it: a test imports this module and puts it where it looks.
export const inspect = {
  tree: () => serialize(root), current: () => (cur ? { line: lineOf(cur), notation: cur.notation, eval: cur.eval } : null),
  budget: () => Number($('an-budget').value),
  live: () => liveState(),
};
