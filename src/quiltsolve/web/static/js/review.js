// Review: step through a game record; analyze-game streams each move's win chances (plotted as they come,
// review-plot.js), its label (?!, ?, ??) and each player's accuracy. A review is a link (review-links.js), an
// SVG/PNG picture or a record with evaluations (review-export.js); "Learn from your mistakes" replays a
// player's mistakes and blunders as exercises (review-learn.js). This module is the page: the form, the
// streamed review, stepping through the moves and the move lists.

import { post, showMessage, stream } from './api.js';
import * as S from './shapes.js';
import { clear, drawQuilt, drawTrack, markCells } from './draw.js';
import { patchTable } from './hand.js';
import { analysisHash } from './links.js';
import { initDrill, learnKey, learning, stopLearning } from './review-learn.js';
import { downloadPicture, saveRecord } from './review-export.js';
import { reviewLink, reviewParams, unpackRecord } from './review-links.js';
import { drawPlot } from './review-plot.js';
import { GLYPH, isMistake, label, labelName, labelOf, pct, points } from './review-words.js';
import { listRecent, loadRecent, saveRecent } from './store.js';
import { formatNumber, onLanguageChange, t, tn } from './i18n.js';
import { playersText, strengthName } from './play-game.js';

const $ = (id) => document.getElementById(id);
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
let quilts = [null, null];   // the two quilts as last drawn (drawQuilt's handles: cellAt for the pointer)

export async function init() {
  msg = $('review-msg');
  P = await patchTable();
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
  $('review-svg').addEventListener('click', () => picture('svg'));
  $('review-png').addEventListener('click', () => picture('png'));
  $('review-save').addEventListener('click', () => { if (record) saveRecord(record, reviews); });
  initDrill({
    get P() { return P; }, data: () => data, record: () => record, reviews: () => reviews, budget: () => budget,
    quilts: () => quilts, go, drawBoards, refresh: () => { if (data) go(step); }, say: (text, kind) => showMessage(msg, text, kind),
  });
  document.addEventListener('keydown', (e) => {
    if ($('page-review').hidden || !data || e.ctrlKey || e.metaKey || e.altKey) return;
    if (learning()) { learnKey(e); return; }
    const t = e.target;
    if (t && t.closest('input:not([type=range]), textarea, select')) return;
    const moves = { ArrowLeft: step - 1, ArrowRight: step + 1, Home: 0, End: data.plies.length };
    if (e.key in moves) { e.preventDefault(); go(moves[e.key]); }
  });
  window.addEventListener('hashchange', () => { openLink(); });
  onLanguageChange(() => { if (data) { go(step); summary(); mistakes(); progressText(); } });
  await openLink();
  hookRecentAndAnalysis();   // after a link's review started: Recent only fills an empty page
}

// ------------------------------------------------------------------ links

let openedRec = null;
// Open the review a #review?rec= link holds (on load and when the fragment changes).
async function openLink() {
  const q = reviewParams(location.hash);
  if (!q || q.get('rec') === openedRec) return;
  openedRec = q.get('rec');
  let rec;
  try { rec = await unpackRecord(openedRec); } catch (e) {
    showMessage(msg, t('review.badLink', { message: e.message }));
    return;
  }
  const it = Number(q.get('it'));
  const seed = Number(q.get('seed') || 0);
  if (it > 0) {
    const sel = $('review-depth');
    const value = `it:${it}`;
    if (![...sel.options].some((o) => o.value === value)) {
      const o = document.createElement('option');
      o.value = value; o.textContent = tn('review.depth.link', it);
      o.dataset.i18n = 'review.depth.link';
      o.dataset.i18nN = String(it);
      sel.appendChild(o);
    }
    sel.value = value;
  }
  $('review-text').value = JSON.stringify(rec);
  await start($('review-text').value, { seed: Number.isFinite(seed) ? seed : 0, ply: Number(q.get('ply') || 0) });
}

function currentLink() { return reviewLink(record, step, budget); }

