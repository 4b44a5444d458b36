// The patch in hand and the patch circle, shared by the Play page, the Analysis board and the Review drill:
// holdFlow is the buy-and-hold flow (picking a patch up, moving, turning and placing it on a quilt by pointer,
// touch, drag or keys, with the solver's ghosts), written here once; the circle's cards, a player's stats and
// the quilt owners after moves. Each page keeps its own game; these functions take what they need as arguments.

import { patches as loadPatches, post } from './api.js';
import * as S from './shapes.js';
import { clear, icon, markCells, patchColor, shapeIcon } from './draw.js';
import { dragCancel, dragEnd, dragMove, startCardDrag } from './drag.js';
import { formatNumber, t, tn } from './i18n.js';

const clamp = (x, lo, hi) => Math.max(lo, Math.min(hi, x));
export const GHOSTS = 3;

// The patches by id, each with its cells (parsed once): what a hand is turned and drawn from.
export async function patchTable() {
  const table = {};
  for (const p of await loadPatches()) table[p.id] = { ...p, cells: S.parseShape(p.shape) };
  return table;
}

// A patch picked up from slot 1-3 (pid -1, slot 0: a leather patch to place).
function newHand(pid, slot, cells) {
  return { pid, slot, orient: cells, pos: null, ghosts: [], hover: null };
}

function leatherHand() { return newHand(-1, 0, [[0, 0]]); }

function handSize(h) { return S.size(h.orient); }

// Centre the patch on cell [r, c], kept on the quilt.
function setHandPos(h, [r, c]) {
  const { h: hh, w } = handSize(h);
  h.pos = [clamp(r - Math.floor((hh - 1) / 2), 0, 9 - hh), clamp(c - Math.floor((w - 1) / 2), 0, 9 - w)];
}

function handCells(h) {
  if (!h || !h.pos) return null;
  return h.orient.map(([r, c]) => [r + h.pos[0], c + h.pos[1]]);
}

function fitsRows(rows, cells) {
  return !!cells && cells.every(([r, c]) => r >= 0 && c >= 0 && r < 9 && c < 9 && rows[r][c] === '.');
}

// Rotate or flip the patch about its centre.
function turnHand(h, how) {
  if (h.pid === -1) return;
  const { h: hh, w } = handSize(h);
  const center = h.pos ? [h.pos[0] + Math.floor((hh - 1) / 2), h.pos[1] + Math.floor((w - 1) / 2)] : null;
  h.orient = how === 'rotate' ? S.rotate(h.orient) : S.flip(h.orient);
  if (center) setHandPos(h, center);
}

// An arrow key: the first press shows the patch in the middle of the quilt, the next ones move it.
function nudgeHand(h, key) {
  if (!h.pos) { setHandPos(h, [4, 4]); return; }
  const [dr, dc] = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] }[key];
  const { h: hh, w } = handSize(h);
  h.pos = [clamp(h.pos[0] + dr, 0, 9 - hh), clamp(h.pos[1] + dc, 0, 9 - w)];
}

// The move's text form for the patch put down on cells.
function handMoveText(h, cells) {
  return h.pid === -1 ? `leather ${cells[0][0]},${cells[0][1]}` : `buy ${h.pid} ${S.cellsText(cells)}`;
}

// The cells a move's text names ("buy 10 0,0;0,1", "leather 4,4"; none for "advance").
export function cellsOfMoveText(text) {
  const words = String(text).trim().split(/\s+/);
  const part = words[0] === 'buy' ? words[2] : words[0] === 'leather' ? words[1] : null;
  if (!part) return [];
  return part.split(';').map((rc) => rc.split(',').map(Number));
}

// Quilt owners (keys drawn by drawQuilt) after a move, updated in place.
export function addOwner(owners, player, move) {
  const cells = move.cells ? S.fromMessage(move.cells) : cellsOfMoveText(move.text);
  const kind = move.kind || (move.text.startsWith('buy') ? 'MOVE_KIND_BUY' : move.text.startsWith('leather') ? 'MOVE_KIND_LEATHER' : '');
  const pid = move.patch_id ?? Number(move.text.split(/\s+/)[1]);
  if (kind === 'MOVE_KIND_BUY') for (const [r, c] of cells) owners[player][r * 9 + c] = `p${pid}`;
  if (kind === 'MOVE_KIND_LEATHER') for (const [r, c] of cells) owners[player][r * 9 + c] = `L${r * 9 + c}`;
}

