// SVG drawing: quilts and grids (cells, seams between patches, buttons), patch icons, the time track. A drawn
// quilt or track is a picture, so each one drawn into an svg with an id also gets a text for screen readers
// (describeQuilt, describeTrack): a visually hidden block right after the svg, kept in step with every redraw.

import { formatNumber, t, tn } from './i18n.js';

export const NS = 'http://www.w3.org/2000/svg';
const PAD = 0.08;

export function el(tag, attrs = {}, parent = null) {
  const e = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'text') e.textContent = v; else e.setAttribute(k, v);
  }
  if (parent) parent.appendChild(e);
  return e;
}

export function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); }

// Fabric colours: one per standard patch id, leather brown, grey for cloth of unknown origin.
export const LEATHER = '#8a5a34';
export const UNKNOWN = '#a9a196';
const BASE = ['#c0582f', '#3d7a86', '#e0b64a', '#7b9e57', '#8e5b9a', '#d98a6a', '#4f6fa8', '#b8a04a',
  '#5f9e8f', '#c46d8c', '#6b8f3a', '#a8643c', '#4d8fb5', '#d4a64f', '#7a6fb0', '#9c4f4f'];

export function patchColor(id) {
  if (id === -1) return LEATHER;
  const base = BASE[id % BASE.length];
  return id >= BASE.length * 2 ? shade(base, -0.22) : id >= BASE.length ? shade(base, 0.18) : base;
}

export function pieceColor(i) {
  return patchColor((i * 7) % 48);
}

// Copy n of piece i (a tiling may use one piece many times): the piece's colour, each further copy a
// lighter or darker shade of it, so that neighbouring copies differ in colour as well as by their seam.
const COPY_SHADES = [0, 0.3, -0.28, 0.5, -0.45, 0.15, -0.14, 0.4];
export function copyColor(i, n) {
  const amount = COPY_SHADES[n % COPY_SHADES.length];
  return amount ? shade(pieceColor(i), amount) : pieceColor(i);
}

