"""The isolation reproduction on reduced cases: scenarios run, rows have the common form."""
from rdmasim.reproduce import ROW_KEYS
from rdmasim.reproduce import isolation as iso


def test_elephant_pair_reduced_case_is_unfair_and_rows_have_the_common_form(monkeypatch):
    monkeypatch.setattr(iso, "ELEPHANT_MESSAGES", 10)
    c = iso.Cases(None)
    c.add(("C2", "event", 1, 4), iso.elephant_pair("cx3-fdr", ("write", iso.MB), ("write", 4 * iso.MB)))
    c.add(("C2", "busy", 1, 4), iso.elephant_pair("cx3-fdr", ("write", iso.MB), ("write", 4 * iso.MB), "busy"))
    event, busy = iso.ratio(c.rows(("C2", "event", 1, 4))), iso.ratio(c.rows(("C2", "busy", 1, 4)))
    assert 1.1 < event < 1.6 and busy < 1.02
    r = iso.row("C2", "reduced", "1.25-1.5", event, "x", True)
    assert tuple(r) == ROW_KEYS


def test_read_flows_send_their_data_the_same_way_as_writes():
    f = iso.flow("read", iso.MB, count=3)
    assert (f["client"], f["server"]) == (1, 0) and f["inline"] is False
    assert iso.flow("write", 10, count=1)["inline"] is True
