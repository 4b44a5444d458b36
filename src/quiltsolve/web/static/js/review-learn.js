// "Learn from your mistakes": a player's mistakes and blunders of the review, replayed as exercises. Each
// loads the position before the move; the player tries a move (advance, or a patch picked up and put on the
// quilt with hand.js's flow, as on the Play page) and sees its win chance beside the game's move and the
// engine's best.

import { post } from './api.js';
import * as S from './shapes.js';
import { clear, icon, markCells, patchColor, shapeIcon } from './draw.js';
import { bindQuiltPointer, buyRefusal, clearHandMarks, holdFlow } from './hand.js';
import { GLYPH, isMistake, label, labelName, labelOf, pct } from './review-words.js';
import { formatNumber, t, tn } from './i18n.js';

const $ = (id) => document.getElementById(id);
let page = null;       // the Review page (initDrill)
let learn = null;      // the session: { player, queue, at, state, view, tried, shown, seq }
// A try's win chance by position, budget and move: the same try in the same position shows the same figure.
const tryChances = new Map();

// The patch in hand, on the exercise's player's quilt; put down, it is a try. A pick while the leather patch
// waits does nothing: the leather patch is in hand already (choices).
const hand = holdFlow({
  get P() { return page.P; }, view: () => learn.view, player: () => learn.player,
  canAct: () => Boolean(learn && learn.view),
  who: () => learn.player,
  say: (text) => { if (text !== null) $('learn-result').textContent = text; },
  play: (text, cells) => tryMove(text, cells), leatherFirst: () => {},
  render: () => { markPicked(); overlay(); }, redraw: () => overlay(),
});

// page: { P: the patches (hand.patchTable), data(): the replay, record(), reviews(), budget(), quilts(): the
// quilts as last drawn, go(k): show the position after k moves, drawBoards(extra): draw them again with extra
// marks, refresh(): the page as it is without the drill, say(text, kind): the page's message }.
export function initDrill(reviewPage) {
  page = reviewPage;
  $('review-learn').addEventListener('click', startLearning);
  $('learn-advance').addEventListener('click', () => tryMove('advance'));
  $('learn-rotate').addEventListener('click', () => hand.turn('rotate'));
  $('learn-flip').addEventListener('click', () => hand.turn('flip'));
  $('learn-answer').addEventListener('click', showAnswer);
  $('learn-next').addEventListener('click', () => exercise(learn ? learn.at + 1 : 0));
  $('learn-stop').addEventListener('click', stopLearning);
  for (const i of [0, 1]) {
    bindQuiltPointer($(`review-quilt-${i}`), {
      hand: () => (learn && learn.player === i ? hand.held : null), quilt: () => page.quilts()[i],
      canAct: () => Boolean(learn && learn.state), redraw: overlay, place: () => hand.place(),
    });
  }
}

export function learning() { return learn !== null; }

function startLearning() {
  const player = Number($('learn-player').value);
  const queue = page.reviews().filter((r) => r && r.player === player && isMistake(r));
  if (!queue.length) { page.say(t('learn.none', { p: player + 1 }), 'info'); return; }
  page.say(null);
  learn = { player, queue, at: 0, seq: 0 };
  $('learn-box').hidden = false;
  $('page-review').dataset.learning = '1';
  exercise(0);
}

export function stopLearning() {
  if (!learn) return;
  learn = null;
  hand.drop();
  $('learn-box').hidden = true;
  delete $('page-review').dataset.learning;
  for (const i of [0, 1]) clearHandMarks($(`review-quilt-${i}`));
  page.refresh();
}

async function exercise(k) {
  if (!learn) return;
  hand.drop();
  if (k >= learn.queue.length) {
    $('learn-text').textContent = tn('learn.done', learn.queue.length);
    $('learn-moves').hidden = true;
    $('learn-answer').hidden = true;
    $('learn-next').hidden = true;
    $('learn-result').textContent = '';
    $('page-review').dataset.learnDone = '1';
    learn.seq += 1;
    overlay();
    return;
  }
  const r = learn.queue[k];
  // A new seq: the answer to a try of the exercise before is dropped.
  Object.assign(learn, { at: k, state: null, view: null, tried: null, shown: false, seq: learn.seq + 1 });
  clear($('learn-patches'));
  for (const i of [0, 1]) clearHandMarks($(`review-quilt-${i}`));
  page.go(r.ply);
  $('learn-moves').hidden = false;
  $('learn-answer').hidden = false;
  $('learn-next').hidden = true;
  $('learn-result').textContent = '';
  delete $('learn-result').dataset.chance;
  $('page-review').dataset.learnAt = String(k);
  delete $('page-review').dataset.learnDone;
  $('learn-text').textContent = t('learn.exercise', { k: k + 1, of: learn.queue.length, n: r.ply + 1,
    move: label(r.played, r.best), loss: pct(r.loss), glyph: GLYPH[labelOf(r)], label: labelName(labelOf(r)),
    p: r.player + 1 });
  try {
    const bare = { ...page.record() };
    delete bare.evaluations;
    const loaded = await post('game/load', { text: JSON.stringify(bare), plies: r.ply });
    if (!learn || learn.queue[learn.at] !== r) return;
    learn.state = loaded.state;
    learn.view = loaded.view;
    choices();
  } catch (e) { page.say(e); }
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
    hand.holdLeather();
    box.textContent = t('learn.placeLeather');
  } else {
    v.available.forEach((a, i) => {
      const p = page.P[a.id];
      const b = document.createElement('button');
      b.type = 'button';
      b.className = 'learn-patch';
      b.dataset.patch = a.id;
      b.dataset.slot = i + 1;
      const shape = shapeIcon(p.cells, patchColor(a.id), { minSide: 3 });
      shape.classList.add('learn-shape');
      b.append(shape, `${t('learn.patchChoice', { n: i + 1, id: a.id })} `, icon('button'), `${formatNumber(a.buttons)} `, icon('time'),
        `${formatNumber(a.time)}`);
      b.disabled = !a.buyable;
      b.title = buyRefusal(a, me, v.players[me].buttons)
        || tn('learn.patchTitle', a.buttons, { id: a.id, time: a.time, key: i + 1 });
      b.setAttribute('aria-label', b.title);
      b.addEventListener('click', () => hand.pick(i + 1));
      box.appendChild(b);
    });
  }
  markPicked();
  overlay();
}

