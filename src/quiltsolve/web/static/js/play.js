// Play: a game against the engine. Every move goes through the API (game/apply, game/engine-move);
// ghosts come from suggest-placement, hints from suggest-move.

import { post, showMessage } from './api.js';
import * as S from './shapes.js';
import { clear, drawQuilt, drawTrack, markCells } from './draw.js';
import {
  addOwner, bindQuiltPointer, blankOwners, clearHandMarks, drawCircle, heldControls, holdFlow,
  markHeldCard as markCard, patchTable, statsInto, unknownOwners
} from './hand.js';
import { listRecent, loadRecent, saveRecent } from './store.js';
import { hintHeading, renderHintList } from './play-hint.js';
import { applyMove, gameRecord, logText, snapshot, strengthName } from './play-game.js';
import { analysisHash, analysisLink, copyText, flash } from './links.js';
import { onLanguageChange, t, tn } from './i18n.js';

const $ = (id) => document.getElementById(id);
export const HINT = { top: 5, iterations: 300, seed: 0 };
export const MAX_DEAL = 2147483647;   // the API's largest seed (web/game.py MAX_SEED): 2^31 - 1, ten digits
// What the browser tests read of the page (the game, the patch in hand, the hint's budget). Nothing in the
// app uses it and no global carries it: a test imports this module and puts it where it looks.
export const inspect = { game: () => game, held: () => hand.held, hint: HINT };

let P = null;            // patches by id, with .cells
let game = null;         // the game being played (see newGameFrom)
// The patch in hand (hand.js), with the solver's ghosts for it; put down, it is the human's move.
// (The functions it calls are hoisted; msg is set before any of them runs.)
const hand = holdFlow({
  get P() { return P; }, view: () => game.view, player: () => game.human, canAct,
  quilt: () => quilt, pointer: () => pointer, who: () => 'you',
  say: (text) => showMessage(msg, text, 'info'), play: (text) => humanMove(text),
  leatherFirst: () => showMessage(msg, t('play.leatherFirst'), 'info'),
  render: () => render(), redraw: () => drawOverlay(), ghosts: true, error: (e) => showMessage(msg, e),
});
let hint = null;         // {suggestions, selected}
let busy = false;
let stuck = false;       // the engine's last move failed: offer a retry
let pointer = null;      // the quilt's pointer input (bindQuiltPointer)
let quilt = null;        // drawing handle of the human's quilt
let circleDrawnFor = null;
let msg = null;

const section = () => $('page-play');
// Key hints only where there is likely a keyboard: not on a phone's width or a touch screen (as app.css's .key-hint).
const keyHints = () => !window.matchMedia('(max-width: 600px), (pointer: coarse)').matches;

// ------------------------------------------------------------------ set-up

export async function init() {
  msg = $('play-msg');
  try {
    P = await patchTable();
  } catch (e) { showMessage(msg, e); return; }
  bind();
  onLanguageChange(() => { circleDrawnFor = null; render(); });
  const asked = resumeId(location.hash);
  if (resume(asked) || (!asked && resume(latestUnfinished()))) await engineTurns();
  else await newGame();
}

// ------------------------------------------------------------------ kept in the browser (store.js)

// The game is saved after every move (the undo history is not), so a reload, a closed tab or a
// restarted browser finds it again: the newest unfinished one is resumed when the page opens.
function save() {
  if (!game || (!game.record.actions.length && !game.start)) return;
  const { history: undoHistory, ...rest } = game;   // the undo history is not kept
  void undoHistory;
  const n = game.record.actions.length;
  // The title in words as a catalogue key (Recent shows it in the language of the moment).
  const key = `recent.game${game.start ? 'Position' : 'Deal'}${game.view.terminal ? 'Over' : ''}`;
  const label = { key, n, vars: { strength: game.strength, deal: String(game.record.seed) } };
  saveRecent('play', game.id, tn(key, n, { ...label.vars, strength: strengthName(game.strength) }), rest, label);
}

function latestUnfinished() {
  const it = listRecent('play')[0];
  const full = it && loadRecent(it.id);
  return full && full.data && full.data.view && !full.data.view.terminal ? it.id : null;
}

function resumeId(hash) {
  const m = /^#play\?resume=([^&]+)/.exec(hash);
  return m ? decodeURIComponent(m[1]) : null;
}

