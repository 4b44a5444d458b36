// The Analysis board's evaluation of the position on it: the engine's best moves as a list (Enter or a click
// plays one), the words above it and the evaluation bar (player 1's chance), or the result once it is over.

import { clear } from './draw.js';
import { moveName } from './analysis-moves.js';
import { formatNumber, formatPercent, t, tn } from './i18n.js';

const $ = (id) => document.getElementById(id);
const pct = formatPercent;
const cssPct = (x) => `${Math.round(x * 100)}%`;

// The elements it fills: the Analysis board's, or another page's (the table's Follow page) by their ids.
export const ANALYSIS_IDS = { best: 'an-best', info: 'an-eval-info', bar: 'an-evalbar', text: 'an-evaltext',
  page: 'page-analysis' };

// cur: the node on the board (its eval: {budget, player, proven, ms, best} once evaluated, null while being
// evaluated; an infinite analysis' also has live, streaming, final, iterations and each move's visits and line);
// budgetText: the budget asked for; playMove(text): play a listed move; ids: where to draw it; live: the
// infinite analysis 'on', 'off' or 'paused' (the page hidden).
export function renderEvaluation(cur, budgetText, playMove, ids = ANALYSIS_IDS, live = 'off') {
  const box = $(ids.best);
  const info = $(ids.info);
  const bar = $(ids.bar);
  const sec = $(ids.page);
  clear(box);
  const v = cur.view;
  let first = 0.5;
  if (v.terminal) {
    first = v.winner === 0 ? 1 : 0;
    info.textContent = t('analysis.over', { p: v.winner + 1, a: v.scores[0], b: v.scores[1] });
    sec.dataset.evaluated = cur.notation;
  } else if (!cur.eval) {
    info.textContent = live === 'on' ? t('analysis.liveStarting') : live === 'paused' ? t('analysis.livePaused')
      : tn('analysis.evaluating', Number(budgetText));
    first = null;
  } else {
    const e = cur.eval;
    const top = e.best[0];
    first = e.player === 0 ? top.win : 1 - top.win;
    const result = top.margin > 0 ? 'wins' : top.margin < 0 ? 'loses' : 'ties';
    info.textContent = e.proven
      ? tn(`analysis.proven.${result}`, Math.abs(top.margin), { p: e.player + 1 })
      : e.live
        ? (live === 'paused' && !e.final ? t('analysis.livePaused')
          : t(e.streaming ? 'analysis.liveInfo' : 'analysis.liveDone', { player: e.player + 1, pct: pct(top.win),
            iterations: tn('analysis.iterations', e.iterations) }))
        : tn('analysis.chance', e.budget, { p: e.player + 1, pct: pct(top.win), ms: e.ms });
    e.best.forEach((s, i) => {
      const li = document.createElement('li');
      li.dataset.move = s.move.text;
      li.dataset.win = s.win.toFixed(4);
      li.tabIndex = 0;
      li.innerHTML = '<span class="pct"></span><span class="bar"><i></i></span><span class="what"></span>';
      li.querySelector('.pct').textContent = pct(s.win);
      li.querySelector('.bar i').style.width = cssPct(s.win);
      const proven = s.margin !== undefined && s.margin !== null
        ? ` ${tn('analysis.provenPoints', s.margin, { signed: `${s.margin > 0 ? '+' : ''}${formatNumber(s.margin)}` })}` : '';
      li.querySelector('.what').textContent = `${i + 1}. ${moveName(s.move.text)}${proven}`
        + (e.live && !e.proven ? ` · ${tn('analysis.playouts', s.visits)}` : '');
      if (e.live) li.dataset.visits = String(s.visits);
      li.setAttribute('aria-label', t('analysis.choice', { n: i + 1, move: moveName(s.move.text), pct: pct(s.win) }));
      const play = () => playMove(s.move.text);
      li.addEventListener('click', play);
      li.addEventListener('keydown', (ev) => { if (ev.key === 'Enter' || ev.key === ' ') { ev.preventDefault(); play(); } });
      box.appendChild(li);
    });
    sec.dataset.evaluated = cur.notation;
    sec.dataset.liveIterations = e.live ? String(e.iterations) : '';
    if (!e.drawnAt) e.drawnAt = performance.now();   // when this evaluation was first drawn (bench_web)
    sec.dataset.evaluatedAt = String(e.drawnAt);
  }
  const fill = bar.querySelector('i');
  fill.style.width = first === null ? '50%' : cssPct(first);
  bar.classList.toggle('pending', first === null);
  bar.setAttribute('aria-valuenow', first === null ? '50' : String(Math.round(first * 100)));
  bar.setAttribute('aria-valuetext', first === null ? t('analysis.barPending') : t('analysis.barText', { pct: pct(first) }));
  bar.dataset.first = first === null ? '' : first.toFixed(4);
  $(ids.text).textContent = first === null ? '…' : t('analysis.evalText', { a: pct(first), b: pct(1 - first) });
}