export function blankOwners() { return [Array(81).fill(null), Array(81).fill(null)]; }

// Owners of a position known only by its boards: every filled cell of unknown origin.
export function unknownOwners(view) {
  const owners = blankOwners();
  view.players.forEach((p, i) => p.rows.forEach((row, rr) => [...row].forEach((ch, cc) => {
    if (ch === '#') owners[i][rr * 9 + cc] = '?';
  })));
  return owners;
}

// The solver's best spots for the patch in hand on the mover's quilt (suggest-placement, the next patches
// of the circle as lookahead): a list of cell lists, best first.
async function fetchGhosts(view, player, h, opts = {}) {
  const upcoming = (h.pid === -1 ? view.circle.slice(0, 6) : view.circle.slice(h.slot, h.slot + 6)).map((id) => ({ id }));
  const r = await post('suggest-placement', {
    board: { rows: view.players[player].rows }, patch: { id: h.pid }, upcoming,
    objective: 'OBJECTIVE_COVER', top: GHOSTS, time_limit: '0.4s', seed: 0,
  }, { deadlineMs: 5000, signal: opts.signal });
  return r.ranked.map((x) => S.fromMessage(x.placement.cells));
}

// Whose quilt a page's hand goes on: 'you', or a player's index (0, 1). A page written before the languages
// passed whose: [quilt, buyer] in English ("your quilt", "you" / "player 2's quilt", "player 2").
function whoOf(page) {
  if (typeof page.who === 'function') return page.who();
  if (page.who !== undefined) return page.who;
  const w = page.whose && page.whose[1];
  const m = /(\d+)/.exec(String(w || ''));
  return w === 'you' || !m ? 'you' : Number(m[1]) - 1;
}

// Why the patch `a` (an entry of a view's `available`) cannot be bought, in words; null when it can.
// `who`: 'you', or the buyer's player index (0, 1); buttons: what the buyer has.
export function buyRefusal(a, who, buttons) {
  if (a.buyable) return null;
  const you = who === 'you';
  if (a.affordable) return you ? t('hand.noFit.you', { id: a.id }) : t('hand.noFit.player', { id: a.id, n: who + 1 });
  return tn(you ? 'hand.tooDear.you' : 'hand.tooDear.player', a.buttons, { id: a.id, buttons, p: you ? '' : who + 1 });
}

// The ghosts of the hand being held, one request at a time: a new request (or abort()) aborts the one
// before, and an answer is drawn only while its hand is still held. isHeld(h): is h in hand;
// onGhosts(h): draw them (h.ghosts is set); onError(e, h).
function ghostRequester(isHeld, onGhosts, onError) {
  let ctl = null;
  const abort = () => { if (ctl) ctl.abort(); ctl = null; };
  const request = async (view, player, h) => {
    abort();
    const mine = new AbortController();
    ctl = mine;
    try {
      const ghosts = await fetchGhosts(view, player, h, { signal: mine.signal });
      if (!isHeld(h)) return;
      h.ghosts = ghosts;
      onGhosts(h);
    } catch (e) {
      if (e.name !== 'AbortError' && isHeld(h)) onError(e, h);
    } finally {
      if (ctl === mine) ctl = null;
    }
  };
  return { request, abort };
}

// Numbered ghosts (a click or Enter places the patch there), drawn last-ranked first so that the best is on
// top where they overlap. ghosts: cell lists; onPlace(cells).
export function drawGhosts(ov, ghosts, onPlace, label = (i) => t('hand.ghost', { n: i + 1 })) {
  const taken = new Set();
  const labelAt = ghosts.map((cells) => {
    const free = cells.find(([r, c]) => !taken.has(r * 9 + c));
    for (const [r, c] of cells) taken.add(r * 9 + c);
    return free;
  });
  ghosts.map((cells, i) => [cells, i]).reverse().forEach(([cells, i]) => {
    if (!cells.length) return;
    const g = markCells(ov, cells, 'ghost', { rank: i + 1, cells: S.cellsText(cells) });
    if (labelAt[i]) {
      const t = document.createElementNS('http://www.w3.org/2000/svg', 'text');
      t.setAttribute('x', labelAt[i][1] + 0.5); t.setAttribute('y', labelAt[i][0] + 0.5);
      t.textContent = String(i + 1);
      g.appendChild(t);
    }
    g.setAttribute('tabindex', '0');
    g.setAttribute('role', 'button');
    g.setAttribute('aria-label', label(i));
    g.addEventListener('click', (e) => { e.stopPropagation(); onPlace(cells, i); });
    g.addEventListener('keydown', (e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); e.stopPropagation(); onPlace(cells, i); } });
  });
}