function markPicked() {
  const h = hand.held;
  for (const b of $('learn-patches').querySelectorAll('button')) {
    b.setAttribute('aria-pressed', String(Boolean(h) && h.slot === Number(b.dataset.slot)));
  }
}

// The drill's keys: the hand's (hand.key, as on the Play page), Esc puts a patch back (the leather patch
// stays), A advances.
export function learnKey(e) {
  const t = e.target;
  if (t && (t.closest('input, textarea, select, dialog') || t.isContentEditable)) return;
  if (hand.key(e)) return;
  const k = e.key.length === 1 ? e.key.toLowerCase() : e.key;
  const h = hand.held;
  if (k === 'Escape' && h && h.pid !== -1) { e.preventDefault(); hand.drop(); markPicked(); overlay(); }
  else if (k === 'a' && !$('learn-advance').disabled) { e.preventDefault(); tryMove('advance'); }
}

// The mover's quilt with the try (its cells), the engine's answer once shown, and the patch in hand (green
// where it fits, red where not; the quilt's data-held/orient/pos say what is held where).
function overlay() {
  if (!page.data()) return;
  page.drawBoards((qs) => {
    if (!learn) return;
    const ov = qs[learn.player].overlay;
    if (learn.tried && learn.tried.cells.length) markCells(ov, learn.tried.cells, 'last', { move: learn.tried.text });
    if (learn.shown) {
      const r = learn.queue[learn.at];
      if (r.best.cells && r.best.cells.length) markCells(ov, S.fromMessage(r.best.cells), 'best-mark');
    }
    const svg = $(`review-quilt-${learn.player}`);
    if (hand.held && learn.view) hand.draw(ov, svg);
    else clearHandMarks(svg);
  });
}

// A try's win chance, one figure per move: the game's move and the engine's best show the review's own values
// (value_played, value_best); any other try is the search's value of the position it leads to, with the
// review's budget and seed (1 minus the opponent's best chance, or the mover's own when they move again, as
// engine.review does), evaluated once and kept, so that trying it again shows the same figure.
async function tryChance(r, move, after) {
  if (move === r.best.text) return { chance: r.value_best, source: 'best' };
  if (move === r.played.text) return { chance: r.value_played, source: 'played' };
  const budget = page.budget();
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
  out.textContent = t('common.thinking');
  delete out.dataset.chance;
  try {
    const after = await post('game/apply', { state: learn.state, move: text });
    if (!current()) return;
    const move = after.move && after.move.text ? after.move.text : text;   // the server's spelling, as the review's
    learn.tried = { text: move, cells };
    hand.drop();
    const { chance, source } = await tryChance(r, move, after);
    if (!current()) return;
    let verdict;
    if (source === 'best') verdict = t('learn.verdict.best');
    else if (source === 'played') verdict = t('learn.verdict.played');
    else if (chance >= r.value_best - 0.05) verdict = t('learn.verdict.asGood');
    else if (chance > r.value_played + 0.02) verdict = t('learn.verdict.better');
    else verdict = t('learn.verdict.notBetter');
    out.textContent = `${t('learn.try', { move, chance: pct(chance), played: pct(r.value_played), best: pct(r.value_best) })} ${verdict}`;
    out.dataset.chance = chance.toFixed(4);
    out.dataset.source = source;
    out.dataset.move = move;
    $('page-review').dataset.learnTried = String(learn.at);
    $('learn-next').hidden = false;
    choices();
  } catch (e) {
    if (!current()) return;
    out.textContent = '';
    page.say(e);
  }
}

function showAnswer() {
  if (!learn) return;
  const r = learn.queue[learn.at];
  learn.shown = true;
  $('learn-result').textContent = `${$('learn-result').textContent} ${t('learn.answerIs', { move: label(r.best, r.played), pct: pct(r.value_best) })}`.trimStart();
  $('learn-next').hidden = false;
  overlay();
}
