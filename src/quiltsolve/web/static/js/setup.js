// Setup: your own game at the table, in one of two ways.
//
// A new game: the edition and the circle of patches as it lies on the table, clockwise from the spool (the
// neutral token), picked in order from a palette of all 33 drawn as they look (click, touch, or typed
// numbers), with undo. The service checks it (game/new with the circle: the position codec's one check of a
// circle, server/positions.py) as it is entered: a repeated or unknown patch at once, a missing one or patch 0
// out of place once all are in, each shown next to the circle with the entry at fault marked.
//
// A game under way: the position editor. Both quilts painted cell by cell (paint.js), buttons, income, time
// tokens and 1×1 patches of each player, the patches on each quilt and still in the circle (the same palette),
// the 1×1 patches still on the time track, whose turn it is, the 7×7 bonus tile. The position codec checks it
// over the API (game/view) as it changes; its error names the field, shown next to the control at fault.
//
// From either: follow the game (follow.js), open it on the analysis board, or copy a link to it (links.js).

import { post, showMessage } from './api.js';
import { clear, drawQuilt, el, icon, patchColor, sayCell, shapeIcon } from './draw.js';
import { patchTable } from './hand.js';
import { bindPainter } from './paint.js';
import { analysisHash, analysisLink, copyText, flash } from './links.js';
import { followGame, followHash, keepGame } from './follow.js';
import { t, tn, translatePage } from './i18n.js';

const $ = (id) => document.getElementById(id);
const CHECK_DELAY_MS = 250;   // a change is checked by the service this long after the last one

let P = null;
let ids = [];            // every patch id, in order
let circle = [];         // the new game's circle so far, clockwise from the spool
let circleSeq = 0;       // the latest check of the circle (an older answer is not shown)
let circleAnswer = null; // {key, r}: the game/new answer for the circle and edition as they are
let circleTimer = null;

const emptyBoard = () => Array.from({ length: 9 }, () => Array(9).fill('.'));
const pos = {
  boards: [emptyBoard(), emptyBoard()],
  cursors: [[0, 0], [0, 0]],
  handles: [null, null],
  lists: { circle: [], 0: [], 1: [] },   // the patches still in the circle (in order) and on each quilt
  undo: [],                               // the lists before each change, for Undo
};
let tracks = {};         // edition → the time track's leather spaces (from a game/new view of that edition)
let posSeq = 0;
let posAnswer = null;    // {key, r}: the game/view answer for the position as it is
let posTimer = null;

const section = () => $('page-setup');

// ------------------------------------------------------------------ set-up

export async function init() {
  translatePage(section());
  P = await patchTable();
  ids = Object.keys(P).map(Number).sort((a, b) => a - b);
  // The leather spaces of each edition, as the service tells them (a view's leather_track).
  for (const edition of ['revised', 'original']) {
    const r = await post('game/new', { seed: 0, edition });
    tracks[edition] = r.view.leather_track;
    tracks.end = r.view.end;
  }
  buildPalette($('setup-palette'), (id) => addToCircle([id]));
  buildPalette($('pos-palette'), (id) => addToList([id]));
  bindNew();
  bindPosition();
  renderCircle();
  renderTrack();
  renderPosition();
  // The editor's position is checked from its first change on: a blank start is no fault of the reader's.
  $('pos-status').textContent = t('setup.pos.start');
}

function bindNew() {
  const mode = (which) => {
    $('setup-mode-new').setAttribute('aria-pressed', String(which === 'new'));
    $('setup-mode-pos').setAttribute('aria-pressed', String(which === 'pos'));
    $('setup-new').hidden = which !== 'new';
    $('setup-pos').hidden = which !== 'pos';
    section().dataset.mode = which;
  };
  $('setup-mode-new').addEventListener('click', () => mode('new'));
  $('setup-mode-pos').addEventListener('click', () => mode('pos'));
  section().dataset.mode = 'new';
  $('setup-undo').addEventListener('click', () => { circle.pop(); circleChanged(); });
  $('setup-clear').addEventListener('click', () => { circle = []; circleChanged(); });
  $('setup-edition').addEventListener('change', circleChanged);
  $('setup-type').addEventListener('submit', (e) => {
    e.preventDefault();
    const typed = typedIds($('setup-ids'), $('setup-ids-msg'));
    if (typed) { addToCircle(typed); $('setup-ids').value = ''; }
  });
  $('setup-follow').addEventListener('click', () => withCircle((r) => follow(followGame(r))));
  $('setup-analyse').addEventListener('click', () => withCircle((r) => { location.hash = analysisHash(r.view.notation); }));
  $('setup-copy-link').addEventListener('click', () => withCircle((r) => copyLink($('setup-copy-link'), r.view.notation)));
}

