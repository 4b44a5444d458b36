// Review: step through a game record; analyze-game streams each move's win chances (plotted as they come),
// its label (?!, ?, ??) and each player's accuracy. A review is a link (#review?rec=...&ply=&it=&seed=, the
// record raw-DEFLATEd in the fragment, clients/links.py makes the same), an SVG/PNG picture or a record with
// evaluations; "Learn from your mistakes" replays a player's mistakes and blunders as exercises.

import { patches as loadPatches, post, showMessage, stream } from './api.js';
import * as S from './shapes.js';
import { clear, drawQuilt, drawTrack, el, icon, markCells, patchColor, shapeIcon } from './draw.js';
import {
  bindQuiltPointer, buyRefusal, clearHandMarks, drawHand, fitsRows, handCells, handMoveText, leatherHand, newHand,
  nudgeHand, turnHand,
} from './hand.js';
import { analysisHash } from './links.js';
import { listRecent, loadRecent, saveRecent } from './store.js';

const $ = (id) => document.getElementById(id);
const GLYPH = { inaccuracy: '?!', mistake: '?', blunder: '??' };
const LABEL = { MOVE_LABEL_INACCURACY: 'inaccuracy', MOVE_LABEL_MISTAKE: 'mistake', MOVE_LABEL_BLUNDER: 'blunder' };
const DEFAULT_DEPTH = 'it:200';
let P = null;
let data = null;       // game/replay answer
let record = null;     // the record being reviewed (as given: edition, circle, actions, players, ...)
let owners = [];       // owners[k][player]: the quilts after k moves
let reviews = [];      // analyze-game items by ply
let accuracy = [null, null];   // each player's accuracy: the latest player_accuracy the server sent
let step = 0;
let run = 0;           // which review is current (a new one abandons the old stream)
let abort = null;
let msg = null;
let lines = [];
let budget = { iterations: 200, seed: 0 };   // the current review's settings (what its link carries)
let learn = null;      // the learn-from-mistakes session: { player, queue, at, state, view, held, tried, seq }
let quilts = [null, null];   // the two quilts as last drawn (drawQuilt's handles: cellAt for the pointer)
// A try's win chance by position, budget and move: the same try in the same position shows the same figure.
const tryChances = new Map();

export async function init() {
  msg = $('review-msg');
  P = {};
  // With their cells, as play.js and analysis.js keep them: the drill's patch in hand is turned and drawn from them.
  for (const p of await loadPatches()) P[p.id] = { ...p, cells: S.parseShape(p.shape) };
  $('review-file').addEventListener('change', readFile);
  $('review-line').addEventListener('change', () => { $('review-text').value = lines[Number($('review-line').value)] || ''; });
  $('review-form').addEventListener('submit', (e) => { e.preventDefault(); start($('review-text').value); });
  $('review-sample').addEventListener('click', sample);
  $('review-first').addEventListener('click', () => go(0));
  $('review-prev').addEventListener('click', () => go(step - 1));
  $('review-next').addEventListener('click', () => go(step + 1));
  $('review-last').addEventListener('click', () => go(data ? data.plies.length : 0));
  $('review-slider').addEventListener('input', (e) => go(Number(e.target.value)));
  $('review-copy-link').addEventListener('click', copyLink);
  $('review-svg').addEventListener('click', () => downloadPicture('svg'));
  $('review-png').addEventListener('click', () => downloadPicture('png'));
  $('review-save').addEventListener('click', saveRecord);
  $('review-learn').addEventListener('click', startLearning);
  $('learn-advance').addEventListener('click', () => tryMove('advance'));
  $('learn-rotate').addEventListener('click', () => turn('rotate'));
  $('learn-flip').addEventListener('click', () => turn('flip'));
  $('learn-answer').addEventListener('click', showAnswer);
  $('learn-next').addEventListener('click', () => exercise(learn ? learn.at + 1 : 0));
  $('learn-stop').addEventListener('click', stopLearning);
  for (const i of [0, 1]) {
    bindQuiltPointer($(`review-quilt-${i}`), {
      hand: () => (learn && learn.player === i ? learn.held : null), quilt: () => quilts[i],
      canAct: () => Boolean(learn && learn.state), redraw: overlay, place,
    });
  }
  document.addEventListener('keydown', (e) => {
    if ($('page-review').hidden || !data || e.ctrlKey || e.metaKey || e.altKey) return;
    if (learn) { learnKey(e); return; }
    const t = e.target;
    if (t && t.closest('input:not([type=range]), textarea, select')) return;
    const moves = { ArrowLeft: step - 1, ArrowRight: step + 1, Home: 0, End: data.plies.length };
    if (e.key in moves) { e.preventDefault(); go(moves[e.key]); }
  });
  window.addEventListener('hashchange', () => { openLink(); });
  await openLink();
  hookRecentAndAnalysis();   // after a link's review started: Recent only fills an empty page
}

