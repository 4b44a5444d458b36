// The app's languages: English, Ukrainian, Korean and Italian. Every string a person reads goes through t / tn;
// the catalogues are flat JSON objects key → text (web/static/i18n/<lang>.json), keys dotted by page
// ('play.level', 'setup.undo'), placeholders written {name}. A plural is an object keyed by the language's
// Intl.PluralRules categories (one / few / many / other); Korean needs only 'other'.
//
//   t(key, vars)            the text of key, {name} filled from vars (a number is formatted for the language)
//   tn(key, n, vars)        the plural form of key for n ({n} is n, formatted)
//   formatNumber(x, opts)   Intl.NumberFormat in the language (a BigInt or a string of digits stays exact)
//   formatPercent(x)        0.76 → "76%" as the language writes it
//   formatDate(date, opts)  Intl.DateTimeFormat in the language
//   language()              the language in use ('en', 'uk', 'ko', 'it')
//   setLanguage(lang)       switch (kept in localStorage, <html lang> follows, the page re-translated, listeners told)
//   translatePage(root)     fill the elements that carry data-i18n="key" (text) and data-i18n-aria-label,
//                           data-i18n-title, data-i18n-placeholder, data-i18n-content, data-i18n-alt
//                           (attributes); data-i18n-vars='{"n": 5}' fills placeholders, data-i18n-n="5" picks
//                           the plural, data-i18n-markup="code" (or "kbd") makes `quoted` parts elements
//   onLanguageChange(fn)    fn(lang) after each switch; returns a function that stops it
//
// The language comes from ?lang=xx in the address if present, else the saved choice (store.js's setting
// quiltsolve.language in localStorage), else the browser's preferences, else English. The module loads the catalogues before
// anything imports it (a top-level await), so t works from the first line of every page; a key missing in a
// catalogue falls back to English, and a key missing there shows as itself.

export const LANGUAGES = [
  { code: 'en', name: 'English' },
  { code: 'uk', name: 'Українська' },
  { code: 'ko', name: '한국어' },
  { code: 'it', name: 'Italiano' },
];
export const STORAGE_KEY = 'quiltsolve.language';
export const DEFAULT_LANGUAGE = 'en';
const CODES = LANGUAGES.map((l) => l.code);

import { readSetting, writeSetting } from './store.js';

const catalogues = {};
const listeners = new Set();
let current = DEFAULT_LANGUAGE;

// A supported language from a list of tags ('uk-UA', 'ko', 'it_IT'), or null.
export function pickLanguage(tags) {
  for (const tag of tags || []) {
    if (!tag) continue;
    const base = String(tag).trim().toLowerCase().split(/[-_]/)[0];
    if (CODES.includes(base)) return base;
  }
  return null;
}

function savedLanguage() { return readSetting(STORAGE_KEY); }

function urlLanguage() {
  try { return new URLSearchParams(location.search).get('lang'); } catch { return null; }
}

// The language a page opens in: the address's ?lang=, the saved choice, the browser's preferences, English.
export function requestedLanguage() {
  const browser = typeof navigator !== 'undefined' ? (navigator.languages || [navigator.language]) : [];
  return pickLanguage([urlLanguage()]) || pickLanguage([savedLanguage()]) || pickLanguage(browser)
    || DEFAULT_LANGUAGE;
}

async function load(code) {
  if (catalogues[code]) return catalogues[code];
  try {
    const res = await fetch(new URL(`../i18n/${code}.json`, import.meta.url));
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    catalogues[code] = await res.json();
  } catch {
    catalogues[code] = null;   // unavailable: English, or the keys themselves
    return null;
  }
  return catalogues[code];
}

function entry(key) {
  const own = catalogues[current];
  if (own && Object.prototype.hasOwnProperty.call(own, key)) return [own[key], current];
  const en = catalogues[DEFAULT_LANGUAGE];
  if (en && Object.prototype.hasOwnProperty.call(en, key)) return [en[key], DEFAULT_LANGUAGE];
  return [undefined, DEFAULT_LANGUAGE];
}

// Whether key has a text (in this language or English).
export function has(key) { return entry(key)[0] !== undefined; }

function fill(text, vars) {
  if (!vars) return text;
  return text.replace(/\{(\w+)\}/g, (whole, name) => {
    if (!Object.prototype.hasOwnProperty.call(vars, name)) return whole;
    const v = vars[name];
    return typeof v === 'number' || typeof v === 'bigint' ? formatNumber(v) : String(v);
  });
}

