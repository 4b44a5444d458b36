// Recent work kept in the browser (localStorage): games being played, reviews, analysis trees.
// One key holds a versioned list, newest first; it is bounded in items and in characters, the oldest
// dropped first. Storage refused or full (private windows, quota): the page goes on without it.
//
//   saveRecent(kind, id, title, data)  → true if kept (an item with the same id is replaced, moved to the front)
//   listRecent(kind?)                  → [{id, kind, title, date}] newest first (no data)
//   loadRecent(id)                     → {id, kind, title, date, data} or null
//   removeRecent(id)
//
// Settings (the Play page's opponent, ...) live under their own key, a flat object name → value:
//   loadSetting(name, fallback) → the saved value, or fallback;  saveSetting(name, value) → true if kept

export const STORE_KEY = 'quiltsolve.recent';
export const STORE_VERSION = 1;
export const MAX_ITEMS = 30;
export const MAX_CHARS = 1_000_000;   // the whole list as JSON: about 2 MB of UTF-16, well under the usual 5 MB quota
export const KINDS = ['play', 'review', 'analysis'];

function storage() {
  try { return window.localStorage; } catch { return null; }
}

function read() {
  const s = storage();
  if (!s) return [];
  let doc;
  try { doc = JSON.parse(s.getItem(STORE_KEY) || 'null'); } catch { return []; }
  // Another version's list is left alone until this one is written over it.
  if (!doc || doc.version !== STORE_VERSION || !Array.isArray(doc.items)) return [];
  return doc.items.filter((it) => it && typeof it.id === 'string' && KINDS.includes(it.kind));
}

function write(items) {
  const s = storage();
  if (!s) return false;
  // Oldest dropped first until both bounds hold (and the browser's quota lets the write through).
  items = items.slice(0, MAX_ITEMS);
  for (;;) {
    const text = JSON.stringify({ version: STORE_VERSION, items });
    if (text.length <= MAX_CHARS) {
      try { s.setItem(STORE_KEY, text); return true; } catch { /* quota: drop one more */ }
    }
    if (items.length <= 1) return false;
    items = items.slice(0, -1);
  }
}

export function saveRecent(kind, id, title, data) {
  if (!KINDS.includes(kind)) throw new Error(`unknown kind of recent item: ${kind}`);
  const item = { id: String(id), kind, title: String(title).slice(0, 200), date: new Date().toISOString(), data };
  const items = [item, ...read().filter((it) => it.id !== item.id)];
  const kept = write(items);
  return kept && read().some((it) => it.id === item.id);
}

export function listRecent(kind = null) {
  return read().filter((it) => !kind || it.kind === kind)
    .map(({ id, kind: k, title, date }) => ({ id, kind: k, title, date }));
}

export function loadRecent(id) {
  return read().find((it) => it.id === id) || null;
}

export function removeRecent(id) {
  const items = read();
  const rest = items.filter((it) => it.id !== id);
  if (rest.length !== items.length) write(rest);
}

export const SETTINGS_KEY = 'quiltsolve.settings';

function settings() {
  const s = storage();
  if (!s) return {};
  try {
    const doc = JSON.parse(s.getItem(SETTINGS_KEY) || '{}');
    return doc && typeof doc === 'object' && !Array.isArray(doc) ? doc : {};
  } catch { return {}; }
}

export function loadSetting(name, fallback = null) {
  const all = settings();
  return Object.prototype.hasOwnProperty.call(all, name) ? all[name] : fallback;
}

export function saveSetting(name, value) {
  const s = storage();
  if (!s) return false;
  try { s.setItem(SETTINGS_KEY, JSON.stringify({ ...settings(), [name]: value })); return true; } catch { return false; }
}

// A date as the Recent list shows it: "2 Dec 2026, 11:20" in the reader's locale.
export function shortDate(iso) {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? '' : d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}