function follow(g) {
  keepGame(g);
  location.hash = followHash(g.id);
}

async function copyLink(button, notation) {
  flash(button, await copyText(analysisLink(notation)) ? t('follow.copied') : t('follow.copyFailed'));
}

// ------------------------------------------------------------------ the palette and the lists of patches

// All the patches as buttons, drawn as they look (their buttons, cost and time beneath); onPick(id).
function buildPalette(box, onPick) {
  clear(box);
  for (const id of ids) {
    const p = P[id];
    const b = document.createElement('button');
    b.type = 'button';
    b.dataset.id = String(id);
    b.appendChild(shapeIcon(p.cells, patchColor(id), { income: p.income, minSide: 5 }));
    const name = document.createElement('span');
    name.className = 'pal-id';
    name.textContent = `#${id}`;
    const cost = document.createElement('span');
    cost.className = 'pal-cost';
    cost.append(icon('button'), `${p.buttons}`, icon('time'), `${p.time}`);
    // The button's name is the words markPalette writes here (hidden); the number and costs it shows are
    // hidden from screen readers, which read the words instead.
    const said = document.createElement('span');
    said.className = 'sr-only pal-said';
    name.setAttribute('aria-hidden', 'true');
    cost.setAttribute('aria-hidden', 'true');
    b.append(said, name, cost);
    b.addEventListener('click', () => onPick(id));
    box.appendChild(b);
  }
}

// Mark where each patch of a palette is (where(id): a text, or null while it is nowhere yet).
function markPalette(box, where) {
  for (const b of box.querySelectorAll('button[data-id]')) {
    const id = Number(b.dataset.id);
    const p = P[id];
    const at = where(id);
    b.classList.toggle('used', !!at);
    b.setAttribute('aria-pressed', String(!!at));
    b.dataset.where = at || '';
    const label = t('setup.patchLabel', { id, buttons: p.buttons, time: p.time, income: p.income, cells: p.area });
    b.querySelector('.pal-said').textContent = at ? `${label} (${at})` : label;
    b.title = b.querySelector('.pal-said').textContent;
  }
}

// A list of patches as buttons in order (a press takes that one out: remove(i)); bad: the entry at fault.
function drawChips(ol, list, remove, bad = -1) {
  clear(ol);
  list.forEach((id, i) => {
    const li = document.createElement('li');
    li.dataset.id = String(id);
    const b = document.createElement('button');
    b.type = 'button';
    b.className = 'chip';
    const p = P[id];
    if (p) b.appendChild(shapeIcon(p.cells, patchColor(id), { income: p.income, minSide: 3 }));
    const name = document.createElement('span');
    name.textContent = p ? String(id) : `?${id}`;
    b.appendChild(name);
    if (i === bad) { b.classList.add('bad'); b.setAttribute('aria-invalid', 'true'); }
    b.setAttribute('aria-label', t('setup.removeEntry', { id, place: i + 1 }));
    b.title = b.getAttribute('aria-label');
    b.addEventListener('click', () => remove(i));
    li.appendChild(b);
    ol.appendChild(li);
  });
}

// The patch numbers typed in input ("12, 5 30"), or null with the word that is no number said in msgBox.
function typedIds(input, msgBox) {
  showMessage(msgBox, null);
  input.removeAttribute('aria-invalid');
  const words = input.value.split(/[\s,;]+/).filter(Boolean);
  const bad = words.find((w) => !/^\d{1,6}$/.test(w));
  if (bad !== undefined || !words.length) {
    showMessage(msgBox, bad !== undefined ? t('setup.notANumber', { word: bad.slice(0, 20) }) : t('setup.typeSome'));
    input.setAttribute('aria-invalid', 'true');
    return null;
  }
  return words.map(Number);
}

// ------------------------------------------------------------------ a new game: the circle

function circleKey() { return JSON.stringify([$('setup-edition').value, circle]); }

function addToCircle(more) {
  circle.push(...more);
  circleChanged();
}

function circleChanged() {
  circleAnswer = null;
  section().dataset.circleCheck = 'changed';
  renderCircle();
  clearTimeout(circleTimer);
  circleTimer = setTimeout(() => checkCircle(false), CHECK_DELAY_MS);
}

