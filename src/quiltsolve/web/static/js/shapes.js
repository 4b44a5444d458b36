// Polyomino shapes as lists of [row, col] cells, normalised to the top-left corner.

export function parseShape(text) {
  const rows = String(text).trim().split(/[\/\n]/).map((r) => r.trim()).filter((r) => r.length);
  const cells = [];
  rows.forEach((row, r) => [...row].forEach((ch, c) => { if (ch === '#') cells.push([r, c]); }));
  return normalize(cells);
}

export function normalize(cells) {
  if (!cells.length) return [];
  const r0 = Math.min(...cells.map((x) => x[0]));
  const c0 = Math.min(...cells.map((x) => x[1]));
  return cells.map(([r, c]) => [r - r0, c - c0]).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
}

export function size(cells) {
  return { h: Math.max(...cells.map((x) => x[0])) + 1, w: Math.max(...cells.map((x) => x[1])) + 1 };
}

// Clockwise quarter turn: (r, c) in an h×w box → (c, h-1-r).
export function rotate(cells) {
  const { h } = size(cells);
  return normalize(cells.map(([r, c]) => [c, h - 1 - r]));
}

// Mirror left–right.
export function flip(cells) {
  const { w } = size(cells);
  return normalize(cells.map(([r, c]) => [r, w - 1 - c]));
}

export function key(cells) {
  return normalize(cells).map(([r, c]) => `${r},${c}`).join(';');
}

// Distinct orientations: the four rotations, then those of the mirror image.
export function orientations(cells) {
  const out = [];
  const seen = new Set();
  let a = normalize(cells);
  for (const start of [a, flip(a)]) {
    let s = start;
    for (let i = 0; i < 4; i++) {
      const k = key(s);
      if (!seen.has(k)) { seen.add(k); out.push(s); }
      s = rotate(s);
    }
  }
  return out;
}

export function rowsOf(cells) {
  const { h, w } = size(cells);
  const grid = Array.from({ length: h }, () => Array(w).fill('.'));
  for (const [r, c] of cells) grid[r][c] = '#';
  return grid.map((row) => row.join(''));
}

export function shapeText(cells) {
  return rowsOf(cells).join('/');
}

// The action text's cell list "r,c;r,c" (row-major).
export function cellsText(cells) {
  return cells.slice().sort((a, b) => a[0] - b[0] || a[1] - b[1]).map(([r, c]) => `${r},${c}`).join(';');
}

// Cells of a protobuf Cell list ({row, col}) as [r, c].
export function fromMessage(cells) {
  return (cells || []).map((c) => [c.row || 0, c.col || 0]);
}
