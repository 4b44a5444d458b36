// Dragging a piece from its card onto a board (the Play page's patches, New puzzle's pieces): the card
// captures the pointer, moving over the board shows the piece there, letting go there puts it down.
// One drag at a time on the page (a card may be redrawn while its drag goes on).

let drag = null;   // {id, x, y, moved}

export function startCardDrag(e, card) {
  e.preventDefault();
  try { card.setPointerCapture(e.pointerId); } catch { /* not capturable */ }
  drag = { id: e.pointerId, x: e.clientX, y: e.clientY, moved: false };
}

// A move of the dragging pointer: over(rc) with the board cell under it (cellAt(event) → [r, c] or null).
export function dragMove(e, cellAt, over) {
  if (!drag || e.pointerId !== drag.id) return;
  if (Math.hypot(e.clientX - drag.x, e.clientY - drag.y) > 6) drag.moved = true;
  const rc = cellAt(e);
  if (rc) over(rc);
}

// The end of a drag: the board cell it was let go over, or null (a click, or let go off the board).
export function dragEnd(e, cellAt) {
  if (!drag || e.pointerId !== drag.id) return null;
  const d = drag;
  drag = null;
  return d.moved ? cellAt(e) : null;
}

export function dragCancel() { drag = null; }

export function dragging() { return drag !== null; }
