// Play: a game against the engine. Every move goes through the API (game/apply, game/engine-move);
// ghosts come from suggest-placement, hints from suggest-move.

import { patches as loadPatches, post, showMessage } from './api.js';
import * as S from './shapes.js';
import { clear, drawQuilt, drawTrack, icon, markCells, patchColor, shapeIcon } from './draw.js';
import { dragCancel, dragEnd, dragMove, startCardDrag } from './drag.js';

const $ = (id) => document.getElementById(id);
export const HINT = { top: 5, iterations: 300, seed: 0 };
const GHOSTS = 3;

let P = null;            // patches by id, with .cells
let game = null;         // the game being played (see newGameFrom)
let held = null;         // the patch in hand: {pid, slot, orient, pos, ghosts}
let hint = null;         // {suggestions, selected}
let busy = false;
let stuck = false;       // the engine's last move failed: offer a retry
let lastPointer = 'mouse';
let quilt = null;        // drawing handle of the human's quilt
let circleDrawnFor = null;
let msg = null;

const clamp = (x, lo, hi) => Math.max(lo, Math.min(hi, x));
const sameCell = (a, b) => !!a && !!b && a[0] === b[0] && a[1] === b[1];
const section = () => $('page-play');

// ------------------------------------------------------------------ set-up

export async function init() {
  msg = $('play-msg');
  try {
    P = {};
    for (const p of await loadPatches()) P[p.id] = { ...p, cells: S.parseShape(p.shape) };
  } catch (e) { showMessage(msg, e); return; }
  bind();
  await newGame();
}

function bind() {
  $('play-setup').addEventListener('submit', (e) => { e.preventDefault(); newGame(); });
  $('play-hint').addEventListener('click', () => showHint());
  $('play-undo').addEventListener('click', () => undo());
  $('play-download').addEventListener('click', () => download());
  $('play-advance').addEventListener('click', () => humanMove('advance'));
  $('play-rotate').addEventListener('click', () => turn('rotate'));
  $('play-flip').addEventListener('click', () => turn('flip'));
  $('play-place').addEventListener('click', () => placeHeld());
  $('play-cancel').addEventListener('click', () => { held = null; render(); });
  $('play-hint-close').addEventListener('click', () => { hint = null; render(); });
  const toggle = $('play-paste-toggle');
  toggle.addEventListener('click', () => {
    const form = $('play-paste');
    form.hidden = !form.hidden;
    toggle.setAttribute('aria-expanded', String(!form.hidden));
    if (!form.hidden) $('play-paste-text').focus();
  });
  $('play-paste-cancel').addEventListener('click', () => { $('play-paste').hidden = true; toggle.setAttribute('aria-expanded', 'false'); });
  $('play-paste').addEventListener('submit', (e) => { e.preventDefault(); loadPosition($('play-paste-text').value); });
  $('play-advance').addEventListener('mouseenter', () => showTarget(true));
  $('play-advance').addEventListener('mouseleave', () => showTarget(false));
  $('play-advance').addEventListener('focus', () => showTarget(true));
  $('play-advance').addEventListener('blur', () => showTarget(false));

  const svg = $('play-quilt-human');
  svg.addEventListener('pointerdown', (e) => { lastPointer = e.pointerType || 'mouse'; });
  svg.addEventListener('pointermove', (e) => {
    if (!held || !canAct() || e.pointerType === 'touch') return;
    if (e.target.closest && e.target.closest('.ghost')) {
      // Over a ghost: the ghost is what a click places, so the patch in hand steps aside.
      if (held.pos) { held.pos = null; drawOverlay(); }
      return;
    }
    const rc = quilt && quilt.cellAt(e);
    if (rc && (!held.pos || !sameCell(rc, held.hover))) { held.hover = rc; setPos(rc); drawOverlay(); }
  });
  svg.addEventListener('click', (e) => {
    if (!held || !canAct() || e.target.closest('.ghost')) return;
    const rc = quilt && quilt.cellAt(e);
    if (!rc) return;
    if (lastPointer === 'touch') {
      // Touch: the first tap shows the patch there, a tap on the patch places it.
      const cells = heldCells();
      if (!cells || !cells.some(([r, c]) => r === rc[0] && c === rc[1])) { setPos(rc); drawOverlay(); return; }
    } else {
      setPos(rc);
    }
    placeHeld();
  });
  svg.addEventListener('keydown', (e) => {
    if (e.key === ' ' && held) { e.preventDefault(); placeHeld(); }
  });
  document.addEventListener('keydown', onKey);
  window.quiltsolveDebug = { game: () => game, held: () => held, hint: HINT };
}

