"""Scenario input: paths, TOML text, dicts, dotted keys, and the errors that name file, key, line."""
from __future__ import annotations

import pickle

import pytest

import rdmasim
from rdmasim.scenario import dict_to_toml, get_dotted, scenario_dict, scenario_text, set_dotted


def test_a_str_naming_a_file_is_read_as_a_path(write_bw_toml):
    text, source = scenario_text(str(write_bw_toml))
    assert source == str(write_bw_toml)
    assert 'test = "ib_write_bw"' in text


def test_a_pathlike_is_read_as_a_path(write_bw_toml):
    assert scenario_text(write_bw_toml)[1] == str(write_bw_toml)


def test_toml_text_is_taken_as_is():
    text = '[hardware]\nprofile = "cx4-edr"\n'
    assert scenario_text(text) == (text, "<string>")


def test_a_missing_toml_path_is_an_error_not_toml_text(tmp_path):
    with pytest.raises(FileNotFoundError):
        scenario_text(str(tmp_path / "nope.toml"))


def test_a_dict_becomes_toml_with_source_dict(write_bw):
    text, source = scenario_text(write_bw)
    assert source == "<dict>"
    assert scenario_dict(text) == write_bw


def test_none_values_are_left_out_so_the_core_applies_defaults():
    text = dict_to_toml({"workload": {"kind": "perftest", "size": None, "iters": 5}, "seed": None})
    assert "size" not in text and "seed" not in text and "iters = 5" in text


def test_set_dotted_edits_nested_tables_and_list_entries(write_bw):
    sc = set_dotted(write_bw, "workload.size", 4096)
    assert sc["workload"]["size"] == 4096
    set_dotted(sc, "hardware.overrides.tx_packet_ns", 5.0)
    assert sc["hardware"]["overrides"] == {"tx_packet_ns": 5.0}
    set_dotted(sc, "faults.0.link", "h0->h1")
    set_dotted(sc, "faults.0.loss_rate", 1e-3)
    assert sc["faults"] == [{"link": "h0->h1", "loss_rate": 1e-3}]
    set_dotted(sc, "faults.0.loss_rate", 1e-2)
    assert sc["faults"][0]["loss_rate"] == 1e-2
    assert get_dotted(sc, "faults.0.loss_rate") == 1e-2
    assert get_dotted(sc, "faults.3.loss_rate", "absent") == "absent"


def test_set_dotted_rejects_bad_keys(write_bw):
    with pytest.raises(KeyError):
        set_dotted(write_bw, "workload..size", 1)
    with pytest.raises(KeyError):
        set_dotted(write_bw, "faults.5.loss_rate", 1)  # would leave holes
    with pytest.raises(KeyError):
        set_dotted(write_bw, "seed.x", 1)  # seed is a value, not a table


def test_scenario_error_is_a_value_error_naming_file_key_and_line(bad_toml):
    with pytest.raises(rdmasim.ScenarioError) as info:
        rdmasim.validate(bad_toml)
    e = info.value
    assert isinstance(e, ValueError)
    assert (e.source, e.key, e.line) == (str(bad_toml), "qp.timeout", 12)
    assert "expected" in e.message and "fourteen" in e.message
    assert str(e) == f"{bad_toml}:12: key `qp.timeout`: {e.message}"


def test_scenario_error_from_a_dict_names_the_key(write_bw):
    write_bw["hardware"]["profile"] = "cx99-xdr"
    with pytest.raises(rdmasim.ScenarioError) as info:
        rdmasim.run(write_bw)
    assert info.value.source == "<dict>"
    assert info.value.key == "hardware.profile"
    assert "cx4-edr" in info.value.message  # says what was expected


def test_scenario_error_survives_pickling_for_process_pools(write_bw):
    write_bw["qp"] = {"retry_cnt": "many"}
    with pytest.raises(rdmasim.ScenarioError) as info:
        rdmasim.validate(write_bw)
    e = pickle.loads(pickle.dumps(info.value))
    assert type(e) is rdmasim.ScenarioError
    assert (e.source, e.key, e.message) == (info.value.source, info.value.key, info.value.message)


def test_a_toml_syntax_error_in_a_sweep_base_is_a_scenario_error():
    with pytest.raises(rdmasim.ScenarioError) as info:
        scenario_dict("[hardware\nprofile = 1\n")
    assert info.value.source == "<string>" and info.value.line == 1


def test_a_wrong_type_inside_the_workload_names_the_full_key_and_line(tmp_path):
    path = tmp_path / "w.toml"
    path.write_text('[hardware]\nprofile = "cx4-edr"\n\n[workload]\nkind = "perftest"\ntest = "ib_write_bw"\nsize = "big"\n')
    with pytest.raises(rdmasim.ScenarioError) as info:
        rdmasim.validate(path)
    assert info.value.key == "workload.size"
    assert info.value.line == 7


def test_a_dict_integer_beyond_toml_is_named_by_its_key():
    from rdmasim import ScenarioError, run

    sc = {"seed": 2**64 - 1, "hardware": {"profile": "cx4-edr"},
          "workload": {"kind": "perftest", "test": "ib_write_bw", "size": 4096, "iters": 10}}
    with pytest.raises(ScenarioError, match=r"<dict>: key `seed`: 18446744073709551615 is out of range; a scenario integer is at most 9223372036854775807"):
        run(sc)
    sc["seed"], sc["workload"]["size"] = 1, 2**70
    with pytest.raises(ScenarioError, match="key `workload.size`"):
        run(sc)
