"""One golden scenario per rule, each from an explicit state (both editions where it matters)."""

import pytest
from engine_helpers import build, rows

from quiltsolve.engine import ADVANCE, Buy, GameState, IllegalActionError, PlaceLeather, new_game
from quiltsolve.engine.track import END, LEATHER_SPACES
from quiltsolve.solver import PATCH_MASKS, PATCHES, mask_of

EDITIONS = ["revised", "original"]


def first_fit(pid: int, board: int) -> int:
    return next(m for m in PATCH_MASKS[pid] if not m & board)


# ----------------------------------------------------------------- set-up
@pytest.mark.parametrize("edition", EDITIONS)
def test_new_game_setup(edition):
    s = new_game(7, edition)
    assert s.circle == new_game(7, edition).circle != new_game(8, edition).circle
    assert sorted(s.circle) == list(range(33)) and s.circle[-1] == 0
    assert s.available_patches() == s.circle[:3]
    assert s.current_player() == 0 and s.pending_leather is None and not s.is_terminal()
    assert [(p.buttons, p.position, p.board, p.income) for p in s.players] == [(5, 0, 0, 0)] * 2
    assert tuple(s.leather) == LEATHER_SPACES[edition]
    assert s.edition == edition


def test_patch_zero_is_last_reachable():
    s = new_game(3)
    for _ in range(10):            # skip around the circle by buying nothing: the circle stays
        s.apply_action(ADVANCE)
    assert s.circle[-1] == 0


# -------------------------------------------------------------- whose turn
@pytest.mark.parametrize("edition", EDITIONS)
def test_several_turns_in_a_row(edition):
    s = build({"position": 3}, {"position": 10}, front=[25, 31, 13], edition=edition)
    s.apply_action(Buy(25, first_fit(25, 0)))          # time 1: 3 -> 4, still behind
    assert (s.players[0].position, s.current_player()) == (4, 0)
    s.apply_action(Buy(31, first_fit(31, s.players[0].board)))  # time 1: 4 -> 5
    assert (s.players[0].position, s.current_player()) == (5, 0)


@pytest.mark.parametrize("edition", EDITIONS)
def test_on_top_moves_first(edition):
    s = build({"position": 5}, {"position": 8}, front=[29], edition=edition)
    s.apply_action(Buy(29, first_fit(29, 0)))          # time 3: lands on 8, on top of player 1
    assert s.players[0].position == s.players[1].position == 8
    assert s.current_player() == 0
    s.apply_action(ADVANCE)                            # in front of player 1: 1 space, 1 button
    assert (s.players[0].position, s.players[0].buttons, s.current_player()) == (9, 5 - 2 + 1, 1)


def test_on_top_for_player_one_too():
    s = build({"position": 9}, {"position": 6}, front=[1], current=1)
    s.apply_action(Buy(1, first_fit(1, 0)))            # time 2: 6 -> 8, still behind
    s.apply_action(ADVANCE)                            # 8 -> 10, in front of player 0
    assert s.current_player() == 0
    s2 = build({"position": 9}, {"position": 6}, front=[29], current=1)
    s2.apply_action(Buy(29, first_fit(29, 0)))         # time 3: 6 -> 9 on top
    assert s2.current_player() == 1


def test_both_on_start_space_player_zero_first():
    s = new_game(1)
    assert s.current_player() == 0


# ------------------------------------------------------------ buy / advance
def test_buy_pays_cost_moves_token_and_places():
    s = build({"position": 0, "buttons": 9}, {"position": 2}, front=[13, 31, 8, 25])
    m = first_fit(8, 0)
    s.apply_action(Buy(8, m))                          # the third patch: cost 4, time 2
    p = s.players[0]
    assert (p.buttons, p.position, p.board, p.patches[-1]) == (5, 2, m, 8)
    # The token now stands where patch 8 was: the circle goes on after it,
    # and the two skipped patches are now the farthest away.
    assert s.circle[:1] == [25] and s.circle[-2:] == [13, 31]


