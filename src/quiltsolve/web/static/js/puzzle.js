// Puzzles: draw a region (up to 20×20), choose pieces, find a tiling (drawn in colour) or count them.

import { patches as loadPatches, post, showMessage } from './api.js';
import * as S from './shapes.js';
import { copyColor, drawCells, el, isDark, pieceColor, shapeIcon } from './draw.js';
import * as Generate from './generate.js';
import { formatNumber, onLanguageChange, t, tn } from './i18n.js';

const $ = (id) => document.getElementById(id);
export const PENTOMINOES = [
  ['F', '.##/##./.#.'], ['I', '#####'], ['L', '####/#...'], ['N', '##../.###'], ['P', '##/##/#.'],
  ['T', '###/.#./.#.'], ['U', '#.#/###'], ['V', '#../#../###'], ['W', '#../##./.##'], ['X', '.#./###/.#.'],
  ['Y', '.#../####'], ['Z', '##./.#./.##'],
];
let region = [];          // rows of booleans: true = a cell to tile
let h = 6, w = 10;
let handle = null;
let paint = null;
let cursor = [0, 0];
let result = null;
let shown = 0;
let pieces = [];          // [{label, shape}]: one entry per copy, each used at most once
let unlimited = [];       // [{label, shape}]: shapes written `SHAPE x*`, as many copies as needed
let msg = null;
let patchList = null;

export async function init() {
  msg = $('pz-msg');
  patchList = await loadPatches();
  resize(6, 10, true);
  $('pz-pieces').value = PENTOMINOES.map(([n, s]) => `${n}: ${s}`).join('\n');
  piecesChanged();
  $('pz-h').addEventListener('change', () => resize(Number($('pz-h').value), w));
  $('pz-w').addEventListener('change', () => resize(h, Number($('pz-w').value)));
  $('pz-preset').addEventListener('change', () => preset($('pz-preset').value));
  $('pz-all').addEventListener('click', () => { region = region.map((row) => row.map(() => true)); drawRegion(); });
  $('pz-invert').addEventListener('click', () => { region = region.map((row) => row.map((x) => !x)); drawRegion(); });
  $('pz-rows-use').addEventListener('click', useRows);
  $('pz-pentominoes').addEventListener('click', () => { $('pz-pieces').value = PENTOMINOES.map(([n, s]) => `${n}: ${s}`).join('\n'); piecesChanged(); });
  $('pz-patches').addEventListener('click', () => { $('pz-pieces').value = patchList.map((p) => `${p.id}: ${p.shape}`).join('\n'); piecesChanged(); });
  $('pz-clear-pieces').addEventListener('click', () => { $('pz-pieces').value = ''; piecesChanged(); });
  $('pz-pieces').addEventListener('input', piecesChanged);
  $('pz-solve').addEventListener('click', solve);
  $('pz-prev').addEventListener('click', () => showTiling(shown - 1));
  $('pz-next').addEventListener('click', () => showTiling(shown + 1));
  const svg = $('pz-region');
  svg.addEventListener('pointerdown', (e) => {
    const rc = handle.cellAt(e);
    if (!rc) return;
    e.preventDefault();
    paint = !region[rc[0]][rc[1]];
    try { svg.setPointerCapture(e.pointerId); } catch { /* ignore */ }
    setCell(rc, paint);
  });
  svg.addEventListener('pointermove', (e) => { if (paint !== null) { const rc = handle.cellAt(e); if (rc) setCell(rc, paint); } });
  svg.addEventListener('pointerup', () => { paint = null; });
  svg.addEventListener('pointercancel', () => { paint = null; });
  svg.addEventListener('keydown', (e) => {
    const d = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] }[e.key];
    if (d) {
      e.preventDefault();
      cursor = [Math.max(0, Math.min(h - 1, cursor[0] + d[0])), Math.max(0, Math.min(w - 1, cursor[1] + d[1]))];
      drawRegion();
    } else if (e.key === ' ' || e.key === 'Enter') { e.preventDefault(); setCell(cursor, !region[cursor[0]][cursor[1]]); }
  });
  svg.addEventListener('focus', () => drawRegion());
  svg.addEventListener('blur', () => drawRegion());
  Generate.init();
  onLanguageChange(() => { area(); if (result) { report(result, result.mode); showTiling(shown); } });
}