// Take up a saved game (by its Recent id); false when there is none.
function resume(id) {
  const it = id ? loadRecent(id) : null;
  if (!it || it.kind !== 'play' || !it.data || !it.data.state || !it.data.view) return false;
  game = { ...it.data, history: [] };
  $('play-side').value = String(game.human);
  $('play-strength').value = game.strength;
  if (game.record.seed !== undefined) $('play-seed').value = String(game.record.seed);
  hand.drop(); hint = null; stuck = false; circleDrawnFor = null;
  showMessage(msg, game.view.terminal ? null : t('play.resumed'), 'info');
  render();
  return true;
}

function unfinished() {
  return !!game && !game.view.terminal && game.record.actions.length > 0;
}

function bind() {
  $('play-setup').addEventListener('submit', (e) => {
    e.preventDefault();
    // The old game stays under Recent (Analysis page); still, a click should not end it unasked.
    if (unfinished() && !window.confirm(t('play.confirmNew'))) return;
    newGame();
  });
  // The board gets the whole game: its first position, and the moves as the main line up to now.
  const analyse = () => {
    if (!game) return;
    location.hash = game.rootNotation ? analysisHash(game.rootNotation, game.record.actions) : analysisHash(game.view.notation);
  };
  $('play-analyse').addEventListener('click', analyse);
  $('play-analyse-game').addEventListener('click', analyse);
  $('play-review-game').addEventListener('click', () => reviewGame());
  $('play-copy-link').addEventListener('click', async () => {
    if (!game) return;
    flash($('play-copy-link'), t(await copyText(analysisLink(game.view.notation)) ? 'common.copied' : 'common.copyFailed'));
  });
  window.addEventListener('hashchange', () => {
    const id = resumeId(location.hash);
    if (id && (!game || game.id !== id) && !busy && resume(id)) engineTurns();
  });
  $('play-hint').addEventListener('click', () => showHint());
  $('play-undo').addEventListener('click', () => undo());
  $('play-download').addEventListener('click', () => download());
  $('play-advance').addEventListener('click', () => humanMove('advance'));
  $('play-rotate').addEventListener('click', () => hand.turn('rotate'));
  $('play-flip').addEventListener('click', () => hand.turn('flip'));
  $('play-place').addEventListener('click', () => hand.place());
  $('play-cancel').addEventListener('click', () => { hand.drop(); render(); });
  $('play-hint-close').addEventListener('click', () => { hint = null; render(); });
  const toggle = $('play-paste-toggle');
  toggle.addEventListener('click', () => {
    const form = $('play-paste');
    form.hidden = !form.hidden;
    toggle.setAttribute('aria-expanded', String(!form.hidden));
    if (!form.hidden) $('play-paste-text').focus();
  });
  $('play-paste-cancel').addEventListener('click', () => { $('play-paste').hidden = true; toggle.setAttribute('aria-expanded', 'false'); });
  $('play-paste').addEventListener('submit', (e) => { e.preventDefault(); loadPosition($('play-paste-text').value); });
  $('play-advance').addEventListener('mouseenter', () => showTarget(true));
  $('play-advance').addEventListener('mouseleave', () => showTarget(false));
  $('play-advance').addEventListener('focus', () => showTarget(true));
  $('play-advance').addEventListener('blur', () => showTarget(false));

  pointer = bindQuiltPointer($('play-quilt-human'), {
    hand: () => hand.held, quilt: () => quilt, canAct, redraw: drawOverlay, place: () => hand.place(),
  });
  document.addEventListener('keydown', onKey);
}

function onKey(e) {
  if (section().hidden || e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey) return;
  const t = e.target;
  if (t && (t.closest('input, textarea, select, dialog') || t.isContentEditable)) return;
  if (hand.key(e)) return;
  const k = e.key.length === 1 ? e.key.toLowerCase() : e.key;
  const handled = () => e.preventDefault();
  if (k === 'Escape') { if (hand.held) { handled(); hand.drop(); render(); } else if (hint) { handled(); hint = null; render(); } }
  else if (k === 'a') { handled(); humanMove('advance'); }
  else if (k === 'h') { handled(); showHint(); }
  else if (k === 'u') { handled(); undo(); }
}

// ------------------------------------------------------------------ games

