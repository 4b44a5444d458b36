// Review: step through a game record; analyze-game streams each move's win chances (plotted as they come).

import { patches as loadPatches, post, showMessage, stream } from './api.js';
import * as S from './shapes.js';
import { clear, drawQuilt, drawTrack, el, markCells } from './draw.js';
import { analysisHash } from './links.js';
import { listRecent, loadRecent, saveRecent } from './store.js';

const $ = (id) => document.getElementById(id);
let P = null;
let data = null;       // game/replay answer
let owners = [];       // owners[k][player]: the quilts after k moves
let reviews = [];      // analyze-game items by ply
let step = 0;
let run = 0;           // which review is current (a new one abandons the old stream)
let abort = null;
let msg = null;
let lines = [];

export async function init() {
  msg = $('review-msg');
  P = {};
  for (const p of await loadPatches()) P[p.id] = p;
  $('review-file').addEventListener('change', readFile);
  $('review-line').addEventListener('change', () => { $('review-text').value = lines[Number($('review-line').value)] || ''; });
  $('review-form').addEventListener('submit', (e) => { e.preventDefault(); start($('review-text').value); });
  $('review-sample').addEventListener('click', sample);
  $('review-first').addEventListener('click', () => go(0));
  $('review-prev').addEventListener('click', () => go(step - 1));
  $('review-next').addEventListener('click', () => go(step + 1));
  $('review-last').addEventListener('click', () => go(data ? data.plies.length : 0));
  $('review-slider').addEventListener('input', (e) => go(Number(e.target.value)));
  document.addEventListener('keydown', (e) => {
    if ($('page-review').hidden || !data || e.ctrlKey || e.metaKey || e.altKey) return;
    const t = e.target;
    if (t && t.closest('input:not([type=range]), textarea, select')) return;
    const moves = { ArrowLeft: step - 1, ArrowRight: step + 1, Home: 0, End: data.plies.length };
    if (e.key in moves) { e.preventDefault(); go(moves[e.key]); }
  });
  hookRecentAndAnalysis();
}

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

async function start(text) {
  showMessage(msg, null);
  let record;
  try { record = parseRecord(text); } catch (e) { showMessage(msg, e.message); return; }
  const mine = ++run;
  if (abort) abort.abort();
  abort = null;
  try {
    data = await post('game/replay', { record });
  } catch (e) { showMessage(msg, e); return; }
  if (mine !== run) return;
  remember(record);
  owners = [[Array(81).fill(null), Array(81).fill(null)]];
  for (const p of data.plies) {
    const next = owners[owners.length - 1].map((o) => o.slice());
    const cells = S.fromMessage(p.move.cells);
    for (const [r, c] of cells) next[p.player][r * 9 + c] = p.move.kind === 'MOVE_KIND_BUY' ? `p${p.move.patch_id}` : `L${r * 9 + c}`;
    owners.push(next);
  }
  reviews = [];
  $('review-body').hidden = false;
  $('review-slider').max = String(data.plies.length);
  go(0);
  analyze(mine);
}

async function analyze(mine) {
  const depth = $('review-depth').value;
  const [kind, amount] = depth.split(':');
  const body = {
    record: { edition: `EDITION_${data.record.edition.toUpperCase()}`, circle: data.record.circle, actions: data.record.actions },
    seed: 0,
  };
  if (kind === 'it') body.iterations = Number(amount); else body.time_per_move = `${amount}s`;
  const n = data.plies.length;
  const progress = $('review-progress');
  progress.textContent = `reviewing: 0 of ${n} moves`;
  $('page-review').dataset.reviewed = '0';
  abort = new AbortController();
  try {
    await stream('analyze-game', body, (item) => {
      if (mine !== run) return;
      reviews[item.ply] = item;
      const done = reviews.filter(Boolean).length;
      progress.textContent = done < n ? `reviewing: ${done} of ${n} moves` : `reviewed all ${n} moves`;
      $('page-review').dataset.reviewed = String(done);
      plot();
      if (item.ply === step - 1) info();
      mistakes();
    }, { signal: abort.signal });
  } catch (e) {
    if (e.name === 'AbortError' || mine !== run) return;
    showMessage(msg, e);
    progress.textContent = '';
  }
}

