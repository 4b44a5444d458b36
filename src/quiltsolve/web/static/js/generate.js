// New puzzle (Puzzles page): a generated puzzle with exactly one solution (generate-puzzle), solved by hand.
// Pieces are picked up from the tray as patches are on the Play page: move over the board, click (or drag
// from the tray and let go) to put one down; R / F turn it, Esc puts it back, a click on a placed piece picks
// it up again. "Check" says whether the board is complete; "Show solution" draws the proven one.

import { post, showMessage } from './api.js';
import * as S from './shapes.js';
import { clear, drawCells, markCells, pieceColor, shapeIcon } from './draw.js';
import { dragCancel, dragEnd, dragMove, dragging, startCardDrag } from './drag.js';
import { onLanguageChange, t, tn } from './i18n.js';

const $ = (id) => document.getElementById(id);
let puzzle = null;        // {rows, pieces: [cells], solution: [[cells] by piece], h, w, quilt}
let placed = new Map();   // piece index → its cells on the board
let held = null;          // {i, orient, pos}
let board = null;         // drawCells handle
let msg = null;
let about = null;         // the status line's facts, worded again when the language changes
let verdict = null;       // what the verdict line says: 'check', 'solution' or null

export function init() {
  msg = $('gen-msg');
  $('gen-form').addEventListener('submit', (e) => { e.preventDefault(); newPuzzle(); });
  $('gen-rotate').addEventListener('click', () => turn(S.rotate));
  $('gen-flip').addEventListener('click', () => turn(S.flip));
  $('gen-check').addEventListener('click', check);
  $('gen-solution').addEventListener('click', showSolution);
  $('gen-clear').addEventListener('click', () => { placed = new Map(); held = null; render(); });
  const svg = $('gen-board');
  svg.addEventListener('pointermove', (e) => {
    if (!held || dragging()) return;
    const rc = board && board.cellAt(e);
    if (rc) { setPos(rc); drawOverlay(); }
  });
  svg.addEventListener('click', (e) => {
    const rc = board && board.cellAt(e);
    if (!rc) return;
    if (held) { setPos(rc); put(); return; }
    for (const [i, cells] of placed) {
      if (cells.some(([r, c]) => r === rc[0] && c === rc[1])) { pickUp(i, cells); setPos(rc); render(); return; }
    }
  });
  document.addEventListener('keydown', (e) => {
    if ($('page-puzzles').hidden || !held || e.ctrlKey || e.metaKey || e.altKey) return;
    const t = e.target;
    if (t && t.closest && t.closest('input, textarea, select')) return;
    const k = e.key.toLowerCase();
    if (k === 'r') { e.preventDefault(); turn(S.rotate); }
    else if (k === 'f') { e.preventDefault(); turn(S.flip); }
    else if (k === 'escape') { e.preventDefault(); held = null; render(); }
    else if (k === 'enter' || k === ' ') { e.preventDefault(); put(); }
  });
  onLanguageChange(() => {
    if (about) $('gen-status').textContent = statusText(about);
    if (puzzle) renderTray();
    if (puzzle && verdict === 'check') check();
    if (puzzle && verdict === 'solution') $('gen-verdict').textContent = t('gen.theSolution');
  });
}

function statusText(a) {
  const text = tn('gen.made', a.pieces, { seed: String(a.seed), cells: a.cells,
    difficulty: a.band ? t(`gen.${a.band}`) : '', nodes: a.nodes });
  return a.closest ? `${text} ${t('gen.closest')}` : `${text}.`;
}

async function newPuzzle() {
  showMessage(msg, null);
  const seed = Number($('gen-seed').value || 0);
  const body = { family: $('gen-family').value, difficulty: $('gen-difficulty').value, seed, time_limit: '20s' };
  const btn = $('gen-new');
  btn.disabled = true;
  const status = $('gen-status');
  status.textContent = t('gen.making');
  about = null;
  status.classList.add('busy');
  delete status.dataset.status;
  try {
    const r = await post('generate-puzzle', body, { deadlineMs: 25000 });
    // A success ends every earlier complaint on this page: the solver card's (e.g. a bad piece) too.
    showMessage($('pz-msg'), null);
    status.dataset.status = r.status;
    if (!r.region || !r.region.rows) {
      status.textContent = t('gen.noneFound');
      $('gen-play').hidden = true;
      return;
    }
    const solution = [];
    for (const p of r.solution.placements) solution[p.patch_index || 0] = S.fromMessage(p.cells);
    puzzle = { rows: r.region.rows, pieces: r.pieces.map(S.parseShape), solution, h: r.height, w: r.width,
      quilt: body.family === 'PIECE_FAMILY_PATCHES' };
    placed = new Map();
    held = null;
    const band = r.difficulty ? r.difficulty.replace('PUZZLE_DIFFICULTY_', '').toLowerCase() : '';
    const cells = r.region.rows.join('').split('').filter((ch) => ch === '.').length;
    about = { seed, pieces: r.pieces.length, cells, band, nodes: r.difficulty_nodes || 0,
      closest: r.status === 'SOLVE_STATUS_FEASIBLE' };
    status.textContent = statusText(about);
    $('gen-seed').value = String(seed + 1);   // the next click makes another puzzle
    $('gen-play').hidden = false;
    $('gen-verdict').textContent = '';
    verdict = null;
    delete $('gen-verdict').dataset.complete;
    render();
  } catch (e) {
    showMessage(msg, e);
    status.textContent = '';
  } finally {
    btn.disabled = false;
    status.classList.remove('busy');
  }
}

