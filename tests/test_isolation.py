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
        if key[0] == "C7":
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
