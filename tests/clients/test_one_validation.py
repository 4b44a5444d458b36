"""One validation (issue 17): the service checks every range and limit; the Python clients only
turn values into the request. So the embedded and the gRPC client refuse the same bad value with
the same code, the same ``field`` and the service's own message; and what cannot even be put in
the request is refused client-side, before anything is sent, naming the field the same way."""

from __future__ import annotations

import json

import pytest

from quiltsolve import engine
from quiltsolve.clients import AsyncPlacementClient, EmbeddedClient, InvalidArgument, PlacementClient
from quiltsolve.solver import limits

from .conftest import EMPTY, distinct_shapes
from ..aio import run_coroutine

CIRCLE = engine.new_game(1).circle
GOOD_RECORD = {"circle": CIRCLE, "actions": ["advance"]}


# (case, call, field the refusal names): each is refused by the service (server/convert.py, service.py).
SERVICE_REFUSES = [
    ("time limit 0", lambda c: c.solve_placement(EMPTY, [1], time_limit=0), "time_limit"),
    ("time limit 100", lambda c: c.solve_placement(EMPTY, [1], time_limit=100), "time_limit"),
    ("time limit -1", lambda c: c.suggest_placement(EMPTY, 1, [2], time_limit=-1), "time_limit"),
    ("top over", lambda c: c.suggest_placement(EMPTY, 1, [2], top=limits.MAX_TOP + 1), "top"),
    ("top -1", lambda c: c.suggest_move(engine.new_game(1), top=-1, iterations=10), "top"),
    ("iterations over", lambda c: c.suggest_move(engine.new_game(1), iterations=limits.MAX_ITERATIONS + 1),
     "iterations"),
    ("iterations -1", lambda c: c.analyze_game(GOOD_RECORD, iterations=-1), "iterations"),
    ("seed -1", lambda c: c.analyze_game(GOOD_RECORD, iterations=10, seed=-1), "seed"),
    ("max_tilings over", lambda c: c.solve_puzzle(["..."], ["#"] * 3, max_tilings=limits.MAX_TILINGS + 1),
     "max_tilings"),
    ("max_tilings -1", lambda c: c.solve_puzzle(["..."], ["#"] * 3, max_tilings=-1), "max_tilings"),
    ("large_loss 2", lambda c: c.analyze_game(GOOD_RECORD, iterations=10, large_loss=2), "large_loss"),
    ("large_loss -0.5", lambda c: c.analyze_game(GOOD_RECORD, iterations=10, large_loss=-0.5), "large_loss"),
    ("time per move 61", lambda c: c.analyze_game(GOOD_RECORD, time_per_move=61), "time_per_move"),
    ("board 8 rows", lambda c: c.solve_placement(EMPTY[:8], [1]), "board.rows"),
    ("board bad cell", lambda c: c.solve_placement(EMPTY[:2] + ["..x......"] + EMPTY[3:], [1]), "board.rows[2]"),
    ("board short row", lambda c: c.suggest_placement(["." * 8] + EMPTY[1:], 1), "board.rows[0]"),
    ("patch id 99", lambda c: c.solve_placement(EMPTY, [1, 99]), "patches[1].id"),
    ("patch id 40 to place", lambda c: c.suggest_placement(EMPTY, 40), "patch.id"),
    ("no patches", lambda c: c.solve_placement(EMPTY, []), "patches"),
    ("shape not connected", lambda c: c.solve_placement(EMPTY, ["#.#"]), "patches[0].shape"),
    ("shape off the board", lambda c: c.solve_placement(EMPTY, ["#" * 10]), "patches[0].shape"),
    ("shape text too long", lambda c: c.solve_placement(EMPTY, ["#" + "." * limits.MAX_SHAPE_TEXT]),
     "patches[0].shape"),
    ("patch twice, id and shape", lambda c: c.solve_placement(EMPTY, [0, "##"]), "patches[1]"),
    ("patch twice, two orientations", lambda c: c.solve_placement(EMPTY, ["##./.##", ".##/##."]), "patches[1]"),
    ("leather twice", lambda c: c.suggest_placement(EMPTY, 1, [-1, "#"]), "upcoming[1]"),
    ("too many copies", lambda c: c.solve_placement(EMPTY, [1] * (limits.MAX_COUNT + 1)), "patches[0].count"),
    ("too many patches", lambda c: c.solve_placement(EMPTY, distinct_shapes(limits.MAX_PATCH_REFS + 1)),
     "patches"),
    ("too many upcoming", lambda c: c.suggest_placement(EMPTY, 1, [0] * 80 + [2] * (limits.MAX_UPCOMING_COPIES - 79)),
     "upcoming"),
    ("region 21 rows", lambda c: c.solve_puzzle(["."] * 21, ["#"]), "region.rows"),
    ("region 21 columns", lambda c: c.solve_puzzle(["." * 21], ["#"]), "region.rows[0]"),
    ("region ragged", lambda c: c.solve_puzzle(["..", "..."], ["##"]), "region.rows[1]"),
    ("region nothing to tile", lambda c: c.solve_puzzle(["##"], ["#"]), "region.rows"),
    ("too many pieces", lambda c: c.solve_puzzle(["." * 20] * 4, ["#"] * (limits.MAX_PIECES + 1), use_all=False),
     "pieces"),
    ("no pieces", lambda c: c.solve_puzzle(["..."], []), "pieces"),
    ("bad piece", lambda c: c.solve_puzzle(["..."], ["#", "#.#"]), "pieces[1]"),
    ("generate family and pieces", lambda c: c.generate_puzzle(family="patches", pieces=["#"]), "pieces"),
    ("generate too tall", lambda c: c.generate_puzzle(size=(21, 5)), "height"),
    ("generate half a size", lambda c: c.generate_puzzle(size=(0, 5)), "height"),
    ("generate uncoverable region", lambda c: c.generate_puzzle(region=["...."]), "region"),
    ("generate seed -1", lambda c: c.generate_puzzle(seed=-1), "seed"),
    ("record illegal move", lambda c: c.analyze_game(dict(GOOD_RECORD, actions=["advance", "buy 99 0,0"]),
                                                     iterations=10), "record.actions[1]"),
    ("record no moves", lambda c: c.analyze_game(dict(GOOD_RECORD, actions=[]), iterations=10), "record.actions"),
    ("record too long", lambda c: c.analyze_game(
        dict(GOOD_RECORD, actions=["advance"] * (limits.MAX_RECORD_ACTIONS + 1)), iterations=10), "record.actions"),
    ("record bad circle", lambda c: c.analyze_game({"circle": [1, 2], "actions": ["advance"]}), "record.circle"),
    ("state too large", lambda c: c.suggest_move(
        json.dumps(dict(engine.new_game(1).to_json(), padding="x" * limits.MAX_STATE_JSON)), iterations=10), "state"),
]


