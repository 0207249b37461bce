"""The isolation reproduction on reduced cases: scenarios run, rows have the common form."""
from rdmasim.profiles import host_values
from rdmasim.reproduce import ROW_KEYS
from rdmasim.reproduce import _isolation_settings as settings
from rdmasim.reproduce import isolation as iso
from rdmasim.reproduce._checks import Between


def test_elephant_pair_reduced_case_is_unfair_and_rows_have_the_common_form(monkeypatch):
    monkeypatch.setattr(settings, "ELEPHANT_MESSAGES", 10)
    c = iso.Cases(None)
    c.add(("C2", "event", 1, 4), iso.elephant_pair("cx3-fdr", ("write", iso.MB), ("write", 4 * iso.MB)))
    c.add(("C2", "busy", 1, 4), iso.elephant_pair("cx3-fdr", ("write", iso.MB), ("write", 4 * iso.MB), "busy"))
    event, busy = iso.ratio(c.rows(("C2", "event", 1, 4))), iso.ratio(c.rows(("C2", "busy", 1, 4)))
    assert 1.1 < event < 1.6 and busy < 1.02
    r = iso.row("C2", "reduced", "1.25-1.5", event, "x", Between(1.0, 1.6))
    assert tuple(r) == ROW_KEYS and r["ok"]


def test_read_flows_send_their_data_the_same_way_as_writes():
    f = iso.flow("read", iso.MB, count=3)
    assert (f["client"], f["server"]) == (1, 0) and f["inline"] is False
    assert iso.flow("write", 10, count=1)["inline"] is True


class _FakeMice:
    """Mouse results given directly (the same for every seed), to check which figure decides
    the mouse rows' ok."""

    def __init__(self, beside_median: float, beside_mouse_rate: float = 0.801, tail_growth: float = 1.0):
        self.beside_median, self.beside_mouse_rate, self.tail_growth = beside_median, beside_mouse_rate, tail_growth

    def rows(self, key):
        if key[0] in ("C1", "C7-idle"):
            return [{"bytes": 1, "bw_Gbps": 1.0}, {"bytes": 2, "bw_Gbps": 1.32}]
        against = key[3]
        alone, vs_mouse = against is None, against is not None and against[0] == "m"
        med = 1.3 if alone or vs_mouse else self.beside_median
        rate = 0.79 if alone else (self.beside_mouse_rate if vs_mouse else 0.3)
        tail = 5.4 if alone else (5.4 * self.tail_growth if vs_mouse else 14.7)
        return [{"lat_median_us": med, "lat_p99_99_us": tail, "msg_rate_Mps": rate}]

    def seeded(self, key, seeds=iso.SEEDS):
        return [self.rows(key + (s,)) for s in seeds]


def _c6_ok(beside_median):
    return {r["metric"].split(" (")[0]: r["ok"] for r in iso.c6_c7_rows(_FakeMice(beside_median)) if r["id"] == "C6"}


def test_c6_ok_uses_the_targets_figure_not_the_slide_pairing():
    five_x = _c6_ok(6.5)  # 10 B: 1.3 -> ~6 us, 5x (targets.md)
    assert five_x["largest median slow-down beside an elephant, 10 B / 100 B / 1 KB"]
    assert five_x["10 B mouse beside a 1 MB / 1 GB elephant: median"]
    pairing = _c6_ok(2.9)  # the other reading of the slides (2.2x) informs but does not pass
    assert not pairing["largest median slow-down beside an elephant, 10 B / 100 B / 1 KB"]
    assert not pairing["10 B mouse beside a 1 MB / 1 GB elephant: median"]


def test_c5_rows_test_the_competing_mouses_cost_not_the_mouse_alone():
    # Without interference (the same rate beside a mouse as alone) the msgs/s row misses; with
    # the published drop (0.78 -> 0.72, here 0.79 -> 0.73) it passes. The median row passes in
    # both: the seed's medians move by at most 0.1 us.
    def ok(**kw):
        return [r["ok"] for r in iso.c5_rows(_FakeMice(2.0, **kw))]

    med, rate, tail = ok(beside_mouse_rate=0.79, tail_growth=1.0)
    assert med and not rate and tail  # a 5.4 us tail alone and beside: inside 5.4-7.8 (+-20 %)
    assert ok(beside_mouse_rate=0.73)[:2] == [True, True]
    # The C7 "mitigated" row needs FDR's tail to grow beside a mouse while EDR's does not: with
    # the same tails on both clusters there is nothing mitigated.
    mitigated = [r for r in iso.c6_c7_rows(_FakeMice(2.0, tail_growth=1.44)) if "mitigated" in r["metric"]]
    assert len(mitigated) == 1 and not mitigated[0]["ok"]


