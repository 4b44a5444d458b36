// The Recent list (store.js's games, reviews and analysis trees, newest first) as links: a game resumes on
// the Play page (one followed at a table: on the Follow page), a review is reviewed again, an analysis tree
// opens on the board (openAnalysis(id)); × forgets one.

import { clear } from './draw.js';
import { formatDate, has, t, tn } from './i18n.js';
import { listRecent, removeRecent } from './store.js';
import { playersText } from './play-game.js';

// An item's title in the language of the moment: its label (a catalogue key) when it has one, else as kept.
export function recentTitle(it) {
  const l = it.label;
  if (!l || !has(l.key)) return it.title;
  const vars = { ...l.vars };
  if (Array.isArray(vars.players)) vars.players = playersText(vars.players);      // a record's players, in words
  if (typeof vars.strength === 'string') vars.strength = playersText([vars.strength]);
  return Number.isFinite(l.n) ? tn(l.key, l.n, vars) : t(l.key, vars);
}

export function renderRecent(ul, openAnalysis) {
  clear(ul);
  const items = listRecent();
  if (!items.length) {
    const li = document.createElement('li');
    li.textContent = t('recent.none');
    ul.appendChild(li);
    return;
  }
  for (const it of items) {
    const li = document.createElement('li');
    li.dataset.kind = it.kind;
    li.dataset.id = it.id;
    const a = document.createElement('a');
    a.href = it.kind === 'play' ? `#play?resume=${encodeURIComponent(it.id)}`
      : it.kind === 'follow' ? `#follow?resume=${encodeURIComponent(it.id)}`
      : it.kind === 'review' ? `#review?recent=${encodeURIComponent(it.id)}` : '#analysis';
    const title = recentTitle(it);
    a.textContent = title;
    if (it.kind === 'analysis') {
      a.addEventListener('click', (e) => { e.preventDefault(); openAnalysis(it.id); });
    }
    const when = document.createElement('time');
    when.dateTime = it.date;
    when.textContent = formatDate(it.date);
    const kind = document.createElement('span');
    kind.className = 'recent-kind';
    kind.textContent = t(`recent.kind.${it.kind}`);
    const del = document.createElement('button');
    del.type = 'button';
    del.className = 'recent-del';
    del.textContent = '×';
    del.setAttribute('aria-label', t('recent.forget', { title }));
    del.addEventListener('click', () => { removeRecent(it.id); renderRecent(ul, openAnalysis); });
    li.append(kind, ' ', a, ' ', when, ' ', del);
    ul.appendChild(li);
  }
}