function resize(nh, nw, reset = false) {
  nh = Math.max(1, Math.min(20, nh || 1));
  nw = Math.max(1, Math.min(20, nw || 1));
  const old = region;
  region = Array.from({ length: nh }, (_, r) => Array.from({ length: nw }, (_, c) => (reset || !old[r] || old[r][c] === undefined ? true : old[r][c])));
  h = nh; w = nw;
  $('pz-h').value = String(h);
  $('pz-w').value = String(w);
  cursor = [Math.min(cursor[0], h - 1), Math.min(cursor[1], w - 1)];
  drawRegion();
}

// The preset regions by their <option> value: rows of '.' (a cell) and '#' (not part).
export function presetRows(name) {
  if (name === '8x8-hole') return Array.from({ length: 8 }, (_, r) => (r === 3 || r === 4 ? '...##...' : '........'));
  const m = /^(\d+)x(\d+)$/.exec(name);
  return m ? Array.from({ length: Number(m[1]) }, () => '.'.repeat(Number(m[2]))) : null;
}

function preset(name) {
  const want = presetRows(name);
  if (!want) { drawRegion(); return; }   // "custom" sets nothing: the select goes back to what the region is
  h = want.length; w = want[0].length;
  region = want.map((line) => line.split('').map((ch) => ch === '.'));
  $('pz-h').value = String(h);
  $('pz-w').value = String(w);
  cursor = [Math.min(cursor[0], h - 1), Math.min(cursor[1], w - 1)];
  drawRegion();
}

// The preset select names the region drawn: a preset's, or "custom" once rows, columns or cells differ.
function syncPreset() {
  const drawn = rows().join('/');
  const select = $('pz-preset');
  const match = [...select.options].find((o) => presetRows(o.value) && presetRows(o.value).join('/') === drawn);
  select.value = match ? match.value : 'custom';
}

function setCell([r, c], on) {
  if (region[r][c] === on) return;
  region[r][c] = on;
  cursor = [r, c];
  drawRegion();
}

function rows() { return region.map((row) => row.map((x) => (x ? '.' : '#')).join('')); }

function drawRegion() {
  const svg = $('pz-region');
  handle = drawCells(svg, h, w, (r, c) => ({ key: region[r][c] ? null : 'out', cls: region[r][c] ? 'region-in' : 'region-out', data: { in: region[r][c] ? 1 : 0 } }));
  if (document.activeElement === svg) {
    el('rect', { x: cursor[1] + 0.05, y: cursor[0] + 0.05, width: 0.9, height: 0.9, class: 'cursor-mark' }, handle.overlay);
  }
  svg.dataset.rows = rows().join('/');
  syncPreset();
  area();
}

function useRows() {
  const lines = $('pz-rows').value.trim().split(/[\/\n]/).map((x) => x.trim()).filter((x) => x);
  if (!lines.length) { showMessage(msg, t('puzzles.pasteFirst'), 'info'); return; }
  const width = Math.max(...lines.map((x) => x.length));
  if (lines.length > 20 || width > 20) { showMessage(msg, t('puzzles.tooBig', { h: lines.length, w: width })); return; }
  h = lines.length; w = width;
  region = lines.map((line) => Array.from({ length: width }, (_, c) => line[c] === '.'));
  $('pz-h').value = String(h);
  $('pz-w').value = String(w);
  showMessage(msg, null);
  drawRegion();
}

