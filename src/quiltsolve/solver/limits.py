"""The limits of one request, in one place: the gRPC service, the gRPC client
and the embedded client all accept exactly the same inputs.

Pure constants: this module imports nothing (in particular not OR-Tools), so
anything may import it cheaply.

>>> MAX_TIME_LIMIT, DEFAULT_SOLVE_LIMIT, DEFAULT_SUGGEST_LIMIT
(60.0, 10.0, 1.0)
"""

from __future__ import annotations

from typing import Final

# -- time ---------------------------------------------------------------
MAX_TIME_LIMIT: Final = 60.0          # seconds: the largest time limit of any solve
DEFAULT_SOLVE_LIMIT: Final = 10.0     # seconds: SolvePlacement / SolvePuzzle when none is given
DEFAULT_SUGGEST_LIMIT: Final = 1.0    # seconds: SuggestPlacement / SuggestMove when none is given
# SuggestMove with a fixed iteration budget and no time limit: the budget
# runs to its end unless this (or the call's deadline) stops it first.
DEFAULT_ITERATIONS_LIMIT: Final = MAX_TIME_LIMIT

# -- placement requests -------------------------------------------------
MAX_PATCH_REFS: Final = 64            # distinct entries of a patches / upcoming list
MAX_COUNT: Final = 81                 # copies of one patch (a board has 81 cells)
MAX_UPCOMING_COPIES: Final = 128      # copies in an upcoming list, all entries together
MAX_SHAPE_TEXT: Final = 512           # characters of a custom shape string
MAX_TOP: Final = 10_000               # ranked answers asked for (0 / None means all)

# -- puzzles ------------------------------------------------------------
MAX_PIECES: Final = 64                # pieces of one puzzle
MAX_TILINGS: Final = 100              # tilings returned by one find

# -- move suggestions ---------------------------------------------------
MAX_STATE_JSON: Final = 32 * 1024     # characters of a game state's JSON text
MAX_ITERATIONS: Final = 200_000       # fixed search budget of one move suggestion

# -- live analysis (AnalyzePosition) --------------------------------------
# A position's analysis takes SuggestMove's budgets (MAX_TIME_LIMIT, DEFAULT_SUGGEST_LIMIT,
# MAX_ITERATIONS) or runs until cancelled, at most MAX_ANALYSIS_TIME.
MAX_ANALYSIS_TIME: Final = 600.0      # seconds: an analysis until cancelled then sends its final update
DEFAULT_REPORT_INTERVAL: Final = 0.2  # seconds between two updates when none is asked for
MIN_REPORT_INTERVAL: Final = 0.05     # the shortest interval between two updates
MAX_REPORT_INTERVAL: Final = MAX_TIME_LIMIT

# -- exact solves (SolvePosition) ------------------------------------------
# The exact endgame solver run as long as asked, with progress (engine.solve). Its table is bounded by
# the request's table_mb, and never more than the server's --table-bytes (the embedded client's table_bytes).
MAX_SOLVE_POSITION_TIME: Final = 600.0        # seconds: the longest solve of a position
DEFAULT_SOLVE_POSITION_LIMIT: Final = 60.0    # seconds: a solve's time limit when none is given
DEFAULT_SOLVE_TABLE_BYTES: Final = 256 * 2**20  # bytes of a solve's transposition table when none is asked for
MIN_SOLVE_TABLE_MB: Final = 1                 # MiB: the smallest table a request may ask for (table_mb)

MAX_RECORD_ACTIONS: Final = 1000      # moves of one record a review takes
DEFAULT_REVIEW_LIMIT: Final = 0.2     # seconds of search per reviewed move when no budget is given
DEFAULT_LARGE_LOSS: Final = 0.1       # a loss of at least this much win chance is a large mistake
MAX_LARGE_LOSS: Final = 1.0           # the largest large-mistake threshold (a whole win chance)

# -- the game helpers (GameService) ---------------------------------------
# An engine move by the search is a SuggestMove (top 1): its time and iterations
# are MAX_TIME_LIMIT / DEFAULT_SUGGEST_LIMIT and MAX_ITERATIONS, its seed rule SuggestMove's.
MAX_SEED: Final = 2**31 - 1           # a deal's or a move's seed (an int32 >= 0)
MAX_LOAD_TEXT: Final = MAX_STATE_JSON  # characters of a position or record LoadPosition reads
MAX_MOVE_TEXT: Final = 2000           # characters of a move's text form that ApplyMove reads
CIRCLE_PATCHES: Final = 33            # patch ids of a starting circle (NewGame's circle): all of them, each once

__all__ = [
    "CIRCLE_PATCHES", "DEFAULT_ITERATIONS_LIMIT", "DEFAULT_SOLVE_POSITION_LIMIT", "DEFAULT_SOLVE_TABLE_BYTES",
    "MAX_SOLVE_POSITION_TIME", "MIN_SOLVE_TABLE_MB", "DEFAULT_LARGE_LOSS", "DEFAULT_REPORT_INTERVAL",
    "DEFAULT_REVIEW_LIMIT", "DEFAULT_SOLVE_LIMIT", "MAX_ANALYSIS_TIME", "MAX_REPORT_INTERVAL", "MIN_REPORT_INTERVAL",
    "DEFAULT_SUGGEST_LIMIT", "MAX_COUNT", "MAX_LARGE_LOSS", "MAX_RECORD_ACTIONS",
    "MAX_ITERATIONS", "MAX_LOAD_TEXT", "MAX_MOVE_TEXT", "MAX_PATCH_REFS", "MAX_SEED", "MAX_PIECES",
    "MAX_SHAPE_TEXT", "MAX_STATE_JSON",
    "MAX_TILINGS", "MAX_TIME_LIMIT", "MAX_TOP", "MAX_UPCOMING_COPIES",
]
