"""Action text forms: stable, parse back, bad text is a clear ActionSyntaxError."""

import pytest

from quiltsolve.engine import ADVANCE, ActionSyntaxError, Advance, Buy, PlaceLeather, parse_action
from quiltsolve.solver import PATCH_MASKS, mask_of


def test_text_forms_round_trip():
    m = PATCH_MASKS[21][5]
    for a in (ADVANCE, Buy(21, m), PlaceLeather((3, 4))):
        assert parse_action(a.to_str()) == a
        assert type(a).from_str(a.to_str()) == a
    assert Buy(0, mask_of([(4, 3), (4, 2)])).to_str() == "buy 0 4,2;4,3"   # cells row-major
    assert Buy(0, mask_of([(4, 3), (4, 2)])).cells() == [(4, 2), (4, 3)]
    assert PlaceLeather((8, 0)).to_str() == "leather 8,0" and PlaceLeather((8, 0)).mask == 1 << 72
    assert Advance() == ADVANCE and ADVANCE.to_str() == "advance"


def test_actions_are_frozen_and_hashable():
    a = Buy(1, 7)
    with pytest.raises(AttributeError):
        a.patch_id = 2
    assert len({Buy(1, 7), Buy(1, 7), ADVANCE, Advance()}) == 2


@pytest.mark.parametrize("text,message", [
    ("", "empty action"),
    ("pass", 'unknown action "pass"'),
    ("advance now", "bad advance action"),
    ("buy 3", "bad buy action"),
    ("buy x 1,1", 'bad patch id "x"'),
    ("buy 3 1,1;1,1", "cell 1,1 is listed twice"),
    ("buy 3 1,9", "cell 1,9 is off the board"),
    ("leather 1;1", 'bad cell "1;1"'),
    ("leather -1,2", "bad cell"),
])
def test_bad_text(text, message):
    with pytest.raises(ActionSyntaxError, match=message):
        parse_action(text)


def test_from_str_checks_the_kind():
    with pytest.raises(ActionSyntaxError, match="is not a buy"):
        Buy.from_str("advance")
    with pytest.raises(ActionSyntaxError, match="is not a leather placement"):
        PlaceLeather.from_str("advance")
    with pytest.raises(ActionSyntaxError, match="is not an advance"):
        Advance.from_str("leather 1,1")
    with pytest.raises(ActionSyntaxError, match="is a string"):
        parse_action(None)
