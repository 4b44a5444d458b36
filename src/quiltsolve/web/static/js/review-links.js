// Review links: #review?rec=<record>&ply=&it=&seed= opens the Review page on a game, at a move, reviewed at a
// budget. The record travels in the fragment (never sent to the server) as clients/links.py packs it: compact
// JSON, raw DEFLATE, unpadded base64url. The Play page packs its finished game here for "Review this game".

function b64url(bytes) {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function unb64url(text) {
  const s = atob(text.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (text.length % 4)) % 4));
  return Uint8Array.from(s, (ch) => ch.charCodeAt(0));
}

async function piped(bytes, transform) {
  const out = new Blob([bytes]).stream().pipeThrough(transform);
  return new Uint8Array(await new Response(out).arrayBuffer());
}

export async function packRecord(rec) {
  return b64url(await piped(new TextEncoder().encode(JSON.stringify(rec)), new CompressionStream('deflate-raw')));
}

export async function unpackRecord(text) {
  const bytes = await piped(unb64url(text), new DecompressionStream('deflate-raw'));
  return JSON.parse(new TextDecoder().decode(bytes));
}

// The link's fields (rec, ply, it, seed) from a hash, or null when it is no review link.
export function reviewParams(hash) {
  const h = hash || '';
  if (!h.startsWith('#review?')) return null;
  const q = new URLSearchParams(h.slice('#review?'.length));
  return q.get('rec') ? q : null;
}

// The link to a review of rec (its evaluations left out: the link's review makes them again) at move ply,
// with the review's budget and seed.
export async function reviewLink(rec, ply, budget) {
  const bare = { ...rec };
  delete bare.evaluations;
  const parts = [`rec=${await packRecord(bare)}`, `ply=${ply}`];
  if (budget.iterations) parts.push(`it=${budget.iterations}`);
  parts.push(`seed=${budget.seed}`);
  return `${location.origin}${location.pathname}#review?${parts.join('&')}`;
}