function go(k) {
  if (!data) return;
  step = Math.max(0, Math.min(data.plies.length, k));
  $('review-slider').value = String(step);
  $('review-where').textContent = `move ${step} of ${data.plies.length}`;
  $('page-review').dataset.step = String(step);
  const v = data.views[step];
  for (const i of [0, 1]) {
    const q = drawQuilt($(`review-quilt-${i}`), v.players[i].rows, owners[step][i], P);
    if (step > 0 && data.plies[step - 1].player === i) {
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
  drawTrack($('review-track'), v, ['1', '2']);
  info();
  plot();
}

function label(m) {
  if (!m) return '';
  if (m.kind === 'MOVE_KIND_BUY') return `buy patch ${m.patch_id}`;
  if (m.kind === 'MOVE_KIND_LEATHER') { const [[r, c]] = S.fromMessage(m.cells); return `leather on ${r + 1},${c + 1}`; }
  return 'advance';
}

function pct(x) { return `${Math.round(x * 100)}%`; }

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
  const who = `player ${ply.player + 1}`;
  const head = document.createElement('span');
  head.textContent = `Move ${step}, ${who}: ${label(ply.move)}. `;
  box.appendChild(head);
  if (!r) { box.appendChild(document.createTextNode('(being reviewed…)')); return; }
  const body = document.createElement('span');
  body.textContent = `Win chance after it ${pct(r.value_played)}; best was ${label(r.best)} (${pct(r.value_best)}), loss ${pct(r.loss)}${points(r)}. `;
  box.appendChild(body);
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

function mistakes() {
  const list = $('review-mistakes');
  clear(list);
  const bad = reviews.filter((r) => r && r.large);
  if (!bad.length) {
    const li = document.createElement('li');
    li.textContent = reviews.filter(Boolean).length ? 'None so far.' : 'Waiting for the review…';
    list.appendChild(li);
    return;
  }
  for (const r of bad) {
    const li = document.createElement('li');
    li.textContent = `Move ${r.ply + 1} (player ${r.player + 1}): ${label(r.played)} lost ${pct(r.loss)}${points(r)}; best was ${label(r.best)}`;
    li.tabIndex = 0;
    li.dataset.ply = r.ply;
    li.addEventListener('click', () => go(r.ply + 1));
    li.addEventListener('keydown', (e) => { if (e.key === 'Enter') go(r.ply + 1); });
    list.appendChild(li);
  }
}

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
    const v0 = r.player === 0 ? r.value_played : 1 - r.value_played;
    pts.push([i, v0, r]);
  }
  if (pts.length) {
    el('polyline', { points: [[L, y(0.5)], ...pts.map(([i, v]) => [x(i), y(v)])].map((p) => p.join(',')).join(' '), class: 'line' }, svg);
  }
  const cx = step > 0 ? x(step - 1) : L;
  el('line', { x1: cx, y1: T, x2: cx, y2: H - B, class: 'cursor' }, svg);
  for (const [i, v, r] of pts) {
    const c = el('circle', { cx: x(i), cy: y(v), r: n > 80 ? 3 : 4, class: `pt${r.player === 1 ? ' p1' : ''}`,
      'data-ply': i, 'data-value': v.toFixed(4), tabindex: -1 }, svg);
    el('title', { text: `move ${i + 1} (player ${r.player + 1}): ${label(r.played)}; first player's chance ${pct(v)}` }, c);
    c.addEventListener('click', () => go(i + 1));
    if (r.large) el('circle', { cx: x(i), cy: y(v), r: 8, class: 'mistake', 'data-ply': i }, svg);
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