async function newGame() {
  showMessage(msg, null);
  const seedText = $('play-seed').value.trim();
  const seed = seedText === '' ? Math.floor(Math.random() * (MAX_DEAL + 1)) : Number(seedText);
  if (!Number.isInteger(seed) || seed < 0 || seed > MAX_DEAL) {
    showMessage(msg, t('play.badDeal', { text: seedText, max: String(MAX_DEAL) }));
    return;
  }
  setBusy(true, t('play.dealing'));
  try {
    const r = await post('game/new', { seed });
    $('play-seed').value = String(r.record.seed);
    start({ state: r.state, view: r.view, record: r.record, start: null, owners: blankOwners(), rootNotation: r.view.notation });
  } catch (e) { showMessage(msg, e); setBusy(false); return; }
  await engineTurns();
}

function start(g) {
  game = {
    ...g,
    id: `play-${Date.now().toString(36)}`,
    human: Number($('play-side').value),
    strength: $('play-strength').value,
    engineSeed: (g.record.seed || 0) % 1000003,
    history: [],
    log: [],
    last: [null, null],
  };
  hand.drop(); hint = null; stuck = false; circleDrawnFor = null;
  render();
}

async function loadPosition(text) {
  showMessage(msg, null);
  setBusy(true, t('common.loadingPosition'));
  try {
    const r = await post('game/load', { text });
    let owners = blankOwners();
    let record = { edition: r.view.edition, actions: [] };
    let startPos = null;
    let rootNotation = r.view.notation;
    if (r.kind === 'record') {
      record = r.record;
      const rep = await post('game/replay', { record: r.record });
      rootNotation = rep.views[0].notation;
      for (const p of rep.plies) addOwner(owners, p.player, p.move);
    } else {
      startPos = { kind: r.kind, state: r.state, notation: r.view.notation };
      owners = unknownOwners(r.view);
    }
    $('play-paste').hidden = true;
    $('play-paste-toggle').setAttribute('aria-expanded', 'false');
    // The Deal field names the deal on the board: a record's own seed, none for a pasted position.
    $('play-seed').value = r.kind === 'record' && record.seed !== undefined && record.seed !== null ? String(record.seed) : '';
    start({ state: r.state, view: r.view, record, start: startPos, owners, rootNotation });
  } catch (e) { showMessage(msg, e); setBusy(false); render(); return; }
  await engineTurns();
}

function canAct() {
  return !!game && !busy && !game.view.terminal && game.view.current_player === game.human;
}

async function humanMove(text) {
  if (!canAct()) return;
  showMessage(msg, null);
  const snap = snapshot(game);
  setBusy(true, t('play.playing'));
  try {
    const r = await post('game/apply', { state: game.state, move: text });
    game.history.push(snap);
    hand.drop(); hint = null;
    applyMove(game, r, P);
  } catch (e) {
    setBusy(false);
    showMessage(msg, e);
    render();
    return;
  }
  await engineTurns();
}

async function engineTurns() {
  const g = game;
  stuck = false;
  while (game === g && !g.view.terminal && g.view.current_player !== g.human) {
    setBusy(true, t('play.thinking'));
    try {
      const r = await post('game/engine-move', { state: g.state, strength: g.strength, seed: g.engineSeed++ },
        { deadlineMs: 90000 });
      if (game !== g) return;
      applyMove(game, r, P);
      render();
    } catch (e) {
      if (game !== g) return;
      stuck = true;
      showMessage(msg, e);
      break;
    }
  }
  if (game !== g) return;
  setBusy(false);
  if (!g.view.terminal && g.view.current_player === g.human && g.view.leather_to_place > 0) hand.holdLeather();
  render();
  if (!g.view.terminal && g.view.current_player === g.human) $('play-quilt-human').focus({ preventScroll: true });
}

function undo() {
  if (!game || busy || !game.history.length) return;
  const prev = game.history.pop();
  const history = game.history;
  game = { ...prev, history };
  hand.drop(); hint = null; stuck = false; circleDrawnFor = null;
  showMessage(msg, null);
  if (game.view.leather_to_place > 0 && game.view.current_player === game.human) hand.holdLeather();
  render();
}