function onKey(e) {
  if (section().hidden || e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey) return;
  const t = e.target;
  if (t && (t.closest('input, textarea, select, dialog') || t.isContentEditable)) return;
  const onButton = t && t.closest('button, [role=button], .ghost');
  const k = e.key.length === 1 ? e.key.toLowerCase() : e.key;
  const handled = () => e.preventDefault();
  if (['1', '2', '3'].includes(k)) { handled(); pick(Number(k)); }
  else if (k === 'r' && held) { handled(); turn('rotate'); }
  else if (k === 'f' && held) { handled(); turn('flip'); }
  else if (k === 'g' && held) { handled(); if (held.ghosts.length) placeHeld(held.ghosts[0]); }
  else if (k.startsWith('Arrow') && held) { handled(); nudge(k); }
  else if (k === 'Enter' && held && !onButton) { handled(); placeHeld(); }
  else if (k === 'Escape') { if (held) { handled(); held = null; render(); } else if (hint) { handled(); hint = null; render(); } }
  else if (k === 'a') { handled(); humanMove('advance'); }
  else if (k === 'h') { handled(); showHint(); }
  else if (k === 'u') { handled(); undo(); }
}

// ------------------------------------------------------------------ games

function blankOwners() { return [Array(81).fill(null), Array(81).fill(null)]; }

async function newGame() {
  showMessage(msg, null);
  const seedText = $('play-seed').value.trim();
  const seed = seedText === '' ? Math.floor(Math.random() * 2147483646) : Number(seedText);
  setBusy(true, 'Dealing…');
  try {
    const r = await post('game/new', { seed });
    $('play-seed').value = String(r.record.seed);
    start({ state: r.state, view: r.view, record: r.record, start: null, owners: blankOwners() });
  } catch (e) { showMessage(msg, e); setBusy(false); return; }
  await engineTurns();
}

function start(g) {
  game = {
    ...g,
    human: Number($('play-side').value),
    strength: $('play-strength').value,
    engineSeed: (g.record.seed || 0) % 1000003,
    history: [],
    log: [],
    last: [null, null],
  };
  held = null; hint = null; stuck = false; circleDrawnFor = null;
  render();
}

async function loadPosition(text) {
  showMessage(msg, null);
  setBusy(true, 'Loading the position…');
  try {
    const r = await post('game/load', { text });
    let owners = blankOwners();
    let record = { edition: r.view.edition, actions: [] };
    let startPos = null;
    if (r.kind === 'record') {
      record = r.record;
      const rep = await post('game/replay', { record: r.record });
      for (const p of rep.plies) addOwner(owners, p.player, p.move);
    } else {
      startPos = { kind: r.kind, state: r.state, notation: r.view.notation };
      r.view.players.forEach((p, i) => p.rows.forEach((row, rr) => [...row].forEach((ch, cc) => {
        if (ch === '#') owners[i][rr * 9 + cc] = '?';
      })));
    }
    $('play-paste').hidden = true;
    $('play-paste-toggle').setAttribute('aria-expanded', 'false');
    start({ state: r.state, view: r.view, record, start: startPos, owners });
  } catch (e) { showMessage(msg, e); setBusy(false); render(); return; }
  await engineTurns();
}

function addOwner(owners, player, move) {
  const cells = S.fromMessage(move.cells);
  if (move.kind === 'MOVE_KIND_BUY') for (const [r, c] of cells) owners[player][r * 9 + c] = `p${move.patch_id}`;
  if (move.kind === 'MOVE_KIND_LEATHER') for (const [r, c] of cells) owners[player][r * 9 + c] = `L${r * 9 + c}`;
}