// One piece per line: `[name:] shape [xN]` (N copies) or `[name:] shape x*` (as many as needed).
export function parsePieces(text) {
  const once = [];
  const endless = [];
  text.split('\n').forEach((line) => {
    let t = line.trim();
    if (!t || t.startsWith('//')) return;
    let label = null;
    const named = t.match(/^([^:\s]{1,12}):\s*(.*)$/);
    if (named) { label = named[1]; t = named[2]; }
    const star = t.match(/^(.*?)\s+x\s*\*$/i);
    if (star) {
      endless.push({ label: label || String(once.length + endless.length + 1), shape: star[1].trim() });
      return;
    }
    let count = 1;
    const m = t.match(/^(.*?)\s+x\s*(\d+)$/i);
    if (m) { t = m[1].trim(); count = Math.min(64, Number(m[2])); }
    for (let i = 0; i < count; i++) once.push({ label: label || String(once.length + endless.length + 1), shape: t });
  });
  return { once, endless };
}

function piecesChanged() {
  ({ once: pieces, endless: unlimited } = parsePieces($('pz-pieces').value));
  const view = $('pz-piece-view');
  view.textContent = '';
  // colours by patch_index, as in a tiling: the pieces, then the unlimited shapes
  pieces.concat(unlimited).forEach((p, i) => {
    const cells = S.parseShape(p.shape);
    if (!cells.length) return;
    const f = document.createElement('figure');
    f.appendChild(shapeIcon(cells, pieceColor(i), { minSide: 3 }));
    const cap = document.createElement('figcaption');
    cap.textContent = i < pieces.length ? p.label : `${p.label} ×∞`;
    f.appendChild(cap);
    view.appendChild(f);
  });
  area();
}

function area() {
  const cells = region.flat().filter(Boolean).length;
  const sum = pieces.reduce((s, p) => s + S.parseShape(p.shape).length, 0);
  const more = unlimited.length ? ` ${tn('puzzles.areaMore', unlimited.length)}` : '';
  $('pz-area').textContent = `${tn('puzzles.areaRegion', cells)} · ${tn('puzzles.areaPieces', sum)}${more}`;
}

// An exact decimal count of any size, its digits grouped as the reader's language groups them (a BigInt:
// exact beyond 2^53): "258584046368" → "258,584,046,368" in English, "258.584.046.368" in Italian.
export function groupDigits(decimal) {
  const d = String(decimal);
  return /^[0-9]+$/.test(d) ? formatNumber(BigInt(d)) : d;
}

async function solve() {
  showMessage(msg, null);
  const mode = document.querySelector('input[name=pz-mode]:checked').value;
  const body = {
    region: { rows: rows() }, pieces: pieces.map((p) => p.shape), unlimited_pieces: unlimited.map((p) => p.shape),
    mode, method: mode === 'PUZZLE_MODE_COUNT' ? $('pz-method').value : 'PUZZLE_METHOD_AUTO',
    no_mirror: !$('pz-mirror').checked, allow_unused: !$('pz-useall').checked,
    max_tilings: mode === 'PUZZLE_MODE_FIND' ? Number($('pz-max').value || 1) : 0, time_limit: '20s',
  };
  const btn = $('pz-solve');
  btn.disabled = true;
  $('pz-status').textContent = t('common.solving');
  try {
    result = await post('solve-puzzle', body, { deadlineMs: 25000 });
    // A success ends every earlier complaint on this page, the new-puzzle card's included.
    showMessage($('gen-msg'), null);
    result.labels = pieces.concat(unlimited).map((p) => p.label);  // by patch_index
    result.rows = body.region.rows;
    result.mode = mode;
    $('pz-result').hidden = false;
    report(result, mode);
    showTiling(0);
  } catch (e) {
    showMessage(msg, e);
    $('pz-result').hidden = true;
  } finally { btn.disabled = false; }
}

const PROVEN = { SOLVE_STATUS_OPTIMAL: 'puzzles.proven.optimal', SOLVE_STATUS_FEASIBLE: 'puzzles.proven.feasible',
  SOLVE_STATUS_UNKNOWN: 'puzzles.proven.unknown' };
const METHOD = { PUZZLE_METHOD_SEARCH: 'puzzles.countedBy.search', PUZZLE_METHOD_FRONTIER: 'puzzles.countedBy.frontier' };
const proven = (status) => (PROVEN[status] ? t(PROVEN[status]) : status);

