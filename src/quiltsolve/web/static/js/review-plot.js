// The review's plot: both players' win chances after each move, drawn as the review streams in; the mover's
// point is the clickable one, a move's label sits above it as a glyph, a large mistake has a ring.

import { clear, el } from './draw.js';
import { GLYPH, label, labelName, labelOf, pct } from './review-words.js';
import { t } from './i18n.js';

const RING = 8;            // a large mistake's ring around its point (px of the plot's viewBox)
const GLYPH_GAP = 13;      // from the point to a glyph's baseline above it: the ring, its stroke, the descent
const GLYPH_HEIGHT = 10;   // a glyph's height above its baseline (11 px bold)

// n moves, reviews[ply] as they came (holes for those still being reviewed), the cursor after move `step`;
// go(k) steps to the position after k moves (a point's click).
export function drawPlot(svg, n, reviews, step, go) {
  clear(svg);
  const W = 720, H = 210, L = 40, R = 12, T = 12, B = 26;
  svg.setAttribute('viewBox', `0 0 ${W} ${H}`);
  const x = (i) => L + (n ? ((i + 1) / n) * (W - L - R) : 0);
  const y = (v) => T + (1 - v) * (H - T - B);
  el('line', { x1: L, y1: T, x2: L, y2: H - B, class: 'axis' }, svg);
  el('line', { x1: L, y1: H - B, x2: W - R, y2: H - B, class: 'axis' }, svg);
  el('line', { x1: L, y1: y(0.5), x2: W - R, y2: y(0.5), class: 'grid50' }, svg);
  for (const v of [0, 0.5, 1]) el('text', { x: L - 6, y: y(v) + 4, 'text-anchor': 'end', text: pct(v) }, svg);
  const every = n > 60 ? 20 : 10;
  for (let i = every; i <= n; i += every) el('text', { x: x(i - 1), y: H - 8, 'text-anchor': 'middle', text: i }, svg);
  el('text', { x: L, y: H - 8, 'text-anchor': 'start', text: t('review.plotAxis') }, svg);
  const pts = [];
  for (let i = 0; i < n; i++) {
    const r = reviews[i];
    if (!r) continue;
    pts.push([i, r.player === 0 ? r.value_played : 1 - r.value_played, r]);
  }
  if (pts.length) {
    for (const p of [1, 0]) {
      const line = [[L, y(0.5)], ...pts.map(([i, v]) => [x(i), y(p === 0 ? v : 1 - v)])];
      el('polyline', { points: line.map((q) => q.join(',')).join(' '), class: `line${p === 1 ? ' p1' : ''}` }, svg);
    }
  }
  const cx = step > 0 ? x(step - 1) : L;
  el('line', { x1: cx, y1: T, x2: cx, y2: H - B, class: 'cursor' }, svg);
  for (const [i, v, r] of pts) {
    const mine = r.player === 0 ? v : 1 - v;
    const lab = labelOf(r);
    const c = el('circle', { cx: x(i), cy: y(mine), r: n > 80 ? 3 : 4, class: `pt${r.player === 1 ? ' p1' : ''}`,
      'data-ply': i, 'data-value': v.toFixed(4), 'data-label': lab || '', tabindex: -1 }, svg);
    el('title', { text: t('review.pointTitle', { n: i + 1, p: r.player + 1, move: label(r.played, r.best),
      glyph: lab ? ` ${GLYPH[lab]} ${labelName(lab)}` : '', pct: pct(mine) }) }, c);
    c.addEventListener('click', () => go(i + 1));
    if (r.large) el('circle', { cx: x(i), cy: y(mine), r: RING, class: 'mistake', 'data-ply': i }, svg);
    if (lab) {
      // Clear of the large-mistake ring (radius 8, stroke 2.5, and the glyph's own descent): above the point,
      // or below it where the plot's top edge leaves no room.
      const above = y(mine) - GLYPH_GAP - GLYPH_HEIGHT >= 0;
      el('text', { x: x(i), y: above ? y(mine) - GLYPH_GAP : y(mine) + GLYPH_GAP + GLYPH_HEIGHT - 2,
        'text-anchor': 'middle', class: `glyph ${lab}`, 'data-ply': i, text: GLYPH[lab] }, svg);
    }
  }
}
