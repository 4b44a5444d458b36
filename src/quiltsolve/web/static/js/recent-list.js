// The Recent list (store.js's games, reviews and analysis trees, newest first) as links: a game resumes on
// the Play page (one followed at a table: on the Follow page), a review is reviewed again, an analysis tree
// opens on the board (openAnalysis(id)); × forgets one.

import { clear } from './draw.js';
import { listRecent, removeRecent, shortDate } from './store.js';

export function renderRecent(ul, openAnalysis) {
  clear(ul);
  const items = listRecent();
  if (!items.length) {
    const li = document.createElement('li');
    li.textContent = 'Nothing yet.';
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
    a.textContent = it.title;
    if (it.kind === 'analysis') {
      a.addEventListener('click', (e) => { e.preventDefault(); openAnalysis(it.id); });
    }
    const when = document.createElement('time');
    when.dateTime = it.date;
    when.textContent = shortDate(it.date);
    const kind = document.createElement('span');
    kind.className = 'recent-kind';
    kind.textContent = { play: 'game', follow: 'game', review: 'review', analysis: 'analysis' }[it.kind];
    const del = document.createElement('button');
    del.type = 'button';
    del.className = 'recent-del';
    del.textContent = '×';
    del.setAttribute('aria-label', `Forget ${it.title}`);
    del.addEventListener('click', () => { removeRecent(it.id); renderRecent(ul, openAnalysis); });
    li.append(kind, ' ', a, ' ', when, ' ', del);
    ul.appendChild(li);
  }
}