// Whether text on ``hex`` should be light: its relative luminance (WCAG) is below the midpoint at which
// white and near-black text have equal contrast.
export function isDark(hex) {
  const n = parseInt(hex.slice(1), 16);
  const lin = (x) => { const v = x / 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
  const lum = 0.2126 * lin(n >> 16) + 0.7152 * lin((n >> 8) & 255) + 0.0722 * lin(n & 255);
  return lum < 0.18;
}

function shade(hex, amount) {
  const n = parseInt(hex.slice(1), 16);
  const f = (x) => Math.max(0, Math.min(255, Math.round(amount > 0 ? x + (255 - x) * amount : x * (1 + amount))));
  const r = f(n >> 16), g = f((n >> 8) & 255), b = f(n & 255);
  return `#${((r << 16) | (g << 8) | b).toString(16).padStart(6, '0')}`;
}

// Cells of an h×w grid. info(r, c) → {key, fill, cls, data} (key: which patch; null: none).
// Seams are drawn where neighbouring keys differ. Returns {overlay, deco, cellAt(event)}.
export function drawCells(svg, h, w, info, opts = {}) {
  clear(svg);
  svg.setAttribute('viewBox', `${-PAD} ${-PAD} ${w + 2 * PAD} ${h + 2 * PAD}`);
  const cells = el('g', { class: 'cells' }, svg);
  const keys = [];
  for (let r = 0; r < h; r++) {
    keys.push([]);
    for (let c = 0; c < w; c++) {
      const it = info(r, c) || {};
      keys[r].push(it.key ?? null);
      const attrs = { x: c, y: r, width: 1, height: 1, class: `cell ${it.cls || ''}`.trim(), fill: it.fill || null,
        'data-r': r, 'data-c': c };
      for (const [k, v] of Object.entries(it.data || {})) attrs[`data-${k}`] = v;
      el('rect', attrs, cells);
    }
  }
  if (opts.seams !== false) {
    const seams = el('g', { class: 'seams' }, svg);
    const d = [];
    const at = (r, c) => (r < 0 || c < 0 || r >= h || c >= w ? undefined : keys[r][c]);
    for (let r = 0; r <= h; r++) {
      for (let c = 0; c < w; c++) {
        const a = at(r - 1, c), b = at(r, c);
        if (a !== b && (a || b)) d.push(`M${c} ${r}h1`);
      }
    }
    for (let c = 0; c <= w; c++) {
      for (let r = 0; r < h; r++) {
        const a = at(r, c - 1), b = at(r, c);
        if (a !== b && (a || b)) d.push(`M${c} ${r}v1`);
      }
    }
    if (d.length) el('path', { d: d.join(''), class: 'seam' }, seams);
  }
  const deco = el('g', { class: 'deco' }, svg);
  const overlay = el('g', { class: 'overlay' }, svg);
  return {
    overlay, deco,
    cellAt(event) {
      const box = svg.getBoundingClientRect();
      if (!box.width) return null;
      const unit = box.width / (w + 2 * PAD);
      const c = Math.floor((event.clientX - box.left) / unit - PAD);
      const r = Math.floor((event.clientY - box.top) / unit - PAD);
      return r >= 0 && c >= 0 && r < h && c < w ? [r, c] : null;
    },
  };
}

// A 9×9 quilt. rows: 9 strings; owners: 81 keys ('p12', 'L40', '?', null); patchesById for the buttons.
export function drawQuilt(svg, rows, owners, patchesById) {
  const fillOf = (key) => {
    if (!key) return null;
    if (key[0] === 'p') return patchColor(Number(key.slice(1)));
    if (key[0] === 'L') return LEATHER;
    return UNKNOWN;
  };
  const g = drawCells(svg, 9, 9, (r, c) => {
    const filled = rows[r][c] === '#';
    const key = filled ? (owners && owners[r * 9 + c]) || '?' : null;
    return {
      key, fill: fillOf(key), cls: filled ? 'cell-full' : 'cell-empty',
      data: { filled: filled ? 1 : 0, owner: key || '' },
    };
  });
  // Stitches inside patches and the income buttons printed on them.
  const seen = new Set();
  for (let i = 0; i < 81; i++) {
    const key = owners && owners[i];
    if (!key || key[0] !== 'p' || seen.has(key) || rows[Math.floor(i / 9)][i % 9] !== '#') continue;
    seen.add(key);
    const p = patchesById && patchesById[Number(key.slice(1))];
    if (!p || !p.income) continue;
    const mine = [];
    for (let j = i; j < 81; j++) if (owners[j] === key) mine.push(j);
    for (let k = 0; k < p.income && k < mine.length; k++) {
      const j = mine[k];
      el('circle', { cx: (j % 9) + 0.5, cy: Math.floor(j / 9) + 0.5, r: 0.17, class: 'button-dot' }, g.deco);
    }
  }
  describeQuilt(svg, rows, owners);
  return g;
}

// The hidden text block after svg (made on first use; null when the svg has no id to name it by): a summary
// paragraph, {svg id}-text, which the svg's aria-describedby names, and a list for reading line by line.
function textBlock(svg, extraIds = [], withList = true) {
  if (!svg.id || !svg.parentNode) return null;
  const id = `${svg.id}-text`;
  let box = document.getElementById(`${svg.id}-read`);
  if (!box) {
    box = document.createElement('div');
    box.id = `${svg.id}-read`;
    box.className = 'sr-only svg-text';
    const p = document.createElement('p');
    p.id = id;
    box.append(p);
    if (withList) box.append(document.createElement('ul'));
    svg.insertAdjacentElement('afterend', box);
  }
  // what the page's markup named first (a field's message, say) stays named, first
  if (svg.dataset.describedBy === undefined) svg.dataset.describedBy = svg.getAttribute('aria-describedby') || '';
  const own = svg.dataset.describedBy.split(/\s+/).filter((x) => x && x !== id && !extraIds.includes(x));
  svg.setAttribute('aria-describedby', [...own, id, ...extraIds].join(' '));
  return { summary: box.firstElementChild, list: box.querySelector('ul') };
}

function fillList(list, lines) {
  clear(list);
  for (const line of lines) {
    const li = document.createElement('li');
    li.textContent = line;
    list.appendChild(li);
  }
}

// Runs of equal keys along one row: [[from, to, key], ...] (columns from 0).
function runsOf(keys) {
  const runs = [];
  keys.forEach((k, c) => {
    const last = runs[runs.length - 1];
    if (last && last[2] === k) last[1] = c; else runs.push([c, c, k]);
  });
  return runs;
}

// Whether rows (9 strings of '#' and '.') hold a completely filled 7×7 square.
export function hasSquare7(rows) {
  for (let r = 0; r + 7 <= rows.length; r++) {
    for (let c = 0; c + 7 <= rows[r].length; c++) {
      let full = true;
      for (let i = 0; i < 7 && full; i++) full = rows[r + i].slice(c, c + 7) === '#######';
      if (full) return true;
    }
  }
  return false;
}

// The quilt in words: how many of its 81 spaces are empty, a full 7×7 square, and each row as runs of
// columns ("Row 3: columns 1–3 patch 8, columns 4–9 empty."); the stats beside it (buttons, income: hand.js's
// statsInto, in the same .side card) are named by the svg's aria-describedby too. Returns the lines.
export function describeQuilt(svg, rows, owners) {
  const stats = svg.closest && svg.closest('.side')?.querySelector('.stats[id]');
  const block = textBlock(svg, stats ? [stats.id] : []);
  let empty = 0;
  const lines = rows.map((row, r) => {
    const keys = [...row].map((ch, c) => {
      if (ch !== '#') { empty++; return '.'; }
      return (owners && owners[r * 9 + c]) || '?';
    });
    const runs = runsOf(keys).map(([from, to, key]) => {
      const cols = from === to ? t('quilt.text.col', { c: from + 1 }) : t('quilt.text.cols', { from: from + 1, to: to + 1 });
      const n = to - from + 1;
      if (key === '.') return tn('quilt.text.empty', n, { cols });
      if (key[0] === 'p') return t('quilt.text.patch', { cols, id: Number(key.slice(1)) });
      if (key[0] === 'L') return t('quilt.text.leather', { cols });
      return tn('quilt.text.covered', n, { cols });
    });
    return t('quilt.text.row', { r: r + 1, runs: runs.join(', ') });
  });
  const summary = tn('quilt.text.summary', empty) + (hasSquare7(rows) ? ` ${t('quilt.text.square7')}` : '');
  if (block) {
    block.summary.textContent = summary;
    fillList(block.list, lines);
  }
  return [summary, ...lines];
}

// Highlight cells [[r, c], ...] on an overlay: a group of rects with a class and data attributes.
export function outline(cells, inset = 0) {
  const set = new Set(cells.map(([r, c]) => `${r},${c}`));
  const d = [];
  const i = inset;
  for (const [r, c] of cells) {
    if (!set.has(`${r - 1},${c}`)) d.push(`M${c + i} ${r + i}H${c + 1 - i}`);
    if (!set.has(`${r + 1},${c}`)) d.push(`M${c + i} ${r + 1 - i}H${c + 1 - i}`);
    if (!set.has(`${r},${c - 1}`)) d.push(`M${c + i} ${r + i}V${r + 1 - i}`);
    if (!set.has(`${r},${c + 1}`)) d.push(`M${c + 1 - i} ${r + i}V${r + 1 - i}`);
  }
  return d.join('');
}

export function markCells(overlay, cells, cls, data = {}, label = null) {
  const attrs = { class: cls };
  for (const [k, v] of Object.entries(data)) attrs[`data-${k}`] = v;
  const g = el('g', attrs, overlay);
  for (const [r, c] of cells) el('rect', { x: c, y: r, width: 1, height: 1 }, g);
  if (cells.length) el('path', { d: outline(cells, 0.05) }, g);
  if (label !== null && cells.length) {
    const [r, c] = cells[0];
    el('text', { x: c + 0.5, y: r + 0.5, text: label }, g);
  }
  return g;
}

// A small icon of a shape (cells [[r, c]]) in a square viewBox.
export function shapeIcon(cells, color, opts = {}) {
  const h = Math.max(...cells.map((x) => x[0])) + 1;
  const w = Math.max(...cells.map((x) => x[1])) + 1;
  const side = Math.max(h, w, opts.minSide || 3);
  const svg = el('svg', { viewBox: `-0.1 -0.1 ${side + 0.2} ${side + 0.2}`, 'aria-hidden': 'true' });
  const ox = (side - w) / 2, oy = (side - h) / 2;
  const set = new Set(cells.map(([r, c]) => `${r},${c}`));
  for (const [r, c] of cells) {
    el('rect', { x: c + ox, y: r + oy, width: 1, height: 1, fill: color }, svg);
  }
  const d = [];
  for (const [r, c] of cells) {
    if (!set.has(`${r - 1},${c}`)) d.push(`M${c + ox} ${r + oy}h1`);
    if (!set.has(`${r + 1},${c}`)) d.push(`M${c + ox} ${r + oy + 1}h1`);
    if (!set.has(`${r},${c - 1}`)) d.push(`M${c + ox} ${r + oy}v1`);
    if (!set.has(`${r},${c + 1}`)) d.push(`M${c + ox + 1} ${r + oy}v1`);
  }
  el('path', { d: d.join(''), class: 'seam', 'stroke-width': 0.09 }, svg);
  if (opts.income) {
    for (let k = 0; k < opts.income && k < cells.length; k++) {
      const [r, c] = cells[k];
      el('circle', { cx: c + ox + 0.5, cy: r + oy + 0.5, r: 0.2, class: 'button-dot' }, svg);
    }
  }
  return svg;
}

// The time track, spaces 0..end in rows of 9 (boustrophedon).
export function trackXY(space) {
  const row = Math.floor(space / 9);
  const col = row % 2 === 0 ? space % 9 : 8 - (space % 9);
  return [col * 1.1, row * 1.1];
}

export function drawTrack(svg, view, names = ['1', '2'], target = null) {
  clear(svg);
  const end = view.end;
  const rows = Math.floor(end / 9) + 1;
  svg.setAttribute('viewBox', `-0.1 -0.1 ${9 * 1.1 + 0.1} ${rows * 1.1 + 0.1}`);
  const income = new Set(view.income_spaces);
  const leatherLeft = new Set(view.leather_spaces);
  for (let s = 0; s <= end; s++) {
    const [x, y] = trackXY(s);
    const g = el('g', { 'data-space': s }, svg);
    el('rect', { x, y, width: 1, height: 1, rx: 0.18, class: `space${income.has(s) ? ' income' : ''}` }, g);
    el('text', { x: x + 0.22, y: y + 0.2, class: 'num', text: s }, g);
    if (income.has(s)) el('circle', { cx: x + 0.72, cy: y + 0.26, r: 0.16, class: 'button-dot' }, g);
    if (view.leather_track.includes(s)) {
      el('rect', { x: x + 0.58, y: y + 0.1, width: 0.32, height: 0.32, rx: 0.05,
        class: leatherLeft.has(s) ? 'leather' : 'leather-gone' }, g);
    }
  }
  if (target !== null) {
    const [x, y] = trackXY(target);
    el('rect', { x: x - 0.04, y: y - 0.04, width: 1.08, height: 1.08, rx: 0.2, class: 'target' }, svg);
  }
  const colors = ['var(--p0)', 'var(--p1)'];
  const pos = view.players.map((p) => p.position);
  // Both on one space: two smaller tokens side by side (player 1 left), neither hiding the other.
  const shared = pos[0] === pos[1];
  for (const i of [0, 1]) {
    const [x, y] = trackXY(pos[i]);
    const cx = x + (shared ? (i === 0 ? 0.27 : 0.73) : 0.5);
    const cy = y + (shared ? 0.66 : 0.64);
    el('circle', { cx, cy, r: shared ? 0.2 : 0.28, fill: colors[i], class: 'token', 'data-player': i }, svg);
    el('text', { x: cx, y: cy, class: `token-label${shared ? ' shared' : ''}`, text: names[i] }, svg);
  }
  describeTrack(svg, view, names);
}

// The editors' keyboard cursor in words, said politely as it moves or its cell changes ("Row 3, column 5:
// empty."): a live region after the svg (made on first use). state: a text such as t('quilt.text.cellEmpty').
export function sayCell(svg, r, c, state) {
  if (!svg.id || !svg.parentNode) return;
  let live = document.getElementById(`${svg.id}-say`);
  if (!live) {
    live = document.createElement('span');
    live.id = `${svg.id}-say`;
    live.className = 'sr-only';
    live.setAttribute('aria-live', 'polite');
    svg.insertAdjacentElement('afterend', live);
  }
  const text = t('quilt.text.cursor', { r: r + 1, c: c + 1, state });
  if (live.textContent !== text) live.textContent = text;
}

// The track in words: each time token's space and the next space paying button income ahead of it, and the
// 1×1 patches still on the track. Returns the lines.
export function describeTrack(svg, view, names = ['1', '2']) {
  const lines = view.players.map((p, i) => {
    const who = names[i] === String(i + 1) ? t('player.n', { n: i + 1 })
      : `${t('player.n', { n: i + 1 })} (${names[i]})`;
    const next = [...view.income_spaces].sort((a, b) => a - b).find((s) => s > p.position);
    return next === undefined ? t('track.text.noIncome', { who, space: p.position })
      : t('track.text.player', { who, space: p.position, income: next });
  });
  const left = [...view.leather_spaces].sort((a, b) => a - b);
  lines.push(left.length ? tn('track.text.leather', left.length, { spaces: left.map((s) => formatNumber(s)).join(', ') })
    : t('track.text.noLeather'));
  const block = textBlock(svg, [], false);
  if (block) block.summary.textContent = lines.join(' ');
  return lines;
}

// Tiny inline icons: a button (cost in buttons) and an hourglass (time).
export function icon(kind) {
  const svg = el('svg', { viewBox: '0 0 16 16', class: 'ic', 'aria-hidden': 'true' });
  if (kind === 'button') {
    el('circle', { cx: 8, cy: 8, r: 6.5, class: 'b' }, svg);
    for (const [x, y] of [[6.3, 6.3], [9.7, 6.3], [6.3, 9.7], [9.7, 9.7]]) el('circle', { cx: x, cy: y, r: 1, class: 'hole' }, svg);
  } else {
    el('path', { d: 'M3 1.5h10v2.2L9.4 8l3.6 4.3v2.2H3v-2.2L6.6 8 3 3.7z', class: 'h' }, svg);
  }
  return svg;
}
