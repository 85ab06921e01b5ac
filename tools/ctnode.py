#!/usr/bin/env python3
"""Constant time on the node: cycle counts of P-256 ECDH and AES-128 over several secrets.

Runs sw/apps/cttime (one operation per UART line, cycles from the node's cycle counter around the
call) on the node simulator with secrets chosen here, checks every output against the
cryptography package (a count of a wrong result is not a figure), and groups the counts per
algorithm. An algorithm is constant when every secret gave the same count.

    P-256 ECDH (se_ecdh: Q's validation, the scalar's range check, the ladder, the affine
    conversion), one fixed public point Q, the scalars 1, 2, 2^255, n-1, RFC 6979 A.2.5's key and
    a random one;
    AES-128, the keys 00..00, ff..ff, 55..55, FIPS-197 C.1's (000102..0f) and two random ones,
    each with its own plaintext (all-zero with the zero key, all-ones with the ones key, random
    otherwise): one ECB block (key expansion included), CCM_8 and GCM over 32 bytes with a
    13-byte header (the nonce and header are the same for every key).

The sw configurations run on the simulator without the engine (the same cycles, about ten times
faster to simulate: sim/node/README.md). tools/bench.py's ct_node rows come from rows(); the
cheap AES part is also tests/node/test_ct_cycles.py. Standalone:

    tools/ctnode.py [--config sw-rv32im] [--only p256|aes] [--jobs N] [--seed N]

prints the rows as JSON lines; exit status 1 if one is not constant.
"""
import argparse
import json
import os
import pathlib
import random
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.ciphers.aead import AESCCM, AESGCM

ROOT = pathlib.Path(__file__).resolve().parent.parent
P256_N = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
RFC6979_A25_KEY = 0xC9AFA9D845BA75166B5C215767B1D6934E50C3DB36E89B127B8A622B120F6721
MSG_BYTES, AAD_BYTES = 32, 13
ALGS = {"E": "p256_ecdh", "A": "aes128_ecb_block", "C": "aes128_ccm8_32", "G": "aes128_gcm_32"}


def p256_requests(rnd):
    """[(alg, label, line, expected out)] for the ECDH scalars, against one random public point."""
    q = ec.derive_private_key(rnd.randrange(1, P256_N), ec.SECP256R1()).public_key()
    qb = q.public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    scalars = [("1", 1), ("2", 2), ("2^255", 1 << 255), ("n-1", P256_N - 1),
               ("rfc6979_a25", RFC6979_A25_KEY), ("random", rnd.randrange(1, P256_N))]
    out = []
    for label, k in scalars:
        z = ec.derive_private_key(k, ec.SECP256R1()).exchange(ec.ECDH(), q)
        out.append(("E", label, f"E {k.to_bytes(32, 'big').hex()} {qb.hex()}", z))
    return out


def aes_requests(rnd):
    """[(alg, label, line, expected out)]: per key, one ECB block, CCM_8 and GCM."""
    rb = lambda n: bytes(rnd.getrandbits(8) for _ in range(n))  # noqa: E731
    nonce, aad = rb(12), rb(AAD_BYTES)
    keys = [("zero", bytes(16), bytes(MSG_BYTES)), ("ones", b"\xff" * 16, b"\xff" * MSG_BYTES),
            ("55", b"\x55" * 16, rb(MSG_BYTES)), ("fips197", bytes(range(16)), rb(MSG_BYTES)),
            ("random1", rb(16), rb(MSG_BYTES)), ("random2", rb(16), rb(MSG_BYTES))]
    out = []
    for label, key, msg in keys:
        enc = Cipher(algorithms.AES(key), modes.ECB()).encryptor()
        out.append(("A", label, f"A {key.hex()} {msg[:16].hex()}", enc.update(msg[:16]) + enc.finalize()))
        out.append(("C", label, f"C {key.hex()} {nonce.hex()} {aad.hex()} {msg.hex()}",
                    AESCCM(key, tag_length=8).encrypt(nonce, msg, aad)))
        out.append(("G", label, f"G {key.hex()} {nonce.hex()} {aad.hex()} {msg.hex()}",
                    AESGCM(key).encrypt(nonce, msg, aad)))
    return out


