// The HTTP API: JSON in, JSON out; every failure becomes an ApiError with the server's code and field.
// A failure is explained to the reader from its stable code and field, in their language (i18n.js); the
// server's own message (English) is shown after it only as a detail.
// Every request goes through send(): when the server asks for a bearer token (401), the token dialog asks the
// user once, the token is kept in sessionStorage (this tab only) and sent as Authorization: Bearer from then on.

import { has, t } from './i18n.js';

export class ApiError extends Error {
  constructor(status, code, field, message, retryAfter = null) {
    super(message);
    this.status = status;
    this.code = code;
    this.field = field;
    this.retryAfter = retryAfter;
  }
}

const BASE = '/api/v1/';

async function answer(res) {
  const text = await res.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch { data = null; }
  if (!res.ok) {
    const e = data && data.error;
    throw new ApiError(res.status, e ? e.code : `HTTP_${res.status}`, e ? e.field : null,
      e ? e.message : (text.slice(0, 200) || res.statusText), res.headers.get('Retry-After'));
  }
  if (data === null) throw new ApiError(res.status, 'INTERNAL', null, 'the server answered without JSON');
  return data;
}

const TOKEN_KEY = 'quiltsolve.token';

function storedToken() {
  try { return sessionStorage.getItem(TOKEN_KEY) || ''; } catch { return ''; }
}

function storeToken(token) {
  try {
    if (token) sessionStorage.setItem(TOKEN_KEY, token); else sessionStorage.removeItem(TOKEN_KEY);
  } catch { /* storage refused: the token lives until the page is left */ }
  memoryToken = token;
}

let memoryToken = '';
function currentToken() { return storedToken() || memoryToken; }

let asking = null;
// Ask for a token in the page's dialog (one dialog however many calls wait); resolves to it, or '' if cancelled.
function askToken(rejected) {
  if (asking) return asking;
  const dialog = document.getElementById('token-dialog');
  if (!dialog || typeof dialog.showModal !== 'function') return Promise.resolve('');
  asking = new Promise((resolve) => {
    const form = document.getElementById('token-form');
    const input = document.getElementById('token-input');
    const msg = document.getElementById('token-msg');
    msg.hidden = !rejected;
    msg.textContent = rejected ? t('token.rejected') : '';
    input.value = '';
    const done = (token) => {
      form.removeEventListener('submit', onSubmit);
      dialog.removeEventListener('close', onClose);
      document.getElementById('token-cancel').removeEventListener('click', onCancel);
      if (dialog.open) dialog.close();
      asking = null;
      resolve(token);
    };
    const onSubmit = (e) => { e.preventDefault(); const t = input.value.trim(); if (t) done(t); };
    const onClose = () => done('');
    const onCancel = () => done('');
    form.addEventListener('submit', onSubmit);
    dialog.addEventListener('close', onClose);
    document.getElementById('token-cancel').addEventListener('click', onCancel);
    dialog.dataset.rejected = rejected ? 'true' : 'false';
    dialog.showModal();
    input.focus();
  });
  return asking;
}

function withToken(init) {
  const token = currentToken();
  if (!token) return init;
  return { ...init, headers: { ...(init.headers || {}), Authorization: `Bearer ${token}` } };
}

async function send(path, init) {
  for (;;) {
    const sent = currentToken();
    let res;
    try {
      res = await fetch(BASE + path, withToken(init));
    } catch (e) {
      if (e.name === 'AbortError') throw e;
      throw new ApiError(0, 'UNAVAILABLE', null, `cannot reach the server (${e.message})`);
    }
    if (res.status !== 401 || !(res.headers.get('WWW-Authenticate') || '').startsWith('Bearer')) return res;
    if (currentToken() !== sent) continue;  // another call got a new token meanwhile: try it
    if (sent) storeToken('');               // the token we sent was refused: forget it
    const token = await askToken(Boolean(sent));
    if (!token) return res;                 // cancelled: the caller shows the 401
    storeToken(token);
  }
}

// Actions (each request, each page opened: main.js) are numbered as they begin. A message about a failure
// belongs to the action that raised it: the success of an action begun after it (the same one redone, or
// another) is told to the listeners, which clear it. An action already under way when the message came may be
// its cause, so its success does not count.
let lastAction = 0;
const successListeners = new Set();

export function beginAction() { return ++lastAction; }

export function latestAction() { return lastAction; }

export function onActionSucceeded(listener) { successListeners.add(listener); }

export function actionSucceeded(id) {
  for (const listener of successListeners) listener(id);
}