export function t(key, vars = undefined) {
  const [value] = entry(key);
  if (value === undefined) return key;
  if (typeof value === 'string') return fill(value, vars);
  return fill(String(value.other ?? key), vars);
}

export function tn(key, n, vars = {}) {
  const [value, lang] = entry(key);
  const all = { n: typeof n === 'number' || typeof n === 'bigint' ? formatNumber(n) : String(n), ...vars };
  if (value === undefined) return key;
  if (typeof value === 'string') return fill(value, all);
  const category = new Intl.PluralRules(lang).select(Number(n));
  return fill(String(value[category] ?? value.other ?? key), all);
}

export function formatNumber(x, opts = {}) {
  let v = x;
  if (typeof v === 'string' && /^-?\d+$/.test(v.trim())) v = BigInt(v.trim());
  if (typeof v !== 'number' && typeof v !== 'bigint') return String(x);
  return new Intl.NumberFormat(current, opts).format(v);
}

export function formatPercent(x) {
  return new Intl.NumberFormat(current, { style: 'percent', maximumFractionDigits: 0 }).format(x);
}

export function formatDate(date, opts = { dateStyle: 'medium', timeStyle: 'short' }) {
  const d = date instanceof Date ? date : new Date(date);
  return Number.isNaN(d.getTime()) ? '' : new Intl.DateTimeFormat(current, opts).format(d);
}

export function language() { return current; }

// The language's name as it calls itself ('Українська').
export function languageName(code = current) {
  const l = LANGUAGES.find((x) => x.code === code);
  return l ? l.name : code;
}

export function onLanguageChange(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

// A text with `code` spans as elements (tag: 'code' or 'kbd'), built without innerHTML.
function setMarkup(el, text, tag) {
  const parts = text.split('`');
  el.textContent = '';
  parts.forEach((part, i) => {
    if (!part) return;
    if (i % 2) {
      const c = document.createElement(tag);
      c.textContent = part;
      el.appendChild(c);
    } else {
      el.appendChild(document.createTextNode(part));
    }
  });
}

// An element's text for key: its data-i18n-vars (JSON) fill the placeholders, data-i18n-n picks the plural.
function textOf(el, key) {
  let vars;
  try { vars = el.dataset.i18nVars ? JSON.parse(el.dataset.i18nVars) : undefined; } catch { vars = undefined; }
  if (el.dataset.i18nN !== undefined) return tn(key, Number(el.dataset.i18nN), vars || {});
  return t(key, vars);
}

const ATTRIBUTES = ['aria-label', 'title', 'placeholder', 'content', 'alt'];

export function translatePage(root = document) {
  if (!root || !root.querySelectorAll) return;
  const all = (sel) => [...(root.matches && root.matches(sel) ? [root] : []), ...root.querySelectorAll(sel)];
  for (const el of all('[data-i18n]')) {
    const text = textOf(el, el.dataset.i18n);
    if (el.hasAttribute('data-i18n-markup')) setMarkup(el, text, el.dataset.i18nMarkup || 'code');
    else if (el.textContent !== text) el.textContent = text;
  }
  for (const attr of ATTRIBUTES) {
    for (const el of all(`[data-i18n-${attr}]`)) el.setAttribute(attr, textOf(el, el.getAttribute(`data-i18n-${attr}`)));
  }
}

function apply(code) {
  current = code;
  if (typeof document !== 'undefined') document.documentElement.lang = code;
}

export async function setLanguage(lang) {
  const code = pickLanguage([lang]);
  if (!code) throw new Error(`unknown language: ${lang}`);
  await load(code);
  apply(code);
  writeSetting(STORAGE_KEY, code);   // storage refused: the choice lasts this page
  // An address that names a language names this one now (a reload keeps it).
  try {
    const url = new URL(location.href);
    if (url.searchParams.has('lang') && url.searchParams.get('lang') !== code) {
      url.searchParams.set('lang', code);
      history.replaceState(history.state, '', url.href);
    }
  } catch { /* no address to keep */ }
  if (typeof document !== 'undefined') translatePage(document);
  for (const fn of [...listeners]) {
    try { fn(code); } catch (e) { setTimeout(() => { throw e; }); }
  }
  return code;
}

// Loaded before any module that imports this one runs: English (the fallback) and the page's language.
await load(DEFAULT_LANGUAGE);
{
  const want = requestedLanguage();
  if (want !== DEFAULT_LANGUAGE) await load(want);
  apply(catalogues[want] ? want : DEFAULT_LANGUAGE);
}