// ------------------------------------------------------------------ links

function b64url(bytes) {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function unb64url(text) {
  const s = atob(text.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (text.length % 4)) % 4));
  return Uint8Array.from(s, (ch) => ch.charCodeAt(0));
}

async function piped(bytes, transform) {
  const out = new Blob([bytes]).stream().pipeThrough(transform);
  return new Uint8Array(await new Response(out).arrayBuffer());
}

// The record as clients/links.py packs it: compact JSON, raw DEFLATE, unpadded base64url.
export async function packRecord(rec) {
  return b64url(await piped(new TextEncoder().encode(JSON.stringify(rec)), new CompressionStream('deflate-raw')));
}

export async function unpackRecord(text) {
  const bytes = await piped(unb64url(text), new DecompressionStream('deflate-raw'));
  return JSON.parse(new TextDecoder().decode(bytes));
}

function linkParams() {
  const h = location.hash || '';
  if (!h.startsWith('#review?')) return null;
  const q = new URLSearchParams(h.slice('#review?'.length));
  return q.get('rec') ? q : null;
}

let openedRec = null;
// Open the review a #review?rec= link holds (on load and when the fragment changes).
async function openLink() {
  const q = linkParams();
  if (!q || q.get('rec') === openedRec) return;
  openedRec = q.get('rec');
  let rec;
  try { rec = await unpackRecord(openedRec); } catch (e) {
    showMessage(msg, `This link's game record does not decode (${e.message}).`);
    return;
  }
  const it = Number(q.get('it'));
  const seed = Number(q.get('seed') || 0);
  if (it > 0) {
    const sel = $('review-depth');
    const value = `it:${it}`;
    if (![...sel.options].some((o) => o.value === value)) {
      const o = document.createElement('option');
      o.value = value; o.textContent = `${it} iterations / move (from the link)`;
      sel.appendChild(o);
    }
    sel.value = value;
  }
  $('review-text').value = JSON.stringify(rec);
  await start($('review-text').value, { seed: Number.isFinite(seed) ? seed : 0, ply: Number(q.get('ply') || 0) });
}

async function currentLink() {
  const bare = { ...record };
  delete bare.evaluations;
  const parts = [`rec=${await packRecord(bare)}`, `ply=${step}`];
  if (budget.iterations) parts.push(`it=${budget.iterations}`);
  parts.push(`seed=${budget.seed}`);
  return `${location.origin}${location.pathname}#review?${parts.join('&')}`;
}

let linkQueue = Promise.resolve();
// Keep the address bar on this review and move (replaceState: no hashchange, no history entry per step).
function syncLink() {
  if (!record) return;
  const mine = run;
  linkQueue = linkQueue.then(async () => {
    if (mine !== run) return;
    const url = await currentLink();
    openedRec = new URLSearchParams(url.split('#review?')[1]).get('rec');
    history.replaceState(null, '', url);
    $('page-review').dataset.link = url;
  }).catch(() => {});
}

async function copyLink() {
  await linkQueue;
  const url = await currentLink();
  $('review-link').value = url;
  $('review-link').hidden = false;
  try {
    await navigator.clipboard.writeText(url);
    showMessage(msg, 'Link copied: it holds the game (never sent to the server) and this move.', 'info');
  } catch {
    $('review-link').select();
    showMessage(msg, 'Copy the link from the box below.', 'info');
  }
}

// ------------------------------------------------------------------ loading

async function readFile() {
  const f = $('review-file').files[0];
  if (!f) return;
  const text = await f.text();
  lines = text.split(/\r?\n/).map((x) => x.trim()).filter((x) => x);
  const sel = $('review-line');
  clear(sel);
  if (lines.length > 1 && lines.every((x) => x.startsWith('{'))) {
    lines.forEach((line, i) => {
      let label = `game ${i + 1}`;
      try {
        const r = JSON.parse(line);
        if (r.seed !== undefined) label += ` (seed ${r.seed})`;
        if (r.players) label += ` ${r.players.join(' v ')}`;
      } catch { /* shown when reviewed */ }
      const o = document.createElement('option');
      o.value = String(i); o.textContent = label;
      sel.appendChild(o);
    });
    $('review-line-label').hidden = false;
    $('review-text').value = lines[0];
  } else {
    $('review-line-label').hidden = true;
    lines = [text];
    $('review-text').value = text.trim();
  }
}

async function sample() {
  showMessage(msg, null);
  $('review-progress').textContent = 'playing a sample game (greedy v random)…';
  try {
    const g = await post('game/new', { seed: 11 });
    let state = g.state, view = g.view;
    const actions = [];
    for (let i = 0; !view.terminal && i < 400; i++) {
      const r = await post('game/engine-move', { state, strength: view.current_player === 0 ? 'greedy' : 'random', seed: i });
      state = r.state; view = r.view; actions.push(r.move.text);
    }
    const rec = { ...g.record, actions, result: view.result, players: ['greedy', 'random'] };
    $('review-text').value = JSON.stringify(rec);
    $('review-progress').textContent = '';
    await start($('review-text').value);
  } catch (e) { showMessage(msg, e); $('review-progress').textContent = ''; }
}