@pytest.mark.parametrize("edition", EDITIONS)
def test_advance_pays_only_the_spaces_moved(edition):
    s = build({"position": 12}, {"position": 15}, edition=edition)
    s.apply_action(ADVANCE)
    assert (s.players[0].position, s.players[0].buttons) == (16, 5 + 4)   # no income: board empty
    s = build({"position": 50}, {"position": END}, first_to_end=1, edition=edition)
    s.apply_action(ADVANCE)                            # capped: 3 spaces, not 4
    assert (s.players[0].position, s.players[0].buttons) == (END, 5 + 3)


@pytest.mark.parametrize("edition", EDITIONS)
def test_movement_caps_at_53(edition):
    s = build({"position": 50, "buttons": 7}, {"position": 51}, front=[28], edition=edition)
    s.apply_action(Buy(28, first_fit(28, 0)))          # time 6 from 50
    p = s.players[0]
    # Crossing 53 pays the final income once, with patch 28's 3 buttons already counted.
    assert (p.position, p.buttons, s.first_to_end) == (END, 0 + 3, 0)
    assert s.current_player() == 1 and not s.is_terminal()


def test_crossing_two_income_spaces_pays_twice():
    s = build({"position": 4, "patches": [32], "board": rows("#####")}, {"position": 11})
    assert s.players[0].income == 3
    s.apply_action(ADVANCE)                            # 4 -> 12 crosses 5 and 11
    assert s.players[0].buttons == 5 + 8 + 2 * 3


def test_bought_patch_counts_for_income_on_the_same_move():
    s = build({"position": 4}, {"position": 9}, front=[17])
    s.apply_action(Buy(17, first_fit(17, 0)))          # cost 4, time 2, income 1; crosses 5
    assert s.players[0].buttons == 5 - 4 + 1


# ------------------------------------------------------------------ leather
@pytest.mark.parametrize("edition", EDITIONS)
def test_leather_goes_to_the_first_to_cross(edition):
    space = LEATHER_SPACES[edition][0]
    s = build({"position": space - 2, "board": rows("##")}, {"position": space - 1}, edition=edition)
    s.apply_action(ADVANCE)
    assert s.pending_leather == 0 and s.leather_to_place == 1 and space not in s.leather
    acts = s.legal_actions()
    assert len(acts) == 79 and all(isinstance(a, PlaceLeather) for a in acts)
    with pytest.raises(IllegalActionError, match="must first place the leather patch"):
        s.apply_action(ADVANCE)
    with pytest.raises(IllegalActionError, match="covered cell 0,1"):
        s.apply_action(PlaceLeather((0, 1)))
    s.apply_action(PlaceLeather((8, 8)))
    assert s.players[0].leather == 1 and s.players[0].board >> 80 & 1
    assert s.current_player() == 1
    s.apply_action(ADVANCE)                            # crosses the same space: nothing left there
    assert s.pending_leather is None and s.players[1].leather == 0 and s.current_player() == 0


def test_two_leathers_at_once_cannot_happen_on_the_printed_tracks():
    # Leather spaces are >= 6 apart and no patch costs more than 6 time; an
    # advance stops just past the opponent, who is before every leather left.
    for spaces in LEATHER_SPACES.values():
        assert min(b - a for a, b in zip(spaces, spaces[1:])) >= max(p.time for p in PATCHES)


def two_leathers_ahead(edition, board=0, bonus=False):
    """Player 0 at 20 buys patch 1 (time 2): the track is set by hand to hold
    leather on 21 and 22 so that one move crosses two."""
    s = build({"position": 20, "board": board, "bonus": bonus}, {"position": 21}, front=[1], edition=edition)
    s.leather = (21, 22) + tuple(x for x in LEATHER_SPACES[edition] if x > 22)
    return s


