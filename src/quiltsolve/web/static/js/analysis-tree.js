// The Analysis board's tree of moves: nodes {move, player, ply, notation, state, view, children, parent, eval},
// the first child of each node on its main line and the others variations; lines and paths through it, its
// edits, and its stored form (compact: moves, players and notations only).

export function makeNode(parent, move, player, notation, state = null, view = null) {
  return { move, player, ply: parent ? parent.ply + 1 : 0, notation, state, view, children: [], parent, eval: null };
}

// The moves from the root to node.
export function lineOf(node) {
  const out = [];
  for (let n = node; n && n.parent; n = n.parent) out.push(n.move);
  return out.reverse();
}

// Which child at each step from the root, as '0.2.0' (the page's data-path).
export function pathOf(node) {
  const out = [];
  for (let n = node; n && n.parent; n = n.parent) out.push(n.parent.children.indexOf(n));
  return out.reverse().join('.');
}

export function endOfLine(node) {
  let n = node;
  while (n.children[0]) n = n.children[0];
  return n;
}

// Where the current variation leaves its parent line: the position before its first move (the root on the
// main line).
export function branchPoint(node) {
  let n = node;
  for (; n.parent; n = n.parent) {
    if (n.parent.children[0] !== n) return n.parent;
  }
  return n;
}

export function onMainLine(node) {
  for (let n = node; n.parent; n = n.parent) if (n.parent.children[0] !== n) return false;
  return true;
}

export function countNodes(node) { return 1 + node.children.reduce((s, c) => s + countNodes(c), 0); }

// Take node (and all after it) out of the tree.
export function removeNode(node) {
  const parent = node.parent;
  parent.children.splice(parent.children.indexOf(node), 1);
}

// The variation holding node becomes the main line where it branches off.
export function promoteLine(node) {
  for (let n = node; n.parent; n = n.parent) {
    const sibs = n.parent.children;
    const i = sibs.indexOf(n);
    if (i > 0) { sibs.splice(i, 1); sibs.unshift(n); break; }
  }
}

export function serialize(node) {
  if (!node) return null;
  const out = { m: node.move, p: node.player, n: node.notation, c: node.children.map(serialize) };
  if (!node.parent) { delete out.m; delete out.p; }
  return out;
}

export function deserialize(obj, parent = null) {
  const node = makeNode(parent, parent ? String(obj.m) : null, parent ? Number(obj.p) : null, String(obj.n));
  node.children = (Array.isArray(obj.c) ? obj.c : []).map((c) => deserialize(c, node));
  return node;
}