// The patch in hand over the quilt (green where it fits, red where not); the svg's data-held/orient/pos say
// what is held. Returns whether it can be put down where it is.
function drawHand(ov, svg, h, rows) {
  const cells = handCells(h);
  const ok = fitsRows(rows, cells);
  if (cells) {
    const g = markCells(ov, cells, `held-piece ${ok ? 'ok' : 'no'}`, { cells: S.cellsText(cells), legal: ok ? 'true' : 'false' });
    if (ok) for (const rect of g.querySelectorAll('rect')) rect.style.fill = h.pid >= 0 ? patchColor(h.pid) : '#8a5a34';
  }
  svg.dataset.held = h.pid;
  svg.dataset.orient = S.shapeText(h.orient);
  svg.dataset.pos = h.pos ? h.pos.join(',') : '';
  return ok;
}

export function clearHandMarks(svg) {
  delete svg.dataset.held;
  delete svg.dataset.orient;
  delete svg.dataset.pos;
}

// Pointer input on a quilt: hovering shows the patch in hand there, a click puts it down (touch: the first
// tap shows it, a tap on it puts it down). ctx: {hand(), quilt(), canAct(), redraw(), place()}.
export function bindQuiltPointer(svg, ctx) {
  let lastPointer = 'mouse';
  svg.addEventListener('pointerdown', (e) => { lastPointer = e.pointerType || 'mouse'; });
  svg.addEventListener('pointermove', (e) => {
    const h = ctx.hand();
    if (!h || !ctx.canAct() || e.pointerType === 'touch') return;
    if (e.target.closest && e.target.closest('.ghost')) {
      // Over a ghost: the ghost is what a click places, so the patch in hand steps aside.
      if (h.pos) { h.pos = null; ctx.redraw(); }
      return;
    }
    const q = ctx.quilt();
    const rc = q && q.cellAt(e);
    if (rc && (!h.pos || !(h.hover && h.hover[0] === rc[0] && h.hover[1] === rc[1]))) { h.hover = rc; setHandPos(h, rc); ctx.redraw(); }
  });
  svg.addEventListener('click', (e) => {
    const h = ctx.hand();
    if (!h || !ctx.canAct() || e.target.closest('.ghost')) return;
    const q = ctx.quilt();
    const rc = q && q.cellAt(e);
    if (!rc) return;
    if (lastPointer === 'touch') {
      const cells = handCells(h);
      if (!cells || !cells.some(([r, c]) => r === rc[0] && c === rc[1])) { setHandPos(h, rc); ctx.redraw(); return; }
    } else {
      setHandPos(h, rc);
    }
    ctx.place();
  });
  svg.addEventListener('keydown', (e) => {
    if (e.key === ' ' && ctx.hand()) { e.preventDefault(); ctx.place(); }
  });
  return { lastPointer: () => lastPointer, setPointer: (p) => { lastPointer = p; } };
}

// A player's buttons, income, space and score, as spans with data-stat (and data-score on the box).
// Before the end the score is what it would be if the game ended now (early on, −2 per empty cell makes
// it deeply negative), and says so.
export function statsInto(box, p, who, over = false) {
  box.innerHTML = '';
  const add = (label, value, key) => {
    const s = document.createElement('span');
    s.innerHTML = `${label} <b></b>`;
    s.querySelector('b').textContent = value;
    s.dataset.stat = key;
    box.appendChild(s);
  };
  add(t('stats.buttons'), formatNumber(p.buttons), 'buttons');
  add(t('stats.income'), `+${formatNumber(p.income)}`, 'income');
  add(t('stats.space'), formatNumber(p.position), 'position');
  const scoreLabel = over ? t('stats.score') : t('stats.scoreNow');
  add(scoreLabel, formatNumber(p.score), 'score');
  if (p.bonus) add('7×7', '★', 'bonus');
  box.dataset.score = p.score;
  box.dataset.buttons = p.buttons;
  box.setAttribute('aria-label', tn('stats.aria', p.buttons, { who, income: p.income, space: p.position, scoreLabel,
    score: p.score }));
}