// The Review page on this game, reviewing at once: the record travels in a #review?rec= link, packed as the
// Review page's own "Copy link" packs it (no download and upload in between).
async function reviewGame() {
  if (!game || game.start) return;
  const { packRecord } = await import('./review-links.js');
  location.hash = `#review?rec=${await packRecord(gameRecord(game))}&ply=0`;
}

function download() {
  if (!game) return;
  const blob = new Blob([`${JSON.stringify(gameRecord(game))}\n`], { type: 'application/json' });
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = `patchwork-${game.start ? 'position' : game.record.seed}-${game.record.actions.length}.json`;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 2000);
}

// ------------------------------------------------------------------ hints

function moveLabel(m) {
  if (m.kind === 'MOVE_KIND_BUY') {
    const p = P[m.patch_id];
    return tn('play.hintBuy', p.buttons, { id: p.id, time: p.time });
  }
  if (m.kind === 'MOVE_KIND_LEATHER') {
    const [[r, c]] = S.fromMessage(m.cells);
    return t('play.hintLeather', { row: r + 1, col: c + 1 });
  }
  return t('play.hintAdvance', { to: game.view.advance ? game.view.advance.to : '' });
}

async function showHint() {
  if (!canAct()) return;
  const g = game;
  $('play-hint-panel').hidden = false;
  $('play-hint-info').textContent = t('common.thinking');
  clear($('play-hint-list'));
  try {
    const r = await post('suggest-move', { state: g.state, ...HINT }, { deadlineMs: 30000 });
    if (game !== g) return;
    hint = { suggestions: r.suggestions, selected: 0, proven: r.proven };
  } catch (e) {
    $('play-hint-info').textContent = '';
    showMessage(msg, e);
    return;
  }
  render();
}

function renderHint() {
  const panel = $('play-hint-panel');
  if (!hint) { panel.hidden = true; return; }
  panel.hidden = false;
  $('play-hint-info').textContent = hintHeading(hint.proven);
  renderHintList($('play-hint-list'), hint.suggestions, hint.selected, {
    name: moveLabel, select: (i) => { hint.selected = i; render(); }, play: (text) => humanMove(text),
  });
}

// ------------------------------------------------------------------ drawing

function setBusy(on, text = '') {
  busy = on;
  section().dataset.busy = on ? '1' : '0';
  const status = $('play-status');
  status.classList.toggle('busy', on);
  if (on) status.textContent = text;
  for (const id of ['play-hint', 'play-undo', 'play-advance', 'play-new']) $(id).disabled = on && id !== 'play-new';
}

function statsHtml(box, p, who) { statsInto(box, p, who, game.view.terminal); }

function statusText() {
  const v = game.view;
  const me = game.human;
  if (v.terminal) {
    const [a, b] = [v.scores[me], v.scores[1 - me]];
    const won = v.winner === me;
    return t(`play.status.${won ? 'won' : 'lost'}${a === b ? 'Tie' : ''}`, { high: Math.max(a, b), low: Math.min(a, b) });
  }
  if (stuck) return t('play.status.stuck');
  if (v.current_player !== me) return t('play.status.engineToMove');
  if (v.leather_to_place > 0) return t('play.status.leather');
  const held = hand.held;
  if (held) {
    const what = held.pid === -1 ? t('play.status.theLeather') : t('play.status.patchNo', { id: held.pid });
    if (!keyHints()) return t('play.status.heldTouch', { what });
    return t(held.pid === -1 ? 'play.status.heldKeysLeather' : 'play.status.heldKeys', { what });
  }
  const adv = v.advance;
  return tn(keyHints() ? 'play.status.yourTurnKeys' : 'play.status.yourTurn', adv.buttons, { to: adv.to });
}

function renderCircle() {
  const v = game.view;
  const box = $('play-circle');
  if (circleDrawnFor === v) { markHeldCard(); return; }
  circleDrawnFor = v;
  drawCircle(box, v, P, canActIgnoringBusy(), { pick: hand.pick, ...hand.drag });
  markHeldCard();
}

function canActIgnoringBusy() {
  return !!game && !game.view.terminal && game.view.current_player === game.human;
}

function markHeldCard() { markCard($('play-circle'), hand.held); }

function showTarget(on) {
  if (!game) return;
  const v = game.view;
  drawTrack($('play-track'), v, names(), on && v.advance && canAct() ? v.advance.to : null);
}