function renderCircle(bad = -1) {
  drawChips($('setup-circle'), circle, (i) => { circle.splice(i, 1); circleChanged(); }, bad);
  const at = new Map(circle.map((id, i) => [id, i]));
  markPalette($('setup-palette'), (id) => (at.has(id) ? t('setup.inCircleAt', { place: at.get(id) + 1 }) : null));
  $('setup-count').textContent = tn('setup.count', circle.length, { total: ids.length });
  $('setup-undo').disabled = !circle.length;
  $('setup-clear').disabled = !circle.length;
  section().dataset.circle = circle.join(',');
}

// The service's check of the circle as it is (game/new with it). While it is being entered only a fault of
// an entry is shown (a repeated or unknown patch); once all are in, or when asked (final), any fault.
async function checkCircle(final) {
  const key = circleKey();
  if (circleAnswer && circleAnswer.key === key) return circleAnswer.r;
  const seq = ++circleSeq;
  const slots = ['setup-circle-msg', 'setup-edition-msg', 'setup-msg'];
  if (!circle.length) {
    for (const s of slots) showMessage($(s), null);
    section().dataset.circleCheck = '';
    if (final) showMessage($('setup-circle-msg'), t('setup.circleEmpty'));
    return null;
  }
  section().dataset.circleCheck = 'checking';
  try {
    const r = await post('game/new', { circle, edition: $('setup-edition').value });
    if (seq !== circleSeq) return null;
    for (const s of slots) showMessage($(s), null);
    circleAnswer = { key, r };
    renderCircle();
    showMessage($('setup-circle-msg'), t('setup.circleOk', { patches: r.view.available.map((a) => a.id).join(', ') }), 'info');
    section().dataset.circleCheck = 'ok';
    section().dataset.notation = r.view.notation;
    return r;
  } catch (e) {
    if (seq !== circleSeq) return null;
    const entry = /^circle\[(\d+)\]$/.exec(e.field || '');
    for (const s of slots) showMessage($(s), null);
    renderCircle(entry ? Number(entry[1]) : -1);
    const shown = final || entry || circle.length >= ids.length || !String(e.field || '').startsWith('circle');
    section().dataset.circleCheck = shown ? 'error' : '';
    if (shown) {
      const slot = String(e.field || '').startsWith('circle') ? 'setup-circle-msg'
        : e.field === 'edition' ? 'setup-edition-msg' : 'setup-msg';
      showMessage($(slot), e);
    }
    return null;
  }
}

async function withCircle(then) {
  clearTimeout(circleTimer);
  const r = await checkCircle(true);
  if (r) await then(r);
}

// ------------------------------------------------------------------ a game under way: the position editor

const target = () => document.querySelector('input[name=pos-target]:checked').value;   // 'circle', '0' or '1'

function bindPosition() {
  for (const i of [0, 1]) {
    const svg = $(`pos-board-${i}`);
    bindPainter(svg, {
      get: (r, c) => pos.boards[i][r][c],
      set: ([r, c], ch) => {
        if (pos.boards[i][r][c] === ch) return;
        pos.boards[i][r][c] = ch;
        pos.cursors[i] = [r, c];
        drawBoard(i);
        positionChanged();
      },
      cursor: () => pos.cursors[i], handle: () => pos.handles[i], redraw: () => drawBoard(i),
      moveCursor: (rc) => { pos.cursors[i] = rc; drawBoard(i); },
    });
    $(`pos-clear-${i}`).addEventListener('click', () => { pos.boards[i] = emptyBoard(); drawBoard(i); positionChanged(); });
    $(`pos-position-${i}`).addEventListener('input', tokensMoved);
    for (const name of ['buttons', 'income', 'leather']) $(`pos-${name}-${i}`).addEventListener('input', positionChanged);
  }
  for (const id of ['pos-bonus', 'pos-first']) $(id).addEventListener('change', positionChanged);
  for (const r of document.querySelectorAll('input[name=pos-turn]')) r.addEventListener('change', positionChanged);
  $('pos-edition').addEventListener('change', () => { renderTrack(); tokensMoved(); });
  $('pos-undo').addEventListener('click', () => {
    const before = pos.undo.pop();
    if (!before) return;
    pos.lists = before;
    listsChanged();
  });
  $('pos-type').addEventListener('submit', (e) => {
    e.preventDefault();
    const typed = typedIds($('pos-ids'), $('pos-ids-msg'));
    if (typed) { addToList(typed); $('pos-ids').value = ''; }
  });
  $('pos-follow').addEventListener('click', () => withPosition((r) => follow(followGame(r, true))));
  $('pos-analyse').addEventListener('click', () => withPosition((r) => { location.hash = analysisHash(r.view.notation); }));
  $('pos-copy-link').addEventListener('click', () => withPosition((r) => copyLink($('pos-copy-link'), r.view.notation)));
}