// The patch circle from the token: the first three are cards that can be picked up (keys 1-3) when
// canBuy; on: {pick(slot), down(e, card, slot), move(e), up(e), cancel()}.
export function drawCircle(box, view, P, canBuy, on) {
  clear(box);
  const mark = document.createElement('span');
  mark.className = 'token-mark';
  mark.textContent = t('hand.token');
  box.appendChild(mark);
  view.circle.forEach((pid, i) => {
    const p = P[pid];
    const front = i < 3;
    const info = front ? view.available[i] : null;
    const card = document.createElement('button');
    card.type = 'button';
    card.className = `patch-card ${front ? 'front' : 'far'}`;
    card.setAttribute('role', 'listitem');
    card.dataset.id = pid;
    card.dataset.slot = front ? i + 1 : 0;
    const buyable = front && info.buyable && canBuy && view.leather_to_place === 0;
    card.dataset.buyable = buyable ? 'true' : 'false';
    if (buyable) card.classList.add('buyable');
    if (front) {
      const slot = document.createElement('span');
      slot.className = 'slot';
      slot.textContent = `${i + 1}`;
      card.appendChild(slot);
    }
    card.appendChild(shapeIcon(p.cells, patchColor(pid), { income: p.income, minSide: 5 }));
    const cost = document.createElement('span');
    cost.className = 'cost';
    cost.append(icon('button'), `${p.buttons}`, icon('time'), `${p.time}`);
    if (p.income) {
      const inc = document.createElement('span');
      inc.className = 'inc';
      inc.textContent = `+${p.income}`;
      cost.append(inc);
    }
    card.appendChild(cost);
    let label = tn('hand.card', p.buttons, { id: pid, time: p.time, income: p.income, cells: p.area });
    if (front) label += ` ${buyable ? t('hand.cardPress', { n: i + 1 }) : info.affordable ? t('hand.cardNoFit') : t('hand.cardTooDear')}`;
    card.setAttribute('aria-label', label);
    card.title = label;
    if (!front) { card.tabIndex = -1; card.setAttribute('aria-disabled', 'true'); }
    if (front) {
      card.addEventListener('click', () => on.pick(i + 1));
      card.addEventListener('pointerdown', (e) => on.down(e, card, i + 1));
      card.addEventListener('pointermove', (e) => on.move(e));
      card.addEventListener('pointerup', (e) => on.up(e));
      card.addEventListener('pointercancel', on.cancel);
    }
    box.appendChild(card);
  });
}

export function markHeldCard(box, h) {
  for (const card of box.querySelectorAll('.patch-card.front')) {
    card.classList.toggle('held', !!h && h.slot === Number(card.dataset.slot));
  }
}

// ------------------------------------------------------------------ the buy-and-hold flow