function pickUp(i, cells = null) {
  if (cells) placed.delete(i);
  held = { i, orient: cells ? S.normalize(cells) : puzzle.pieces[i], pos: null };
}

function turn(how) {
  if (!held) return;
  const center = held.pos ? [held.pos[0] + Math.floor((S.size(held.orient).h - 1) / 2),
    held.pos[1] + Math.floor((S.size(held.orient).w - 1) / 2)] : null;
  held.orient = how(held.orient);
  if (center) setPos(center);
  render();
}

function setPos([r, c]) {
  const { h, w } = S.size(held.orient);
  held.pos = [Math.max(0, Math.min(puzzle.h - h, r - Math.floor((h - 1) / 2))),
    Math.max(0, Math.min(puzzle.w - w, c - Math.floor((w - 1) / 2)))];
}

function heldCells() {
  if (!held || !held.pos) return null;
  return held.orient.map(([r, c]) => [r + held.pos[0], c + held.pos[1]]);
}

function taken() {
  const out = new Set();
  for (const cells of placed.values()) for (const [r, c] of cells) out.add(`${r},${c}`);
  return out;
}

function fits(cells) {
  const used = taken();
  return !!cells && cells.every(([r, c]) => r >= 0 && c >= 0 && r < puzzle.h && c < puzzle.w
    && puzzle.rows[r][c] === '.' && !used.has(`${r},${c}`));
}

function put() {
  const cells = heldCells();
  if (!cells) { showMessage(msg, t('gen.moveFirst'), 'info'); return; }
  if (!fits(cells)) { showMessage(msg, t('gen.notFree'), 'info'); return; }
  showMessage(msg, null);
  placed.set(held.i, cells);
  held = null;
  render();
  if (placed.size === puzzle.pieces.length) check();
}

function check() {
  const v = $('gen-verdict');
  const empty = puzzle.rows.join('').split('').filter((ch) => ch === '.').length - taken().size;
  const complete = empty === 0 && placed.size === puzzle.pieces.length;
  v.dataset.complete = String(complete);
  verdict = 'check';
  v.textContent = complete ? t('gen.complete')
    : t('gen.notComplete', { cells: tn('gen.cellsEmpty', empty), pieces: tn('gen.piecesLeft', puzzle.pieces.length - placed.size) });
}

function showSolution() {
  if (!puzzle) return;
  placed = new Map(puzzle.solution.map((cells, i) => [i, cells]));
  held = null;
  render();
  $('gen-verdict').textContent = t('gen.theSolution');
  verdict = 'solution';
  delete $('gen-verdict').dataset.complete;
}

function render() {
  renderTray();
  const svg = $('gen-board');
  const owner = {};
  for (const [i, cells] of placed) for (const [r, c] of cells) owner[`${r},${c}`] = i;
  board = drawCells(svg, puzzle.h, puzzle.w, (r, c) => {
    const k = owner[`${r},${c}`];
    if (k !== undefined) return { key: `k${k}`, fill: pieceColor(k), data: { piece: k } };
    const out = puzzle.rows[r][c] === '#';
    return { key: out ? 'out' : null, cls: out ? 'region-out' : 'region-in', data: { piece: '' } };
  });
  svg.dataset.placed = String(placed.size);
  svg.dataset.pieces = String(puzzle.pieces.length);
  drawOverlay();
}

function drawOverlay() {
  if (!board) return;
  clear(board.overlay);
  const cells = heldCells();
  if (!cells) return;
  const ok = fits(cells);
  const g = markCells(board.overlay, cells, `held-piece ${ok ? 'ok' : 'no'}`, { cells: S.cellsText(cells), legal: String(ok) });
  if (ok) for (const rect of g.querySelectorAll('rect')) rect.style.fill = pieceColor(held.i);
}

function renderTray() {
  const tray = $('gen-tray');
  tray.textContent = '';
  puzzle.pieces.forEach((cells, i) => {
    if (placed.has(i)) return;
    const f = document.createElement('figure');
    f.dataset.piece = String(i);
    f.tabIndex = 0;
    f.setAttribute('role', 'button');
    f.setAttribute('aria-label', t('gen.pickUp', { n: i + 1 }));
    if (held && held.i === i) f.classList.add('held');
    f.appendChild(shapeIcon(held && held.i === i ? held.orient : cells, pieceColor(i), { minSide: 3 }));
    const cap = document.createElement('figcaption');
    cap.textContent = String(i + 1);
    f.appendChild(cap);
    f.addEventListener('pointerdown', (e) => startDrag(e, f, i));
    f.addEventListener('pointermove', moveDrag);
    f.addEventListener('pointerup', endDrag);
    f.addEventListener('pointercancel', dragCancel);
    f.addEventListener('keydown', (e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); pickUp(i); render(); } });
    tray.appendChild(f);
  });
}

function startDrag(e, card, i) {
  if (e.button > 0) return;
  if (!held || held.i !== i) { pickUp(i); renderTray(); drawOverlay(); }
  startCardDrag(e, card);
}

function moveDrag(e) {
  if (!held) return;
  dragMove(e, (ev) => board && board.cellAt(ev), (rc) => { setPos(rc); drawOverlay(); });
}

function endDrag(e) {
  const rc = dragEnd(e, (ev) => board && board.cellAt(ev));
  if (!rc || !held) { renderTray(); return; }
  setPos(rc);
  put();
}

// What the browser tests read of the new puzzle (the puzzle, the piece in hand, the pieces placed). Nothing
// in the app uses it and no global carries it: a test imports this module and puts it where it looks.
export const inspect = { puzzle: () => puzzle, held: () => held, placed: () => placed };