@pytest.mark.parametrize("edition", EDITIONS)
def test_two_leathers_taken_at_once_and_placed_by_the_mover(edition):
    s = two_leathers_ahead(edition)
    s.apply_action(Buy(1, first_fit(1, 0)))            # 20 -> 22 crosses 21 and 22
    assert s.leather_to_place == 2 and s.current_player() == 0   # even though now ahead
    s.apply_action(PlaceLeather((8, 0)))
    assert s.leather_to_place == 1 and s.current_player() == 0
    s.apply_action(PlaceLeather((8, 1)))
    assert s.leather_to_place == 0 and s.current_player() == 1 and s.players[0].leather == 2
    assert 21 not in s.leather and 22 not in s.leather


@pytest.mark.parametrize("edition", EDITIONS)
def test_leather_lost_when_board_full(edition):
    space = LEATHER_SPACES[edition][0]
    full = (1 << 81) - 1
    s = build({"position": space - 2, "board": full, "bonus": True}, {"position": space - 1}, edition=edition)
    s.apply_action(ADVANCE)
    assert s.pending_leather is None and space not in s.leather and s.current_player() == 1
    # Room for patch 1 and one cell more, two leathers crossed: the first
    # fills the last cell, the second is lost.
    m1 = PATCH_MASKS[1][0]
    s = two_leathers_ahead(edition, board=full ^ m1 ^ (1 << 80), bonus=True)
    s.apply_action(Buy(1, m1))
    assert s.leather_to_place == 1 and s.legal_actions() == [PlaceLeather((8, 8))]
    s.apply_action(PlaceLeather((8, 8)))
    assert s.pending_leather is None and s.players[0].board == full and s.current_player() == 1
    assert 21 not in s.leather and 22 not in s.leather


@pytest.mark.parametrize("edition", EDITIONS)
def test_leather_on_the_move_reaching_53_is_still_placed(edition):
    s = build({"position": 49, "buttons": 10}, {"position": 49}, front=[32], edition=edition)
    s.apply_action(Buy(32, first_fit(32, 0)))          # time 4: 49 -> 53 crosses 50
    assert s.players[0].position == END and s.pending_leather == 0
    s.apply_action(PlaceLeather((4, 4)))
    assert s.current_player() == 1
    # The last to arrive can take none (all are gone) and the game ends.
    s.apply_action(ADVANCE)
    assert s.is_terminal() and s.legal_actions() == []


# --------------------------------------------------------------- 7x7 bonus
SQUARE = mask_of((r, c) for r in range(7) for c in range(7))


@pytest.mark.parametrize("edition", EDITIONS)
def test_bonus_awarded_once_and_kept(edition):
    domino = mask_of([(6, 5), (6, 6)])
    assert domino in PATCH_MASKS[0]
    s = build({"board": SQUARE ^ domino, "position": 10}, {"board": SQUARE ^ domino, "position": 12},
              front=[0, 31, 25], edition=edition)
    s.apply_action(Buy(0, domino))
    assert s.players[0].bonus and s.bonus_owner == 0
    s.apply_action(ADVANCE)                            # 11 -> 13: player 1's turn
    s.apply_action(Buy(31, first_fit(31, s.players[1].board)))
    assert s.players[0].bonus and not s.players[1].bonus   # never taken back
    s2 = build({"board": SQUARE, "position": 13, "bonus": True}, {"board": SQUARE ^ domino, "position": 12},
               front=[0], current=1, edition=edition)
    s2.apply_action(Buy(0, domino))
    assert s2.players[0].bonus and not s2.players[1].bonus
    assert s2.scores() == (5 + 7 - 2 * (81 - 49), 5 - 2 - 2 * (81 - 49))


@pytest.mark.parametrize("edition", EDITIONS)
def test_bonus_from_a_leather_patch(edition):
    space = LEATHER_SPACES[edition][0]
    s = build({"board": SQUARE ^ 1, "position": space - 2}, {"position": space - 1}, edition=edition)
    s.apply_action(ADVANCE)
    s.apply_action(PlaceLeather((0, 0)))
    assert s.players[0].bonus


def test_bonus_square_anywhere():
    sq = mask_of((r, c) for r in range(2, 9) for c in range(1, 8))
    cell = 1 << (2 * 9 + 1)
    s = build({"board": sq ^ cell, "position": 24}, {"position": 25})
    s.apply_action(ADVANCE)
    s.apply_action(PlaceLeather((2, 1)))
    assert s.bonus_owner == 0