def _refusal(call, client) -> InvalidArgument:
    with pytest.raises(InvalidArgument) as e:
        call(client)      # analyze_game too: its first review is pulled at the call
    return e.value


@pytest.mark.parametrize("case, call, field", SERVICE_REFUSES, ids=[c[0] for c in SERVICE_REFUSES])
def test_both_clients_get_the_services_refusal(embedded, remote, case, call, field):
    got = [_refusal(call, client) for client in (embedded, remote)]
    assert [(e.code, e.field) for e in got] == [("INVALID_ARGUMENT", field)] * 2, [str(e) for e in got]
    # The service's own message, the same for both, starting with the field it names.
    assert str(got[0]) == str(got[1]) and str(got[0]).startswith(f"{field}: "), [str(e) for e in got]


def test_enough_cases():
    assert len(SERVICE_REFUSES) >= 15 and len(CLIENT_REFUSES) >= 8


# (case, call, field): values that cannot even be put in the request: refused by the client itself.
CLIENT_REFUSES = [
    ("time limit nan", lambda c: c.solve_placement(EMPTY, [1], time_limit=float("nan")), "time_limit"),
    ("time limit inf", lambda c: c.solve_puzzle(["..."], ["#"] * 3, time_limit=float("inf")), "time_limit"),
    ("time limit text", lambda c: c.suggest_move(engine.new_game(1), time_limit="soon"), "time_limit"),
    ("top text", lambda c: c.suggest_placement(EMPTY, 1, top="3"), "top"),
    ("top beyond int32", lambda c: c.suggest_move(engine.new_game(1), top=2**31), "top"),
    ("iterations 0", lambda c: c.suggest_move(engine.new_game(1), iterations=0), "iterations"),
    ("iterations float", lambda c: c.analyze_game(GOOD_RECORD, iterations=2.5), "iterations"),
    ("seed beyond int32", lambda c: c.analyze_game(GOOD_RECORD, seed=2**40), "seed"),
    ("large_loss 0", lambda c: c.analyze_game(GOOD_RECORD, large_loss=0), "large_loss"),
    ("max_tilings text", lambda c: c.solve_puzzle(["..."], ["#"], max_tilings="2"), "max_tilings"),
    ("mask too large", lambda c: c.solve_placement(2**81, [1]), "board"),
    ("board row not text", lambda c: c.solve_placement(EMPTY[:8] + [7], [1]), "board.rows[8]"),
    ("patch a float", lambda c: c.solve_placement(EMPTY, [1, 1, 1.5]), "patches[1]"),
    ("patch id beyond int32", lambda c: c.solve_placement(EMPTY, [2, 2**40]), "patches[1].id"),
    ("piece unknown id", lambda c: c.solve_puzzle(["..."], ["#", 99]), "pieces[1]"),
    ("record not an object", lambda c: c.analyze_game("[1, 2]"), "record"),
    ("record move not text", lambda c: c.analyze_game(dict(GOOD_RECORD, actions=["advance", 3])),
     "record.actions[1]"),
]


