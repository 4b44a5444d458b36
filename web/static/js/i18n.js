// The app's words in the reader's language: t(key, vars), tn(key, n, vars), numbers and percentages in the
// language's form, and translatePage(root) for the elements that carry data-i18n keys.
//
// The language: ?lang=xx in the URL, else the saved choice (store.js: preference 'language'), else the
// browser's preferences, else English. Catalogues: /i18n/<lang>.json, flat key → text (a plural's text is an
// object keyed by Intl.PluralRules categories: one, few, many, other); a key missing in a language falls back
// to English, then to the key itself. Placeholders are {name}.

import { loadPreference, savePreference } from './store.js';

export const LANGUAGES = ['en', 'uk', 'ko', 'it'];

function pick() {
  const asked = new URLSearchParams(location.search).get('lang');
  if (asked && LANGUAGES.includes(asked)) return asked;
  const saved = loadPreference('language');
  if (saved && LANGUAGES.includes(saved)) return saved;
  for (const l of navigator.languages || [navigator.language || 'en']) {
    const base = String(l).toLowerCase().split('-')[0];
    if (LANGUAGES.includes(base)) return base;
  }
  return 'en';
}

async function fetchCatalogue(lang) {
  try {
    const res = await fetch(`/i18n/${lang}.json`);
    if (res.ok) return await res.json();
  } catch { /* offline or refused: the fallbacks */ }
  return {};
}

let lang = pick();
const english = await fetchCatalogue('en');
let catalogue = lang === 'en' ? english : await fetchCatalogue(lang);

function fill(text, vars) {
  return String(text).replace(/\{(\w+)\}/g, (m, name) => (name in vars ? String(vars[name]) : m));
}

function lookup(key) {
  if (Object.prototype.hasOwnProperty.call(catalogue, key)) return catalogue[key];
  if (Object.prototype.hasOwnProperty.call(english, key)) return english[key];
  return key;
}

export function t(key, vars = {}) {
  const text = lookup(key);
  return fill(typeof text === 'object' && text ? (text.other ?? key) : text, vars);
}

export function tn(key, n, vars = {}) {
  const text = lookup(key);
  const form = typeof text === 'object' && text ? (text[new Intl.PluralRules(lang).select(n)] ?? text.other ?? key) : text;
  return fill(form, { count: formatNumber(n), ...vars });
}

export function formatNumber(x, opts = {}) { return new Intl.NumberFormat(lang, opts).format(x); }

export function formatPercent(x) { return new Intl.NumberFormat(lang, { style: 'percent', maximumFractionDigits: 0 }).format(x); }

export function language() { return lang; }

export async function setLanguage(next) {
  if (!LANGUAGES.includes(next)) throw new Error(`unknown language: ${next}`);
  lang = next;
  savePreference('language', next);
  catalogue = next === 'en' ? english : await fetchCatalogue(next);
  document.documentElement.lang = next;
  translatePage(document);
}

export function translatePage(root = document) {
  for (const el of root.querySelectorAll('[data-i18n]')) el.textContent = t(el.dataset.i18n);
  for (const [data, attr] of [['i18nAriaLabel', 'aria-label'], ['i18nTitle', 'title'], ['i18nPlaceholder', 'placeholder']]) {
    const selector = `[data-${attr === 'aria-label' ? 'i18n-aria-label' : `i18n-${attr}`}]`;
    for (const el of root.querySelectorAll(selector)) el.setAttribute(attr, t(el.dataset[data]));
  }
}
