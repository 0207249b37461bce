"""Every reproduced row's check can fail, every row has a kind, and `rdmasim reproduce` leaves a
per-study count, rows.csv and a page that shows every row.

The studies run once per session (`study_rows`); the perturbation test then re-applies each
reproduced row's check to its simulated value halved, doubled or flipped: a check that accepts
those too cannot tell the simulation from something else, and fails the test."""
from __future__ import annotations

import csv
import functools
import json
from html.parser import HTMLParser

import pytest

from rdmasim.cli import main
from rdmasim.reproduce import KINDS, ROW_KEYS, number_ids, row, run_study, studies
from rdmasim.reproduce._checks import (AtLeast, Between, Claim, Increasing, InRange, Is, Most, Samples, Within,
                                       perturbations, survives_perturbation)

STUDIES = list(studies())


@functools.lru_cache(maxsize=None)
def study_rows(name: str):
    return run_study(name)


def test_a_tautological_check_survives_the_perturbation():
    # "the median of the trials kept for being >= 2x is >= 2x": whatever the simulation gives.
    always = row("T1", "a claim that cannot fail", ">= 2", 3.0, "x", Claim("anything", lambda v: True))
    assert always["ok"] and survives_perturbation(always.check_fn, always.value)
    # A bound the value can never leave: a positive time checked to be positive.
    positive = row("T2", "a time", "> 0", 5.0, "us", AtLeast(0))
    assert survives_perturbation(positive.check_fn, positive.value)
    # A check of the published value does not survive, neither does a one-sided bound near it.
    assert not survives_perturbation(Within(5.0, 0.2), 5.0)
    assert not survives_perturbation(AtLeast(4.0), 5.0)
    assert not survives_perturbation(Is(True), True)
    assert not survives_perturbation(Increasing(("<=", "<")), (1.0, 2.0, 3.0))
    # Over seeds: the published value inside a range ten times wide says nothing.
    assert survives_perturbation(InRange(3.0), Samples([1.0, 2.0, 10.0]))
    assert not survives_perturbation(InRange(3.0), Samples([2.5, 3.0, 3.5]))
    assert not survives_perturbation(Most(Between(2.0, 4.0)), Samples([2.5, 3.0, 3.5, 9.0, 3.1]))


def test_perturbations_of_each_kind_of_value():
    assert perturbations(4.0) == [2.0, 8.0]
    assert perturbations(0.0) == [1.0, -1.0]
    assert perturbations(True) == [False]
    assert perturbations((1.0, 2.0)) == [(0.5, 2.0), (2.0, 2.0), (1.0, 1.0), (1.0, 4.0)]
    assert perturbations(Samples([1.0, 3.0])) == [Samples([0.5, 1.5]), Samples([2.0, 6.0])]
    assert perturbations("a / b") == []


def test_a_row_of_samples_shows_median_range_and_count():
    r = row("S", "over seeds", 3.0, Samples([2.0, 3.5, 3.0, 2.5, 4.0]), "x", InRange(3.0))
    assert (r["simulated"], r["range"], r["seeds"], r["ok"]) == (3.0, [2.0, 4.0], 5, True)
    assert tuple(r) == ROW_KEYS


def test_a_figure_with_several_rows_numbers_them():
    rows = [row(i, "m", 1.0, 1.0, "x", Within(1.0, 0.1)) for i in ("C8", "C7", "C8", "C8")]
    assert [r["id"] for r in number_ids(rows)] == ["C8.1", "C7", "C8.2", "C8.3"]


def test_a_fit_must_name_its_parameter_and_kinds_are_closed():
    with pytest.raises(ValueError, match="names its parameter"):
        row("F", "m", 1.0, 1.0, "x", Within(1.0, 0.1), kind="fit")
    with pytest.raises(ValueError, match="expected one of"):
        row("F", "m", 1.0, 1.0, "x", Within(1.0, 0.1), kind="guess")


@pytest.mark.parametrize("name", STUDIES)
def test_every_reproduced_check_fails_when_its_value_is_perturbed(name):
    rows = study_rows(name)
    assert rows, f"{name} gave no rows"
    for r in rows:
        assert r["kind"] in KINDS
        if r["kind"] == "fit":
            assert r["basis"], f"{r['id']}: a fit names the parameter it fixed"
        if r["kind"] != "reproduced" or not r["ok"]:
            continue
        assert r.check_fn is not None, f"{name} {r['id']}: a reproduced row needs a check that can be re-applied"
        assert not survives_perturbation(r.check_fn, r.value), \
            f"{name} {r['id']}: '{r['check']}' holds for {r.value!r} halved, doubled or flipped too"


class _Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids, self.images = set(), 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.add(a["id"])
        if tag == "img" and (a.get("src") or "").startswith("data:image/"):
            self.images += 1


def test_reproduce_all_writes_the_summary_rows_csv_and_a_page_with_every_row(monkeypatch, capsys, tmp_path):
    import rdmasim.reproduce as reproduce
    from rdmasim.plots import artifact

    def cached(name, progress=False):
        # The rows as the study gave them, and one plot, as a study writes it.
        artifact(tmp_path / "plots" / f"{name}.png", lambda p: p.write_bytes(_PNG))
        return study_rows(name)

    monkeypatch.setattr(reproduce, "run_study", cached)
    out = tmp_path / "out"
    code = main(["reproduce", "all", "-o", str(out)])
    text = capsys.readouterr().out
    rows = {n: study_rows(n) for n in STUDIES}
    missed = any(r["kind"] == "reproduced" and not r["ok"] for rs in rows.values() for r in rs)
    assert code == (1 if missed else 0)
    assert "study" in text and "reproduced ok" in text and text.count("== ") == len(STUDIES)
    for n in STUDIES:
        c = [r for r in rows[n] if r["kind"] == "reproduced"]
        assert any(line.split()[:1] == [n] and f"{sum(r['ok'] for r in c)} / {len(c)}" in line for line in text.splitlines()), n
    with open(out / "rows.csv") as f:
        table = list(csv.DictReader(f))
    assert [(t["study"], t["id"]) for t in table] == [(n, r["id"]) for n in STUDIES for r in rows[n]]
    # Every row can be named: ids are unique within a study.
    assert all(len({r["id"] for r in rows[n]}) == len(rows[n]) for n in STUDIES)
    assert list(table[0]) == ["study", *ROW_KEYS]
    page = _Page()
    html = (out / "index.html").read_text()
    page.feed(html)
    for n in STUDIES:
        assert f"study-{n}" in page.ids
        for r in rows[n]:
            assert f"row-{n}-{r['id']}" in page.ids, (n, r["id"])
    # Each study's plot is inlined in its own section (beside the plots the studies wrote).
    assert page.images >= len(STUDIES)
    for n, nxt in zip(STUDIES, STUDIES[1:] + [None]):
        section = html[html.index(f'id="study-{n}"'):html.index(f'id="study-{nxt}"') if nxt else None]
        assert f"plots/{n}.png" in section and "data:image/png;base64," in section, n


def test_json_rows_carry_a_kind_and_zero_prints_as_zero(capsys, tmp_path):
    assert main(["reproduce", "perftest", "--json", "-o", str(tmp_path)]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert all(r["kind"] in KINDS for r in rows)
    from rdmasim.reproduce import format_table

    table = format_table([row("Z", "nothing lost", 0, 0.0, "packets", Within(0.0, 0.0))])
    assert table.splitlines()[-1].split()[4] == "0"


#: A 1x1 PNG, a plot as far as the page is concerned.
_PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c63f8cfc0f01f0005000201a5f6d7e40000000049454e44ae426082")