// Patches picked (palette or typed) go to the chosen list, each out of any other list it was in.
function addToList(more) {
  pos.undo.push(JSON.parse(JSON.stringify(pos.lists)));
  const to = target();
  for (const id of more) {
    for (const k of ['circle', '0', '1']) pos.lists[k] = pos.lists[k].filter((x) => x !== id);
    pos.lists[to].push(id);
  }
  listsChanged();
}

function listsChanged() {
  // A quilt's income follows the patches on it (the buttons printed on them); it can still be changed by hand.
  for (const i of [0, 1]) {
    $(`pos-income-${i}`).value = String(pos.lists[i].reduce((sum, id) => sum + (P[id] ? P[id].income : 0), 0));
  }
  renderLists();
  positionChanged();
}

// The time tokens moved: the 1×1 patches beyond both stay on the track, the player further back is to move,
// and a token alone on the last space reached it first (each can still be changed by hand).
function tokensMoved() {
  const at = [0, 1].map((i) => Number($(`pos-position-${i}`).value));
  if (at.every(Number.isFinite)) {
    const far = Math.max(...at);
    for (const box of $('pos-track-spaces').querySelectorAll('input')) box.checked = Number(box.value) > far;
    if (at[0] !== at[1]) $(`pos-turn-${at[0] < at[1] ? 0 : 1}`).checked = true;
    const end = tracks.end;
    const there = [0, 1].filter((i) => at[i] === end);
    if (there.length === 1) $('pos-first').value = String(there[0]);
    else if (!there.length) $('pos-first').value = '';
  }
  positionChanged();
}

function renderTrack() {
  const box = $('pos-track-spaces');
  const spaces = tracks[$('pos-edition').value] || [];
  clear(box);
  for (const space of spaces) {
    const label = document.createElement('label');
    const input = document.createElement('input');
    input.type = 'checkbox';
    input.value = String(space);
    input.checked = true;
    input.id = `pos-track-${space}`;
    input.addEventListener('change', positionChanged);
    label.append(input, ` ${t('setup.pos.space', { space })}`);
    box.appendChild(label);
  }
}

function renderLists(bad = {}) {
  drawChips($('pos-circle'), pos.lists.circle, (i) => removeAt('circle', i), bad.circle ?? -1);
  for (const i of [0, 1]) drawChips($(`pos-patches-${i}`), pos.lists[i], (j) => removeAt(String(i), j), bad[i] ?? -1);
  const where = new Map();
  pos.lists.circle.forEach((id, k) => where.set(id, t('setup.inCircleAt', { place: k + 1 })));
  for (const i of [0, 1]) for (const id of pos.lists[i]) where.set(id, t('setup.onQuilt', { n: i + 1 }));
  markPalette($('pos-palette'), (id) => where.get(id) || null);
  $('pos-undo').disabled = !pos.undo.length;
}

function removeAt(list, i) {
  pos.undo.push(JSON.parse(JSON.stringify(pos.lists)));
  pos.lists[list].splice(i, 1);
  listsChanged();
}

function drawBoard(i) {
  const svg = $(`pos-board-${i}`);
  const rows = pos.boards[i].map((r) => r.join(''));
  pos.handles[i] = drawQuilt(svg, rows, pos.boards[i].flat().map((ch) => (ch === '#' ? '?' : null)), P);
  if (document.activeElement === svg) {
    const [r, c] = pos.cursors[i];
    for (const cls of ['cursor-halo', 'cursor-mark']) {   // blue on a white halo, seen on any cell
      el('rect', { x: c + 0.05, y: r + 0.05, width: 0.9, height: 0.9, class: cls }, pos.handles[i].overlay);
    }
    sayCell(svg, r, c, t(pos.boards[i][r][c] === '#' ? 'quilt.text.cellFilled' : 'quilt.text.cellEmpty'));
  }
  svg.dataset.rows = rows.join('/');
}

function renderPosition() {
  drawBoard(0);
  drawBoard(1);
  renderLists();
}

// An input's whole number, or its text as typed (the codec names the field that is not a number).
function number(id) {
  const v = $(id).value.trim();
  return /^-?\d{1,12}$/.test(v) ? Number(v) : v;
}