function parseRecord(text) {
  const t = text.trim();
  if (!t) throw new Error('paste a game record (JSON) or choose a file');
  const first = t.split(/\r?\n/).find((x) => x.trim());
  let obj;
  try { obj = JSON.parse(t); } catch {
    try { obj = JSON.parse(first); } catch (e) { throw new Error(`the record is not valid JSON (${e.message})`); }
  }
  if (!obj || typeof obj !== 'object' || !Array.isArray(obj.actions)) throw new Error('a game record is a JSON object with "circle" and "actions"');
  return obj;
}

async function start(text, opts = {}) {
  showMessage(msg, null);
  let rec;
  try { rec = parseRecord(text); } catch (e) { showMessage(msg, e.message); return; }
  const mine = ++run;
  if (abort) abort.abort();
  abort = null;
  stopLearning();
  try {
    const { evaluations, ...bare } = rec;
    data = await post('game/replay', { record: bare });
  } catch (e) { showMessage(msg, e); return; }
  if (mine !== run) return;
  record = rec;
  remember(rec);
  owners = [[Array(81).fill(null), Array(81).fill(null)]];
  for (const p of data.plies) {
    const next = owners[owners.length - 1].map((o) => o.slice());
    const cells = S.fromMessage(p.move.cells);
    for (const [r, c] of cells) next[p.player][r * 9 + c] = p.move.kind === 'MOVE_KIND_BUY' ? `p${p.move.patch_id}` : `L${r * 9 + c}`;
    owners.push(next);
  }
  reviews = [];
  accuracy = [null, null];
  const [kind, amount] = $('review-depth').value.split(':');
  budget = { iterations: kind === 'it' ? Number(amount) : null, seconds: kind === 's' ? Number(amount) : null,
    seed: opts.seed || 0 };
  $('review-body').hidden = false;
  $('review-slider').max = String(data.plies.length);
  go(Math.max(0, Math.min(data.plies.length, opts.ply || 0)));
  analyze(mine);
}

async function analyze(mine) {
  const body = {
    record: { edition: `EDITION_${data.record.edition.toUpperCase()}`, circle: data.record.circle, actions: data.record.actions },
    seed: budget.seed,
  };
  if (budget.iterations) body.iterations = budget.iterations; else body.time_per_move = `${budget.seconds}s`;
  const n = data.plies.length;
  const progress = $('review-progress');
  progress.textContent = `reviewing: 0 of ${n} moves`;
  $('page-review').dataset.reviewed = '0';
  const t0 = performance.now();
  abort = new AbortController();
  try {
    await stream('analyze-game', body, (item) => {
      if (mine !== run) return;
      reviews[item.ply] = item;
      accuracy[item.player] = item.player_accuracy;
      const done = reviews.filter(Boolean).length;
      progress.textContent = done < n ? `reviewing: ${done} of ${n} moves` : `reviewed all ${n} moves`;
      plot();
      if (done === 1) $('page-review').dataset.firstPointMs = String(Math.round(performance.now() - t0));
      $('page-review').dataset.reviewed = String(done);
      if (item.ply === step - 1) info();
      summary();
      moveList();
      mistakes();
    }, { signal: abort.signal });
  } catch (e) {
    if (e.name === 'AbortError' || mine !== run) return;
    showMessage(msg, e);
    progress.textContent = '';
  }
}

// ------------------------------------------------------------------ stepping

function go(k) {
  if (!data) return;
  step = Math.max(0, Math.min(data.plies.length, k));
  $('review-slider').value = String(step);
  $('review-where').textContent = `move ${step} of ${data.plies.length}`;
  $('page-review').dataset.step = String(step);
  drawBoards();
  info();
  plot();
  moveList();
  syncLink();
}

function drawBoards(extra = null) {
  const v = data.views[step];
  quilts = [];
  for (const i of [0, 1]) {
    const q = drawQuilt($(`review-quilt-${i}`), v.players[i].rows, owners[step][i], P);
    quilts.push(q);
    if (!learn && step > 0 && data.plies[step - 1].player === i) {
      const ply = data.plies[step - 1];
      const r = reviews[step - 1];
      if (r && r.best && r.best.cells && r.best.cells.length && r.best.text !== ply.move.text) {
        markCells(q.overlay, S.fromMessage(r.best.cells), 'best-mark', { move: r.best.text });
      }
      if (ply.move.cells.length) markCells(q.overlay, S.fromMessage(ply.move.cells), 'last', { move: ply.move.text });
    }
    const p = v.players[i];
    $(`review-stats-${i}`).textContent = `buttons ${p.buttons} · income +${p.income} · space ${p.position} · score ${p.score}${p.bonus ? ' · 7×7 ★' : ''}`;
  }
  if (extra) extra(quilts);
  drawTrack($('review-track'), v, ['1', '2']);
  return quilts;
}