function describeMove(move, before, after, player) {
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

function applyResult(r) {
  const before = game.view;
  addOwner(game.owners, r.player, r.move);
  game.state = r.state;
  game.view = r.view;
  game.record.actions.push(r.move.text);
  game.last[r.player] = r.move;
  game.log.push({ player: r.player, text: describeMove(r.move, before, r.view, r.player), move: r.move.text });
}

function snapshot() {
  const { history, ...rest } = game;
  return JSON.parse(JSON.stringify(rest));
}

function canAct() {
  return !!game && !busy && !game.view.terminal && game.view.current_player === game.human;
}

async function humanMove(text) {
  if (!canAct()) return;
  showMessage(msg, null);
  const snap = snapshot();
  setBusy(true, 'Playing your move…');
  try {
    const r = await post('game/apply', { state: game.state, move: text });
    game.history.push(snap);
    held = null; hint = null;
    applyResult(r);
  } catch (e) {
    setBusy(false);
    showMessage(msg, e);
    render();
    return;
  }
  await engineTurns();
}

async function engineTurns() {
  const g = game;
  stuck = false;
  while (game === g && !g.view.terminal && g.view.current_player !== g.human) {
    setBusy(true, 'The engine is thinking…');
    try {
      const r = await post('game/engine-move', { state: g.state, strength: g.strength, seed: g.engineSeed++ },
        { deadlineMs: 90000 });
      if (game !== g) return;
      applyResult(r);
      render();
    } catch (e) {
      if (game !== g) return;
      stuck = true;
      showMessage(msg, e);
      break;
    }
  }
  if (game !== g) return;
  setBusy(false);
  if (!g.view.terminal && g.view.current_player === g.human && g.view.leather_to_place > 0) holdLeather();
  render();
  if (!g.view.terminal && g.view.current_player === g.human) $('play-quilt-human').focus({ preventScroll: true });
}

function undo() {
  if (!game || busy || !game.history.length) return;
  const prev = game.history.pop();
  const history = game.history;
  game = { ...prev, history };
  held = null; hint = null; stuck = false; circleDrawnFor = null;
  showMessage(msg, null);
  if (game.view.leather_to_place > 0 && game.view.current_player === game.human) holdLeather();
  render();
}

function record() {
  const r = game.start
    ? { edition: game.view.edition, start: game.start, actions: game.record.actions.slice() }
    : { edition: game.record.edition, seed: game.record.seed, circle: game.record.circle, actions: game.record.actions.slice() };
  if (game.view.terminal && game.view.result) r.result = game.view.result;
  r.players = game.human === 0 ? ['human', game.strength] : [game.strength, 'human'];
  return r;
}

function download() {
  if (!game) return;
  const blob = new Blob([`${JSON.stringify(record())}\n`], { type: 'application/json' });
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = `patchwork-${game.start ? 'position' : game.record.seed}-${game.record.actions.length}.json`;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 2000);
}

// ------------------------------------------------------------------ the patch in hand

function pick(slot) {
  if (!canAct()) return;
  const v = game.view;
  if (v.leather_to_place > 0) { showMessage(msg, 'Place your leather patch first.', 'info'); return; }
  const a = v.available[slot - 1];
  if (!a) return;
  if (!a.buyable) {
    showMessage(msg, a.affordable ? `Patch ${a.id} does not fit anywhere on your quilt.`
      : `Patch ${a.id} costs ${a.buttons} buttons; you have ${v.players[game.human].buttons}.`, 'info');
    return;
  }
  showMessage(msg, null);
  if (held && held.slot === slot) return;
  held = { pid: a.id, slot, orient: P[a.id].cells, pos: null, ghosts: [] };
  requestGhosts(held);
  render();
}

function holdLeather() {
  held = { pid: -1, slot: 0, orient: [[0, 0]], pos: null, ghosts: [] };
  requestGhosts(held);
}

async function requestGhosts(h) {
  const v = game.view;
  const upcoming = (h.pid === -1 ? v.circle.slice(0, 6) : v.circle.slice(h.slot, h.slot + 6)).map((id) => ({ id }));
  try {
    const r = await post('suggest-placement', {
      board: { rows: v.players[game.human].rows }, patch: { id: h.pid }, upcoming,
      objective: 'OBJECTIVE_COVER', top: GHOSTS, time_limit: '0.4s', seed: 0,
    }, { deadlineMs: 5000 });
    if (held !== h) return;
    h.ghosts = r.ranked.map((x) => S.fromMessage(x.placement.cells));
    drawOverlay();
  } catch (e) {
    if (held === h) showMessage(msg, e);
  }
}