def test_study_rows_are_classified_and_seeded_figures_are_samples():
    rows = iso.c5_rows(_FakeMice(2.0)) + iso.c6_c7_rows(_FakeMice(2.0))
    assert all(r["kind"] == "reproduced" for r in rows)
    # A tail moves with the seed: its row shows the seeds; a median every seed gives alike is
    # that figure, and its row says so.
    tails = [r for r in rows if "99.99th" in r["metric"] and r["id"] in ("C5", "C6")]
    assert tails and all(r["seeds"] == len(iso.SEEDS) for r in tails)
    assert any("the same for all 5 seeds" in r["metric"] for r in rows)
    # C7's EDR ratio runs with every modelled idle table (the EDR hosts' CPUs are unknown).
    ratio_row = next(r for r in rows if "bandwidth ratio" in r["metric"])
    assert ratio_row["seeds"] == len(iso.EDR_IDLE_TABLES) * len(iso.ELEPHANT_SEEDS) and ratio_row["ok"]


def test_isolation_cases_run_on_the_study_hosts_named_in_the_profile_system():
    # docs/isolation.md 2.2, 2.6: CloudLab's FDR r320 nodes are Sandy Bridge-EN (snb_cstates); the
    # EDR hosts are undocumented and keep the Haswell-EP stand-in; both kernels tick at 250 Hz, and
    # every tick pays the interrupt entry/exit around its handler (osnoise-tracer.rst).
    for profile, host, table in (("cx3-fdr", "cloudlab-r320", "sandybridge"), ("cx4-edr", "umich-conflux", "haswell-pkg")):
        hw = iso.scenario(profile, [iso.flow("write", 10, count=1)])["hardware"]
        assert hw["host"] == iso.HOSTS[profile] == host
        assert host_values(host) == {"cpu_idle": table, "os_tick_hz": 250.0, "os_tick_entry_exit_ns": 898.0}
        # The study carries none of the hosts' numbers itself.
        assert not {"cpu_idle", "os_tick_hz", "os_tick_entry_exit_ns"} & set(hw["overrides"])
    assert iso.edr_host_idle() == "haswell-pkg"
    # An explicit override still wins (the mechanism can be switched off per case).
    hw = iso.scenario("cx3-fdr", [iso.flow("write", 10, count=1)], overrides={"cpu_idle": "none"})["hardware"]
    assert hw["overrides"]["cpu_idle"] == "none" and hw["host"] == "cloudlab-r320"


def test_the_tick_variables_override_the_named_hosts(monkeypatch):
    saved = settings.saved()
    monkeypatch.setenv("RDMASIM_ISOLATION_TICK_HZ", "100")
    monkeypatch.setenv("RDMASIM_ISOLATION_TICK_ENTRY_EXIT_NS", "0")
    try:
        settings.from_env()
        hw = iso.scenario("cx4-edr", [iso.flow("write", 10, count=1)])["hardware"]
    finally:
        settings.restore(saved)
    assert hw["host"] == "umich-conflux"
    assert (hw["overrides"]["os_tick_hz"], hw["overrides"]["os_tick_entry_exit_ns"]) == (100.0, 0.0)
    assert (settings.TICK_HZ_OVERRIDE, settings.TICK_ENTRY_EXIT_NS_OVERRIDE) == (None, None)


def test_isolation_uses_the_study_tools_path_mtu_and_justitias_split():
    # frdma_bench write_bw.c: path MTU 2048 without -m; Justitia pacer.c: 5000 B (5120 on Conflux).
    sc = iso.scenario("cx3-fdr", [iso.flow("write", 10, count=1)])
    assert sc["qp"]["mtu"] == iso.PATH_MTU == 2048
    assert iso.JUSTITIA_SPLIT == {"cx3-fdr": 5000, "cx4-edr": 5120}
    case = iso.mouse_case("cx4-edr", 10, (iso.MB, "event"), split_bytes=iso.JUSTITIA_SPLIT["cx4-edr"])
    assert case["workload"]["flow"][1]["split_bytes"] == 5120


class _Recorder(iso.Cases):
    """Records the cases submit_all adds without running them."""

    def add(self, key, spec, table="flows"):
        self.futures[key] = (spec, table)


def test_every_case_family_runs_on_both_profiles():
    # Issue #5: C1 matrix, C2/C3 curves, C4 CPU and HERD on cx3-fdr and cx4-edr (mice already were).
    c = _Recorder(None)
    iso.submit_all(c)
    for family in ("C1", "C2", "C4", "C8", "mouse"):
        per = {p: sorted(str(k[2:]) for k in c.futures if k[0] == family and k[1] == p) for p in iso.PROFILES}
        assert per["cx3-fdr"] and per["cx3-fdr"] == per["cx4-edr"], family
    for key, (spec, _) in c.futures.items():
        assert spec["hardware"]["profile"] == (key[1] if key[0] != "C7-idle" else "cx4-edr"), key
        # Every case carries its seed last, and runs with it.
        assert spec["seed"] == key[-1], key
    # C7's EDR elephants are read from the cx4-edr C1 cell (the stand-in idle table), not run
    # twice; the other modelled tables run beside it.
    assert all(iso.C7_ELEPHANTS + (s,) in c.futures for s in iso.ELEPHANT_SEEDS)
    assert not any(k[0] == "C7" for k in c.futures)
    assert {k[1] for k in c.futures if k[0] == "C7-idle"} == set(iso.EDR_IDLE_TABLES) - {iso.edr_host_idle()}
    assert settings.other("cx3-fdr") == "cx4-edr" and settings.other("cx4-edr") == "cx3-fdr"


