// A review taken home: the record with its evaluations (engine/record.py's documented extension, which
// engine replay reads), and the review as one picture (SVG, or PNG drawn from it): title, accuracies, the plot
// and up to four key positions (the worst mistakes).

import * as S from './shapes.js';
import { el, markCells } from './draw.js';
import { GLYPH, isMistake, label, labelOf, pct } from './review-words.js';
import { t } from './i18n.js';

const $ = (id) => document.getElementById(id);

function evaluations(reviews) {
  return reviews.filter(Boolean).map((r) => ({
    ply: r.ply, player: r.player, best: r.best.text, value_played: r.value_played, value_best: r.value_best,
    loss: r.loss, label: labelOf(r), loss_points: r.loss_points ?? null,
  }));
}

function download(name, blob) {
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}

export function saveRecord(record, reviews) {
  const out = { ...record, evaluations: evaluations(reviews) };
  download('review.json', new Blob([`${JSON.stringify(out)}\n`], { type: 'application/json' }));
}

const STYLE_PROPS = ['fill', 'stroke', 'stroke-width', 'stroke-dasharray', 'stroke-linejoin', 'paint-order', 'opacity',
  'font-size', 'font-weight', 'font-family'];

// A copy of an on-page SVG with its CSS styles written into attributes (a downloaded file has no stylesheet).
function standalone(svg) {
  const copy = svg.cloneNode(true);
  const src = [svg, ...svg.querySelectorAll('*')];
  const dst = [copy, ...copy.querySelectorAll('*')];
  src.forEach((node, i) => {
    const cs = getComputedStyle(node);
    for (const p of STYLE_PROPS) { const v = cs.getPropertyValue(p); if (v) dst[i].setAttribute(p, v); }
    dst[i].removeAttribute('class');
  });
  return copy;
}

// The picture's text, copied from the page as drawn: the key positions are drawn on the page's own quilts one
// after another (drawAt(ply, extra): the boards after ply moves, extra(quilts) marking them), then
// redraw() puts the page back.
function picture(reviews, drawAt, redraw) {
  const NS = 'http://www.w3.org/2000/svg';
  const W = 760;
  const root = document.createElementNS(NS, 'svg');
  root.setAttribute('xmlns', NS);
  const add = (tag, attrs, parent = root) => el(tag, attrs, parent);
  add('rect', { x: 0, y: 0, width: W, height: 10, fill: '#fffdf8' }).id = 'bg';
  add('text', { x: 12, y: 28, 'font-size': 18, 'font-weight': 700, fill: '#2b2620', 'font-family': 'sans-serif', text: t('review.pictureTitle') });
  [0, 1].forEach((i) => add('text', { x: 12, y: 52 + 18 * i, 'font-size': 14, fill: i ? '#c0582f' : '#2f6f8f',
    'font-family': 'sans-serif', text: $(`review-accuracy-${i}`).textContent }));
  const plotSvg = standalone($('review-plot'));
  plotSvg.setAttribute('x', 10); plotSvg.setAttribute('y', 80); plotSvg.setAttribute('width', 740); plotSvg.setAttribute('height', 216);
  root.appendChild(plotSvg);
  const worst = reviews.filter((r) => r && isMistake(r))
    .sort((a, b) => b.loss - a.loss).slice(0, 4).sort((a, b) => a.ply - b.ply);
  worst.forEach((r, k) => {
    drawAt(r.ply, (qs) => {
      if (r.played.cells.length) markCells(qs[r.player].overlay, S.fromMessage(r.played.cells), 'last');
      if (r.best.cells && r.best.cells.length && r.best.text !== r.played.text) markCells(qs[r.player].overlay, S.fromMessage(r.best.cells), 'best-mark');
    });
    const q = standalone($(`review-quilt-${r.player}`));
    const bx = 12 + k * 186;
    q.setAttribute('x', bx); q.setAttribute('y', 350); q.setAttribute('width', 170); q.setAttribute('height', 170);
    root.appendChild(q);
    const lab = labelOf(r);
    add('text', { x: bx, y: 318, 'font-size': 12, 'font-weight': 700, fill: '#2b2620', 'font-family': 'sans-serif',
      text: `${t('review.moveBy', { n: r.ply + 1, p: r.player + 1 }).replace(/:$/, '')} ${GLYPH[lab]} −${pct(r.loss)}` });
    add('text', { x: bx, y: 333, 'font-size': 11, fill: '#b3261e', 'font-family': 'sans-serif', text: t('review.picturePlayed', { move: label(r.played, r.best) }) });
    add('text', { x: bx, y: 346, 'font-size': 11, fill: '#2e7d4f', 'font-family': 'sans-serif', text: t('review.pictureBest', { move: label(r.best, r.played) }) });
  });
  redraw();
  const H = worst.length ? 530 : 305;
  root.setAttribute('width', W); root.setAttribute('height', H); root.setAttribute('viewBox', `0 0 ${W} ${H}`);
  root.querySelector('#bg').setAttribute('height', H);
  return new XMLSerializer().serializeToString(root);
}

// Download the picture as 'svg' or 'png' (twice the size); rejects when the PNG does not render.
export async function downloadPicture(kind, reviews, drawAt, redraw) {
  const text = picture(reviews, drawAt, redraw);
  if (kind === 'svg') { download('review.svg', new Blob([text], { type: 'image/svg+xml' })); return; }
  const img = new Image();
  const url = URL.createObjectURL(new Blob([text], { type: 'image/svg+xml' }));
  try {
    await new Promise((ok, fail) => { img.onload = ok; img.onerror = () => fail(new Error(t('review.pictureFailed'))); img.src = url; });
    const canvas = document.createElement('canvas');
    canvas.width = img.width * 2; canvas.height = img.height * 2;
    const ctx = canvas.getContext('2d');
    ctx.scale(2, 2);
    ctx.drawImage(img, 0, 0);
    const blob = await new Promise((ok) => canvas.toBlob(ok, 'image/png'));
    download('review.png', blob);
  } finally { URL.revokeObjectURL(url); }
}
