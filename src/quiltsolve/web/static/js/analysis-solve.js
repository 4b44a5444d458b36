// The analysis board's exact solve: the Solve button streams solve-position for the position on the board (the
// exact endgame solver, up to ten minutes) and draws its proven interval of the mover's final margin as it
// narrows, the positions searched, the time and the best line so far; the last update holds the exact value and
// a perfect line, or the interval proven when time ran out. Stop (the same button), another node on the board or
// leaving the page closes the stream: the server stops the solver and its worker is free at once.

import { showMessage, stream } from './api.js';
import { moveName } from './analysis-moves.js';
import { formatNumber, t } from './i18n.js';

const $ = (id) => document.getElementById(id);
export const SOLVE_LIMIT = '600s';       // the service's most: ten minutes
export const SOLVE_INTERVAL = '0.25s';   // four updates a second
const LINE_SHOWN = 8;                    // moves of the line in words

let running = null;   // the solve under way: {node, ctl}

const signed = (v) => formatNumber(v, { signDisplay: 'exceptZero' });
const seconds = (s) => formatNumber(s, { maximumFractionDigits: 1, minimumFractionDigits: 1 });

// Whether a solve of `node` is under way.
export function solving(node) { return !!running && (!node || running.node === node); }

// Stop the solve under way, if any (its stream closed: the server stops the solver).
export function stopSolve() {
  if (running) running.ctl.abort();
}

// Solve `node` (one of the board's: {state, view, solve}), drawing each update into node.solve while it is on the
// board (current() === node); msg: where an error shows.
export async function startSolve(node, current, msg) {
  stopSolve();
  if (!node || !node.view || node.view.terminal) return;
  const ctl = new AbortController();
  running = { node, ctl };
  node.solve = { starting: true };
  renderSolve(node);
  const onUpdate = (u) => {
    if (ctl.signal.aborted) return;
    node.solve = {
      player: u.player || 0, lower: u.lower || 0, upper: u.upper || 0, final: !!u.final,
      value: u.value === undefined ? null : u.value, reason: u.reason || 'SOLVE_REASON_RUNNING',
      nodes: Number(u.nodes || 0), elapsed: parseFloat(u.elapsed || '0'), line: (u.line || []).map((m) => m.text),
      first: node.solve && node.solve.first ? node.solve.first : [u.lower || 0, u.upper || 0],
    };
    if (current() === node) renderSolve(node);
  };
  try {
    await stream('solve-position', { state: node.state, time_limit: SOLVE_LIMIT, report_interval: SOLVE_INTERVAL },
      onUpdate, { signal: ctl.signal });
  } catch (e) {
    if (e.name !== 'AbortError' && current() === node) showMessage(msg, e);
    if (node.solve && !node.solve.final) node.solve.stopped = true;
  } finally {
    if (running && running.ctl === ctl) running = null;
    if (node.solve && node.solve.starting) node.solve = null;
    if (current() === node) renderSolve(node);
  }
}

function lineText(moves) {
  const shown = moves.slice(0, LINE_SHOWN).map((m, i) => `${i + 1}. ${moveName(m)}`).join('  ');
  return moves.length > LINE_SHOWN ? `${shown} …` : shown;
}

function statusText(s) {
  if (s.starting) return t('solve.starting');
  const vars = { player: s.player + 1, lower: signed(s.lower), upper: signed(s.upper), nodes: formatNumber(s.nodes),
    seconds: seconds(s.elapsed) };
  if (s.value !== null && s.final) {
    const key = s.value > 0 ? 'solve.wins' : s.value < 0 ? 'solve.loses' : 'solve.ties';
    return t(key, { ...vars, margin: formatNumber(Math.abs(s.value)) });
  }
  if (s.final && s.reason === 'SOLVE_REASON_TIME_LIMIT') return t('solve.timeUp', vars);
  if (s.final || s.stopped) return t('solve.stopped', vars);
  return t('solve.running', vars);
}

// Draw node.solve (or nothing) into the solve box: the words, the proven interval on the range of the first
// update's bounds (with 0 marked), the line; the button says Solve or Stop.
export function renderSolve(node) {
  const box = $('an-solve-box');
  const button = $('an-solve');
  const on = solving(node);
  button.textContent = t(on ? 'solve.stop' : 'solve.button');
  button.setAttribute('aria-pressed', String(on));
  button.disabled = !node || !node.view || node.view.terminal;
  const s = node && node.solve;
  box.hidden = !s;
  box.dataset.state = !s ? '' : s.starting ? 'starting' : s.final ? (s.value !== null ? 'exact' : 'interval')
    : on ? 'running' : 'stopped';
  if (!s) return;
  $('an-solve-status').textContent = statusText(s);
  box.dataset.lower = s.starting ? '' : String(s.lower);
  box.dataset.upper = s.starting ? '' : String(s.upper);
  box.dataset.value = s.value === null || s.value === undefined ? '' : String(s.value);
  const range = $('an-solve-range');
  range.hidden = !!s.starting;
  if (!s.starting) {
    const [a, b] = s.first;
    const span = Math.max(1, b - a);
    const at = (v) => `${(100 * (v - a)) / span}%`;
    const fill = range.querySelector('.proven');
    fill.style.left = at(s.lower);
    fill.style.width = `${Math.max(0.5, (100 * (s.upper - s.lower)) / span)}%`;
    const zero = range.querySelector('.zero');
    zero.hidden = !(a < 0 && b > 0);
    zero.style.left = at(0);
    range.setAttribute('aria-valuetext', t('solve.rangeLabel', { player: s.player + 1, lower: signed(s.lower),
      upper: signed(s.upper) }));
  }
  const line = $('an-solve-line');
  line.hidden = !s.line || !s.line.length;
  if (s.line && s.line.length) {
    line.textContent = t(s.value !== null && s.final ? 'solve.perfectLine' : 'solve.bestLine', { line: lineText(s.line) });
    line.dataset.moves = s.line.join('~');
  }
}
