// The single page: hash routing between Play, Review, Place and Puzzles; errors never leave a blank page.

import { describe, showMessage } from './api.js';

const PAGES = {
  play: () => import('./play.js'),
  review: () => import('./review.js'),
  place: () => import('./place.js'),
  puzzles: () => import('./puzzle.js'),
  analysis: () => import('./analysis.js'),
};
const started = {};
const globalMsg = document.getElementById('global-msg');

window.addEventListener('error', (e) => showMessage(globalMsg, `Something went wrong: ${e.message}`));
window.addEventListener('unhandledrejection', (e) => showMessage(globalMsg, describe(e.reason)));

async function show() {
  let name = (location.hash || '#play').slice(1).split('?')[0];
  if (!PAGES[name]) name = 'play';
  for (const sec of document.querySelectorAll('.page')) sec.hidden = sec.dataset.page !== name;
  for (const a of document.querySelectorAll('nav a')) {
    if (a.dataset.page === name) a.setAttribute('aria-current', 'page'); else a.removeAttribute('aria-current');
  }
  document.title = `${name[0].toUpperCase()}${name.slice(1)} — quiltsolve`;
  if (!started[name]) {
    started[name] = (async () => {
      const mod = await PAGES[name]();
      await mod.init();
    })().catch((e) => { started[name] = null; showMessage(globalMsg, describe(e)); });
  }
  await started[name];
  document.body.dataset.ready = name;
}

window.addEventListener('hashchange', () => { show(); document.getElementById('main').focus({ preventScroll: true }); });
document.addEventListener('keydown', (e) => {
  const t = e.target;
  if (e.key === '?' && !(t && t.closest('input, textarea, select'))) {
    const d = document.getElementById('keys-dialog');
    if (!d.open) d.showModal();
  }
});
show();
