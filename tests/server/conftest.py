"""A real server on an ephemeral port, shared by the server tests."""

from __future__ import annotations

import sys
from pathlib import Path

import grpc
import pytest

from quiltsolve.patchwork.v1 import placement_pb2_grpc as pbg
from quiltsolve.server import ServerConfig, build_server

# Worker processes unpickle the test jobs (jobs_for_tests.py) by their module's name,
# tests.server.jobs_for_tests, with this process's sys.path (multiprocessing hands it to every
# new worker): the repository root must be on it, as it is under `python -m pytest` run there.
_ROOT = str(Path(__file__).resolve().parents[2])
if _ROOT not in sys.path:
    sys.path.append(_ROOT)


@pytest.fixture(scope="session")
def running():
    """(server, port) of one server for the whole session."""
    server, port = build_server(ServerConfig(host="127.0.0.1", port=0, workers=2, max_queue=64))
    server.start()
    yield server, port
    server.stop(0).wait(5)


@pytest.fixture(scope="session")
def channel(running):
    _, port = running
    ch = grpc.insecure_channel(f"127.0.0.1:{port}")
    grpc.channel_ready_future(ch).result(timeout=10)
    yield ch
    ch.close()


@pytest.fixture(scope="session")
def stub(channel):
    return pbg.PlacementServiceStub(channel)


@pytest.fixture(scope="session")
def metrics(running):
    return running[0].metrics


def play(seed: int, plies: int):
    """A game state after ``plies`` moves of random vs greedy play (seeded)."""
    from quiltsolve import engine
    from quiltsolve.engine.players import GreedyPlayer, RandomPlayer

    state = engine.new_game(seed)
    players = [RandomPlayer(seed), GreedyPlayer()]
    for _ in range(plies):
        if state.is_terminal():
            break
        state.apply_action(players[state.current_player()].choose(state))
    return state


def state_json(state) -> str:
    import json
    return json.dumps(state.to_json())


MIDGAME_BOARD = [".........", ".........", ".........", "###......", "#.##...#.",
                 "#########", "#########", "##.#####.", "#####.###"]


def greedy_game(seed: int):
    """(start, actions, states) of a seeded greedy-vs-greedy game played to its end: ``states[i]`` is the
    position before ``actions[i]``."""
    from quiltsolve import engine
    from quiltsolve.engine.players import GreedyPlayer

    state = engine.new_game(seed)
    start, greedy = state.clone(), GreedyPlayer()
    actions, states = [], []
    while not state.is_terminal():
        action = greedy.choose(state)
        states.append(state.clone())
        actions.append(action)
        state.apply_action(action)
    return start, actions, states


def endgame(seed: int = 1, back: int = 3):
    """A position ``back`` plies before the end of a seeded greedy game: small enough for the endgame
    solver to prove at once (seed 1, back 3 has a won move and a tie on points won on the tie rule)."""
    return greedy_game(seed)[2][-back]
