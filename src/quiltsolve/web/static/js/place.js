// Place: edit a 9×9 board, choose candidate patches, and draw solve-placement's optimal placement.

import { patches as loadPatches, post, showMessage } from './api.js';
import * as S from './shapes.js';
import { drawCells, drawQuilt, el, LEATHER, patchColor, pieceColor, shapeIcon } from './draw.js';
import { bindPainter } from './paint.js';
import { onLanguageChange, t, tn } from './i18n.js';

const $ = (id) => document.getElementById(id);
const MIDGAME = ['.........', '.........', '.........', '###......', '#.##...#.',
  '#########', '#########', '##.#####.', '#####.###'];
let P = null;
let board = MIDGAME.map((r) => [...r]);
let selected = new Set([5, 14, 26]);
let cursor = [0, 0];
let handle = null;
let msg = null;
let shown = null;     // the answer on the page, {r, body}: worded again when the language changes

export async function init() {
  msg = $('place-msg');
  P = {};
  for (const p of await loadPatches()) P[p.id] = { ...p, cells: S.parseShape(p.shape) };
  palette();
  drawBoard();
  bindPainter($('place-board'), {
    get: (r, c) => board[r][c], set, cursor: () => cursor, handle: () => handle, redraw: drawBoard,
    moveCursor: (rc) => { cursor = rc; drawBoard(); },
  });
  $('place-clear').addEventListener('click', () => { board = Array.from({ length: 9 }, () => Array(9).fill('.')); drawBoard(); });
  $('place-midgame').addEventListener('click', () => { board = MIDGAME.map((r) => [...r]); drawBoard(); });
  $('place-random').addEventListener('click', randomBoard);
  $('place-none').addEventListener('click', () => { selected.clear(); palette(); });
  $('place-solve').addEventListener('click', solve);
  onLanguageChange(() => { palette(); if (shown) show(shown.r, shown.body); });
}

function set([r, c], ch) {
  if (board[r][c] === ch) return;
  board[r][c] = ch;
  cursor = [r, c];
  drawBoard();
}

function rows() { return board.map((r) => r.join('')); }

function drawBoard() {
  const svg = $('place-board');
  handle = drawQuilt(svg, rows(), board.flat().map((ch) => (ch === '#' ? '?' : null)), P);
  if (document.activeElement === svg) {
    el('rect', { x: cursor[1] + 0.05, y: cursor[0] + 0.05, width: 0.9, height: 0.9, class: 'cursor-mark' }, handle.overlay);
  }
  svg.dataset.rows = rows().join('/');
}

// A seeded board: a few random rectangles along the bottom, like a quilt in progress.
function randomBoard() {
  let s = Math.floor(Math.random() * 1e9);
  const rand = () => { s = (s * 1103515245 + 12345) % 2147483648; return s / 2147483648; };
  board = Array.from({ length: 9 }, () => Array(9).fill('.'));
  const filled = 20 + Math.floor(rand() * 25);
  let n = 0;
  while (n < filled) {
    const r = 8 - Math.floor(rand() * rand() * 9), c = Math.floor(rand() * 9);
    if (board[r][c] === '.') { board[r][c] = '#'; n++; }
  }
  drawBoard();
}

function palette() {
  const box = $('place-palette');
  box.textContent = '';
  for (const p of Object.values(P)) {
    const b = document.createElement('button');
    b.type = 'button';
    b.dataset.id = p.id;
    b.setAttribute('aria-pressed', String(selected.has(p.id)));
    b.setAttribute('aria-label', tn('place.paletteItem', p.area, { id: p.id }));
    b.title = t('place.paletteTitle', { id: p.id, shape: p.shape });
    b.appendChild(shapeIcon(p.cells, patchColor(p.id), { minSide: 5 }));
    const num = document.createElement('span');
    num.textContent = `#${p.id}`;
    b.appendChild(num);
    b.addEventListener('click', () => {
      if (selected.has(p.id)) selected.delete(p.id); else selected.add(p.id);
      b.setAttribute('aria-pressed', String(selected.has(p.id)));
    });
    box.appendChild(b);
  }
}

