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


class _FakeMice:
    """Mouse results given directly, to check which figure decides the C6 rows' ok."""

    def __init__(self, beside_median: float):
        self.beside_median = beside_median

    def rows(self, key):
        if key == iso.C7_ELEPHANTS:
            return [{"bytes": 1, "bw_Gbps": 1.0}, {"bytes": 2, "bw_Gbps": 1.32}]
        alone = key[3] is None
        med = 1.3 if alone else self.beside_median
        return [{"lat_median_us": med, "lat_p99_99_us": 14.7 if not alone else 1.3,
                 "msg_rate_Mps": 0.79 if alone else 0.3}]


def _c6_ok(beside_median):
    return {r["metric"].split(" (")[0]: r["ok"] for r in iso.c6_c7_rows(_FakeMice(beside_median)) if r["id"] == "C6"}


def test_c6_ok_uses_the_targets_figure_not_the_slide_pairing():
    five_x = _c6_ok(6.5)  # 10 B: 1.3 -> ~6 us, 5x (targets.md)
    assert five_x["largest median slow-down beside an elephant, 10 B / 100 B / 1 KB"]
    assert five_x["10 B mouse beside a 1 MB / 1 GB elephant: median"]
    pairing = _c6_ok(2.9)  # the other reading of the slides (2.2x) informs but does not pass
    assert not pairing["largest median slow-down beside an elephant, 10 B / 100 B / 1 KB"]
    assert not pairing["10 B mouse beside a 1 MB / 1 GB elephant: median"]


def test_isolation_cases_run_with_the_hosts_scheduler_tick():
    # OS noise (docs/isolation.md 2.6): both study clusters' kernels tick at 250 Hz.
    for profile in ("cx3-fdr", "cx4-edr"):
        hw = iso.scenario(profile, [iso.flow("write", 10, count=1)])["hardware"]["overrides"]
        assert hw["os_tick_hz"] == iso.HOST_TICK_HZ[profile] == 250.0
        # ... and every tick pays the interrupt entry/exit around its handler (osnoise-tracer.rst).
        assert hw["os_tick_entry_exit_ns"] == iso.TICK_ENTRY_EXIT_NS == 898.0


def test_isolation_hosts_idle_states_follow_the_clusters_cpus():
    # docs/isolation.md 2.2: CloudLab's FDR r320 nodes are Sandy Bridge-EN (snb_cstates); the
    # EDR hosts are undocumented and keep the Haswell-EP stand-in.
    for profile, table in (("cx3-fdr", "sandybridge"), ("cx4-edr", "haswell-pkg")):
        hw = iso.scenario(profile, [iso.flow("write", 10, count=1)])["hardware"]["overrides"]
        assert hw["cpu_idle"] == iso.HOST_CPU_IDLE[profile] == table
    # An explicit override still wins (the mechanism can be switched off per case).
    hw = iso.scenario("cx3-fdr", [iso.flow("write", 10, count=1)], overrides={"cpu_idle": "none"})["hardware"]["overrides"]
    assert hw["cpu_idle"] == "none"


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
        assert spec["hardware"]["profile"] == key[1], key
    # C7's EDR elephants are read from the cx4-edr C1 cell, not run twice.
    assert iso.C7_ELEPHANTS in c.futures and not any(k[0] == "C7" for k in c.futures)
    assert iso.other("cx3-fdr") == "cx4-edr" and iso.other("cx4-edr") == "cx3-fdr"


def _synthetic(c2_dip=False, herd_growth=3.0):
    """Per-profile results in the shapes the rows read, for the profile the study did not run."""
    cells = [(v, s) for v in iso.VERBS for s in (iso.MB, iso.GB)]
    matrix = {(a, b): (1.0 if a[1] == b[1] else 1.4) for i, a in enumerate(cells) for b in cells[i:]}
    curves = {}
    for base in iso.BASES_MB:
        for j, k in enumerate(iso.SIZE_RATIOS):
            if base * k * iso.MB <= iso.GB:
                curves[("event", base, k)] = 1.0 + 0.3 * j / (base * len(iso.SIZE_RATIOS))
                curves[("busy", base, k)] = 1.01
    if c2_dip:
        curves[("event", 2, 5)] = curves[("event", 2, 2)] - 0.05
    cpu = {(p, s): (100.0 if p == "busy" else 50.0 / (1 + i)) for p in ("event", "busy") for i, s in enumerate(iso.CPU_SIZES)}
    cpu[("event", iso.GB)] = 0.01
    kv = {}
    for op in ("GET", "PUT"):
        kv[(op, None)] = {"lat_median_us": 2.5, "lat_p99_99_us": 6.0}
        for bg in (iso.MB, iso.GB):
            kv[(op, bg)] = {"lat_median_us": 2.5 * herd_growth, "lat_p99_99_us": 6.0 * herd_growth}
    both = lambda x: {p: x for p in iso.PROFILES}  # noqa: E731
    return both(matrix), both(curves), both(cpu), both(kv)


def test_other_profile_rows_apply_the_studys_shape_tests():
    from rdmasim.reproduce._isolation_other_profile import other_profile_rows

    rows = other_profile_rows(*_synthetic())
    assert all(tuple(r) == ROW_KEYS for r in rows) and all(r["ok"] for r in rows)
    assert [r["id"] for r in rows] == ["C1", "C1", "C2", "C2", "C2", "C3", "C4", "C4", "C8", "C8", "C8", "C8"]
    # Labelled with the profile they ran on; HERD on FDR has no published figure.
    assert all(r["metric"].startswith("cx4-edr ") for r in rows if r["id"] != "C8")
    assert all(r["metric"].startswith("cx3-fdr ") and r["published"].startswith("n/a") for r in rows if r["id"] == "C8")
    # The tests can fail: a step down in a C2 curve, HERD growing less than several-fold.
    grows = [r for r in other_profile_rows(*_synthetic(c2_dip=True)) if "grows" in r["metric"]]
    assert len(grows) == 1 and not grows[0]["ok"] and grows[0]["simulated"] == "dips at 2 MB x5"
    herd = [r for r in other_profile_rows(*_synthetic(herd_growth=1.5)) if r["id"] == "C8"]
    assert herd and not any(r["ok"] for r in herd)
