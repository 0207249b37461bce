# rdmasim developer targets. `.ci/run` installs everything, then runs `make test`.
PYTHON ?= python
RDMASIM ?= rdmasim
# bash for the `time` keyword (isolation-study)
SHELL := /bin/bash

.PHONY: test test-rust test-python develop bench bench-instructions repro isolation-study isolation-quantum isolation-staging pmpi-trace fuzz module-graph

## Rust core tests (the PyO3 extension crate cannot link as a test binary) and Python tests.
test: test-rust test-python

test-rust:
	cargo test --workspace --exclude rdmasim-py

test-python:
	$(PYTHON) -m pytest -q tests

## Build the extension in release mode and install the package in editable mode.
develop:
	$(PYTHON) -m pip install -e '.[test,dask]'

bench:
	$(RDMASIM) bench

## Instructions per event of the study's long kinds of case, by cachegrind (deterministic; needs
## valgrind): compare before and after a change to the hot loop.
bench-instructions:
	tools/bench/instructions.sh

repro:
	$(RDMASIM) reproduce all

## Import circles and upward imports against tools/layers.toml (tests/test_module_graph.py runs
## it with the known list, so CI fails on a new one).
module-graph:
	$(PYTHON) tools/module_graph.py --known tools/module_graph_known.txt

## The isolation study at its own counts (10 M mouse messages, 5 M HERD requests), timed: under
## 5 min on a 2-core machine (docs/isolation.md sec. 5); the default counts are 1 M and 300 k.
isolation-study:
	time RDMASIM_ISOLATION_MICE=10000000 RDMASIM_ISOLATION_KV=5000000 $(RDMASIM) reproduce isolation

## Sensitivity, not a reproduction: the NIC's arbitration quantum swept under both readings
## (chunk per request, quantum per turn) against C6-C8 (docs/isolation.md sec. 2.1); ~30 s.
isolation-quantum:
	$(PYTHON) -m rdmasim.sensitivity.arbitration_quantum out/sensitivity

## Sensitivity: a NIC transmit staging buffer swept against C6-C8 (~25 s, a table and a plot).
isolation-staging:
	$(PYTHON) -m rdmasim.sensitivity.tx_staging out/sensitivity

## The PMPI tracing library (needs mpicc): build/libpmpi_trace.so. `rdmasim trace` builds its own.
pmpi-trace:
	mkdir -p build && mpicc -shared -fPIC -O2 -o build/libpmpi_trace.so python/rdmasim/pmpi/pmpi_trace.c

## Fuzz in a debug build (overflow checks, debug assertions): N random scenarios of KINDS from
## SEED (tools/fuzz/gen.py), each in its own process; fails on a panic, a kill or an unexplained
## stall.
N ?= 400
SEED ?= 1
KINDS ?= perftest,srq,odp,mpi,flows
fuzz:
	tools/fuzz/run.sh build/fuzz-$(SEED) $(SEED) $(N) $(KINDS)