@pytest.mark.parametrize("case, call, field", CLIENT_REFUSES, ids=[c[0] for c in CLIENT_REFUSES])
def test_what_cannot_be_sent_is_refused_before_sending_alike(closed_port, case, call, field):
    # Nothing listens at the gRPC client's port: the refusal cannot come from a service.
    with PlacementClient(f"127.0.0.1:{closed_port}", retries=0, deadline=2) as remote:
        got = [_refusal(call, client) for client in (EmbeddedClient(), remote)]
    assert [(e.code, e.field) for e in got] == [("INVALID_ARGUMENT", field)] * 2, [str(e) for e in got]
    assert str(got[0]) == str(got[1]) and str(got[0]).startswith(f"{field}: ")


def test_a_client_seed_out_of_range_is_the_services_refusal(port):
    # Only its type is the client's; that it is >= 0 is the service's check, at each call.
    with PlacementClient(f"127.0.0.1:{port}", seed=-1) as remote:
        for client in (EmbeddedClient(seed=-1), remote):
            e = _refusal(lambda c: c.solve_placement(EMPTY, [1]), client)
            assert (e.code, e.field) == ("INVALID_ARGUMENT", "seed") and str(e).startswith("seed: must be >= 0")
    for make in (lambda: EmbeddedClient(seed=2**31), lambda: PlacementClient("127.0.0.1:1", seed="7")):
        with pytest.raises(InvalidArgument) as err:
            make()
        assert err.value.field == "seed"


def test_the_async_client_gets_the_same_refusals(port, embedded):
    cases = [SERVICE_REFUSES[i] for i in (1, 3, 16, 22, 28)]

    async def refusals():
        out = []
        async with AsyncPlacementClient(f"127.0.0.1:{port}", deadline=20) as c:
            for _, call, _ in cases:
                with pytest.raises(InvalidArgument) as e:
                    await call(c)
                out.append((e.value.field, str(e.value)))
            # A review's refusal comes at the first __anext__, before any move is reviewed.
            reviews = c.analyze_game(dict(GOOD_RECORD, actions=["advance", "buy 99 0,0"]), iterations=10)
            with pytest.raises(InvalidArgument) as e:
                await reviews.__anext__()
            out.append((e.value.field, str(e.value)))
        return out

    got = run_coroutine(refusals())
    expected = [(f, str(_refusal(call, embedded))) for _, call, f in cases]
    assert got[:-1] == expected
    assert got[-1][0] == "record.actions[1]"