function size() { return S.size(held.orient); }

function setPos([r, c]) {
  const { h, w } = size();
  held.pos = [clamp(r - Math.floor((h - 1) / 2), 0, 9 - h), clamp(c - Math.floor((w - 1) / 2), 0, 9 - w)];
}

function heldCells() {
  if (!held || !held.pos) return null;
  return held.orient.map(([r, c]) => [r + held.pos[0], c + held.pos[1]]);
}

function fits(cells) {
  const rows = game.view.players[game.human].rows;
  return !!cells && cells.every(([r, c]) => r >= 0 && c >= 0 && r < 9 && c < 9 && rows[r][c] === '.');
}

function turn(how) {
  if (!held || held.pid === -1) return;
  const { h, w } = size();
  const center = held.pos ? [held.pos[0] + Math.floor((h - 1) / 2), held.pos[1] + Math.floor((w - 1) / 2)] : null;
  held.orient = how === 'rotate' ? S.rotate(held.orient) : S.flip(held.orient);
  if (center) setPos(center);
  render();
}

function nudge(key) {
  if (!held.pos) { setPos([4, 4]); drawOverlay(); return; }
  const [dr, dc] = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] }[key];
  const { h, w } = size();
  held.pos = [clamp(held.pos[0] + dr, 0, 9 - h), clamp(held.pos[1] + dc, 0, 9 - w)];
  drawOverlay();
}

function placeHeld(cells = null) {
  if (!held || !canAct()) return;
  cells = cells || heldCells();
  if (!cells) { showMessage(msg, 'Move the patch over your quilt first (pointer or arrow keys).', 'info'); return; }
  if (!fits(cells)) { showMessage(msg, 'That spot is not free: the patch must lie on empty cells.', 'info'); return; }
  const text = held.pid === -1 ? `leather ${cells[0][0]},${cells[0][1]}` : `buy ${held.pid} ${S.cellsText(cells)}`;
  humanMove(text);
}

// ------------------------------------------------------------------ hints

function moveLabel(m) {
  if (m.kind === 'MOVE_KIND_BUY') {
    const p = P[m.patch_id];
    return `Buy patch ${p.id} (${p.buttons} buttons, ${p.time} time)`;
  }
  if (m.kind === 'MOVE_KIND_LEATHER') {
    const [[r, c]] = S.fromMessage(m.cells);
    return `Leather on row ${r + 1}, column ${c + 1}`;
  }
  return `Advance to space ${game.view.advance ? game.view.advance.to : ''}`;
}

async function showHint() {
  if (!canAct()) return;
  const g = game;
  $('play-hint-panel').hidden = false;
  $('play-hint-info').textContent = 'thinking…';
  clear($('play-hint-list'));
  try {
    const r = await post('suggest-move', { state: g.state, ...HINT }, { deadlineMs: 30000 });
    if (game !== g) return;
    hint = { suggestions: r.suggestions, selected: 0 };
    $('play-hint-info').textContent = r.proven
      ? 'proven by the endgame solver: the exact final margin (points, perfect play) after each move, best first'
      : 'your chance of winning after each move, best first';
  } catch (e) {
    $('play-hint-info').textContent = '';
    showMessage(msg, e);
    return;
  }
  render();
}

function renderHint() {
  const panel = $('play-hint-panel');
  const list = $('play-hint-list');
  if (!hint) { panel.hidden = true; return; }
  panel.hidden = false;
  clear(list);
  hint.suggestions.forEach((s, i) => {
    const li = document.createElement('li');
    li.setAttribute('aria-selected', String(i === hint.selected));
    li.dataset.move = s.move.text;
    li.tabIndex = 0;
    const pct = Math.round(s.win_chance * 100);
    li.innerHTML = '<span class="pct"></span><span class="bar"><i></i></span><span class="what"></span><span class="why"></span>';
    li.querySelector('.pct').textContent = `${pct}%`;
    li.querySelector('.bar i').style.width = `${pct}%`;
    li.querySelector('.what').textContent = moveLabel(s.move);
    if (s.proven_margin !== undefined && s.proven_margin !== null) {
      li.dataset.provenMargin = String(s.proven_margin);
      const m = document.createElement('span');
      m.className = 'proven';
      m.textContent = `${s.proven_margin > 0 ? '+' : ''}${s.proven_margin} pts`;
      m.title = 'proven: the final margin in points after this move, both playing perfectly';
      li.querySelector('.what').append(' ', m);
    }
    li.querySelector('.why').textContent = s.reason;
    const play = document.createElement('button');
    play.type = 'button';
    play.textContent = 'Play';
    play.className = 'play-suggestion';
    play.addEventListener('click', (e) => { e.stopPropagation(); humanMove(s.move.text); });
    li.appendChild(play);
    const select = () => { hint.selected = i; render(); };
    li.addEventListener('click', select);
    li.addEventListener('keydown', (e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); select(); } });
    list.appendChild(li);
  });
}

