#!/usr/bin/env bash
# The GPU path measured in one go, within 8 minutes on a lent device: every algorithm
# on the device against its CPU run, W1-100 and W2 against Flower and pfl-research, a
# FedLaAvg CIFAR-10-sized run and the 10^6-client population round; one table
# (bench/gpu.py says what each part runs).
#
#   bench/gpu.sh [--device cuda|cpu] [--dry-run]
#
# `--device cpu --dry-run` checks the whole script on the CPU at tiny sizes (the tests
# run it). The Python is .venv's where there is one, else python3 (a device machine's,
# which holds torch); wheels under .whl/ (FedWatch's dependencies that machine lacks,
# docs/benchmarks.md says which) are installed into a scratch folder first.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=python3
if [ -x .venv/bin/python ]; then
    PY=.venv/bin/python
elif compgen -G ".whl/*.whl" >/dev/null; then
    "$PY" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
        --target /tmp/fedwatch-site .whl/*.whl
    export PYTHONPATH="/tmp/fedwatch-site${PYTHONPATH:+:$PYTHONPATH}"
fi
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
export OMP_WAIT_POLICY="${OMP_WAIT_POLICY:-PASSIVE}"
exec timeout 480 "$PY" bench/gpu.py "$@"