// One page's patch in hand, from picking it up to putting it down: the Play page, the Analysis board and the
// Review drill each make one and keep no hand of their own. page: {
//   P: the patches (patchTable), view(): the position, player(): whose quilt the patch goes on,
//   canAct(): may the hand be picked up, moved and put down now, quilt(): that quilt's drawQuilt handle,
//   pointer(): its bindQuiltPointer handle (a card drag says which pointer it was),
//   who(): whose quilt, in words: 'you', or the player's index (0, 1) (an older page's whose: [quilt, buyer]),
//   say(text): a refusal in words (null: the last one is done with), play(text, cells): put down as this move,
//   leatherFirst(): a pick while a leather patch waits, render(): the page after the hand changed,
//   redraw(): the quilt after the hand moved, ghosts: fetch the solver's spots (error(e) when that fails) }.
export function holdFlow(page) {
  let held = null;
  const ghosts = page.ghosts
    ? ghostRequester((h) => held === h, () => page.redraw(), (e) => page.error(e)) : null;
  const hold = (h) => {
    held = h;
    if (ghosts) ghosts.request(page.view(), page.player(), h);
  };

  const flow = {
    get held() { return held; },

    drop() {
      held = null;
      if (ghosts) ghosts.abort();
    },

    holdLeather() { hold(leatherHand()); },

    // Pick up the patch in slot 1-3 (a card, a button or the keys 1-3); picking up the one in hand keeps it.
    pick(slot) {
      if (!page.canAct()) return;
      const v = page.view();
      if (v.leather_to_place > 0) { page.leatherFirst(); return; }
      const a = v.available[slot - 1];
      if (!a) return;
      const refusal = buyRefusal(a, whoOf(page), v.players[page.player()].buttons);
      if (refusal) { page.say(refusal); return; }
      page.say(null);
      if (held && held.slot === slot) return;
      hold(newHand(a.id, slot, page.P[a.id].cells));
      page.render();
    },

    turn(how) {
      if (!held || held.pid === -1) return;
      turnHand(held, how);
      page.render();
    },

    // Put the patch down where it is (or on cells: a ghost's), when it fits.
    place(cells = null) {
      if (!held || !page.canAct()) return;
      const at = cells || handCells(held);
      if (!at) { page.say(whoOf(page) === 'you' ? t('hand.moveFirst.you') : t('hand.moveFirst.quilt')); return; }
      if (!fitsRows(page.view().players[page.player()].rows, at)) {
        page.say(t('hand.notFree'));
        return;
      }
      page.play(handMoveText(held, at), at);
    },

    // The hand's keys, the same on every page: 1-3 pick a patch up, and with one held R rotates, F flips,
    // G puts it on the solver's first ghost, the arrows move it (the first press shows it in the middle of the
    // quilt), Enter puts it down (unless a button has the focus). True when the key was the hand's.
    key(e) {
      const k = e.key.length === 1 ? e.key.toLowerCase() : e.key;
      const onButton = e.target && e.target.closest && e.target.closest('button, [role=button], .ghost');
      let act = null;
      if (['1', '2', '3'].includes(k)) act = () => flow.pick(Number(k));
      else if (!held) return false;
      else if (k === 'r' || k === 'f') act = () => flow.turn(k === 'r' ? 'rotate' : 'flip');
      else if (k === 'g') act = () => { if (held.ghosts.length) flow.place(held.ghosts[0]); };
      else if (k.startsWith('Arrow')) act = () => { nudgeHand(held, k); page.redraw(); };
      else if (k === 'Enter' && !onButton) act = () => flow.place();
      if (!act) return false;
      e.preventDefault();
      act();
      return true;
    },

    // The hand on the quilt's overlay, with the solver's ghosts for it (a click puts it there); whether it
    // can be put down where it is.
    draw(ov, svg) {
      drawGhosts(ov, held.ghosts, (cells) => flow.place(cells));
      return drawHand(ov, svg, held, page.view().players[page.player()].rows);
    },

    // A front card of the patch circle dragged onto the quilt (drawCircle's down/move/up/cancel).
    drag: {
      down(e, card, slot) {
        if (card.dataset.buyable !== 'true' || !page.canAct() || e.button > 0) return;
        page.pointer().setPointer(e.pointerType || 'mouse');
        if (!held || held.slot !== slot) flow.pick(slot);
        if (!held) return;
        startCardDrag(e, card);
      },
      move(e) {
        if (!held) return;
        const q = page.quilt();
        dragMove(e, (ev) => q && q.cellAt(ev), (rc) => { setHandPos(held, rc); page.redraw(); });
      },
      up(e) {
        const q = page.quilt();
        const rc = dragEnd(e, (ev) => q && q.cellAt(ev));
        if (!rc || !held) return;
        setHandPos(held, rc);
        page.redraw();
        flow.place();
      },
      cancel: dragCancel,
    },
  };
  return flow;
}

// The held-patch bar's label and turn buttons (a leather patch does not turn).
export function heldControls(label, rotate, flip, h) {
  label.textContent = h.pid === -1 ? t('hand.heldLeather') : t('hand.heldPatch', { id: h.pid });
  rotate.disabled = h.pid === -1;
  flip.disabled = h.pid === -1;
}