// ------------------------------------------------------------------ drawing

function setBusy(on, text = '') {
  busy = on;
  section().dataset.busy = on ? '1' : '0';
  const status = $('play-status');
  status.classList.toggle('busy', on);
  if (on) status.textContent = text;
  for (const id of ['play-hint', 'play-undo', 'play-advance', 'play-new']) $(id).disabled = on && id !== 'play-new';
}

function statsHtml(box, p, who) {
  box.innerHTML = '';
  const add = (label, value, key) => {
    const s = document.createElement('span');
    s.innerHTML = `${label} <b></b>`;
    s.querySelector('b').textContent = value;
    s.dataset.stat = key;
    box.appendChild(s);
  };
  add('buttons', p.buttons, 'buttons');
  add('income', `+${p.income}`, 'income');
  add('space', p.position, 'position');
  add('score', p.score, 'score');
  if (p.bonus) add('7×7', '★', 'bonus');
  box.dataset.score = p.score;
  box.dataset.buttons = p.buttons;
  box.setAttribute('aria-label', `${who}: ${p.buttons} buttons, income ${p.income}, space ${p.position}, score ${p.score}`);
}

function statusText() {
  const v = game.view;
  const me = game.human;
  if (v.terminal) {
    const [a, b] = [v.scores[me], v.scores[1 - me]];
    const won = v.winner === me;
    return `Game over: ${won ? 'you win' : 'the engine wins'}, ${Math.max(a, b)} to ${Math.min(a, b)}${a === b ? ' (tie: first to reach the end wins)' : ''}.`;
  }
  if (stuck) return 'The engine could not move. Retry with “New game”, or undo.';
  if (v.current_player !== me) return 'The engine is to move…';
  if (v.leather_to_place > 0) return 'You won a leather patch: put it on an empty cell (click, or a ghost).';
  if (held) {
    const what = held.pid === -1 ? 'The leather patch' : `Patch #${held.pid}`;
    return `${what}: move it over your quilt${held.pid === -1 ? '' : ' (R rotates, F flips)'}, then click or press Enter; or click a numbered ghost (the solver's best spots). Esc puts it back.`;
  }
  const adv = v.advance;
  return `Your turn: pick up a patch (1–3) and place it, or advance to space ${adv.to} for ${adv.buttons} button${adv.buttons === 1 ? '' : 's'}.`;
}