function report(r, mode) {
  const s = $('pz-status');
  s.dataset.status = r.status;
  s.dataset.method = r.method || '';
  if (mode === 'PUZZLE_MODE_COUNT') {
    // count_decimal is exact at any size (the int64 count is absent above 2^63 - 1): never a JS number
    const count = r.count_decimal || '0';
    const distinct = r.distinct_decimal || '0';
    s.dataset.count = count;
    s.dataset.distinct = distinct;
    const how = METHOD[r.method] ? t(METHOD[r.method]) : '';
    const sure = r.status === 'SOLVE_STATUS_OPTIMAL' && r.method === 'PUZZLE_METHOD_FRONTIER' ? t('puzzles.proven.exact') : proven(r.status);
    // the plural follows the count's last digits (exact for any size)
    const nForm = Number(count.length > 15 ? count.slice(-6) : count);
    s.textContent = r.status === 'SOLVE_STATUS_INFEASIBLE' ? t('puzzles.noTiling')
      : tn('puzzles.counted', nForm, { count: groupDigits(count), distinct: groupDigits(distinct), proven: sure,
        how: how ? `; ${how}` : '' });
  } else if (!r.tilings.length) {
    s.textContent = r.status === 'SOLVE_STATUS_INFEASIBLE' ? t('puzzles.noTiling') : t('puzzles.noneInTime');
  } else {
    s.textContent = tn('puzzles.found', r.tilings.length, { proven: proven(r.status) });
  }
}

function showTiling(i) {
  const r = result;
  const svg = $('pz-answer');
  const n = r && r.tilings ? r.tilings.length : 0;
  $('pz-nav').hidden = n < 2;
  if (!n) { drawCells(svg, r.height || h, r.width || w, () => ({ cls: 'region-in' })); svg.hidden = true; return; }
  svg.hidden = false;
  shown = ((i % n) + n) % n;
  $('pz-which').textContent = t('puzzles.which', { n: shown + 1, of: n });
  const tiling = r.tilings[shown];
  // Each placement is its own copy: the seams follow copies (not piece kinds), so the copies of an
  // unlimited piece (or of `xN` pieces) show their outlines, and each copy of one kind gets its own shade.
  const at = {};
  const copyOf = [];
  const seen = {};
  tiling.placements.forEach((p, j) => {
    const k = p.patch_index || 0;
    copyOf[j] = seen[k] = (seen[k] ?? -1) + 1;
    for (const c of p.cells) at[`${c.row || 0},${c.col || 0}`] = j;
  });
  const g = drawCells(svg, r.height, r.width, (rr, cc) => {
    const j = at[`${rr},${cc}`];
    if (j === undefined) return { key: 'out', cls: r.rows[rr][cc] === '#' ? 'region-out' : 'region-in', data: { piece: '', copy: '' } };
    const k = tiling.placements[j].patch_index || 0;
    return { key: `c${j}`, fill: copyColor(k, copyOf[j]), data: { piece: k, copy: j } };
  });
  svg.dataset.copies = String(tiling.placements.length);
  svg.dataset.tiling = String(shown);
  tiling.placements.forEach((p, j) => {
    const cells = S.fromMessage(p.cells);
    const [sr, sc] = cells.reduce((a, b) => [a[0] + b[0], a[1] + b[1]], [0, 0]);
    // label the cell nearest the piece's centre
    const [cr, cc] = cells.reduce((best, x) => (Math.hypot(x[0] - sr / cells.length, x[1] - sc / cells.length)
      < Math.hypot(best[0] - sr / cells.length, best[1] - sc / cells.length) ? x : best));
    const dark = isDark(copyColor(p.patch_index || 0, copyOf[j]));    // the label stays readable on a dark shade
    el('text', { x: cc + 0.5, y: cr + 0.5, class: dark ? 'tile-label on-dark' : 'tile-label', 'data-copy': j,
                 text: r.labels[p.patch_index || 0] || '' }, g.deco);
  });
}