function names() {
  const [you, ai] = [t('play.token.you'), t('play.token.ai')];
  return game.human === 0 ? [you, ai] : [ai, you];
}

function drawOverlay() {
  if (!quilt) return;
  const ov = quilt.overlay;
  clear(ov);
  const last = game.last[game.human];
  if (last && last.cells && last.cells.length) markCells(ov, S.fromMessage(last.cells), 'last');
  if (hint && hint.suggestions[hint.selected]) {
    const m = hint.suggestions[hint.selected].move;
    const cells = S.fromMessage(m.cells);
    const g = markCells(ov, cells, 'hint-mark', { move: m.text, cells: S.cellsText(cells) }, cells.length ? '★' : null);
    g.setAttribute('aria-label', t('play.hintMark', { move: moveLabel(m) }));
  }
  $('play-advance').classList.toggle('primary', !!hint && hint.suggestions[hint.selected]
    && hint.suggestions[hint.selected].move.kind === 'MOVE_KIND_ADVANCE');
  const svg = $('play-quilt-human');
  if (hand.held && canActIgnoringBusy()) {
    $('play-place').disabled = !hand.draw(ov, svg) || busy;
  } else {
    clearHandMarks(svg);
    $('play-place').disabled = true;
  }
}

function render() {
  if (!game) return;
  const v = game.view;
  const me = game.human, ai = 1 - me;
  const sec = section();
  sec.dataset.turn = v.terminal ? 'over' : v.current_player === me ? 'human' : 'engine';
  sec.dataset.plies = String(game.record.actions.length);
  $('play-human-name').textContent = t('play.youName', { n: me + 1 });
  $('play-engine-name').textContent = t('play.engineName', { n: ai + 1, strength: strengthName(game.strength) });
  statsHtml($('play-human-stats'), v.players[me], t('play.you'));
  statsHtml($('play-engine-stats'), v.players[ai], t('play.engine'));
  $('play-side-human').classList.toggle('to-move', !v.terminal && v.current_player === me);
  $('play-side-engine').classList.toggle('to-move', !v.terminal && v.current_player === ai);
  quilt = drawQuilt($('play-quilt-human'), v.players[me].rows, game.owners[me], P);
  const eq = drawQuilt($('play-quilt-engine'), v.players[ai].rows, game.owners[ai], P);
  const lastAi = game.last[ai];
  if (lastAi && lastAi.cells && lastAi.cells.length) {
    markCells(eq.overlay, S.fromMessage(lastAi.cells), 'last', { move: lastAi.text });
  }
  const lastLog = [...game.log].reverse().find((x) => x.player === ai);
  $('play-engine-last').textContent = lastLog ? t('play.last', { move: logText(lastLog, P) }) : '';
  $('play-engine-last').dataset.move = lastAi ? lastAi.text : '';
  drawTrack($('play-track'), v, names());
  renderCircle();
  drawOverlay();
  renderHint();
  const over = $('play-over');
  over.hidden = !v.terminal;
  // A game from a pasted position has no deal to replay from: the Review page needs the whole game.
  $('play-review-game').disabled = !!game.start;
  $('play-review-game').title = t(game.start ? 'play.over.reviewOff' : 'play.over.reviewTitle');
  const heldBox = $('play-held');
  heldBox.hidden = !hand.held || !canActIgnoringBusy();
  if (hand.held) heldControls($('play-held-label'), $('play-rotate'), $('play-flip'), hand.held);
  const adv = $('play-advance');
  adv.textContent = v.advance ? t('common.advanceTo', { to: v.advance.to, n: v.advance.buttons }) : t('common.advance');
  adv.disabled = busy || !canActIgnoringBusy() || v.leather_to_place > 0;
  $('play-hint').disabled = busy || !canActIgnoringBusy();
  $('play-undo').disabled = busy || !game.history.length;
  if (!busy) {
    const status = $('play-status');
    status.classList.remove('busy');
    status.textContent = statusText();
  }
  if (!busy) save();
  const log = $('play-log');
  clear(log);
  for (const item of game.log) {
    const li = document.createElement('li');
    li.textContent = `${item.player === me ? t('play.you') : t('play.engine')}: ${logText(item, P)}`;
    li.dataset.move = item.move;
    log.appendChild(li);
  }
}
