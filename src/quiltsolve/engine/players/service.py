"""``service`` — plays the best move of :func:`engine.suggest.suggest_moves`.

Its advisor (where to put a patch) is the solver in-process by default, or
the placement service when ``python -m quiltsolve.engine match --server HOST:PORT``
passes one (built through the ``quiltsolve.advisors`` entry point, so the
engine never imports ``clients``).

    python -m quiltsolve.engine match --a service --b greedy --games 200 --seed 1
    python -m quiltsolve.engine match --a service:0.2 --b greedy --server localhost:50051

``service:S`` sets the thinking time per move in seconds (default 0.1).
"""

from __future__ import annotations

from ..actions import ADVANCE, Action
from ..advisor import Advisor, SolverAdvisor
from ..state import GameState
from ..suggest import DEFAULT_WEIGHTS, Weights, suggest_moves

__all__ = ["DEFAULT_TIME_LIMIT", "ServicePlayer", "make_service"]

DEFAULT_TIME_LIMIT = 0.1


class ServicePlayer:
    """Plays the top suggestion. ``advisor`` None → ``SolverAdvisor()``."""

    name = "service"

    def __init__(self, advisor: Advisor | None = None, time_limit: float = DEFAULT_TIME_LIMIT, seed: int = 0,
                 weights: Weights = DEFAULT_WEIGHTS) -> None:
        if not time_limit > 0:
            raise ValueError(f"service player time limit must be > 0, not {time_limit}")
        self.advisor = advisor if advisor is not None else SolverAdvisor(seed=seed)
        self.time_limit = time_limit
        self.seed = seed
        self.weights = weights

    def choose(self, state: GameState) -> Action:
        """The top move of :func:`engine.suggest.suggest_moves` (advance for a position without moves)."""
        moves = suggest_moves(state, advisor=self.advisor, time_limit=self.time_limit, top=1, seed=self.seed,
                              weights=self.weights)
        return moves[0].action if moves else ADVANCE

    def __repr__(self) -> str:
        return f"ServicePlayer({self.advisor!r}, time_limit={self.time_limit})"


def make_service(arg: str | None, seed: int, advisor: Advisor | None = None) -> ServicePlayer:
    """The ``service[:S]`` spec's factory."""
    time_limit = DEFAULT_TIME_LIMIT
    if arg is not None:
        try:
            time_limit = float(arg)
        except ValueError:
            raise ValueError(f"service player takes a time limit in seconds (service:0.1), not {arg!r}") from None
        if not 0 < time_limit <= 60:
            raise ValueError(f"service player time limit must be in (0, 60] s, not {arg}")
    return ServicePlayer(advisor, time_limit, seed)

