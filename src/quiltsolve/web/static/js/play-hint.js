// The Play page's hint panel: the engine's suggestions for the human's move (suggest-move), best first, each
// with its win chance (or proven margin), its reason and a Play button.

import { clear } from './draw.js';

// A suggestion's reason without its raw playout rate: {text, raw} (raw: 'won 76% of 292 playouts' or '').
export function splitReason(reason) {
  const m = /,?\s*won \d+% of \d+ playouts,?\s*/.exec(reason || '');
  if (!m) return { text: reason || '', raw: '' };
  const before = reason.slice(0, m.index), after = reason.slice(m.index + m[0].length);
  const text = after ? `${before}${before.endsWith(':') ? ' ' : ', '}${after}` : before.replace(/:\s*$/, '');
  return { text, raw: m[0].replace(/^,?\s*|,?\s*$/g, '') };
}

// What the list's figures are, for the panel's heading.
export function hintHeading(proven) {
  return proven
    ? 'proven by the endgame solver: the exact final margin (points, perfect play) after each move, best first'
    : 'your chance of winning after each move, best first';
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
    li.querySelector('.pct').textContent = `${pct}%`;
    li.querySelector('.bar i').style.width = `${pct}%`;
    li.querySelector('.what').textContent = on.name(s.move);
    if (s.proven_margin !== undefined && s.proven_margin !== null) {
      li.dataset.provenMargin = String(s.proven_margin);
      const m = document.createElement('span');
      m.className = 'proven';
      m.textContent = `${s.proven_margin > 0 ? '+' : ''}${s.proven_margin} pts`;
      m.title = 'proven: the final margin in points after this move, both playing perfectly';
      li.querySelector('.what').append(' ', m);
    }
    // One win chance per move: the calibrated one above. The search's raw playout rate ("won 76% of
    // 292 playouts") is another number for the same thing, so it leaves the text for a tooltip.
    const { text: why, raw } = splitReason(s.reason);
    li.querySelector('.why').textContent = why;
    if (raw) li.querySelector('.why').title = `${raw} (the raw playout rate; ${pct}% is the calibrated chance)`;
    li.querySelector('.pct').title = 'your chance of winning after this move';
    const play = document.createElement('button');
    play.type = 'button';
    play.textContent = 'Play';
    play.className = 'play-suggestion';
    play.addEventListener('click', (e) => { e.stopPropagation(); on.play(s.move.text); });
    li.appendChild(play);
    const select = () => on.select(i);
    li.addEventListener('click', select);
    li.addEventListener('keydown', (e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); select(); } });
    list.appendChild(li);
  });
}
