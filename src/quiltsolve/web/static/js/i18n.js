// The app's language (a minimal version of the interface; the full one translates every page):
//   t(key, vars)            the catalogue's text for key, with {name} placeholders filled from vars
//   tn(key, n, vars)        a plural: the catalogue's value is an object keyed by Intl.PluralRules categories
//   formatNumber(x, opts)   formatPercent(x)   numbers in the language's form (Intl)
//   language()              setLanguage(lang)  the language in use; choose another (kept in the browser)
//   translatePage(root)     fill elements with data-i18n="key" (text), data-i18n-aria-label, -title, -placeholder
// The language: ?lang=xx in the URL, else the saved choice, else the browser's preferences, else English.
// Catalogues: /i18n/xx.json, flat objects key → text; a key missing there falls back to English, then the key.

export const LANGUAGES = ['en', 'uk', 'ko', 'it'];
const STORAGE_KEY = 'quiltsolve.language';

function saved() {
  try { return window.localStorage.getItem(STORAGE_KEY); } catch { return null; }
}

function pick() {
  const asked = new URLSearchParams(location.search).get('lang');
  if (asked && LANGUAGES.includes(asked)) return asked;
  const kept = saved();
  if (kept && LANGUAGES.includes(kept)) return kept;
  for (const tag of navigator.languages || [navigator.language || '']) {
    const base = String(tag).toLowerCase().split('-')[0];
    if (LANGUAGES.includes(base)) return base;
  }
  return 'en';
}

const catalogues = {};
async function load(lang) {
  if (!catalogues[lang]) {
    try {
      const r = await fetch(new URL(`../i18n/${lang}.json`, import.meta.url));
      catalogues[lang] = r.ok ? await r.json() : {};
    } catch { catalogues[lang] = {}; }
  }
  return catalogues[lang];
}

let current = pick();
await load('en');
if (current !== 'en') await load(current);
document.documentElement.lang = current;

export function language() { return current; }

export async function setLanguage(lang) {
  if (!LANGUAGES.includes(lang)) return;
  await load(lang);
  current = lang;
  try { window.localStorage.setItem(STORAGE_KEY, lang); } catch { /* storage refused: for this page only */ }
  document.documentElement.lang = lang;
  translatePage(document);
}

function lookup(key) {
  const mine = catalogues[current] || {};
  if (mine[key] !== undefined) return mine[key];
  const en = catalogues.en || {};
  return en[key] !== undefined ? en[key] : key;
}

function fill(text, vars) {
  return String(text).replace(/\{(\w+)\}/g, (m, name) => (vars && vars[name] !== undefined ? String(vars[name]) : m));
}

export function formatNumber(x, opts = {}) { return new Intl.NumberFormat(current, opts).format(x); }

export function formatPercent(x) { return new Intl.NumberFormat(current, { style: 'percent', maximumFractionDigits: 0 }).format(x); }

export function t(key, vars = {}) {
  const value = lookup(key);
  return fill(typeof value === 'string' ? value : (value && value.other) || key, vars);
}

export function tn(key, n, vars = {}) {
  const value = lookup(key);
  let text = value;
  if (value && typeof value === 'object') {
    const category = new Intl.PluralRules(current).select(n);
    text = value[category] !== undefined ? value[category] : value.other;
  }
  return fill(typeof text === 'string' ? text : key, { n: formatNumber(n), ...vars });
}

export function translatePage(root = document) {
  for (const node of root.querySelectorAll('[data-i18n]')) node.textContent = t(node.dataset.i18n);
  for (const [attr, data] of [['aria-label', 'i18nAriaLabel'], ['title', 'i18nTitle'], ['placeholder', 'i18nPlaceholder']]) {
    for (const node of root.querySelectorAll(`[data-i18n-${attr}]`)) node.setAttribute(attr, t(node.dataset[data]));
  }
}
