// Recent work kept in the browser (localStorage): games being played or followed at a table, reviews, analysis trees.
// One key holds a versioned list, newest first; it is bounded in items and in characters, the oldest
// dropped first. Storage refused or full (private windows, quota): the page goes on without it.
//
//   saveRecent(kind, id, title, data, label?)  → true if kept (an item with the same id is replaced, moved to
//                                       the front); label {key, vars, n?}: the title as a catalogue key (i18n.js),
//                                       so that Recent shows it in the language of the moment
//   listRecent(kind?)                  → [{id, kind, title, label, date}] newest first (no data)
//   loadRecent(id)                     → {id, kind, title, date, data} or null
//   removeRecent(id)
//
// Settings (the language, i18n.js) are single keys of their own beside the list: readSetting(key) → the
// text kept or null, writeSetting(key, text) → true if kept.

export const STORE_KEY = 'quiltsolve.recent';
export const STORE_VERSION = 1;
export const MAX_ITEMS = 30;
export const MAX_CHARS = 1_000_000;   // the whole list as JSON: about 2 MB of UTF-16, well under the usual 5 MB quota
export const KINDS = ['play', 'review', 'analysis', 'follow'];   // follow: a game followed at a table

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

export function saveRecent(kind, id, title, data, label = null) {
  if (!KINDS.includes(kind)) throw new Error(`unknown kind of recent item: ${kind}`);
  const item = { id: String(id), kind, title: String(title).slice(0, 200), date: new Date().toISOString(), data };
  if (label && typeof label.key === 'string') {
    item.label = { key: label.key, vars: label.vars || {} };
    if (Number.isFinite(label.n)) item.label.n = label.n;
  }
  const items = [item, ...read().filter((it) => it.id !== item.id)];
  const kept = write(items);
  return kept && read().some((it) => it.id === item.id);
}

export function listRecent(kind = null) {
  return read().filter((it) => !kind || it.kind === kind)
    .map(({ id, kind: k, title, label, date }) => ({ id, kind: k, title, label: label || null, date }));
}

export function loadRecent(id) {
  return read().find((it) => it.id === id) || null;
}

export function removeRecent(id) {
  const items = read();
  const rest = items.filter((it) => it.id !== id);
  if (rest.length !== items.length) write(rest);
}

export function readSetting(key) {
  const s = storage();
  try { return s ? s.getItem(key) : null; } catch { return null; }
}

export function writeSetting(key, value) {
  const s = storage();
  try { if (s) { s.setItem(key, String(value)); return true; } } catch { /* refused or full */ }
  return false;
}
