// A review in words: a move's name, its label (?!, ?, ??) and glyph, win chances as percentages, a proven loss
// in points. The Review page, its plot, its picture and its drill all say them alike.

import * as S from './shapes.js';
import { formatNumber, formatPercent, t, tn } from './i18n.js';

export const GLYPH = { inaccuracy: '?!', mistake: '?', blunder: '??' };
const LABEL = { MOVE_LABEL_INACCURACY: 'inaccuracy', MOVE_LABEL_MISTAKE: 'mistake', MOVE_LABEL_BLUNDER: 'blunder' };

// A move in words; a buy says where (rows and columns from 1) when `other` buys the same patch elsewhere.
export function label(m, other = null) {
  if (!m) return '';
  if (m.kind === 'MOVE_KIND_BUY') {
    if (other && other.kind === 'MOVE_KIND_BUY' && other.patch_id === m.patch_id && other.text !== m.text) {
      return t('review.buyAt', { id: m.patch_id, at: S.fromMessage(m.cells).map(([r, c]) => `${r + 1},${c + 1}`).join(' ') });
    }
    return t('review.buy', { id: m.patch_id });
  }
  if (m.kind === 'MOVE_KIND_LEATHER') { const [[r, c]] = S.fromMessage(m.cells); return t('review.leather', { at: `${r + 1},${c + 1}` }); }
  return t('moves.advance');
}

// A label ('inaccuracy', 'mistake', 'blunder') in words; capital: as a sentence begins.
export function labelName(lab, capital = false) { return lab ? t(`review.label${capital ? 'Cap' : ''}.${lab}`) : ''; }

// A reviewed move's label ('inaccuracy', 'mistake', 'blunder'), or null.
export function labelOf(r) { return r ? LABEL[r.label] || null : null; }

export function isMistake(r) { return ['mistake', 'blunder'].includes(labelOf(r)); }

export function pct(x) { return formatPercent(x); }

// The exact loss in points where the endgame solver proved both moves (loss_points is absent otherwise).
export function points(r) {
  if (r.loss_points === undefined || r.loss_points === null) return '';
  const n = r.loss_points;
  return ` ${tn('review.points', n, { played: signed(r.margin_played), best: signed(r.margin_best) })}`;
}

function signed(n) { return n === undefined || n === null ? '?' : `${n > 0 ? '+' : ''}${formatNumber(n)}`; }
