// A 9×9 board painted cell by cell: a press fills an empty cell or empties a filled one, and a drag paints
// the same on every cell it crosses (mouse, pen or touch); the arrow keys move a cursor and Space or Enter
// turns the cell under it. The Place page's board and the table's position editor (setup.js) each make one.
//
//   bindPainter(svg, {get(r, c) → '#' | '.', set([r, c], ch), cursor() → [r, c], moveCursor([r, c]),
//                     handle() → the drawing's handle (drawQuilt: its cellAt), redraw()})

const clamp = (x) => Math.max(0, Math.min(8, x));

export function bindPainter(svg, board) {
  let paint = null;
  svg.addEventListener('pointerdown', (e) => {
    const rc = board.handle().cellAt(e);
    if (!rc) return;
    e.preventDefault();
    paint = board.get(rc[0], rc[1]) === '#' ? '.' : '#';
    try { svg.setPointerCapture(e.pointerId); } catch { /* ignore */ }
    board.set(rc, paint);
  });
  svg.addEventListener('pointermove', (e) => {
    if (!paint) return;
    const rc = board.handle().cellAt(e);
    if (rc) board.set(rc, paint);
  });
  const stop = () => { paint = null; };
  svg.addEventListener('pointerup', stop);
  svg.addEventListener('pointercancel', stop);
  svg.addEventListener('keydown', (e) => {
    const d = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] }[e.key];
    const [r, c] = board.cursor();
    if (d) { e.preventDefault(); board.moveCursor([clamp(r + d[0]), clamp(c + d[1])]); }
    else if (e.key === ' ' || e.key === 'Enter') { e.preventDefault(); board.set([r, c], board.get(r, c) === '#' ? '.' : '#'); }
  });
  svg.addEventListener('focus', () => board.redraw());
  svg.addEventListener('blur', () => board.redraw());
}