let linkQueue = Promise.resolve();
// Keep the address bar on this review and move (replaceState: no hashchange, no history entry per step).
function syncLink() {
  if (!record) return;
  const mine = run;
  linkQueue = linkQueue.then(async () => {
    if (mine !== run) return;
    const url = await currentLink();
    // Packing the link takes a moment: the person may have gone to another page meanwhile, and writing the
    // review's address then would put them back (the hashchange of their step would read it).
    if (mine !== run || !location.hash.startsWith('#review')) return;
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
    showMessage(msg, t('review.linkCopied'), 'info');
  } catch {
    $('review-link').select();
    showMessage(msg, t('review.copyFromBox'), 'info');
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
      let label = t('review.gameN', { n: i + 1 });
      try {
        const r = JSON.parse(line);
        if (r.seed !== undefined) label += ` ${t('review.seedN', { seed: String(r.seed) })}`;
        if (Array.isArray(r.players)) label += ` ${playersText(r.players)}`;
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
  $('review-progress').textContent = t('review.playingSample');
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
  const txt = text.trim();
  if (!txt) throw new Error(t('review.noRecord'));
  const first = txt.split(/\r?\n/).find((x) => x.trim());
  let obj;
  try { obj = JSON.parse(txt); } catch {
    try { obj = JSON.parse(first); } catch (e) { throw new Error(t('review.notJson', { message: e.message })); }
  }
  if (!obj || typeof obj !== 'object' || !Array.isArray(obj.actions)) throw new Error(t('review.notRecord'));
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
  reviewedCount = 0;
  progressText();
  $('page-review').dataset.reviewed = '0';
  const t0 = performance.now();
  abort = new AbortController();
  try {
    await stream('analyze-game', body, (item) => {
      if (mine !== run) return;
      reviews[item.ply] = item;
      accuracy[item.player] = item.player_accuracy;
      const done = reviews.filter(Boolean).length;
      reviewedCount = done;
      progressText();
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
    reviewedCount = null;
    progress.textContent = '';
  }
}

let reviewedCount = null;   // moves reviewed so far (null: no review running or done)
function progressText() {
  if (!data || reviewedCount === null) return;
  const n = data.plies.length;
  $('review-progress').textContent = reviewedCount < n ? tn('review.reviewing', n, { done: reviewedCount })
    : tn('review.reviewed', n);
}

// ------------------------------------------------------------------ stepping

function go(k) {
  if (!data) return;
  step = Math.max(0, Math.min(data.plies.length, k));
  $('review-slider').value = String(step);
  $('review-where').textContent = t('review.where', { n: step, of: data.plies.length });
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
    if (!learning() && step > 0 && data.plies[step - 1].player === i) {
      const ply = data.plies[step - 1];
      const r = reviews[step - 1];
      if (r && r.best && r.best.cells && r.best.cells.length && r.best.text !== ply.move.text) {
        markCells(q.overlay, S.fromMessage(r.best.cells), 'best-mark', { move: r.best.text });
      }
      if (ply.move.cells.length) markCells(q.overlay, S.fromMessage(ply.move.cells), 'last', { move: ply.move.text });
    }
    const p = v.players[i];
    const scoreLabel = v.terminal ? t('stats.score') : t('stats.scoreNow');     // as on Play (hand.statsInto)
    $(`review-stats-${i}`).textContent = `${t('stats.buttons')} ${formatNumber(p.buttons)} · ${t('stats.income')} +${formatNumber(p.income)} · `
      + `${t('stats.space')} ${formatNumber(p.position)} · ${scoreLabel} ${formatNumber(p.score)}${p.bonus ? ' · 7×7 ★' : ''}`;
  }
  if (extra) extra(quilts);
  drawTrack($('review-track'), v, [t('track.p1'), t('track.p2')]);
  return quilts;
}

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
    box.textContent = data.plies.length ? t('review.start') : t('review.noMoves');
    return;
  }
  const ply = data.plies[step - 1];
  const r = reviews[step - 1];
  box.append(`${t('review.moveBy', { n: step, p: ply.player + 1 })} `, moveSpan(ply.move, r && r.best, ply.player, 'played'), '. ');
  if (!r) { box.append(t('review.beingReviewed')); return; }
  const lab = labelOf(r);
  if (lab) {
    const g = document.createElement('span');
    g.className = `glyph ${lab}`;
    g.textContent = `${GLYPH[lab]} ${labelName(lab, true)}. `;
    box.appendChild(g);
  }
  // "Win chance after it 40%; best was <move> (55%), loss 15%." with the best move a hoverable span
  const [before, after] = t('review.chanceLine', { played: pct(r.value_played), best: pct(r.value_best),
    loss: pct(r.loss), points: points(r) }).split('{move}');
  box.append(before, moveSpan(r.best, ply.move, ply.player, 'best'), after ?? '', ' ');
  if (r.large) {
    const bad = document.createElement('span');
    bad.className = 'bad';
    bad.textContent = t('review.large');
    box.appendChild(bad);
  }
}

function names() {
  const ps = record && Array.isArray(record.players) ? record.players : null;
  return [0, 1].map((i) => `${t('player.n', { n: i + 1 })}${ps ? ` (${strengthName(ps[i])})` : ''}`);
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
    const accText = acc === null ? '–' : formatNumber(acc, { minimumFractionDigits: 1, maximumFractionDigits: 1 });
    box.textContent = `${names()[i]}: ${t('review.accuracy', { acc: accText })} · ${count('inaccuracy')} ?! · `
      + `${count('mistake')} ? · ${count('blunder')} ?? · ${tn('review.moves', mine.length)}`;
  }
  const bad = reviews.filter((r) => r && isMistake(r));
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
      g.title = labelName(lab);
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
  const bad = reviews.filter((r) => r && (r.large || isMistake(r)));
  if (!bad.length) {
    const li = document.createElement('li');
    li.textContent = reviews.filter(Boolean).length ? t('review.noneSoFar') : t('review.waiting');
    list.appendChild(li);
    return;
  }
  for (const r of bad) {
    const li = document.createElement('li');
    const lab = labelOf(r);
    li.append(`${t('review.mistakeHead', { n: r.ply + 1, p: r.player + 1, glyph: lab ? GLYPH[lab] : '' })} `);
    // "<move> lost 15%; best was <move>": the two moves are hoverable spans
    const parts = t('review.mistakeLine', { loss: pct(r.loss), points: points(r) }).split(/\{(played|best)\}/);
    for (const part of parts) {
      if (part === 'played') li.append(moveSpan(r.played, r.best, r.player, 'played'));
      else if (part === 'best') li.append(moveSpan(r.best, r.played, r.player, 'best'));
      else li.append(part);
    }
    li.tabIndex = 0;
    li.dataset.ply = r.ply;
    li.addEventListener('click', () => go(r.ply + 1));
    li.addEventListener('keydown', (e) => { if (e.key === 'Enter') go(r.ply + 1); });
    list.appendChild(li);
  }
}

function plot() {
  if (data) drawPlot($('review-plot'), data.plies.length, reviews, step, go);
  else clear($('review-plot'));
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
  const who = Array.isArray(record.players) ? record.players.map(String) : null;
  const id = `review:${record.seed ?? ''}:${(record.circle || []).join(',')}:${n}:${(record.actions || []).slice(-1)[0] || ''}`;
  const key = `recent.review${who ? 'Players' : ''}${record.seed !== undefined ? 'Deal' : ''}`;
  const label = { key, n, vars: { players: who || '', deal: String(record.seed) } };
  saveRecent('review', id, tn(key, n, { ...label.vars, players: who ? playersText(who) : '' }), { record }, label);
}

// ------------------------------------------------------------------ the picture

// The review as a picture (review-export.js), its key positions drawn on this page's quilts and put back.
async function picture(kind) {
  if (!data) return;
  const drawAt = (ply, extra) => {
    const saved = step;
    step = ply;
    drawBoards(extra);
    step = saved;
  };
  try { await downloadPicture(kind, reviews, drawAt, () => drawBoards()); } catch (e) { showMessage(msg, e); }
}