// A move in words; a buy says where (rows and columns from 1) when `other` buys the same patch elsewhere.
function label(m, other = null) {
  if (!m) return '';
  if (m.kind === 'MOVE_KIND_BUY') {
    const where = other && other.kind === 'MOVE_KIND_BUY' && other.patch_id === m.patch_id && other.text !== m.text
      ? ` at ${S.fromMessage(m.cells).map(([r, c]) => `${r + 1},${c + 1}`).join(' ')}` : '';
    return `buy patch ${m.patch_id}${where}`;
  }
  if (m.kind === 'MOVE_KIND_LEATHER') { const [[r, c]] = S.fromMessage(m.cells); return `leather on ${r + 1},${c + 1}`; }
  return 'advance';
}

function labelOf(r) { return r ? LABEL[r.label] || null : null; }

function pct(x) { return `${Math.round(x * 100)}%`; }

// A move's name that draws its cells on the mover's quilt while hovered or focused.
function moveSpan(m, other, player, cls) {
  const span = document.createElement('span');
  span.className = `move-name ${cls}`;
  span.textContent = label(m, other);
  if (m && m.cells && m.cells.length) {
    span.tabIndex = 0;
    const show = () => drawBoards((qs) => markCells(qs[player].overlay, S.fromMessage(m.cells), 'hover-mark', { move: m.text }));
    span.addEventListener('mouseenter', show);
    span.addEventListener('focus', show);
    span.addEventListener('mouseleave', () => drawBoards());
    span.addEventListener('blur', () => drawBoards());
  }
  return span;
}

function info() {
  const box = $('review-info');
  clear(box);
  if (!data) return;
  if (step === 0) {
    box.textContent = data.plies.length ? 'The start of the game. Step forward with › or →.' : 'No moves.';
    return;
  }
  const ply = data.plies[step - 1];
  const r = reviews[step - 1];
  box.append(`Move ${step}, player ${ply.player + 1}: `, moveSpan(ply.move, r && r.best, ply.player, 'played'), '. ');
  if (!r) { box.append('(being reviewed…)'); return; }
  const lab = labelOf(r);
  if (lab) {
    const g = document.createElement('span');
    g.className = `glyph ${lab}`;
    g.textContent = `${GLYPH[lab]} ${lab[0].toUpperCase()}${lab.slice(1)}. `;
    box.appendChild(g);
  }
  box.append(`Win chance after it ${pct(r.value_played)}; best was `, moveSpan(r.best, ply.move, ply.player, 'best'),
    ` (${pct(r.value_best)}), loss ${pct(r.loss)}${points(r)}. `);
  if (r.large) {
    const bad = document.createElement('span');
    bad.className = 'bad';
    bad.textContent = 'A large mistake.';
    box.appendChild(bad);
  }
}

// The exact loss in points where the endgame solver proved both moves (loss_points is absent otherwise).
function points(r) {
  if (r.loss_points === undefined || r.loss_points === null) return '';
  const n = r.loss_points;
  return ` and ${n} point${n === 1 ? '' : 's'} (proven: ${signed(r.margin_played)} against ${signed(r.margin_best)})`;
}

function signed(n) { return n === undefined || n === null ? '?' : `${n > 0 ? '+' : ''}${n}`; }

function names() {
  const ps = record && Array.isArray(record.players) ? record.players : null;
  return [0, 1].map((i) => `Player ${i + 1}${ps ? ` (${ps[i]})` : ''}`);
}

// Each player's accuracy (the server's player_accuracy, engine.review.player_accuracy) and label counts.
function summary() {
  for (const i of [0, 1]) {
    const box = $(`review-accuracy-${i}`);
    const mine = reviews.filter((r) => r && r.player === i);
    const count = (l) => mine.filter((r) => labelOf(r) === l).length;
    const acc = accuracy[i];
    box.dataset.accuracy = acc === null ? '' : acc.toFixed(1);
    box.dataset.inaccuracies = count('inaccuracy');
    box.dataset.mistakes = count('mistake');
    box.dataset.blunders = count('blunder');
    box.textContent = `${names()[i]}: accuracy ${acc === null ? '–' : acc.toFixed(1)} · ${count('inaccuracy')} ?! · `
      + `${count('mistake')} ? · ${count('blunder')} ?? · ${mine.length} moves`;
  }
  const bad = reviews.filter((r) => r && (labelOf(r) === 'mistake' || labelOf(r) === 'blunder'));
  $('review-learn').disabled = !bad.length;
}

