"""The CLI under test, for any test module: `from se_cli import CLI, ROOT, run_batch`.
(A plain module, not conftest: tests/node has a conftest of its own, and which one is imported
as `conftest` depends on collection order.)"""
import json
import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
# SE_CLI runs the suites against another build of the tool.
CLI = pathlib.Path(os.environ.get("SE_CLI", ROOT / "build" / "host" / "se"))


def run_batch(requests, backend="sw"):
    """Feeds requests (dicts) to `se batch`, one process for the whole list; returns the responses."""
    if not CLI.exists():
        pytest.fail(f"{CLI} is missing: run `make cli` first")
    lines = "".join(json.dumps(r, separators=(",", ":")) + "\n" for r in requests)
    proc = subprocess.run([str(CLI), "--backend", backend, "batch"], input=lines,
                          capture_output=True, text=True, timeout=1800)
    out = [json.loads(line) for line in proc.stdout.splitlines()]
    assert len(out) == len(requests), (
        f"batch returned {len(out)} lines for {len(requests)} requests; stderr: {proc.stderr[-2000:]}")
    assert proc.returncode == (0 if all("error" not in o for o in out) else 1), \
        "batch exit status does not say whether a line failed"
    return out