# ----------------------------------------------------------- end and score
def test_final_income_at_53():
    s = build({"position": 50, "patches": [32], "board": rows("#####")}, {"position": END}, first_to_end=1)
    s.apply_action(ADVANCE)
    assert s.players[0].buttons == 5 + 3 + 3 and s.is_terminal()


@pytest.mark.parametrize("first", [0, 1])
def test_tie_goes_to_first_at_53(first):
    last = 1 - first
    p_first = {"position": END, "buttons": 10}
    p_last = {"position": 52, "buttons": 9}
    specs = (p_first, p_last) if first == 0 else (p_last, p_first)
    s = build(*specs, current=last, first_to_end=first)
    s.apply_action(ADVANCE)                            # +1: 10 buttons each, empty boards
    assert s.is_terminal() and s.scores() == (10 - 162, 10 - 162)
    assert s.winner() == first


def test_higher_score_wins_and_scores_can_be_negative():
    s = build({"position": END, "buttons": 3}, {"position": 52, "buttons": 9, "board": rows("######")},
              current=1, first_to_end=0)
    s.apply_action(ADVANCE)
    assert s.scores() == (3 - 162, 10 - 2 * 75) and s.winner() == 1


def test_not_over_until_both_at_53():
    s = build({"position": END}, {"position": 40}, current=1, first_to_end=0)
    assert not s.is_terminal() and s.winner() is None


# ----------------------------------------------------------- illegal actions
def test_illegal_actions_name_the_rule():
    s = build({"position": 0, "buttons": 3, "board": rows("##")}, {"position": 2}, front=[5, 32, 1, 25])
    with pytest.raises(IllegalActionError, match=r"patch 25 is not one of the patches in front of the token \(5, 32, 1\)"):
        s.apply_action(Buy(25, first_fit(25, 0)))
    with pytest.raises(IllegalActionError, match="patch 32 costs 10 buttons but player 0 has 3"):
        s.apply_action(Buy(32, first_fit(32, 0)))
    with pytest.raises(IllegalActionError, match=r"not a placement of patch 1"):
        s.apply_action(Buy(1, mask_of([(0, 0), (5, 5), (8, 8)])))
    with pytest.raises(IllegalActionError, match="would overlap covered cells 0,0;0,1"):
        s.apply_action(Buy(1, PATCH_MASKS[1][0]))
    with pytest.raises(IllegalActionError, match="no leather patch to place"):
        s.apply_action(PlaceLeather((4, 4)))
    with pytest.raises(IllegalActionError, match="is not an action"):
        s.apply_action("advance")
    before = s.to_json()
    assert s.to_json() == before                        # failed actions change nothing
    done = build({"position": END}, {"position": END}, first_to_end=0)
    with pytest.raises(IllegalActionError, match="game is over"):
        done.apply_action(ADVANCE)


def test_unplaceable_patch_is_not_legal():
    full_but_one = (1 << 81) - 2
    s = build({"board": full_but_one, "buttons": 20, "bonus": True}, {"position": 1}, front=[0, 1, 31])
    assert s.legal_actions() == [ADVANCE] and s.buyable_patches() == []


def test_patch_ids_in_legal_actions_are_available_and_affordable():
    s = build({"buttons": 2}, {"position": 1}, front=[0, 32, 26])   # costs 2, 10, 1
    kinds = {a.patch_id for a in s.legal_actions() if isinstance(a, Buy)}
    assert kinds == {0, 26}
    assert len(s.legal_actions()) == 1 + len(PATCH_MASKS[0]) + len(PATCH_MASKS[26])


def test_patch_data_matches_rules():
    assert len(PATCHES) == 33 and PATCHES[0].buttons == 2 and PATCHES[0].time == 1


def test_state_repr_and_eq():
    a, b = new_game(1), new_game(1)
    assert a == b and "GameState(" in repr(a)
    b.apply_action(ADVANCE)
    assert a != b
    assert isinstance(GameState.from_json(a.to_json()), GameState)
