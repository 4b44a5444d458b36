"""``mcts`` — the reference player: plain UCT with random playouts.

The algorithm of the strongest public Patchwork engines, kept plain on
purpose so it is a fixed yardstick for :mod:`engine.players.search`:

* the tree's actions are the engine's full legal-action list (every
  placement of every affordable patch, advance, and while a leather patch is
  pending every empty cell), expanded one untried action at a time in a
  seeded random order;
* selection by UCB1, ``mean + c·sqrt(ln N / n)`` with ``c = 1.4``
  (``sqrt(2)``) on rewards in [0, 1];
* one uniformly random playout per iteration (the ``random`` player's
  policy, :class:`engine.players.RandomPlayer`), reward 1 for a win and 0
  for a loss, plus an optional small margin term (``margin_weight``), always
  from the point of view of the player who made the move into the node —
  the game has no chance and a player may move several times in a row, so
  every node records who moved into it rather than assuming alternation;
* a fixed number of iterations per move; the most visited root action is
  played.

Reproducible: the random stream of each move is seeded from ``seed`` and the
position, so the same position gives the same move.

    python -m quiltsolve.engine match --a mcts:2000 --b greedy --games 20

>>> from quiltsolve.engine import new_game
>>> p = MCTSPlayer(iterations=50, seed=1)
>>> s = new_game(4)
>>> a = p.choose(s)
>>> s.is_legal(a), a == MCTSPlayer(iterations=50, seed=1).choose(s)
(True, True)
"""

from __future__ import annotations

import math
import random

from ..actions import Action
from ..advisor import Advisor
from ..policy import key_seed, ucb_child
from ..state import GameState
from .random_player import RandomPlayer

DEFAULT_ITERATIONS = 2000
EXPLORATION = math.sqrt(2.0)


class _Node:
    __slots__ = ("state", "mover", "action", "children", "untried", "n", "w")

    def __init__(self, state: GameState, mover: int, action: Action | None, rng: random.Random):
        self.state = state
        self.mover = mover            # player who made the move into this node
        self.action = action
        self.children: list[_Node] = []
        if state.is_terminal():
            self.untried: list[Action] = []
        else:
            acts = state.legal_actions()
            rng.shuffle(acts)
            self.untried = acts
        self.n = 0
        self.w = 0.0


class MCTSPlayer:
    """Plain UCT, random playouts, ``iterations`` per move."""

    def __init__(self, iterations: int = DEFAULT_ITERATIONS, seed: int = 0, exploration: float = EXPLORATION,
                 margin_weight: float = 0.0) -> None:
        if not isinstance(iterations, int) or iterations < 1:
            raise ValueError(f"mcts iterations must be a positive integer, not {iterations!r}")
        if not 0.0 <= margin_weight <= 1.0:
            raise ValueError(f"mcts margin_weight must be in [0, 1], not {margin_weight}")
        self.iterations = iterations
        self.seed = seed
        self.exploration = exploration
        self.margin_weight = margin_weight
        self.name = f"mcts:{iterations}"

    def __repr__(self) -> str:
        return f"MCTSPlayer(iterations={self.iterations}, seed={self.seed})"

    def choose(self, state: GameState) -> Action:
        """The most visited root action after ``iterations`` UCT iterations (reproducible per position)."""
        if state.is_terminal():
            raise ValueError("the game is over: there is no move to choose")
        n_legal = state.num_legal_actions()
        if n_legal == 1:
            return next(state.iter_legal_actions())
        rng = random.Random(key_seed(self.seed, state))
        rollout = RandomPlayer(rng.randrange(2**31))
        root = _Node(state.clone(), -1, None, rng)
        c = self.exploration
        mw = self.margin_weight
        for _ in range(self.iterations):
            node = root
            path = [root]
            # Selection: descend through fully expanded nodes by UCB1.
            while not node.untried and node.children:
                # floor -1, as in 0.2: rewards are 0-1, so it only matters for an exploration below 0
                node = ucb_child(node.children, c, node.n, floor=-1.0)
                path.append(node)
            # Expansion: one untried action.
            if node.untried:
                action = node.untried.pop()
                s = node.state.clone()
                mover = s.current_player()
                s.apply_action(action)
                child = _Node(s, mover, action, rng)
                node.children.append(child)
                node = child
                path.append(node)
            # Playout with the random player's policy.
            s = node.state.clone()
            choose = rollout.choose
            while not s.is_terminal():
                s.apply_action(choose(s))
            winner = s.winner()
            sc = s.scores()
            for nd in path:
                nd.n += 1
                if nd.mover >= 0:
                    r = 1.0 if winner == nd.mover else 0.0
                    if mw:
                        m = sc[nd.mover] - sc[1 - nd.mover]
                        r = (1.0 - mw) * r + mw * (0.5 + 0.5 * math.tanh(m / 20.0))
                    nd.w += r
        best = max(root.children, key=lambda ch: (ch.n, ch.w))
        assert best.action is not None      # only the root has no action
        return best.action


def make_mcts(arg: str | None, seed: int, advisor: Advisor | None = None) -> MCTSPlayer:
    """The ``mcts[:N]`` spec's factory (``advisor`` unused)."""
    iterations = DEFAULT_ITERATIONS
    if arg is not None:
        try:
            iterations = int(arg)
        except ValueError:
            raise ValueError(f"mcts player takes an iteration count (mcts:2000), not {arg!r}") from None
        if not 1 <= iterations <= 10_000_000:
            raise ValueError(f"mcts iterations must be in 1..10000000, not {arg}")
    return MCTSPlayer(iterations, seed)


__all__ = ["DEFAULT_ITERATIONS", "MCTSPlayer", "make_mcts"]