function headers(opts) {
  const h = { 'Content-Type': 'application/json' };
  if (opts.deadlineMs) h['X-Deadline-Ms'] = String(Math.round(opts.deadlineMs));
  return h;
}

export async function post(path, body, opts = {}) {
  const id = beginAction();
  const res = await send(path, { method: 'POST', headers: headers(opts), body: JSON.stringify(body), signal: opts.signal });
  const data = await answer(res);
  actionSucceeded(id);
  return data;
}

export async function get(path, opts = {}) {
  const id = beginAction();
  const data = await answer(await send(path, { method: 'GET', signal: opts.signal }));
  actionSucceeded(id);
  return data;
}

// An NDJSON stream: calls onItem(item) for each line as it arrives; an {"error": ...} line throws.
export async function stream(path, body, onItem, opts = {}) {
  const id = beginAction();
  const res = await send(path, { method: 'POST', headers: headers(opts), body: JSON.stringify(body), signal: opts.signal });
  if (!res.ok || !res.body) return answer(res);
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let buf = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (value) buf += decoder.decode(value, { stream: true });
    let nl;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl).trim();
      buf = buf.slice(nl + 1);
      if (!line) continue;
      const item = JSON.parse(line);
      if (item.error) throw new ApiError(200, item.error.code, item.error.field, item.error.message);
      onItem(item);
    }
    if (done) break;
  }
  actionSucceeded(id);
  return null;
}

// The error's parts in words: {title, text, status, detail}. title names the kind of failure (its code), text
// explains it (the field at fault, named as the reader knows it, or what the code means), status is the HTTP
// status and code, detail the server's own message.
export function explain(err) {
  if (!(err instanceof ApiError)) {
    return { title: t('error.wrong', { message: err && err.message ? err.message : String(err) }), text: '', status: '', detail: '' };
  }
  const code = err.code || '';
  const title = has(`error.code.${code}`) ? t(`error.code.${code}`) : t('error.code.other', { code });
  let text = '';
  if (err.field) {
    const root = String(err.field).split(/[.[]/)[0];
    const name = has(`error.fieldName.${root}`) ? t(`error.fieldName.${root}`) : root;
    const what = name === err.field ? name : `${name} (${err.field})`;
    text = code === 'INVALID_ARGUMENT' ? t('error.badField', { field: what }) : t('error.atField', { field: what });
  } else if (has(`error.explain.${code}`)) {
    text = t(`error.explain.${code}`);
  }
  if (err.retryAfter) text = `${text ? `${text} ` : ''}${t('error.retry', { seconds: Number(err.retryAfter) })}`;
  return { title, text, status: err.status ? `${err.status} ${code}` : code, detail: err.message || '' };
}

export function describe(err) {
  const e = explain(err);
  if (!(err instanceof ApiError)) return e.title;
  let s = `${e.title}${e.text ? `: ${e.text}` : ''} (${e.status})`;
  if (e.detail) s += ` — ${t('error.detail', { message: e.detail })}`;
  return s;
}

// Show an error (or a plain message with kind 'info') in a message box; null hides it. An API error shows its
// explanation, then the server's message as a smaller detail.
export function showMessage(box, what, kind = 'error') {
  if (!box) return;
  if (what === null || what === undefined) { box.hidden = true; box.textContent = ''; return; }
  if (what instanceof ApiError) {
    const e = explain(what);
    box.textContent = '';
    const main = document.createElement('span');
    main.className = 'msg-text';
    main.textContent = `${e.title}${e.text ? `: ${e.text}` : ''} (${e.status})`;
    box.appendChild(main);
    if (e.detail) {
      const detail = document.createElement('small');
      detail.className = 'msg-detail';
      detail.textContent = t('error.detail', { message: e.detail });
      box.append(' ', detail);
    }
  } else {
    box.textContent = typeof what === 'string' ? what : describe(what);
  }
  box.classList.toggle('info', kind === 'info');
  box.dataset.kind = kind;
  if (what instanceof ApiError) { box.dataset.code = what.code; box.dataset.field = what.field || ''; }
  else { delete box.dataset.code; delete box.dataset.field; }
  box.hidden = false;
}

let patchesPromise = null;
// The 33 standard patches, by id (fetched once).
export function patches() {
  if (!patchesPromise) {
    patchesPromise = get('patches').then((r) => r.patches.slice().sort((a, b) => a.id - b.id))
      .catch((e) => { patchesPromise = null; throw e; });
  }
  return patchesPromise;
}