@pytest.mark.parametrize("option, needle", [
    (["--iterations", "0"], "iterations: 0 cannot be sent"),
    (["--iterations", str(limits.MAX_ITERATIONS + 1)], f"iterations: {limits.MAX_ITERATIONS + 1}; must be 0"),
    (["--time-limit", "100"], "time_limit: 100 s is more than the maximum 60 s"),
    (["--time-limit", "0"], "time_limit: must be positive"),
    (["--time-limit", "nan"], "time_limit: nan is not a finite number"),
])
def test_play_refuses_bad_hint_options_before_the_game(cli, option, needle):
    # The service's checks of the hints' request, run before the first move: exit 2, one line.
    r = cli("play", "--follow", *option, stdin="quit\n")
    assert r.code == 2 and r.out == "" and r.err.count("\n") == 1 and needle in r.err, (r.code, r.out, r.err)


@pytest.mark.parametrize("record, field, needle", [
    (dict(GOOD_RECORD, players=["a"]), "record.players", "must be the two player specs"),
    (dict(GOOD_RECORD, colour="red"), "record.colour", "unknown field of a game record; it has edition, seed"),
    (dict(GOOD_RECORD, seed=1.5), "record.seed", "must be an integer"),
])
def test_record_fields_never_sent_are_checked_by_the_client(embedded, port, record, field, needle):
    # players, seed and unknown fields are the record format's (engine/record.py): not in the request,
    # checked by the record codec (server/records.py), named by field, the same in every client.
    with PlacementClient(f"127.0.0.1:{port}") as remote:
        for client in (embedded, remote):
            with pytest.raises(InvalidArgument) as e:
                client.analyze_game(record, iterations=10)
            assert e.value.field == field and str(e.value).startswith(f"{field}: {needle}"), str(e.value)


@pytest.mark.parametrize("region, pieces, kw, field", [
    (["."] * 21, ["#"], {}, "region.rows"),
    (["..."], ["#"] * (limits.MAX_PIECES + 1), {}, "pieces"),
    (["..."], ["#.#"], {}, "pieces[0]"),
    (["..."], ["#"], {"time_limit": 100}, "time_limit"),
    (["..."], ["#"], {"max_tilings": -1}, "max_tilings"),
])
def test_a_ray_count_is_checked_by_the_services_own_validation(region, pieces, kw, field):
    # suggest puzzle --count --ray: the request is refused before Ray is even imported.
    from quiltsolve.clients.ray_puzzle import RayCountClient

    with pytest.raises(InvalidArgument) as e:
        RayCountClient(EmbeddedClient(), "local").solve_puzzle(region, pieces, count=True, **kw)
    assert (e.value.code, e.value.field) == ("INVALID_ARGUMENT", field)
    assert str(e.value) == str(_refusal(lambda c: c.solve_puzzle(region, pieces, count=True, **kw),
                                        EmbeddedClient()))


@pytest.mark.parametrize("kw, field", [({"unlimited": ["##"]}, "unlimited_pieces"), ({"method": "frontier"}, "method")])
def test_a_ray_count_refuses_unlimited_pieces_and_the_frontier(kw, field):
    # the Ray split is the search's; both are refused before Ray is imported, naming the field
    from quiltsolve.clients.ray_puzzle import RayCountClient

    with pytest.raises(InvalidArgument) as e:
        RayCountClient(EmbeddedClient(), "local").solve_puzzle(["....."], ["###"], count=True, **kw)
    assert (e.value.code, e.value.field) == ("INVALID_ARGUMENT", field) and "--ray" in str(e.value)
