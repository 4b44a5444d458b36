// The Play page's hint panel: the engine's suggestions for the human's move (suggest-move), best first, each
// with its win chance (or proven margin), its reason and a Play button.

import { clear } from './draw.js';
import { formatNumber, formatPercent, t, tn } from './i18n.js';

// A suggestion's reason without its raw playout rate: {text, raw} (raw: 'won 76% of 292 playouts' or '').
export function splitReason(reason) {
  const m = /,?\s*won \d+% of \d+ playouts,?\s*/.exec(reason || '');
  if (!m) return { text: reason || '', raw: '' };
  const before = reason.slice(0, m.index), after = reason.slice(m.index + m[0].length);
  const text = after ? `${before}${before.endsWith(':') ? ' ' : ', '}${after}` : before.replace(/:\s*$/, '');
  return { text, raw: m[0].replace(/^,?\s*|,?\s*$/g, '') };
}

// What a searched move does, in words: the engine's head of a reason ('advance 2 spaces (+2 buttons)',
// 'buy 7 (4 buttons, 2 time, 5 cells, +1 income × 6 paydays)', 'leather 4,4'), or null when it is none of them.
function headWords(head) {
  let m = /^advance (\d+) spaces? \(\+(\d+) buttons\)$/.exec(head);
  if (m) return tn('reason.advance', Number(m[1]), { buttons: Number(m[2]) });
  m = /^buy (\d+) \((\d+) buttons, (\d+) time, (\d+) cells, \+(\d+) income × (\d+) paydays\)$/.exec(head);
  if (m) {
    return tn('reason.buy', Number(m[2]), { id: m[1], time: Number(m[3]), cells: Number(m[4]), income: Number(m[5]),
      paydays: Number(m[6]) });
  }
  m = /^leather (\d+),(\d+)$/.exec(head);
  if (m) return t('reason.leather', { row: Number(m[1]) + 1, col: Number(m[2]) + 1 });
  return null;
}

// A suggestion's reason in the reader's language, without its raw playout rate: {text, raw}. The engine
// writes reasons in English (engine/players/search.py, proven.py); the known forms are worded from the
// catalogue, any other is shown as the engine wrote it. raw: the playout rate, for a tooltip ('' if none).
export function reasonWords(reason) {
  const r = String(reason || '');
  let m = /^(.*): won (\d+)% of (\d+) playouts, mean margin ([+-]?\d+(?:\.\d+)?)$/.exec(r);
  if (m && headWords(m[1]) !== null) {
    const margin = formatNumber(Number(m[4]), { signDisplay: 'exceptZero', minimumFractionDigits: 1, maximumFractionDigits: 1 });
    return { text: t('reason.margin', { head: headWords(m[1]), margin }),
      raw: tn('reason.raw', Number(m[3]), { pct: formatPercent(Number(m[2]) / 100) }) };
  }
  m = /^(.*): not searched$/.exec(r);
  if (m && headWords(m[1]) !== null) return { text: t('reason.notSearched', { head: headWords(m[1]) }), raw: '' };
  m = /^proven: (wins|loses) by (\d+) points?$/.exec(r);
  if (m) return { text: tn(`reason.proven.${m[1]}`, Number(m[2])), raw: '' };
  if (/^proven: a tie on points; the tie rule/.test(r)) return { text: t('reason.proven.tie'), raw: '' };
  if (/^proven: a tie on points, won on the tie rule/.test(r)) return { text: t('reason.proven.tieWon'), raw: '' };
  if (/^proven: a tie on points, lost on the tie rule/.test(r)) return { text: t('reason.proven.tieLost'), raw: '' };
  if (r === 'not searched (stopped): greedy choice') return { text: t('reason.stopped'), raw: '' };
  return splitReason(r);
}

// What the list's figures are, for the panel's heading.
export function hintHeading(proven) {
  return proven ? t('play.hintHeadingProven') : t('play.hintHeading');
}

// The suggestions as list items in list (emptied first), the selected one marked. on: {name(move): the move
// in words, select(i): a click or Enter on an item, play(text): its Play button}.
export function renderHintList(list, suggestions, selected, on) {
  clear(list);
  suggestions.forEach((s, i) => {
    const li = document.createElement('li');
    li.setAttribute('aria-selected', String(i === selected));
    li.dataset.move = s.move.text;
    li.tabIndex = 0;
    const pct = Math.round(s.win_chance * 100);
    li.innerHTML = '<span class="pct"></span><span class="bar"><i></i></span><span class="what"></span><span class="why"></span>';
    li.querySelector('.pct').textContent = formatPercent(s.win_chance);
    li.querySelector('.bar i').style.width = `${pct}%`;
    li.querySelector('.what').textContent = on.name(s.move);
    if (s.proven_margin !== undefined && s.proven_margin !== null) {
      li.dataset.provenMargin = String(s.proven_margin);
      const m = document.createElement('span');
      m.className = 'proven';
      m.textContent = tn('play.points', s.proven_margin, { signed: `${s.proven_margin > 0 ? '+' : ''}${formatNumber(s.proven_margin)}` });
      m.title = t('play.pointsTitle');
      li.querySelector('.what').append(' ', m);
    }
    // One win chance per move: the calibrated one above. The search's raw playout rate ("won 76% of
    // 292 playouts") is another number for the same thing, so it leaves the text for a tooltip.
    const { text: why, raw } = reasonWords(s.reason);
    li.querySelector('.why').textContent = why;
    if (raw) li.querySelector('.why').title = t('play.rawTitle', { raw, pct: formatPercent(s.win_chance) });
    li.querySelector('.pct').title = t('play.pctTitle');
    const play = document.createElement('button');
    play.type = 'button';
    play.textContent = t('play.playIt');
    play.className = 'play-suggestion';
    play.addEventListener('click', (e) => { e.stopPropagation(); on.play(s.move.text); });
    li.appendChild(play);
    const select = () => on.select(i);
    li.addEventListener('click', select);
    li.addEventListener('keydown', (e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); select(); } });
    list.appendChild(li);
  });
}
