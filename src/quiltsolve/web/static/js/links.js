// Position links: /#analysis?pos=<notation>&line=<moves> opens the Analysis board on a position and a line.
// The notation (engine/notation.py) is percent-encoded as one component (a blank is %20, '+' is %2B) and
// read back with decodeURIComponent, never as a form field (where '+' would become a blank). The line is
// the moves from the position to the board's current move, their text forms joined by '~', encoded alike.

export const LINE_SEPARATOR = '~';

export function analysisHash(notation, line = []) {
  let h = `#analysis?pos=${encodeURIComponent(notation)}`;
  if (line.length) h += `&line=${encodeURIComponent(line.join(LINE_SEPARATOR))}`;
  return h;
}

export function analysisLink(notation, line = []) {
  return `${location.origin}${location.pathname}${analysisHash(notation, line)}`;
}

// {pos, line} from a hash like '#analysis?pos=...&line=...' (pos null when there is none).
export function parseAnalysisHash(hash) {
  const q = hash.indexOf('?');
  const out = { pos: null, line: [] };
  if (q < 0) return out;
  for (const part of hash.slice(q + 1).split('&')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    let value;
    try { value = decodeURIComponent(part.slice(eq + 1)); } catch { continue; }
    const key = part.slice(0, eq);
    if (key === 'pos') out.pos = value;
    if (key === 'line') out.line = value ? value.split(LINE_SEPARATOR).filter((m) => m.trim()) : [];
  }
  return out;
}

// Copy text to the clipboard; true when it was copied (the Clipboard API, else a selected field).
export async function copyText(text) {
  try {
    if (navigator.clipboard && window.isSecureContext) { await navigator.clipboard.writeText(text); return true; }
  } catch { /* refused: try the old way */ }
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.style.position = 'fixed';
  area.style.opacity = '0';
  document.body.appendChild(area);
  area.select();
  let ok = false;
  try { ok = document.execCommand('copy'); } catch { ok = false; }
  area.remove();
  return ok;
}

// Say on a button what a copy did, for a moment.
export function flash(button, text) {
  const was = button.dataset.label || button.textContent;
  button.dataset.label = was;
  button.textContent = text;
  clearTimeout(button._flash);
  button._flash = setTimeout(() => { button.textContent = was; }, 1500);
}
