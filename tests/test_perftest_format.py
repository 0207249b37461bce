"""perftest's report layout, checked against perftest's own format strings (no simulation)."""
from __future__ import annotations

import pytest

from rdmasim import perftest as pt
from rdmasim.reproduce.perftest import payload_bound_gbps


def test_column_headers_are_perftests_byte_for_byte():
    # perftest src/perftest_parameters.h: RESULT_FMT, RESULT_FMT_G, RESULT_FMT_LAT
    assert pt.column_header("ib_write_bw") == \
        " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]"
    assert pt.column_header("ib_read_bw", report_gbits=True) == \
        " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]"
    assert pt.column_header("ib_send_lat") == (
        " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]"
        "   99% percentile[usec]   99.9% percentile[usec] ")
    assert len(pt.RESULT_LINE) == 87 and set(pt.RESULT_LINE) == {"-"}


def test_bandwidth_rows_use_report_fmt():
    row = {"bytes": 65536, "iterations": 5000, "bw_peak_MBps": 11489.33, "bw_avg_MBps": 11488.514,
           "msg_rate_Mpps": 0.1838162}
    assert pt.format_rows("ib_write_bw", [row]) == [
        " 65536      5000             11489.33            11488.51\t\t   0.183816"]


def test_gbits_converts_perftest_megabytes():
    row = {"bytes": 65536, "iterations": 5000, "bw_peak_MBps": 11920.928955078125,
           "bw_avg_MBps": 11920.928955078125, "msg_rate_Mpps": 0.19}
    (line,) = pt.format_rows("ib_write_bw", [row], report_gbits=True)
    assert line.split()[2:4] == ["100.00", "100.00"]


def test_latency_rows_use_report_fmt_lat():
    row = {"bytes": 2, "iterations": 1000, "t_min_us": 0.91, "t_max_us": 3.5, "t_typical_us": 0.95,
           "t_avg_us": 0.96, "t_stdev_us": 0.05, "p99_us": 1.2, "p99_9_us": 3.1}
    (line,) = pt.format_rows("ib_write_lat", [row])
    # REPORT_FMT_LAT " %-7lu %d          %-7.2f        %-7.2f      %-7.2f  \t       %-7.2f     \t%-7.2f\t\t%-7.2f \t\t%-7.2f"
    expected = (" " + "2".ljust(7) + " " + "1000" + " " * 10 + "0.91".ljust(7) + " " * 8 + "3.50".ljust(7)
                + " " * 6 + "0.95".ljust(7) + "  \t       " + "0.96".ljust(7) + "     \t" + "0.05".ljust(7)
                + "\t\t" + "1.20".ljust(7) + " \t\t" + "3.10".ljust(7))
    assert line == expected
    assert line.split() == ["2", "1000", "0.91", "3.50", "0.95", "0.96", "0.05", "1.20", "3.10"]


def test_header_block_names_the_test_like_perftest():
    sc = pt.scenario("ib_read_bw", qps=4, mtu=2048)
    h = pt.header("ib_read_bw", sc).splitlines()
    assert h[0] == h[-1] == pt.RESULT_LINE
    assert h[1].strip() == "RDMA_Read BW Test"
    assert " Number of qps   : 4\t\tTransport type : IB" in h
    assert " Mtu             : 2048[B]" in h
    assert any(l.startswith(" Outstand reads  :") for l in h)
    assert pt.header("ib_send_lat", pt.scenario("ib_send_lat")).splitlines()[1].strip() == "Send Latency Test"


def test_scenario_maps_perftest_flags_to_the_scenario_schema():
    sc = pt.scenario("ib_send_bw", size=4096, iters=10, qps=2, tx_depth=64, inline_size=0, events=True,
                     qp_timeout=4, mtu=1024, profile="cx3-fdr", seed=9)
    assert sc["hardware"] == {"profile": "cx3-fdr"}
    assert sc["qp"] == {"timeout": 4, "mtu": 1024}
    assert sc["seed"] == 9
    w = sc["workload"]
    assert (w["kind"], w["test"], w["size"], w["iters"], w["qps"], w["tx_depth"], w["inline_size"], w["events"]) == \
        ("perftest", "ib_send_bw", 4096, 10, 2, 64, 0, True)
    with pytest.raises(ValueError):
        pt.scenario("ib_atomic_bw")


def test_payload_bound_counts_headers_and_one_reth_per_message():
    # 64 KiB at MTU 4096: 16 packets x (8 LRH + 12 BTH + 4 ICRC + 2 VCRC) + 16 RETH
    assert payload_bound_gbps("cx4-edr") == pytest.approx(100 * 65536 / (65536 + 16 * 26 + 16))
    # ConnectX-3: perftest's 2048 B MTU, 32 packets
    assert payload_bound_gbps("cx3-fdr") == pytest.approx(4 * 14.0625 * 64 / 66 * 65536 / (65536 + 32 * 26 + 16))
    assert payload_bound_gbps("cx4-edr", size=2) == pytest.approx(100 * 2 / (2 + 26 + 16))