function moveList() {
  const list = $('review-moves');
  clear(list);
  if (!data) return;
  data.plies.forEach((p, i) => {
    const r = reviews[i];
    const li = document.createElement('li');
    li.dataset.ply = i;
    li.className = `p${p.player}${i === step - 1 ? ' current' : ''}`;
    li.append(label(p.move));
    const lab = labelOf(r);
    if (lab) {
      const g = document.createElement('span');
      g.className = `glyph ${lab}`;
      g.textContent = ` ${GLYPH[lab]}`;
      g.title = lab;
      li.appendChild(g);
      li.dataset.label = lab;
    }
    li.tabIndex = 0;
    li.addEventListener('click', () => go(i + 1));
    li.addEventListener('keydown', (e) => { if (e.key === 'Enter') go(i + 1); });
    list.appendChild(li);
  });
}

function mistakes() {
  const list = $('review-mistakes');
  clear(list);
  const bad = reviews.filter((r) => r && (r.large || labelOf(r) === 'mistake' || labelOf(r) === 'blunder'));
  if (!bad.length) {
    const li = document.createElement('li');
    li.textContent = reviews.filter(Boolean).length ? 'None so far.' : 'Waiting for the review…';
    list.appendChild(li);
    return;
  }
  for (const r of bad) {
    const li = document.createElement('li');
    const lab = labelOf(r);
    li.append(`Move ${r.ply + 1} (player ${r.player + 1}) ${lab ? GLYPH[lab] : ''}: `);
    li.append(moveSpan(r.played, r.best, r.player, 'played'), ` lost ${pct(r.loss)}${points(r)}; best was `,
      moveSpan(r.best, r.played, r.player, 'best'));
    li.tabIndex = 0;
    li.dataset.ply = r.ply;
    li.addEventListener('click', () => go(r.ply + 1));
    li.addEventListener('keydown', (e) => { if (e.key === 'Enter') go(r.ply + 1); });
    list.appendChild(li);
  }
}

const RING = 8;            // a large mistake's ring around its point (px of the plot's viewBox)
const GLYPH_GAP = 13;      // from the point to a glyph's baseline above it: the ring, its stroke, the descent
const GLYPH_HEIGHT = 10;   // a glyph's height above its baseline (11 px bold)