function customShapes() {
  const out = [];
  $('place-custom').value.split('\n').forEach((line) => {
    const t = line.trim();
    if (!t) return;
    const m = t.match(/^(\S+)(?:\s+x\s*(\d+))?$/i);
    if (!m) { out.push({ shape: t }); return; }
    out.push(m[2] ? { shape: m[1], count: Number(m[2]) } : { shape: m[1] });
  });
  return out;
}

async function solve() {
  showMessage(msg, null);
  const patches = [...selected].sort((a, b) => a - b).map((id) => ({ id }));
  const leather = Number($('place-leather').value || 0);
  if (leather > 0) patches.push({ id: -1, count: leather });
  patches.push(...customShapes());
  const objective = document.querySelector('input[name=place-objective]:checked').value;
  const body = { board: { rows: rows() }, patches, objective, time_limit: $('place-limit').value, seed: 0 };
  const btn = $('place-solve');
  btn.disabled = true;
  $('place-status').textContent = t('common.solving');
  try {
    const r = await post('solve-placement', body, { deadlineMs: 65000 });
    show(r, body);
  } catch (e) {
    showMessage(msg, e);
    $('place-result').hidden = true;
  } finally { btn.disabled = false; }
}

const STATUS = ['SOLVE_STATUS_OPTIMAL', 'SOLVE_STATUS_FEASIBLE', 'SOLVE_STATUS_INFEASIBLE', 'SOLVE_STATUS_UNKNOWN'];

function show(r, body) {
  shown = { r, body };
  $('place-result').hidden = false;
  const status = $('place-status');
  status.dataset.status = r.status;
  const name = STATUS.includes(r.status) ? t(`place.status.${r.status.replace('SOLVE_STATUS_', '').toLowerCase()}`) : r.status;
  let text = t('place.summary', { status: name, before: r.empty_before, after: r.empty_after, covered: r.covered || 0 });
  if (r.status !== 'SOLVE_STATUS_OPTIMAL' && r.status !== 'SOLVE_STATUS_INFEASIBLE') text += ` ${t('place.bound', { bound: r.bound || 0 })}`;
  if (r.square7) text += t('place.square7At', { row: (r.square7.row || 0) + 1, col: (r.square7.col || 0) + 1 });
  status.textContent = `${text}.`;
  const owner = Array(81).fill(null);
  const fill = {};
  const legend = $('place-legend');
  legend.textContent = '';
  r.placements.forEach((p, i) => {
    const key = `x${i}`;
    const ref = body.patches[p.patch_index] || {};
    const color = p.id === -1 ? LEATHER : p.id !== undefined && p.id !== null && ref.id !== undefined ? patchColor(p.id) : pieceColor(p.patch_index + 3);
    fill[key] = color;
    for (const c of p.cells) owner[(c.row || 0) * 9 + (c.col || 0)] = key;
    const li = document.createElement('li');
    const sw = document.createElement('i');
    sw.style.background = color;
    li.appendChild(sw);
    li.appendChild(document.createTextNode(p.id === -1 ? t('place.legendLeather') : ref.id !== undefined ? t('place.legendPatch', { id: p.id })
      : t('place.legendShape', { shape: p.shape })));
    li.dataset.cells = S.cellsText(S.fromMessage(p.cells));
    legend.appendChild(li);
  });
  if (!r.placements.length) {
    const li = document.createElement('li');
    li.textContent = t('place.nonePlaced');
    legend.appendChild(li);
  }
  const before = body.board.rows;
  const g = drawCells($('place-answer'), 9, 9, (rr, cc) => {
    const k = owner[rr * 9 + cc];
    if (k) return { key: k, fill: fill[k], data: { placed: k.slice(1) } };
    const filled = before[rr][cc] === '#';
    return { key: filled ? 'old' : null, fill: filled ? '#b9b1a5' : null, cls: filled ? '' : 'cell-empty', data: { filled: filled ? 1 : 0 } };
  });
  if (r.square7) {
    el('rect', { x: (r.square7.col || 0) + 0.05, y: (r.square7.row || 0) + 0.05, width: 6.9, height: 6.9, class: 'square7' }, g.overlay);
  }
}
