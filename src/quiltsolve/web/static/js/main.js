// The single page: hash routing between Play, Review, Place, Puzzles, Analysis, Rules and the table (Setup,
// Follow); errors never leave a blank page. The language switcher (i18n.js) lives here: a switch re-translates the page and each page
// module re-renders what it wrote (its onLanguageChange listener).

import { actionSucceeded, beginAction, describe, latestAction, onActionSucceeded, showMessage } from './api.js';
import { language, onLanguageChange, setLanguage, t, translatePage } from './i18n.js';

const PAGES = {
  play: () => import('./play.js'),
  review: () => import('./review.js'),
  place: () => import('./place.js'),
  puzzles: () => import('./puzzle.js'),
  analysis: () => import('./analysis.js'),
  setup: () => import('./setup.js'),
  follow: () => import('./follow.js'),
  rules: async () => ({ init() {} }),   // the Rules page is the HTML and the catalogues alone
};
const started = {};
const globalMsg = document.getElementById('global-msg');

// The banner goes when an action begun after it succeeds (api.js): a request the server answers, a page opened.
let raisedAfter = 0;
function raise(what) {
  raisedAfter = latestAction();
  showMessage(globalMsg, what);
}
onActionSucceeded((id) => { if (id > raisedAfter && !globalMsg.hidden) showMessage(globalMsg, null); });

window.addEventListener('error', (e) => raise(t('error.wrong', { message: e.message })));
window.addEventListener('unhandledrejection', (e) => raise(describe(e.reason)));

let current = 'play';
function setTitle() { document.title = t('app.pageTitle', { page: t(`nav.${current}`) }); }

async function show() {
  let name = (location.hash || '#play').slice(1).split('?')[0];
  if (!PAGES[name]) name = 'play';
  for (const sec of document.querySelectorAll('.page')) sec.hidden = sec.dataset.page !== name;
  for (const a of document.querySelectorAll('nav a')) {
    // (a link may stand for more than one page: data-also, as "At the table" for setup and follow)
    const here = a.dataset.page === name || (a.dataset.also || '').split(' ').includes(name);
    if (here) a.setAttribute('aria-current', 'page'); else a.removeAttribute('aria-current');
  }
  current = name;
  setTitle();
  const action = beginAction();
  if (!started[name]) {
    started[name] = (async () => {
      const mod = await PAGES[name]();
      await mod.init();
      return true;
    })().catch((e) => { started[name] = null; raise(describe(e)); return false; });
  }
  if (await started[name]) actionSucceeded(action);
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
// The switcher shows the language in use; a choice is kept (i18n.js: localStorage) and the page follows it.
const picker = document.getElementById('lang-select');
translatePage(document);
picker.value = language();
picker.addEventListener('change', () => { setLanguage(picker.value).catch((e) => raise(describe(e))); });
onLanguageChange((lang) => { picker.value = lang; setTitle(); });
show();