def test_mice_and_herd_split_their_counts_among_the_seeds():
    c = _Recorder(None)
    iso.submit_all(c)
    for family, table in (("mouse", None), ("C8", None)):
        keys = [k for k in c.futures if k[0] == family]
        assert {k[-1] for k in keys} == set(iso.SEEDS)
    mouse = c.futures[("mouse", "cx3-fdr", 10, None, 1)][0]
    assert mouse["workload"]["flow"][0]["count"] * len(iso.SEEDS) == settings.MOUSE_MESSAGES
    herd = c.futures[("C8", "cx4-edr", "GET", None, 1)][0]
    assert herd["workload"]["kv"]["requests"] * len(iso.SEEDS) == settings.KV_REQUESTS
    # The sensitivities' callers still get the whole count from mouse_case / kv_case.
    assert iso.mouse_case("cx3-fdr", 10, None)["workload"]["flow"][0]["count"] == settings.MOUSE_MESSAGES


def _synthetic(c2_dip=False, herd_growth=3.0):
    """Per-profile, per-seed results in the shapes the rows read, for the profile the study did
    not run."""
    n = len(iso.SEEDS)
    matrix = {(a, b): [1.0 if a[1] == b[1] else 1.4] * n for a, b in iso.c1_cells()}
    curves = {}
    for base in iso.BASES_MB:
        for j, k in enumerate(iso.SIZE_RATIOS):
            if base * k * iso.MB <= iso.GB:
                curves[("event", base, k)] = [1.0 + 0.3 * j / (base * len(iso.SIZE_RATIOS))] * n
                curves[("busy", base, k)] = [1.01] * n
    if c2_dip:
        curves[("event", 2, 5)] = [curves[("event", 2, 2)][0] - 0.05] * n
    cpu = {("event", s): [50.0 / (1 + i)] * n for i, s in enumerate(iso.CPU_SIZES)}
    cpu.update({("busy", s): [100.0] for s in iso.CPU_SIZES})
    cpu[("event", iso.GB)] = [0.01] * n
    kv = {}
    for op in ("GET", "PUT"):
        kv[(op, None)] = [{"lat_median_us": 2.5, "lat_p99_99_us": 6.0}] * n
        for bg in (iso.MB, iso.GB):
            kv[(op, bg)] = [{"lat_median_us": 2.5 * herd_growth, "lat_p99_99_us": 6.0 * herd_growth}] * n
    both = lambda x: {p: x for p in iso.PROFILES}  # noqa: E731
    return both(matrix), both(curves), both(cpu), both(kv), both((8.0, 160_000.0))


def test_other_profile_rows_apply_the_studys_shape_tests():
    from rdmasim.reproduce._isolation_other_profile import other_profile_rows

    rows = other_profile_rows(*_synthetic())
    assert all(tuple(r) == ROW_KEYS for r in rows) and all(r["ok"] for r in rows)
    assert [r["id"] for r in rows] == ["C1", "C1", "C2", "C2", "C2", "C3", "C4", "C4", "C8", "C8", "C8", "C8"]
    # Not figures of the seed: sensitivities (the busy CPU is 100 % by definition: arithmetic).
    assert [r["kind"] for r in rows].count("sensitivity") == 11 and all(r["basis"] for r in rows)
    # Labelled with the profile they ran on; HERD on FDR has no published figure.
    assert all(r["metric"].startswith("cx4-edr ") for r in rows if r["id"] != "C8")
    assert all(r["metric"].startswith("cx3-fdr ") and r["published"].startswith("n/a") for r in rows if r["id"] == "C8")
    # The tests can fail: a step down in a C2 curve, HERD growing less than several-fold.
    grows = [r for r in other_profile_rows(*_synthetic(c2_dip=True)) if "grows" in r["metric"]]
    assert len(grows) == 1 and not grows[0]["ok"] and "2 MB x5" in grows[0]["metric"]
    herd = [r for r in other_profile_rows(*_synthetic(herd_growth=1.5)) if r["id"] == "C8"]
    assert herd and not any(r["ok"] for r in herd)


def test_shape_rows_of_the_study_profile_are_classified():
    matrices, curves, cpu, _, periods = _synthetic()
    rows = iso.c1_rows(matrices) + iso.c2_c3_rows(curves) + iso.c4_rows(cpu, periods)
    kinds = {(r["id"], r["metric"].split(":")[0].split(" (")[0]): r["kind"] for r in rows}
    assert [r["kind"] for r in rows] == ["reproduced"] * 3 + ["sensitivity"] + ["reproduced"] * 4 + \
        ["arithmetic"] + ["sensitivity"] * 3, kinds
    # A flow against its twin, the busy poller's CPU by definition, the event poller's CPU from
    # an assumed charge: each names why.
    assert all(r["basis"] for r in rows if r["kind"] != "reproduced")
    assert "4 us" in rows[9]["basis"] and "above 2.4 us" in rows[9]["basis"]
