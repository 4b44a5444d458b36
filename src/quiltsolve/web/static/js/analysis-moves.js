// The Analysis board's moves in words and its move list: the main line as a list of buttons, each move's
// alternatives as nested lists (variations) right after it.

import { clear } from './draw.js';
import { cellsOfMoveText } from './hand.js';
import { pathOf } from './analysis-tree.js';
import { formatPercent, t } from './i18n.js';

const pct = formatPercent;

// A move's text form in words: 'buy 10 at 1,4' (its top-left cell, rows and columns from 1), 'leather at 5,5'.
export function moveName(text) {
  const w = text.split(/\s+/);
  if (w[0] === 'buy') {
    const cells = cellsOfMoveText(text);
    const r = Math.min(...cells.map((c) => c[0])), c = Math.min(...cells.map((x) => x[1]));
    return t('moves.buyAt', { id: w[1], at: `${r + 1},${c + 1}` });
  }
  if (w[0] === 'leather') { const [[r, c]] = cellsOfMoveText(text); return t('moves.leatherAt', { at: `${r + 1},${c + 1}` }); }
  return t('moves.advance');
}

function moveItem(node, cur, go) {
  const li = document.createElement('li');
  li.className = 'mv';
  const b = document.createElement('button');
  b.type = 'button';
  b.className = 'mv-btn';
  b.dataset.path = pathOf(node);
  b.dataset.move = node.move;
  const name = moveName(node.move);
  b.innerHTML = '<span class="mv-num"></span> <span class="mv-p"></span> <span class="mv-name"></span>';
  b.querySelector('.mv-num').textContent = `${node.ply}.`;
  b.querySelector('.mv-p').textContent = t('analysis.pShort', { n: node.player + 1 });
  b.querySelector('.mv-name').textContent = name;
  b.classList.add(`p${node.player}`);
  b.setAttribute('aria-label', node.eval ? t('analysis.moveAriaEval', { n: node.ply, p: node.player + 1, move: name, pct: pct(node.eval.best[0].win) })
    : t('analysis.moveAria', { n: node.ply, p: node.player + 1, move: name }));
  if (node === cur) { b.setAttribute('aria-current', 'step'); li.classList.add('current'); }
  b.addEventListener('click', () => go(node));
  li.appendChild(b);
  return li;
}

function renderLine(ol, first, depth, cur, go) {
  for (let n = first; n; n = n.children[0]) {
    ol.appendChild(moveItem(n, cur, go));
    const parent = n.parent;
    if (parent.children[0] === n && parent.children.length > 1) {
      for (const alt of parent.children.slice(1)) {
        const li = document.createElement('li');
        li.className = 'var-item';
        const sub = document.createElement('ol');
        sub.className = 'variation';
        sub.setAttribute('aria-label', t('analysis.variation', { n: alt.ply, move: moveName(alt.move) }));
        sub.dataset.depth = String(depth + 1);
        renderLine(sub, alt, depth + 1, cur, go);
        li.appendChild(sub);
        ol.appendChild(li);
      }
    }
  }
}

// The tree from root into ol, cur marked as the current move; a click on a move calls go(node).
export function renderMoves(ol, root, cur, go) {
  clear(ol);
  if (!root.children.length) {
    const li = document.createElement('li');
    li.className = 'empty';
    li.textContent = t('analysis.noMoves');
    ol.appendChild(li);
    return;
  }
  renderLine(ol, root.children[0], 0, cur, go);
  // The current move kept in view inside the list (never scrolling the page away from the board).
  const current = ol.querySelector('[aria-current]');
  if (current) {
    const top = current.offsetTop;
    if (top < ol.scrollTop || top + current.offsetHeight > ol.scrollTop + ol.clientHeight) {
      ol.scrollTop = Math.max(0, top - ol.clientHeight / 2);
    }
  }
}