// Both players' win chances after each move; the mover's point is the clickable one, labels as glyphs.
function plot() {
  const svg = $('review-plot');
  clear(svg);
  if (!data) return;
  const n = data.plies.length;
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
  el('text', { x: L, y: H - 8, 'text-anchor': 'start', text: 'move →' }, svg);
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
    el('title', { text: `move ${i + 1} (player ${r.player + 1}): ${label(r.played, r.best)}${lab ? ` ${GLYPH[lab]} ${lab}` : ''}; `
      + `player ${r.player + 1}'s chance ${pct(mine)}` }, c);
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

// ------------------------------------------------------------------ Recent (store.js) and the analysis board

// The reviewed record is kept under Recent (and reviewed again when it comes back); "Analyse" opens the
// position of the selected move on the analysis board.
function hookRecentAndAnalysis() {
  $('review-analyse').addEventListener('click', () => {
    if (data) location.hash = analysisHash(data.views[0].notation, data.record.actions.slice(0, step));
  });
  const recall = (hash) => {
    const m = /^#review\?recent=([^&]+)/.exec(hash);
    const it = m ? loadRecent(decodeURIComponent(m[1])) : (!data && listRecent('review')[0] ? loadRecent(listRecent('review')[0].id) : null);
    if (!it || it.kind !== 'review' || !it.data || !it.data.record) return;
    $('review-text').value = JSON.stringify(it.data.record);
    start($('review-text').value);
  };
  window.addEventListener('hashchange', () => { if (location.hash.startsWith('#review?recent=')) recall(location.hash); });
  recall(location.hash);
}

function remember(record) {
  const n = (record.actions || []).length;
  const who = Array.isArray(record.players) ? ` ${record.players.join(' v ')}` : '';
  const id = `review:${record.seed ?? ''}:${(record.circle || []).join(',')}:${n}:${(record.actions || []).slice(-1)[0] || ''}`;
  saveRecent('review', id, `Review${who}${record.seed !== undefined ? `, deal ${record.seed}` : ''}, ${n} moves`, { record });
}

// ------------------------------------------------------------------ exports

function evaluations() {
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

// The record with its evaluations (engine/record.py's documented extension; engine replay reads it).
function saveRecord() {
  if (!record) return;
  const out = { ...record, evaluations: evaluations() };
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

// The review as one picture: title, accuracies, the plot and up to four key positions (the worst mistakes).
function picture() {
  const NS = 'http://www.w3.org/2000/svg';
  const W = 760;
  const root = document.createElementNS(NS, 'svg');
  root.setAttribute('xmlns', NS);
  const add = (tag, attrs, parent = root) => el(tag, attrs, parent);
  add('rect', { x: 0, y: 0, width: W, height: 10, fill: '#fffdf8' }).id = 'bg';
  add('text', { x: 12, y: 28, 'font-size': 18, 'font-weight': 700, fill: '#2b2620', 'font-family': 'sans-serif', text: 'Game review' });
  [0, 1].forEach((i) => add('text', { x: 12, y: 52 + 18 * i, 'font-size': 14, fill: i ? '#c0582f' : '#2f6f8f',
    'font-family': 'sans-serif', text: $(`review-accuracy-${i}`).textContent }));
  const plotSvg = standalone($('review-plot'));
  plotSvg.setAttribute('x', 10); plotSvg.setAttribute('y', 80); plotSvg.setAttribute('width', 740); plotSvg.setAttribute('height', 216);
  root.appendChild(plotSvg);
  const worst = reviews.filter((r) => r && ['mistake', 'blunder'].includes(labelOf(r)))
    .sort((a, b) => b.loss - a.loss).slice(0, 4).sort((a, b) => a.ply - b.ply);
  const saved = step;
  worst.forEach((r, k) => {
    step = r.ply;
    const quilts = drawBoards((qs) => {
      if (r.played.cells.length) markCells(qs[r.player].overlay, S.fromMessage(r.played.cells), 'last');
      if (r.best.cells && r.best.cells.length && r.best.text !== r.played.text) markCells(qs[r.player].overlay, S.fromMessage(r.best.cells), 'best-mark');
    });
    void quilts;
    const q = standalone($(`review-quilt-${r.player}`));
    const bx = 12 + k * 186;
    q.setAttribute('x', bx); q.setAttribute('y', 350); q.setAttribute('width', 170); q.setAttribute('height', 170);
    root.appendChild(q);
    const lab = labelOf(r);
    add('text', { x: bx, y: 318, 'font-size': 12, 'font-weight': 700, fill: '#2b2620', 'font-family': 'sans-serif',
      text: `Move ${r.ply + 1}, player ${r.player + 1} ${GLYPH[lab]} −${pct(r.loss)}` });
    add('text', { x: bx, y: 333, 'font-size': 11, fill: '#b3261e', 'font-family': 'sans-serif', text: `played ${label(r.played, r.best)}` });
    add('text', { x: bx, y: 346, 'font-size': 11, fill: '#2e7d4f', 'font-family': 'sans-serif', text: `best ${label(r.best, r.played)}` });
  });
  step = saved;
  drawBoards();
  const H = worst.length ? 530 : 305;
  root.setAttribute('width', W); root.setAttribute('height', H); root.setAttribute('viewBox', `0 0 ${W} ${H}`);
  root.querySelector('#bg').setAttribute('height', H);
  return new XMLSerializer().serializeToString(root);
}

async function downloadPicture(kind) {
  if (!data) return;
  const text = picture();
  if (kind === 'svg') { download('review.svg', new Blob([text], { type: 'image/svg+xml' })); return; }
  const img = new Image();
  const url = URL.createObjectURL(new Blob([text], { type: 'image/svg+xml' }));
  try {
    await new Promise((ok, fail) => { img.onload = ok; img.onerror = () => fail(new Error('the picture did not render')); img.src = url; });
    const canvas = document.createElement('canvas');
    canvas.width = img.width * 2; canvas.height = img.height * 2;
    const ctx = canvas.getContext('2d');
    ctx.scale(2, 2);
    ctx.drawImage(img, 0, 0);
    const blob = await new Promise((ok) => canvas.toBlob(ok, 'image/png'));
    download('review.png', blob);
  } catch (e) { showMessage(msg, e); } finally { URL.revokeObjectURL(url); }
}

// ------------------------------------------------------------------ learn from your mistakes

function startLearning() {
  const player = Number($('learn-player').value);
  const queue = reviews.filter((r) => r && r.player === player && ['mistake', 'blunder'].includes(labelOf(r)));
  if (!queue.length) { showMessage(msg, `Player ${player + 1} made no mistake or blunder in this review.`, 'info'); return; }
  showMessage(msg, null);
  learn = { player, queue, at: 0, seq: 0 };
  $('learn-box').hidden = false;
  $('page-review').dataset.learning = '1';
  exercise(0);
}

function stopLearning() {
  if (!learn) return;
  learn = null;
  $('learn-box').hidden = true;
  delete $('page-review').dataset.learning;
  for (const i of [0, 1]) clearHandMarks($(`review-quilt-${i}`));
  if (data) go(step);
}

async function exercise(k) {
  if (!learn) return;
  if (k >= learn.queue.length) {
    $('learn-text').textContent = `That was the last of them (${learn.queue.length}). Well done!`;
    $('learn-moves').hidden = true;
    $('learn-answer').hidden = true;
    $('learn-next').hidden = true;
    $('learn-result').textContent = '';
    $('page-review').dataset.learnDone = '1';
    Object.assign(learn, { held: null, seq: learn.seq + 1 });
    overlay();
    return;
  }
  const r = learn.queue[k];
  // A new seq: the answer to a try of the exercise before is dropped.
  Object.assign(learn, { at: k, state: null, view: null, held: null, tried: null, shown: false, seq: learn.seq + 1 });
  clear($('learn-patches'));
  for (const i of [0, 1]) clearHandMarks($(`review-quilt-${i}`));
  step = r.ply;
  go(r.ply);
  $('learn-moves').hidden = false;
  $('learn-answer').hidden = false;
  $('learn-next').hidden = true;
  $('learn-result').textContent = '';
  delete $('learn-result').dataset.chance;
  $('page-review').dataset.learnAt = String(k);
  delete $('page-review').dataset.learnDone;
  $('learn-text').textContent = `${k + 1} of ${learn.queue.length} · Move ${r.ply + 1}: ${label(r.played, r.best)} `
    + `lost ${pct(r.loss)} (${GLYPH[labelOf(r)]} ${labelOf(r)}). Find a better move for player ${r.player + 1}: `
    + 'advance (A), or pick a patch (click it or press 1-3) and put it on the quilt: move it with the pointer or the '
    + 'arrow keys, R rotates, F flips, a click or Enter puts it down, Esc puts it back.';
  try {
    const bare = { ...record };
    delete bare.evaluations;
    const loaded = await post('game/load', { text: JSON.stringify(bare), plies: r.ply });
    if (!learn || learn.queue[learn.at] !== r) return;
    learn.state = loaded.state;
    learn.view = loaded.view;
    choices();
  } catch (e) { showMessage(msg, e); }
}

// The moves to try: advance, the patches in front of the token (each with its cost in buttons and time, the
// circle's SVG icons), or the pending leather patch, already in hand.
function choices() {
  const box = $('learn-patches');
  clear(box);
  const v = learn.view;
  const me = learn.player;
  $('learn-advance').disabled = !v.advance;
  if (v.leather_to_place > 0) {
    learn.held = leatherHand();
    box.textContent = 'Place the leather patch: click a free cell, or move it with the arrow keys and press Enter.';
  } else {
    v.available.forEach((a, i) => {
      const p = P[a.id];
      const b = document.createElement('button');
      b.type = 'button';
      b.className = 'learn-patch';
      b.dataset.patch = a.id;
      b.dataset.slot = i + 1;
      const shape = shapeIcon(p.cells, patchColor(a.id), { minSide: 3 });
      shape.classList.add('learn-shape');
      b.append(shape, `${i + 1}: patch ${a.id} `, icon('button'), `${a.buttons} `, icon('time'), `${a.time}`);
      b.disabled = !a.buyable;
      b.title = buyRefusal(a, `player ${me + 1}'s quilt`, `player ${me + 1}`, v.players[me].buttons)
        || `Patch ${a.id}: ${a.buttons} buttons, ${a.time} time. Press ${i + 1} to pick it up.`;
      b.setAttribute('aria-label', b.title);
      b.addEventListener('click', () => pick(i + 1));
      box.appendChild(b);
    });
  }
  markPicked();
  overlay();
}

// Pick up the patch in slot 1-3 (the buttons and the keys 1-3).
function pick(slot) {
  if (!learn || !learn.view || learn.view.leather_to_place > 0) return;
  const a = learn.view.available[slot - 1];
  if (!a) return;
  const me = learn.player;
  const refusal = buyRefusal(a, `player ${me + 1}'s quilt`, `player ${me + 1}`, learn.view.players[me].buttons);
  if (refusal) { $('learn-result').textContent = refusal; return; }
  learn.held = newHand(a.id, slot, P[a.id].cells);
  markPicked();
  overlay();
}

function markPicked() {
  const h = learn && learn.held;
  for (const b of $('learn-patches').querySelectorAll('button')) {
    b.setAttribute('aria-pressed', String(Boolean(h) && h.slot === Number(b.dataset.slot)));
  }
}

// The drill's keys, as on the Play page: 1-3 pick a patch up, the arrows move it (the first press shows it in
// the middle of the quilt), R and F turn it, Enter puts it down, Esc puts it back, A advances.
function learnKey(e) {
  const t = e.target;
  if (t && (t.closest('input, textarea, select, dialog') || t.isContentEditable)) return;
  const onButton = t && t.closest('button, [role=button]');
  const k = e.key.length === 1 ? e.key.toLowerCase() : e.key;
  const h = learn.held;
  if (k === 'r' || k === 'f') { e.preventDefault(); turn(k === 'r' ? 'rotate' : 'flip'); }
  else if (['1', '2', '3'].includes(k)) { e.preventDefault(); pick(Number(k)); }
  else if (k.startsWith('Arrow') && h) { e.preventDefault(); nudgeHand(h, k); overlay(); }
  else if (k === 'Enter' && h && !onButton) { e.preventDefault(); place(); }
  else if (k === 'Escape' && h && h.pid !== -1) { e.preventDefault(); learn.held = null; markPicked(); overlay(); }
  else if (k === 'a' && !$('learn-advance').disabled) { e.preventDefault(); tryMove('advance'); }
}

function turn(how) {
  if (!learn || !learn.held || learn.held.pid === -1) return;
  turnHand(learn.held, how);
  overlay();
}

// The mover's quilt with the try (its cells), the engine's answer once shown, and the patch in hand (green
// where it fits, red where not; the quilt's data-held/orient/pos say what is held where).
function overlay() {
  if (!data) return;
  drawBoards((qs) => {
    if (!learn) return;
    const ov = qs[learn.player].overlay;
    if (learn.tried && learn.tried.cells.length) markCells(ov, learn.tried.cells, 'last', { move: learn.tried.text });
    if (learn.shown) {
      const r = learn.queue[learn.at];
      if (r.best.cells && r.best.cells.length) markCells(ov, S.fromMessage(r.best.cells), 'best-mark');
    }
    const svg = $(`review-quilt-${learn.player}`);
    if (learn.held && learn.view) drawHand(ov, svg, learn.held, learn.view.players[learn.player].rows);
    else clearHandMarks(svg);
  });
}

function place() {
  if (!learn || !learn.held || !learn.view) return;
  const cells = handCells(learn.held);
  const out = $('learn-result');
  if (!cells) { out.textContent = 'Move the patch over the quilt first (the pointer or the arrow keys).'; return; }
  if (!fitsRows(learn.view.players[learn.player].rows, cells)) {
    out.textContent = 'That spot is not free: the patch must lie on empty cells.';
    return;
  }
  tryMove(handMoveText(learn.held, cells), cells);
}

// A try's win chance, one figure per move: the game's move and the engine's best show the review's own values
// (value_played, value_best); any other try is the search's value of the position it leads to, with the
// review's budget and seed (1 minus the opponent's best chance, or the mover's own when they move again, as
// engine.review does), evaluated once and kept, so that trying it again shows the same figure.
async function tryChance(r, move, after) {
  if (move === r.best.text) return { chance: r.value_best, source: 'best' };
  if (move === r.played.text) return { chance: r.value_played, source: 'played' };
  const depth = budget.iterations ? `it:${budget.iterations}` : `s:${budget.seconds}`;
  const key = [learn.view.notation || JSON.stringify(learn.state), depth, budget.seed, move].join('|');
  if (tryChances.has(key)) return { chance: tryChances.get(key), source: 'cache' };
  let chance;
  if (after.view.terminal) {
    chance = after.view.winner === learn.player ? 1 : 0;
  } else {
    const budgetBody = budget.iterations ? { iterations: budget.iterations } : { time_limit: `${budget.seconds}s` };
    const s = await post('suggest-move', { state: after.state, top: 1, seed: budget.seed, ...budgetBody }, { deadlineMs: 60000 });
    const best = s.suggestions[0].win_chance;
    chance = s.player === learn.player ? best : 1 - best;
  }
  tryChances.set(key, chance);
  return { chance, source: 'search' };
}

async function tryMove(text, cells = []) {
  if (!learn || !learn.state) return;
  const r = learn.queue[learn.at];
  const mine = ++learn.seq;
  const current = () => learn && learn.queue[learn.at] === r && learn.seq === mine;
  const out = $('learn-result');
  out.textContent = 'thinking…';
  delete out.dataset.chance;
  try {
    const after = await post('game/apply', { state: learn.state, move: text });
    if (!current()) return;
    const move = after.move && after.move.text ? after.move.text : text;   // the server's spelling, as the review's
    learn.tried = { text: move, cells };
    learn.held = null;
    const { chance, source } = await tryChance(r, move, after);
    if (!current()) return;
    let verdict;
    if (source === 'best') verdict = 'Good: that is the engine\'s best move.';
    else if (source === 'played') verdict = 'That is the move played in the game. Try again, or show the answer.';
    else if (chance >= r.value_best - 0.05) verdict = 'Good: as good as the engine\'s best (within 5%).';
    else if (chance > r.value_played + 0.02) verdict = 'Better than the game\'s move, but there is better still.';
    else verdict = 'Not better than the game\'s move. Try again, or show the answer.';
    out.textContent = `Your try ${move}: win chance ${pct(chance)} (the game's move ${pct(r.value_played)}, `
      + `the engine's best ${pct(r.value_best)}). ${verdict}`;
    out.dataset.chance = chance.toFixed(4);
    out.dataset.source = source;
    out.dataset.move = move;
    $('page-review').dataset.learnTried = String(learn.at);
    $('learn-next').hidden = false;
    choices();
  } catch (e) {
    if (!current()) return;
    out.textContent = '';
    showMessage(msg, e);
  }
}

function showAnswer() {
  if (!learn) return;
  const r = learn.queue[learn.at];
  learn.shown = true;
  $('learn-result').textContent = `${$('learn-result').textContent} The engine's answer: ${label(r.best, r.played)} `
    + `(${pct(r.value_best)}).`.trimStart();
  $('learn-next').hidden = false;
  overlay();
}