def simulator(config):
    """The simulator for a config: without the engine for the sw ones."""
    arch = config.rsplit("-", 1)[1]
    return ROOT / "build" / "sim" / (arch if "+hw" in config else arch + "-noengine") / "node"


def run(config, reqs, timeout=3600):
    """Runs the requests in one simulation; returns [(alg, label, cycles)] and its wall seconds.
    Raises RuntimeError on a failed run, an error status or an output that differs from the
    expected one."""
    sim, elf = simulator(config), ROOT / "build" / "fw" / config / "cttime.elf"
    for f in (sim, elf):
        if not f.exists():
            raise FileNotFoundError(f"{f.relative_to(ROOT)} is not built (run `make node`)")
    feed = "".join(line + "\n" for _, _, line, _ in reqs) + "Q\n"
    t0 = time.monotonic()
    proc = subprocess.run([str(sim), "--elf", str(elf), "--uart-rx", "--max-cycles", "0", "--seed", "1",
                           "--quiet"], input=feed, capture_output=True, text=True, timeout=timeout)
    wall = time.monotonic() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"cttime on {config} failed ({proc.returncode}): {proc.stderr[-600:]}")
    lines = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    if not lines or lines[0].get("status") != 0:
        raise RuntimeError(f"cttime on {config}: bad start {lines[:1]}")
    answers = lines[1:]
    if len(answers) != len(reqs):
        raise RuntimeError(f"cttime on {config}: {len(answers)} answers to {len(reqs)} requests")
    res = []
    for (op, label, _, want), a in zip(reqs, answers):
        if a["op"] != op or a["status"] != 0 or bytes.fromhex(a["out"]) != want:
            raise RuntimeError(f"cttime on {config}: {ALGS[op]} with {label}: {a} (expected {want.hex()})")
        res.append((op, label, a["cycles"]))
    return res, wall


def measure(config, p256=True, aes=True, jobs=1, seed=None):
    """The requests in `jobs` simulations side by side (P-256 split between them); returns the
    rows (one per algorithm) and the wall seconds of the whole measurement."""
    seed = random.SystemRandom().getrandbits(32) if seed is None else seed
    rnd = random.Random(seed)
    reqs = (aes_requests(rnd) if aes else []) + (p256_requests(rnd) if p256 else [])
    jobs = max(1, min(jobs, len(reqs)))
    idx = list(range(len(reqs)))
    parts = [idx[i::jobs] for i in range(jobs)]
    t0 = time.monotonic()
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        done = list(pool.map(lambda part: run(config, [reqs[i] for i in part]), parts))
    wall = time.monotonic() - t0
    cycles_of = {}
    for part, (res, _) in zip(parts, done):
        for i, (_, _, cycles) in zip(part, res):
            cycles_of[i] = cycles
    rows = []
    for op in ALGS:
        mine = [i for i in idx if reqs[i][0] == op]
        if not mine:
            continue
        cycles = [cycles_of[i] for i in mine]
        rows.append({"op": "ct_node", "where": "node", "config": config, "alg": ALGS[op], "secrets": len(cycles),
                     "secret_labels": [reqs[i][1] for i in mine], "cycles": cycles,
                     "constant": len(set(cycles)) == 1, "seed": seed, "outputs_checked": True})
    return rows, wall


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--config", default="sw-rv32im")
    ap.add_argument("--only", choices=["p256", "aes"])
    ap.add_argument("--jobs", type=int, default=1, help="simulations side by side (default 1)")
    ap.add_argument("--seed", type=int, help="for the random secrets and point (default: a fresh one)")
    args = ap.parse_args()
    rows, wall = measure(args.config, p256=args.only != "aes", aes=args.only != "p256", jobs=args.jobs,
                         seed=args.seed)
    for r in rows:
        print(json.dumps(dict(r, wall_seconds=round(wall, 1))))
    sys.exit(0 if all(r["constant"] for r in rows) else 1)


if __name__ == "__main__":
    main()
