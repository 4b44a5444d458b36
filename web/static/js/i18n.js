// Translations (a minimal version; the full one replaces it): t(key, vars), tn(key, n, vars), formatNumber,
// formatPercent, language(), setLanguage(lang), translatePage(root). Catalogues: /i18n/<lang>.json, flat
// key → string (a plural: an object keyed by Intl.PluralRules categories). The language: ?lang=xx, else the
// saved choice, else the browser's preferences, else English; a key missing in a catalogue falls back to English.

export const LANGUAGES = ['en', 'uk', 'ko', 'it'];
const LANGUAGE_KEY = 'quiltsolve.language';

function saved() {
  try { return window.localStorage.getItem(LANGUAGE_KEY); } catch { return null; }
}

function pick() {
  const asked = new URLSearchParams(location.search).get('lang');
  const wanted = [asked, saved(), ...(navigator.languages || [navigator.language])];
  for (const w of wanted) {
    const lang = w && String(w).toLowerCase().split('-')[0];
    if (LANGUAGES.includes(lang)) return lang;
  }
  return 'en';
}

async function load(lang) {
  try {
    const res = await fetch(`/i18n/${lang}.json`);
    return res.ok ? await res.json() : {};
  } catch { return {}; }
}

const current = pick();
const english = await load('en');
const catalogue = current === 'en' ? english : { ...english, ...(await load(current)) };
document.documentElement.lang = current;

function fill(text, vars = {}) {
  return String(text).replace(/\{(\w+)\}/g, (m, name) => (name in vars ? String(vars[name]) : m));
}

export function language() { return current; }

export function setLanguage(lang) {
  if (!LANGUAGES.includes(lang)) throw new Error(`unknown language: ${lang}`);
  try { window.localStorage.setItem(LANGUAGE_KEY, lang); } catch { /* storage refused: this page only */ }
  if (lang !== current) location.reload();
}

export function t(key, vars = {}) {
  const text = catalogue[key];
  return typeof text === 'string' ? fill(text, vars) : key;
}

export function tn(key, n, vars = {}) {
  const forms = catalogue[key];
  if (!forms || typeof forms !== 'object') return key;
  const form = forms[new Intl.PluralRules(current).select(n)] ?? forms.other;
  return fill(form, { n: formatNumber(n), ...vars });
}

export function formatNumber(x, opts = {}) { return new Intl.NumberFormat(current, opts).format(x); }

export function formatPercent(x) { return new Intl.NumberFormat(current, { style: 'percent' }).format(x); }

export function translatePage(root = document) {
  for (const el of root.querySelectorAll('[data-i18n]')) el.textContent = t(el.dataset.i18n);
  for (const [key, attr] of [['i18nAriaLabel', 'aria-label'], ['i18nTitle', 'title'], ['i18nPlaceholder', 'placeholder']]) {
    for (const el of root.querySelectorAll(`[data-i18n-${attr}]`)) el.setAttribute(attr, t(el.dataset[key]));
  }
}