function renderCircle() {
  const v = game.view;
  const box = $('play-circle');
  if (circleDrawnFor === v) { markHeldCard(); return; }
  circleDrawnFor = v;
  clear(box);
  const mark = document.createElement('span');
  mark.className = 'token-mark';
  mark.textContent = 'token ▸';
  box.appendChild(mark);
  const humanTurn = canActIgnoringBusy();
  v.circle.forEach((pid, i) => {
    const p = P[pid];
    const front = i < 3;
    const info = front ? v.available[i] : null;
    const card = document.createElement('button');
    card.type = 'button';
    card.className = `patch-card ${front ? 'front' : 'far'}`;
    card.setAttribute('role', 'listitem');
    card.dataset.id = pid;
    card.dataset.slot = front ? i + 1 : 0;
    const buyable = front && info.buyable && humanTurn && v.leather_to_place === 0;
    card.dataset.buyable = buyable ? 'true' : 'false';
    if (buyable) card.classList.add('buyable');
    if (front) {
      const slot = document.createElement('span');
      slot.className = 'slot';
      slot.textContent = `${i + 1}`;
      card.appendChild(slot);
    }
    card.appendChild(shapeIcon(p.cells, patchColor(pid), { income: p.income, minSide: 5 }));
    const cost = document.createElement('span');
    cost.className = 'cost';
    cost.append(icon('button'), `${p.buttons}`, icon('time'), `${p.time}`);
    if (p.income) {
      const inc = document.createElement('span');
      inc.className = 'inc';
      inc.textContent = `+${p.income}`;
      cost.append(inc);
    }
    card.appendChild(cost);
    let label = `Patch ${pid}: ${p.buttons} buttons, ${p.time} time, income ${p.income}, ${p.area} cells`;
    if (front) label += buyable ? `. Press ${i + 1} to pick it up.` : info.affordable ? '. It does not fit.' : '. Too expensive.';
    card.setAttribute('aria-label', label);
    card.title = label;
    if (!front) { card.tabIndex = -1; card.setAttribute('aria-disabled', 'true'); }
    if (front) {
      card.addEventListener('click', () => pick(i + 1));
      card.addEventListener('pointerdown', (e) => startDrag(e, card, i + 1));
      card.addEventListener('pointermove', (e) => moveDrag(e));
      card.addEventListener('pointerup', (e) => endDrag(e));
      card.addEventListener('pointercancel', dragCancel);
    }
    box.appendChild(card);
  });
  markHeldCard();
}

function canActIgnoringBusy() {
  return !!game && !game.view.terminal && game.view.current_player === game.human;
}

function markHeldCard() {
  for (const card of $('play-circle').querySelectorAll('.patch-card.front')) {
    card.classList.toggle('held', !!held && held.slot === Number(card.dataset.slot));
  }
}

function startDrag(e, card, slot) {
  if (card.dataset.buyable !== 'true' || !canAct() || e.button > 0) return;
  lastPointer = e.pointerType || 'mouse';
  if (!held || held.slot !== slot) pick(slot);
  if (!held) return;
  startCardDrag(e, card);
}

function moveDrag(e) {
  if (!held) return;
  dragMove(e, (ev) => quilt && quilt.cellAt(ev), (rc) => { setPos(rc); drawOverlay(); });
}

function endDrag(e) {
  const rc = dragEnd(e, (ev) => quilt && quilt.cellAt(ev));
  if (!rc || !held) return;
  setPos(rc);
  drawOverlay();
  placeHeld();
}

function showTarget(on) {
  if (!game) return;
  const v = game.view;
  drawTrack($('play-track'), v, names(), on && v.advance && canAct() ? v.advance.to : null);
}

function names() { return game.human === 0 ? ['You', 'AI'] : ['AI', 'You']; }