// The position as the editor holds it: a GameState in its JSON mapping, as the API takes it.
function positionMapping() {
  const bonus = $('pos-bonus').value;
  const first = $('pos-first').value;
  const edition = $('pos-edition').value;
  const state = {
    edition: `EDITION_${edition.toUpperCase()}`,
    players: [0, 1].map((i) => ({
      board: { rows: pos.boards[i].map((r) => r.join('')) },
      buttons: number(`pos-buttons-${i}`), position: number(`pos-position-${i}`), income: number(`pos-income-${i}`),
      patches: pos.lists[i].slice(), leather: number(`pos-leather-${i}`), bonus: bonus === String(i),
    })),
    circle: pos.lists.circle.slice(),
    leather_spaces: [...$('pos-track-spaces').querySelectorAll('input:checked')].map((b) => Number(b.value)),
    current_player: Number(document.querySelector('input[name=pos-turn]:checked').value),
    leather_to_place: 0,
  };
  if (first !== '') state.first_to_end = Number(first);
  return state;
}

function positionChanged() {
  posAnswer = null;
  section().dataset.posCheck = 'changed';
  schedulePositionCheck();
}

function schedulePositionCheck() {
  clearTimeout(posTimer);
  posTimer = setTimeout(() => checkPosition(), CHECK_DELAY_MS);
}

// Where the codec's error for field shows: the message next to the control it names ('state.players[1].income'
// → pos-income-1), and the control; null for a field with no control of its own.
function slotOf(field) {
  const f = String(field || '').replace(/^state\.?/, '');
  const m = /^players\[(\d)\]\.(\w+)/.exec(f);
  if (m) {
    if (m[2] === 'bonus') return 'pos-bonus';
    if (['board', 'buttons', 'income', 'position', 'leather', 'patches'].includes(m[2])) return `pos-${m[2]}-${m[1]}`;
  }
  if (f.startsWith('circle')) return 'pos-circle';
  if (f.startsWith('leather_spaces') || f.startsWith('leather_to_place')) return 'pos-track';
  if (f === 'current_player') return 'pos-turn';
  if (f === 'first_to_end') return 'pos-first';
  if (f === 'edition') return 'pos-edition';
  return null;
}

const SLOTS = ['pos-edition', 'pos-turn', 'pos-bonus', 'pos-first', 'pos-track', 'pos-circle',
  ...[0, 1].flatMap((i) => ['board', 'buttons', 'income', 'position', 'leather', 'patches'].map((n) => `pos-${n}-${i}`))];

function clearSlots() {
  for (const s of SLOTS) {
    showMessage($(`${s}-msg`), null);
    const control = $(s);
    if (control) control.removeAttribute('aria-invalid');
  }
  showMessage($('setup-msg'), null);
}

// The codec's check of the position (game/view): its first error next to the control at fault.
async function checkPosition() {
  const state = positionMapping();
  const key = JSON.stringify(state);
  if (posAnswer && posAnswer.key === key) return posAnswer.r;
  const seq = ++posSeq;
  section().dataset.posCheck = 'checking';
  try {
    const r = await post('game/view', { state });
    if (seq !== posSeq) return null;
    clearSlots();
    renderLists();
    posAnswer = { key, r };
    $('pos-notation').value = r.view.notation;
    $('pos-status').textContent = r.view.terminal ? t('setup.pos.okOver') : t('setup.pos.ok', { n: r.view.current_player + 1 });
    section().dataset.posCheck = 'ok';
    section().dataset.posNotation = r.view.notation;
    for (const id of ['pos-follow', 'pos-analyse', 'pos-copy-link']) $(id).disabled = false;
    $('pos-follow').disabled = r.view.terminal;
    return r;
  } catch (e) {
    if (seq !== posSeq) return null;
    clearSlots();
    const slot = slotOf(e.field);
    const entry = /^(?:state\.)?(circle|players\[(\d)\]\.patches)\[(\d+)\]$/.exec(e.field || '');
    renderLists(entry ? { [entry[2] ?? 'circle']: Number(entry[3]) } : {});
    showMessage($(slot ? `${slot}-msg` : 'setup-msg'), e);
    if (slot && $(slot)) $(slot).setAttribute('aria-invalid', 'true');
    $('pos-notation').value = '';
    $('pos-status').textContent = t('setup.pos.notYet');
    section().dataset.posCheck = 'error';
    section().dataset.posField = e.field || '';
    for (const id of ['pos-follow', 'pos-analyse', 'pos-copy-link']) $(id).disabled = false;
    return null;
  }
}

async function withPosition(then) {
  clearTimeout(posTimer);
  const r = await checkPosition();
  if (r) await then(r);
}