function drawOverlay() {
  if (!quilt) return;
  const ov = quilt.overlay;
  clear(ov);
  const v = game.view;
  const me = game.human;
  const last = game.last[me];
  if (last && last.cells && last.cells.length) markCells(ov, S.fromMessage(last.cells), 'last');
  if (hint && hint.suggestions[hint.selected]) {
    const m = hint.suggestions[hint.selected].move;
    const cells = S.fromMessage(m.cells);
    const g = markCells(ov, cells, 'hint-mark', { move: m.text, cells: S.cellsText(cells) }, cells.length ? '★' : null);
    g.setAttribute('aria-label', `Hint: ${moveLabel(m)}`);
  }
  $('play-advance').classList.toggle('primary', !!hint && hint.suggestions[hint.selected]
    && hint.suggestions[hint.selected].move.kind === 'MOVE_KIND_ADVANCE');
  const svg = $('play-quilt-human');
  if (held && canActIgnoringBusy()) {
    // Drawn last-ranked first, so that the best ghost is on top where they overlap.
    const taken = new Set();
    const labelAt = held.ghosts.map((cells) => {
      const free = cells.find(([r, c]) => !taken.has(r * 9 + c));
      for (const [r, c] of cells) taken.add(r * 9 + c);
      return free;
    });
    held.ghosts.map((cells, i) => [cells, i]).reverse().forEach(([cells, i]) => {
      const g = markCells(ov, cells, 'ghost', { rank: i + 1, cells: S.cellsText(cells) });
      if (labelAt[i]) {
        const t = document.createElementNS('http://www.w3.org/2000/svg', 'text');
        t.setAttribute('x', labelAt[i][1] + 0.5); t.setAttribute('y', labelAt[i][0] + 0.5);
        t.textContent = String(i + 1);
        g.appendChild(t);
      }
      g.setAttribute('tabindex', '0');
      g.setAttribute('role', 'button');
      g.setAttribute('aria-label', `Place it on the solver's choice ${i + 1}`);
      g.addEventListener('click', (e) => { e.stopPropagation(); placeHeld(cells); });
      g.addEventListener('keydown', (e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); e.stopPropagation(); placeHeld(cells); } });
    });
    const cells = heldCells();
    const ok = fits(cells);
    if (cells) {
      const g = markCells(ov, cells, `held-piece ${ok ? 'ok' : 'no'}`, { cells: S.cellsText(cells), legal: ok ? 'true' : 'false' });
      if (ok) for (const rect of g.querySelectorAll('rect')) rect.style.fill = held.pid >= 0 ? patchColor(held.pid) : '#8a5a34';
    }
    svg.dataset.held = held.pid;
    svg.dataset.orient = S.shapeText(held.orient);
    svg.dataset.pos = held.pos ? held.pos.join(',') : '';
    $('play-place').disabled = !ok || busy;
  } else {
    delete svg.dataset.held;
    delete svg.dataset.orient;
    delete svg.dataset.pos;
    $('play-place').disabled = true;
  }
  void v;
}

function render() {
  if (!game) return;
  const v = game.view;
  const me = game.human, ai = 1 - me;
  const sec = section();
  sec.dataset.turn = v.terminal ? 'over' : v.current_player === me ? 'human' : 'engine';
  sec.dataset.plies = String(game.record.actions.length);
  $('play-human-name').textContent = `You (player ${me + 1})`;
  $('play-engine-name').textContent = `Engine (player ${ai + 1}, ${game.strength})`;
  statsHtml($('play-human-stats'), v.players[me], 'You');
  statsHtml($('play-engine-stats'), v.players[ai], 'Engine');
  $('play-side-human').classList.toggle('to-move', !v.terminal && v.current_player === me);
  $('play-side-engine').classList.toggle('to-move', !v.terminal && v.current_player === ai);
  quilt = drawQuilt($('play-quilt-human'), v.players[me].rows, game.owners[me], P);
  const eq = drawQuilt($('play-quilt-engine'), v.players[ai].rows, game.owners[ai], P);
  const lastAi = game.last[ai];
  if (lastAi && lastAi.cells && lastAi.cells.length) {
    markCells(eq.overlay, S.fromMessage(lastAi.cells), 'last', { move: lastAi.text });
  }
  const lastLog = [...game.log].reverse().find((x) => x.player === ai);
  $('play-engine-last').textContent = lastLog ? `Last: ${lastLog.text}` : '';
  $('play-engine-last').dataset.move = lastAi ? lastAi.text : '';
  drawTrack($('play-track'), v, names());
  renderCircle();
  drawOverlay();
  renderHint();
  const heldBox = $('play-held');
  heldBox.hidden = !held || !canActIgnoringBusy();
  if (held) {
    $('play-held-label').textContent = held.pid === -1 ? 'Leather patch:' : `Patch #${held.pid}:`;
    $('play-rotate').disabled = held.pid === -1;
    $('play-flip').disabled = held.pid === -1;
  }
  const adv = $('play-advance');
  adv.textContent = v.advance ? `Advance to ${v.advance.to} (+${v.advance.buttons})` : 'Advance';
  adv.disabled = busy || !canActIgnoringBusy() || v.leather_to_place > 0;
  $('play-hint').disabled = busy || !canActIgnoringBusy();
  $('play-undo').disabled = busy || !game.history.length;
  if (!busy) {
    const status = $('play-status');
    status.classList.remove('busy');
    status.textContent = statusText();
  }
  const log = $('play-log');
  clear(log);
  for (const item of game.log) {
    const li = document.createElement('li');
    li.textContent = `${item.player === me ? 'You' : 'Engine'}: ${item.text}`;
    li.dataset.move = item.move;
    log.appendChild(li);
  }
}
