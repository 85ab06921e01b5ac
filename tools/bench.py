#!/usr/bin/env python3
"""make bench: measures what exists and writes build/reports/bench.json and bench.md.

Code size of every crypto module for rv32i and rv32im at -Os (objects built for it: `make sizes`), the
linked size of the minimal ECDHE-ECDSA-P256 + AES-128-CCM + SHA-256 subset, and the engine's cycle
counts (where "rtl", config "engine"), measured by the cocotb benches of the bus-free AES, SHA,
pk and gf2m engines (tests/rtl), schema in docs/benchmarks.md.
"""
import os
import argparse
import json
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
SIZE = "riscv64-unknown-elf-size"
ARCHES = ("rv32i", "rv32im")


def size_of(path):
    """(text, data, bss) of an object or ELF, as reported by binutils `size` (Berkeley format)."""
    out = subprocess.run([SIZE, str(path)], capture_output=True, text=True, check=True).stdout
    text, data, bss = (int(x) for x in out.splitlines()[1].split()[:3])
    return text, data, bss


def module_sizes():
    results = []
    for arch in ARCHES:
        objs = sorted((ROOT / "build" / f"size-{arch}" / "crypto").glob("*.o"))
        if not objs:
            sys.exit(f"bench: no -Os objects for {arch}; run `make sizes`")
        for obj in objs:
            text, data, bss = size_of(obj)
            results.append({"op": "code_size", "curve": None, "where": "host", "config": f"sw-{arch}",
                            "module": obj.stem, "text_bytes": text, "data_bytes": data,
                            "bss_bytes": bss, "opt": "-Os"})
    return results


def subset_sizes():
    """Links sw/apps/subset (uses exactly the DTLS-minimal primitives) with --gc-sections."""
    results = []
    for arch in ARCHES:
        elf = ROOT / "build" / f"size-{arch}" / "subset.elf"
        base = ROOT / "build" / f"size-{arch}" / "empty.elf"
        for target in (elf, base):
            subprocess.run(["make", "-s", str(target.relative_to(ROOT))], cwd=ROOT, check=True)
        t, d, b = size_of(elf)
        t0, d0, b0 = size_of(base)
        results.append({"op": "code_size", "curve": "secp256r1", "where": "host", "config": f"sw-{arch}",
                        "module": "subset:ecdhe-ecdsa-p256+aes128-ccm+sha256",
                        "text_bytes": t - t0, "data_bytes": d - d0, "bss_bytes": b - b0,
                        "opt": "-Os", "note": "linked with --gc-sections, minus an empty program"})
    return results


def rtl_cycles():
    """Runs the AES and SHA engine cocotb suites, which also measure; returns bench results."""
    out = ROOT / "build" / "reports" / "aes_cycles.json"
    env = dict(os.environ, AES_CYCLES_JSON=str(out))
    subprocess.run([sys.executable, "-m", "pytest", "-q", "tests/rtl/test_aes_engine.py",
                    "tests/rtl/test_sha256_engine.py"], cwd=ROOT, env=env, check=True)
    aes = json.loads(out.read_text())
    sha = json.loads((ROOT / "build" / "rtl" / "sha256_engine" / "cycles.json").read_text())
    res = []
    base = {"curve": None, "where": "rtl", "config": "engine"}
    for name, cycles in aes["block"].items():
        mode, _, bits = name.rpartition("-")
        aead = mode.split("-")[0] in ("ccm", "gcm")
        res.append(dict(base, op="aead_block" if aead else "aes_block", mode=mode, key_bits=int(bits),
                        cycles=cycles, note="steady state, output consumed at once"))
    for mode, cycles in aes["aead_1k"].items():
        res.append(dict(base, op="aead", mode=mode, key_bits=128, msg_bytes=1024, aad_bytes=16, cycles=cycles,
                        note="INIT to FINAL done"))
    res.append(dict(base, op="sha256_block", cycles=sha["block"], note="steady state"))
    res.append(dict(base, op="sha256_final", cycles=sha["final_1"], note="FINAL, <= 55 bytes: one padded block"))
    res.append(dict(base, op="hmac_key", cycles=sha["key"], note="KEY: ipad and opad states"))
    res.append(dict(base, op="hmac", msg_bytes=1024, cycles=sha["hmac_1k"], note="INIT to digest, key held"))
    # The engine's DMA: chains from START to the DONE interrupt, RAM answering in two cycles an access
    dma_out = ROOT / "build" / "reports" / "dma_cycles.json"
    subprocess.run([sys.executable, "-m", "pytest", "-q", "tests/rtl/test_dma.py"], cwd=ROOT, check=True,
                   env=dict(os.environ, DMA_CYCLES_JSON=str(dma_out)))
    dma = json.loads(dma_out.read_text())
    dbase = dict(base, config="engine+dma", note="DMA chain, START to DONE, RAM two cycles an access")
    res.append(dict(dbase, op="aead", mode="gcm", key_bits=128, msg_bytes=1024, aad_bytes=16, cycles=dma["gcm_1k"]))
    res.append(dict(dbase, op="aes", mode="ctr", key_bits=128, msg_bytes=1024, cycles=dma["ctr_1k"]))
    res.append(dict(dbase, op="sha256", msg_bytes=1024, cycles=dma["sha256_1k"]))
    for mode in ("gcm", "ccm8", "cbc"):  # whole DTLS records of 1 KiB from a key slot (CBC: HMAC key held)
        for op in ("seal", "open"):
            res.append(dict(dbase, op=f"record_{op}", mode=mode, key_bits=128, msg_bytes=1024,
                            cycles=dma[f"{op}_{mode}_1k"]))
    return res


def pk_cycles():
    """Runs the pk and gf2m cocotb suites (which measure, constant-time checks included)."""
    subprocess.run([sys.executable, "-m", "pytest", "-q", "tests/rtl/test_pk_core.py",
                    "tests/rtl/test_gf2m_ecsm.py"], cwd=ROOT, check=True)
    pk = json.loads((ROOT / "build" / "rtl" / "pk_core" / "cycles.json").read_text())
    gf = json.loads((ROOT / "build" / "rtl" / "gf2m_ecsm" / "cycles.json").read_text())
    base = {"where": "rtl", "config": "engine"}
    res = []
    for key, cycles in sorted(pk.items()):
        op, _, arg = key.partition("/")
        if op == "modmul":
            res.append(dict(base, op="modmul", curve=None, modulus_bits=int(arg), cycles=cycles,
                            note="one Montgomery MUL instruction (CMD INSN)"))
        elif op == "x25519":
            res.append(dict(base, op="x25519", curve="curve25519", cycles=cycles, note="RFC 7748 ladder + inversion"))
        else:
            note = {"ecsm_var": "k*Q: validation, x-only ladder, y-recovery",
                    "ecsm_fixed": "k*G: fixed-base comb over G's cached table (ECSM_COMB)",
                    "ecsm_g_ladder": "k*G by the ladder (ECSM_G, no table needed)",
                    "precomp": "PRECOMP: G's comb table into a cache entry (once per curve)",
                    "curve_load": "FIELD + ORDER + CURVE (once per curve)",
                    "ecdsa_sign": "kG by the comb, r, s in the engine",
                    "ecdsa_verify": "u2*Q by the ladder, u1*G by the comb over G's table, complete addition",
                    "ecdsa_verify_comb": "a remembered Q: one joint comb over G's and Q's cached tables "
                                         "(ECDSA_VERIFY_COMB)"}[op]
            res.append(dict(base, op=op, curve=arg, cycles=cycles, note=note))
    p256 = {"ecdh": ("ecsm_var/secp256r1", "ECSM program (the engine part of ECDH)"),
            "keygen": ("ecsm_fixed/secp256r1", "ECSM_COMB program (the key itself is drawn by the host)")}
    for op, (key, note) in p256.items():
        res.append(dict(base, op=op, curve="secp256r1", cycles=pk[key], note=note))
    for curve, cycles in sorted(gf.items()):
        res.append(dict(base, op="ecsm_b233", curve=curve, cycles=cycles,
                        note="validation, LD ladder, y-recovery (gf2m_ecsm)"))
    return res


def rtl_full_vectors():
    """The NIST CAVP ECC sets, complete, through `se --backend rtl` (make test runs a spread
    subset); returns one result per vector kind with the count that passed."""
    env = dict(os.environ, SE_FULL_VECTORS="1")
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "tests/crypto/test_ecc.py", "--backend", "rtl",
                           "-k", "keypair or pkv or siggen or sigver or kas"],
                          cwd=ROOT, env=env, check=True, capture_output=True, text=True)
    res = []
    for line in proc.stdout.splitlines():
        if line.startswith("[rtl] "):
            kind, _, count = line[len("[rtl] "):].rpartition(" ")
            res.append({"op": "vectors", "curve": None, "where": "rtl", "config": "engine",
                        "kind": kind.strip(), "passed": int(count),
                        "note": "complete CAVP set through the CLI, drivers and engine model"})
    return res


# ---- the node: SW vs SW+HW (sw/apps/nodebench on sim/node) ------------------------------------
NODE_CONFIGS = ("sw-rv32i", "sw-rv32im", "sw+hw-rv32i", "sw+hw-rv32im", "sw+hw-rv32imc")
NODE_OPS = {  # phase name in nodebench.c (or an application) -> (op, curve, extra fields)
    "ecdsa_keygen": ("ecdsa_keygen", "secp256r1", {}),
    "ecdsa_sign": ("ecdsa_sign", "secp256r1", {}),
    "ecdsa_verify": ("ecdsa_verify", "secp256r1", {}),
    "ecdh": ("ecdh", "secp256r1", {}),
    "ecsm_secp160r1": ("ecsm", "secp160r1", {}),
    "ecsm_secp192r1": ("ecsm", "secp192r1", {}),
    "ecsm_secp224r1": ("ecsm", "secp224r1", {}),
    "ecsm_secp256r1": ("ecsm", "secp256r1", {}),
    "ecsm_b233": ("ecsm", "sect233r1", {}),
    "x25519": ("x25519", "curve25519", {}),
    "aes128_ecb_1k": ("aes", None, {"mode": "ecb", "key_bits": 128, "msg_bytes": 1024}),
    "aes128_cbc_1k": ("aes", None, {"mode": "cbc", "key_bits": 128, "msg_bytes": 1024}),
    "aes128_ctr_1k": ("aes", None, {"mode": "ctr", "key_bits": 128, "msg_bytes": 1024}),
    "aes128_gcm_1k": ("aead", None, {"mode": "gcm", "key_bits": 128, "msg_bytes": 1024, "aad_bytes": 13}),
    "aes128_ccm_1k": ("aead", None, {"mode": "ccm", "key_bits": 128, "msg_bytes": 1024, "aad_bytes": 13}),
    "sha256_1k": ("sha256", None, {"msg_bytes": 1024}),
    # sw/apps/merkle (seed 001's Merkle hashing application): RFC 6962 tree hash and audit path
    "merkle_root_16x1k": ("merkle_root", None, {"leaves": 16, "block_bytes": 1024}),
    "merkle_path_16x1k": ("merkle_path", None, {"leaves": 16, "block_bytes": 1024, "leaf": 5}),
    "merkle_root_7x64": ("merkle_root", None, {"leaves": 7, "block_bytes": 64}),
    "merkle_path_7x64": ("merkle_path", None, {"leaves": 7, "block_bytes": 64, "leaf": 3}),
    # sw/apps/schnorr (seed 001's Schnorr prover): the commitment r G, the response r + c x mod n
    "schnorr_commit": ("schnorr_commit", "secp256r1", {}),
    "schnorr_respond": ("schnorr_respond", "secp256r1", {}),
    # sw/apps/ecmqv (seed 001's ECMQV): one agreement, the ephemeral key pair included
    "ecmqv": ("ecmqv", "secp256r1", {}),
}


def _run_node(config, app, budget, uart_input=None):
    """Runs build/fw/<config>/<app>.elf to its end (uart_input: the UART's input, the run ending
    once the firmware has consumed it); (stdout lines, the simulator's report, the elf)."""
    arch = config.rsplit("-", 1)[1]
    elf = ROOT / "build" / "fw" / config / f"{app}.elf"
    rep = ROOT / "build" / "reports" / f"{app}-{config}.json"
    # The sw configs never touch the engine: they run on the node without it (same cycles, ~10x
    # faster to simulate; sim/node/README.md).
    sim = ROOT / "build" / "sim" / (arch if "+hw" in config else arch + "-noengine") / "node"
    proc = subprocess.run([str(sim), "--elf", str(elf), "--max-cycles", budget, "--seed", "1", "--report", str(rep)]
                          + (["--uart-rx"] if uart_input is not None else []),
                          input=uart_input, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"bench: {app} on {config} failed ({proc.returncode}): {proc.stderr[-800:]}")
    return [json.loads(l) for l in proc.stdout.splitlines() if l.startswith("{")], json.loads(rep.read_text()), elf


def _run_nodebench(config):
    # SE_NODE_FULL=1: every operation in every configuration (software ECC: hours of simulation).
    app = "nodebench-full" if os.environ.get("SE_NODE_FULL") == "1" else "nodebench"
    # A cycle budget far above the slowest run (sw-rv32i: more than 2 G cycles, software P-256
    # without a multiplier); the nodebench-full budget is ten times that.
    lines, rep, elf = _run_node(config, app, "200000000000" if app == "nodebench-full" else "20000000000")
    bad = [l for l in lines if l.get("status", 0) != 0]
    if bad:
        sys.exit(f"bench: nodebench on {config}: failed operations {bad}")
    stack = next((l["stack_peak"] for l in lines if "stack_peak" in l), None)
    return config, rep, stack, size_of(elf)


def _peer_keys():
    """ECMQV's peer keys for the bench: static and ephemeral P-256 public keys from fixed scalars."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    fmt = serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    return [ec.derive_private_key(k, ec.SECP256R1()).public_key().public_bytes(*fmt).hex() for k in (0x5eed, 0xe9e)]


# Seed 001's applications (sw/apps/<app>, checked by tests/node/test_<app>.py) and their UART input:
# merkle runs its own cases; schnorr one round, its challenge given in advance; ecmqv one agreement.
APPS = {"merkle": lambda: None,
        "schnorr": lambda: f"commit\nchallenge {0x1234567 << 200:064x}\n",
        "ecmqv": lambda: "peer {} {}\n".format(*_peer_keys())}


def _run_apps(config):
    """Every APPS program on config (every line's status must be ok); the phases NODE_OPS names."""
    out = []
    for app, uart_input in APPS.items():
        lines, rep, _ = _run_node(config, app, "20000000000", uart_input())
        if any(l.get("status", "ok") != "ok" for l in lines):
            sys.exit(f"bench: {app} on {config}: {lines}")
        rep["phases"] = [ph for ph in rep["phases"] if ph["name"] in NODE_OPS]
        out.append((config, rep, None, None))
    return out


def node_results():
    """Runs the node benchmark firmware in every configuration (two simulations at a time) and
    returns one result per operation and configuration, plus sizes and the simulator's speed."""
    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(max_workers=2) as pool:
        # The slowest (software on RV32I) first, the quick ones beside it.
        order = ("sw-rv32i", "sw+hw-rv32im", "sw+hw-rv32i", "sw+hw-rv32imc", "sw-rv32im")
        runs = list(pool.map(_run_nodebench, order)) + [r for rs in pool.map(_run_apps, order) for r in rs]
    res, base_cycles = [], {}
    for config, rep, stack, size in runs:
        for ph in rep["phases"]:
            op, curve, extra = NODE_OPS[ph["name"]]
            busy = ph["engine_busy_cycles"]
            r = dict(op=op, curve=curve, where="node", config=config, phase=ph["name"], cycles=ph["cycles"],
                     cpu_active_cycles=ph["cpu_active_cycles"], cpu_sleep_cycles=ph["cpu_sleep_cycles"],
                     cpu_asleep_share=round(ph["cpu_sleep_cycles"] / ph["cycles"], 4) if ph["cycles"] else 0.0,
                     engine_busy_cycles=busy, icache_misses=rep["icache_misses"], **extra)
            if config in ("sw-rv32i", "sw-rv32im"):
                base_cycles.setdefault(ph["name"], {})[config] = ph["cycles"]
            res.append(r)
        if size is None:  # an application's run (APPS): its operations only
            continue
        text, data, bss = size
        res.append(dict(op="firmware_size", curve=None, where="node", config=config, module="nodebench",
                        text_bytes=text, data_bytes=data, bss_bytes=bss, stack_peak_bytes=stack))
        res.append(dict(op="sim_speed", curve=None, where="node", config=config, cycles=rep["cycles"],
                        wall_seconds=rep["wall_seconds"], sim_cycles_per_s=rep["sim_cycles_per_s"],
                        engine=rep.get("engine", True),
                        note="whole nodebench run, Verilated soc_top (sw configs: without the engine), "
                             "one core of this machine"))
    # Speed-up against the software baseline of the same operation: sw-rv32i (the issue's), or
    # sw-rv32i's stand-in sw-rv32im where the RV32I run is missing (the slower core: a lower bound).
    for r in res:
        base = base_cycles.get(r.get("phase"), {})
        for cfg in ("sw-rv32i", "sw-rv32im"):
            if cfg in base:
                r["speedup"] = round(base[cfg] / r["cycles"], 2)
                r["speedup_base"] = cfg
                break
    return res


def node_md(results):
    node = [r for r in results if r["where"] == "node" and "phase" in r]  # nodebench's operations
    if not node:
        return []
    lines = ["", "## The node: SW vs SW+HW (cycles; speed-up vs sw-rv32i; CPU asleep)", "",
             "Software ECC beyond one P-256 scalar multiplication runs only with SE_NODE_FULL=1 "
             "(hours of simulation); '-' marks an operation not run. A speed-up marked * is against "
             "sw-rv32im, where the sw-rv32i run is missing (a lower bound: RV32I is the slower core).", "",
             "| operation | " + " | ".join(NODE_CONFIGS) + " |", "| --- |" + " ---: |" * len(NODE_CONFIGS)]
    for phase in NODE_OPS:
        row = {r["config"]: r for r in node if r["phase"] == phase}
        cells = []
        for c in NODE_CONFIGS:
            r = row.get(c)
            speedup = (f"{r['speedup']}x{'' if r['speedup_base'] == 'sw-rv32i' else '*'}, "
                       if r is not None and "speedup" in r else "")
            cells.append("-" if r is None else f"{r['cycles']:,} ({speedup}{100 * r['cpu_asleep_share']:.0f}% asleep)")
        lines.append(f"| {phase} | " + " | ".join(cells) + " |")
    lines += ["", "I-cache misses: not applicable (PicoRV32 has no cache).", "",
              "| firmware (nodebench) | .text | .data | .bss | peak stack | sim cycles/s |",
              "| --- | ---: | ---: | ---: | ---: | ---: |"]
    for c in NODE_CONFIGS:
        sz = next((r for r in results if r["op"] == "firmware_size" and r["config"] == c
                   and r["module"] == "nodebench"), None)
        sp = next((r for r in results if r["op"] == "sim_speed" and r["config"] == c), None)
        if sz and sp:
            lines.append(f"| {c} | {sz['text_bytes']} | {sz['data_bytes']} | {sz['bss_bytes']} | "
                         f"{sz['stack_peak_bytes'] or '-'} | {sp['sim_cycles_per_s']:,.0f} |")
    return lines


# ---- the sensor node's DTLS handshake (sw/apps/sensor against `se collector`) --------------------
HS_CONFIGS = ("sw-rv32i", "sw-rv32im", "sw+hw-rv32i", "sw+hw-rv32im", "sw+hw-rv32imc", "hw-rv32i", "hw-rv32imc")
HS_HW = ("sw+hw-rv32im", "sw+hw-rv32imc")  # the goals are checked on each (rv32imc: compressed code)
# HW mode (sw/apps/sensor_hw: the handshake in the engine's controller) against SW+HW on the same core
HS_HW_MODE = {"hw-rv32i": "sw+hw-rv32i", "hw-rv32imc": "sw+hw-rv32imc"}
HS_HW_GOALS = {"full": 1_000_000, "cached": 1.5, "cpu": 5, "text": 8 * 1024, "ram": 4 * 1024}
HS_PHASES = ("hello", "cert_verify", "key_exchange", "finished")
HS_RECORD, HS_RECORDS = 1024, 8  # app_data: 8 records of 1 KiB
HS_GOALS = {"full_hw": 1_500_000, "speedup": 100, "cached": 1.5, "text": 24 * 1024, "ram": 12 * 1024}


def _run_sensor(config, pki, cid=False):
    """One sensor run on config: a full then a cached DTLS handshake (CCM_8, P-256) with the
    collector on loopback, then HS_RECORDS records of HS_RECORD bytes; cid: with a DTLS connection
    ID (RFC 9146: the node's records are tls12_cid records, made of AEAD messages, not SEAL). DTLS timers: the collector
    (wall clock) does not resend within an hour: a software node computes for up to half an hour of
    wall time per flight (sw-rv32i: one P-256 verification is ~2.9 G cycles), and resent flights
    would fill its 4 KiB NIC buffer and push out the one it needs. The node's timer (simulated time,
    50 MHz nominal) is 60 s = 3 G cycles; it runs only while the node waits for the collector, which
    answers within milliseconds."""
    import provision
    import tempfile
    with tempfile.TemporaryDirectory(prefix=f"hs-{config}-") as tmp:
        data = provision.blob(pki / "ca.pem", pki / "node-1.pem", pki / "node-1.key", readings=HS_RECORDS,
                              handshakes=2, record_size=HS_RECORD, retransmit_ms=60000, cid=cid)
        rep = ROOT / "build" / "reports" / f"sensor-{config}{'-cid' if cid else ''}.json"
        with provision.Collector(pki, pathlib.Path(tmp) / "bench.db", exit_after=HS_RECORDS,
                                 retransmit_ms=3_600_000, max_retransmits=100, idle_timeout=86400) as col:
            r = provision.run_node(config, data, f"udp-connect:127.0.0.1:{col.port}", 12 * 3600, report=rep,
                                   max_cycles=50_000_000_000, noengine=config.startswith("sw-"))
            if r.returncode != 0:
                sys.exit(f"bench: sensor on {config} failed ({r.returncode}): {r.stdout[-800:]} {r.stderr[-800:]}")
            col.wait(60)
    return config, cid, r


HS_CID_CONFIG = "sw+hw-rv32im"  # also measured with a connection ID (rv32imc's build has none)


def handshake_results():
    """The sensor node's handshake rows for HS_CONFIGS (the sw ones on the node without the engine:
    software ECC is billions of cycles, tens of minutes of simulation even there; sw-rv32i, about
    20 G cycles in all, is the longest part of `make bench`). SE_HS_CONFIGS
    (comma-separated) measures fewer; the others are "not measured"."""
    configs = tuple(os.environ["SE_HS_CONFIGS"].split(",")) if os.environ.get("SE_HS_CONFIGS") else HS_CONFIGS
    pki = ROOT / "build" / "reports" / "hs-pki"
    pki.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run([str(ROOT / "build" / "host" / "se"), "certs", "--out", str(pki), "--server-name", "localhost",
                    "--clients", "node-1"], check=True, capture_output=True)
    sys.path.insert(0, str(ROOT / "tools"))
    import provision
    from concurrent.futures import ThreadPoolExecutor
    jobs = [(c, False) for c in configs] + [(c, True) for c in configs if c == HS_CID_CONFIG]
    with ThreadPoolExecutor(max_workers=2) as pool:
        runs = list(pool.map(lambda j: _run_sensor(j[0], pki, j[1]), jobs))
    res = []
    for config, cid, r in runs:
        full, cached = provision.handshakes(r.report)
        lines = {k: l for l in r.lines for k in l}
        ad = provision.phase(r.report, "app_data")
        nbytes = lines["app_data"]["app_data"]
        work = ad["cycles"] - ad["idle_cycles"]
        app_data = dict(op="app_data", curve=None, where="node", config=config, transport="dtls",
                        suite="TLS_ECDHE_ECDSA_WITH_AES_128_CCM_8", record_bytes=HS_RECORD, records=HS_RECORDS,
                        msg_bytes=nbytes, cycles=work, cycles_per_byte=round(work / nbytes, 1),
                        cpu_active_cycles=ad["cpu_active_cycles"], engine_busy_cycles=ad["engine_busy_cycles"])
        if cid:  # the connection-ID run: its full handshake and its application data alone
            res.append(dict(op="handshake_full_cid", curve="secp256r1", where="node", config=config,
                            transport="dtls", suite="TLS_ECDHE_ECDSA_WITH_AES_128_CCM_8", cid=1,
                            cycles=full["work_cycles"], cpu_active_cycles=full["cpu_active_cycles"]))
            res.append(dict(app_data, op="app_data_cid", cid=1))
            continue
        for op, h, is_cached in (("handshake_full", full, 0), ("handshake_cached", cached, 1)):
            res.append(dict(op=op, curve="secp256r1", where="node", config=config, transport="dtls",
                            suite="TLS_ECDHE_ECDSA_WITH_AES_128_CCM_8", role="client", cycles=h["work_cycles"],
                            cycles_with_wait=h["cycles"], idle_cycles=h["idle_cycles"],
                            cpu_active_cycles=h["cpu_active_cycles"], cpu_sleep_cycles=h["cpu_sleep_cycles"],
                            engine_busy_cycles=h["engine_busy_cycles"], cached=is_cached,
                            phases={n: p["work_cycles"] for n, p in h["phases"].items()},
                            note="ClientHello to ESTABLISHED against se collector on loopback; cycles = the "
                                 "node's work (cycles_with_wait - idle_cycles: the cycles it slept with the "
                                 "engine idle, waiting for the host, are left out)"))
        res.append(app_data)
        text, data, bss = size_of(ROOT / "build" / "fw" / config / "sensor.elf")
        stack = lines["stack_peak"]["stack_peak"]
        res.append(dict(op="firmware_size", curve=None, where="node", config=config, module="sensor",
                        text_bytes=text, data_bytes=data, bss_bytes=bss, stack_peak_bytes=stack,
                        ram_bytes=data + bss + stack))
        setup = provision.phase(r.report, "setup")
        res.append(dict(op="curve_setup", curve="secp256r1", where="node", config=config, module="sensor",
                        cycles=setup["cycles"], note="se_ec_curve_builtin + backend ec_curve (sw+hw: the pk engine's curve load and G's comb table, PRECOMP; hw: the controller's WIPE, DRBG_SEED, P256_LOAD and the trust anchor key's table, KEY_TABLE, and the handshake's certificates in its window), once at boot"))
        table = provision.phase(r.report, "key_table")
        if table:   # HW mode: the cached server key's table, between the full and the cached handshake
            res.append(dict(op="server_key_table", curve="secp256r1", where="node", config=config, module="sensor",
                            cycles=table["cycles"] - table["idle_cycles"], cycles_with_wait=table["cycles"],
                            note="the controller's KEY_TABLE of the cached server certificate's key (PRECOMP into "
                                 "pk's cache entry 2), once after the full handshake, for the cached one's "
                                 "ServerKeyExchange"))
    return res


def handshake_md(results):
    hs = [r for r in results if r["where"] == "node" and r["op"] in ("handshake_full", "handshake_cached", "app_data")]
    if not hs:
        return []
    get = lambda op, c: next((r for r in results if r["op"] == op and r["config"] == c  # noqa: E731
                              and r.get("module", "sensor") == "sensor"), None)
    cell = lambda v: "not measured" if v is None else f"{v:,}"  # noqa: E731
    lines = ["", "## The sensor node: DTLS 1.2 client handshake (CCM_8, P-256, mutual auth)", "",
             "sw/apps/sensor against `se collector` on loopback (tools/provision.py). Cycles from the "
             "simulator's phase markers (the stack's phase hook), counting the node's own work: the cycles "
             "it slept with the engine idle (no IP, DMA or protocol controller busy), waiting for the host's "
             "answers, are left out (\"with waiting\" "
             "rows keep them; they vary with the host's speed). The sw configs run on the node without "
             "the engine (the same cycles; sim/node/README.md).", "",
             "The cached handshake skips the chain verification and the leaf's parsing, and on sw+hw verifies "
             "the ServerKeyExchange by one joint comb over G's and the cached server key's comb tables "
             "(`ECDSA_VERIFY_COMB`). The client starts that table once the full handshake's last flight is out "
             "(`se_ecdsa_remember_key`: the key's validation, then `PRECOMP` into the pk cache, 116,657 engine "
             "cycles, rtl/pk/README.md, in the background while Finished goes both ways); the full handshake "
             "counts the start, and whatever part of the table a later pk call waits for is counted there.", "",
             "The hw configs are HW mode (sw/apps/sensor_hw): the whole handshake runs in the engine's protocol "
             "controller (rtl/ctrl), the firmware only carries datagrams, runs the timer and seals and opens "
             "epoch 1; its phases follow the controller's state. The chain's signature by the trust anchor "
             "takes pk's joint comb over the anchor key's table, which the firmware has the controller make "
             "once at boot (`KEY_TABLE`: `PRECOMP`, counted in \"curve setup\"); at boot too it puts the "
             "trust anchor, its own certificate, the server name and the time into the controller's window "
             "(`se_drv_ctrl_hs_place`), where every handshake finds them. Its cached handshake skips the "
             "chain's verification, and verifies the ServerKeyExchange by the joint comb over the server key's "
             "table, which the firmware has the controller make between the two handshakes (`KEY_TABLE`, its "
             "own row below; the sw+hw client makes it in the background, partly counted in its full "
             "handshake).", "",
             "| cycles | " + " | ".join(HS_CONFIGS) + " |", "| --- |" + " ---: |" * len(HS_CONFIGS)]
    for op in ("handshake_full", "handshake_cached"):
        for ph in HS_PHASES:
            lines.append(f"| {op[10:]}: {ph} | " + " | ".join(
                cell((get(op, c) or {}).get("phases", {}).get(ph) if get(op, c) else None) for c in HS_CONFIGS) + " |")
        lines.append(f"| **{op[10:]} total** | " + " | ".join(
            cell(get(op, c)["cycles"] if get(op, c) else None) for c in HS_CONFIGS) + " |")
        lines.append(f"| {op[10:]}: CPU active | " + " | ".join(
            cell(get(op, c)["cpu_active_cycles"] if get(op, c) else None) for c in HS_CONFIGS) + " |")
        lines.append(f"| {op[10:]}: with waiting | " + " | ".join(
            cell(get(op, c)["cycles_with_wait"] if get(op, c) else None) for c in HS_CONFIGS) + " |")
        for ip in ("pk", "sha", "aes", "dma", "ctrl"):   # (a sw config's runs have no engine: 0)
            lines.append(f"| {op[10:]}: {ip} engine busy | " + " | ".join(
                cell(get(op, c)["engine_busy_cycles"].get(ip, 0) if get(op, c) else None) for c in HS_CONFIGS) + " |")
    lines.append(f"| app_data, cycles/byte ({HS_RECORDS} x {HS_RECORD} B records) | " + " | ".join(
        "not measured" if not get("app_data", c) else str(get("app_data", c)["cycles_per_byte"]) for c in HS_CONFIGS) + " |")
    cid_hs, cid_ad = get("handshake_full_cid", HS_CID_CONFIG), get("app_data_cid", HS_CID_CONFIG)
    if cid_hs and cid_ad:
        lines.append("| with a connection ID (RFC 9146): full handshake | " + " | ".join(
            f"{cid_hs['cycles']:,}" if c == HS_CID_CONFIG else "-" for c in HS_CONFIGS) + " |")
        lines.append("| with a connection ID: app_data, cycles/byte (tls12_cid records: AEAD messages, not SEAL) | "
                     + " | ".join(str(cid_ad["cycles_per_byte"]) if c == HS_CID_CONFIG else "-"
                                  for c in HS_CONFIGS) + " |")
    lines.append("| curve setup (boot) | " + " | ".join(
        cell(get("curve_setup", c)["cycles"] if get("curve_setup", c) else None) for c in HS_CONFIGS) + " |")
    lines.append("| the cached server key's table, between the two handshakes (HW mode: KEY_TABLE) | " + " | ".join(
        f"{get('server_key_table', c)['cycles']:,}" if get("server_key_table", c) else "-" for c in HS_CONFIGS) + " |")
    lines += ["", "| firmware (sensor) | .text | .data | .bss | peak stack | RAM (data+bss+stack) |",
              "| --- | ---: | ---: | ---: | ---: | ---: |"]
    for c in HS_CONFIGS:
        sz = get("firmware_size", c)
        lines.append(f"| {c} | " + (" | ".join("not measured" if sz[k] is None else f"{sz[k]:,}" for k in
                                               ("text_bytes", "data_bytes", "bss_bytes", "stack_peak_bytes",
                                                "ram_bytes"))
                                    if sz else " | ".join(["not measured"] * 5)) + " |")
    # Goal checks, on each sw+hw config (the speed-up: rv32im against sw-rv32i, the seed's core).
    goals = []

    def goal(what, shown, ok):
        goals.append(f"| {what} | {shown} | {'met' if ok else '**not met**'} |")

    for c in HS_HW:
        full, cached, size = get("handshake_full", c), get("handshake_cached", c), get("firmware_size", c)
        if full:
            goal(f"full handshake on {c} <= {HS_GOALS['full_hw']:,} cycles", f"{full['cycles']:,}",
                 full["cycles"] <= HS_GOALS["full_hw"])
        if full and cached:
            q = full["cycles"] / cached["cycles"]
            goal(f"cached handshake >= {HS_GOALS['cached']}x cheaper than full ({c})", f"{q:.2f}x",
                 q >= HS_GOALS["cached"])
        if size:
            goal(f"{c} client .text <= 24 KiB", f"{size['text_bytes']:,} B", size["text_bytes"] <= HS_GOALS["text"])
            goal(f"{c} client RAM <= 12 KiB incl. stack", f"{size['ram_bytes']:,} B",
                 size["ram_bytes"] <= HS_GOALS["ram"])
    for c, base in HS_HW_MODE.items():   # HW mode (issue 22's goals), against SW+HW on the same core
        full, cached, size, ref = (get("handshake_full", c), get("handshake_cached", c), get("firmware_size", c),
                                   get("handshake_full", base))
        if full:
            goal(f"HW mode: full handshake on {c} <= {HS_HW_GOALS['full']:,} cycles", f"{full['cycles']:,}",
                 full["cycles"] <= HS_HW_GOALS["full"])
        if full and cached:
            q = full["cycles"] / cached["cycles"]
            goal(f"HW mode: cached >= {HS_HW_GOALS['cached']}x cheaper than full ({c})", f"{q:.2f}x",
                 q >= HS_HW_GOALS["cached"])
        if full and ref:
            q = ref["cpu_active_cycles"] / full["cpu_active_cycles"]
            goal(f"HW mode: CPU active per full handshake <= 1/{HS_HW_GOALS['cpu']} of {base}'s "
                 f"({ref['cpu_active_cycles']:,}) on {c}", f"{full['cpu_active_cycles']:,} (1/{q:.1f})",
                 q >= HS_HW_GOALS["cpu"])
        if size:
            goal(f"HW mode: {c} firmware .text <= 8 KiB", f"{size['text_bytes']:,} B",
                 size["text_bytes"] <= HS_HW_GOALS["text"])
            goal(f"HW mode: {c} firmware RAM <= 4 KiB incl. stack", f"{size['ram_bytes']:,} B",
                 size["ram_bytes"] <= HS_HW_GOALS["ram"])
    full_hw, full_sw = get("handshake_full", "sw+hw-rv32im"), get("handshake_full", "sw-rv32i")
    if full_hw and full_sw:
        sp = full_sw["cycles"] / full_hw["cycles"]
        goal(f"sw+hw-rv32im: >= {HS_GOALS['speedup']}x fewer cycles than sw-rv32i", f"{sp:.1f}x",
             sp >= HS_GOALS["speedup"])
    else:
        goals.append(f"| sw+hw-rv32im: >= {HS_GOALS['speedup']}x fewer cycles than sw-rv32i | not measured | - |")
    lines += ["", "| goal | measured | verdict |", "| --- | ---: | --- |"] + goals
    return lines


def fuzz_results():
    """The libFuzzer harnesses (tests/fuzz, built by `make fuzz-build`), each for FUZZ_SECONDS (default
    10) on one core: tools/fuzz.py's rows (execs, edges, crashes)."""
    sys.path.insert(0, str(ROOT / "tools"))
    import fuzz
    seconds = int(os.environ.get("FUZZ_SECONDS", "10"))
    return [fuzz.run(name, seconds) for name in fuzz.names()]


def fuzz_md(results):
    rows = [r for r in results if r["op"] == "fuzz"]
    if not rows:
        return []
    lines = ["", f"## Fuzzing (libFuzzer, ASan + UBSan, {rows[0]['seconds']:.0f} s each; docs/robustness.md)", "",
             "| harness | execs | execs/s | edges | crashes |", "| --- | ---: | ---: | ---: | ---: |"]
    lines += [f"| {r['harness']} | {r['execs']:,} | {r['execs_per_sec']:,} | {r['edges']} | {r['crashes']} |"
              for r in rows]
    return lines


# ---- constant time on the node (sw/apps/cttime, tools/ctnode.py; docs/robustness.md) -----------
CT_NODE_CONFIG = "sw-rv32im"  # the LTO-built rv32im firmware, software crypto


def ct_node_results():
    """Cycle counts of software P-256 ECDH (6 scalars: 1, 2, 2^255, n-1, RFC 6979 A.2.5's key, a
    random one) and AES-128 (6 keys: one ECB block, CCM_8 and GCM over 32 bytes) on CT_NODE_CONFIG,
    outputs checked against the cryptography package; one row per algorithm, "constant" only when
    every count is the same. One simulation (the engine-less node, ~5 M cycles/s) unless
    CT_NODE_JOBS asks for more side by side: ~0.7 G cycles, a few minutes on one core."""
    sys.path.insert(0, str(ROOT / "tools"))
    import ctnode
    jobs = int(os.environ.get("CT_NODE_JOBS", "1"))
    try:
        rows, wall = ctnode.measure(CT_NODE_CONFIG, jobs=jobs)
    except (RuntimeError, FileNotFoundError) as e:
        sys.exit(f"bench: ct_node: {e}")
    for r in rows:
        r.update(wall_seconds=round(wall, 1), jobs=jobs,
                 note="cycles from the node's cycle counter around the call, one per secret; wall_seconds: "
                      "the whole ct_node measurement")
        if not r["constant"]:
            print(f"bench: ct_node: {r['alg']} on {r['config']} is NOT constant time: {r['cycles']}", file=sys.stderr)
    return rows


def ct_node_md(results):
    rows = [r for r in results if r["op"] == "ct_node"]
    if not rows:
        return []
    lines = ["", f"## Constant time on the node ({rows[0]['config']}, software; docs/robustness.md)", "",
             "Cycles of each operation per secret (sw/apps/cttime; outputs checked against the cryptography "
             f"package); measured in {rows[0]['wall_seconds']:.0f} s of wall time, {rows[0]['jobs']} simulation(s) "
             "at a time.", "",
             "| algorithm | secrets | cycles | constant |", "| --- | --- | --- | --- |"]
    for r in rows:
        counts = (f"{r['cycles'][0]:,} (every one)" if r["constant"]
                  else ", ".join(f"{lb}: {c:,}" for lb, c in zip(r["secret_labels"], r["cycles"])))
        lines.append(f"| {r['alg']} | {r['secrets']} ({', '.join(r['secret_labels'])}) | {counts} | "
                     f"{'yes' if r['constant'] else '**NO**'} |")
    return lines


# ---- the collector under load (`se load` against `se collector`; docs/scaling.md) --------------
LOAD_CLIENTS, LOAD_READINGS = 200, 10
LOAD_CONNECTIONS = {"sw": 5, "openssl": 20}  # a few seconds of load on each backend
LOAD_HEAVY_READINGS = 100  # the readings-heavy rows: openssl, 2 workers, 100 readings per connection


def _collector_load(backend, workers, pki, tmp, db_kind, readings=LOAD_READINGS):
    """One row: `se load` (LOAD_CLIENTS clients at once, `readings` per connection) against
    `se collector --workers N` into SQLite or a throwaway PostgreSQL cluster (tests/pg.py), all on
    this machine and on one backend; the readings the database holds afterwards are counted and
    must equal those sent."""
    import re
    import signal
    import sqlite3
    import time
    sys.path.insert(0, str(ROOT / "tests"))
    from pg import Postgres
    cli = str(ROOT / "build" / "host" / "se")
    name = f"{backend}-{workers}-{db_kind}-{readings}"
    pg = Postgres() if db_kind == "postgresql" else None
    db, log = (pg.url if pg else str(tmp / f"{name}.db")), tmp / f"{name}.log"
    try:
        with open(log, "w") as lf:
            col = subprocess.Popen([cli, "--backend", backend, "collector", "--listen", "127.0.0.1:0", "--db", db,
                                    "--cert", str(pki / "server.pem"), "--key", str(pki / "server.key"),
                                    "--ca", str(pki / "ca.pem"), "--max-peers", "512", "--workers", str(workers)],
                                   stdout=subprocess.PIPE, stderr=lf, text=True)
        try:
            port = None
            for _ in range(500):
                m = re.search(r"listening on 127\.0\.0\.1:(\d+)", log.read_text())
                if m:
                    port = m.group(1)
                    break
                time.sleep(0.02)
            if port is None:
                sys.exit(f"bench: collector did not start: {log.read_text()}")
            out = subprocess.run([cli, "--backend", backend, "load", "--connect", f"127.0.0.1:{port}",
                                  "--cert", str(pki / "node-1.pem"), "--key", str(pki / "node-1.key"),
                                  "--ca", str(pki / "ca.pem"), "--clients", str(LOAD_CLIENTS), "--readings",
                                  str(readings), "--connections", str(LOAD_CONNECTIONS[backend]),
                                  "--timeout", "600"], capture_output=True, text=True, timeout=900)
            rep = json.loads(out.stdout)
            time.sleep(0.5)  # the last batch's commit
        finally:
            col.send_signal(signal.SIGTERM)
            col.communicate(timeout=60)
        query = "SELECT COUNT(*), COUNT(DISTINCT payload) FROM readings"
        if pg:
            stored = [int(x) for x in pg.psql(query)[0]]
        else:
            con = sqlite3.connect(db)
            stored = con.execute(query).fetchone()
            con.close()
    finally:
        if pg:
            pg.close()
    return {"op": "collector_load", "where": "host", "backend": backend, "db": db_kind, "workers": workers,
            "clients": LOAD_CLIENTS, "readings_per_connection": readings, "handshakes": rep["handshakes"],
            "readings_sent": rep["readings_sent"], "readings_stored": stored[0], "readings_distinct": stored[1],
            "handshakes_per_s": round(rep["handshakes_per_s"], 1), "readings_per_s": round(rep["readings_per_s"], 1),
            "p50_handshake_ms": round(rep["p50_handshake_ms"], 2), "p99_handshake_ms": round(rep["p99_handshake_ms"], 2),
            "failures": rep["failures"],
            "note": f"se load, se collector and the database on the same {os.cpu_count()}-core machine, loopback"}


def collector_results():
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        tmp = pathlib.Path(d)
        subprocess.run([str(ROOT / "build" / "host" / "se"), "certs", "--out", str(tmp / "pki")], check=True,
                       capture_output=True)
        rows = [_collector_load(b, w, tmp / "pki", tmp, db) for b in ("sw", "openssl")
                for db in ("sqlite", "postgresql") for w in (1, 2)]
        rows += [_collector_load("openssl", 2, tmp / "pki", tmp, db, LOAD_HEAVY_READINGS)
                 for db in ("sqlite", "postgresql")]
        return rows


def collector_md(results):
    rows = [r for r in results if r["op"] == "collector_load"]
    if not rows:
        return []
    lines = ["", "## The collector under load (`se load` against `se collector`; docs/scaling.md)", "",
             f"{rows[0]['clients']} DTLS clients at once in one `se load` process, each connection a full handshake "
             "(client certificate required) and its readings; the load generator, the collector and the database "
             "share this machine (" + rows[0]["note"].split("same ")[1].split(",")[0] + "). Readings/s is what "
             "was sent over the run; the database is counted afterwards.", "",
             "| backend | db | workers | readings per connection | handshakes | handshakes/s | readings/s | p50 ms "
             "| p99 ms | failures | rows (distinct) / sent |",
             "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"]
    for r in rows:
        lines.append(f"| {r['backend']} | {r['db']} | {r['workers']} | {r['readings_per_connection']} | "
                     f"{r['handshakes']:,} | {r['handshakes_per_s']:,.0f} | {r['readings_per_s']:,.0f} | "
                     f"{r['p50_handshake_ms']} | {r['p99_handshake_ms']} | {r['failures']} | "
                     f"{r['readings_stored']:,} ({r['readings_distinct']:,}) / {r['readings_sent']:,} |")
    return lines


def write_md(results, path):
    lines = ["# Benchmarks", "", "Generated by `make bench` (tools/bench.py); schema in docs/benchmarks.md.", ""]
    sizes = [r for r in results if r["op"] == "code_size"]
    if sizes:
        lines += ["## Code size (bytes, -Os)", "",
                  "| module | rv32i text | rv32i data+bss | rv32im text | rv32im data+bss |",
                  "| --- | ---: | ---: | ---: | ---: |"]
        modules = list(dict.fromkeys(r["module"] for r in sizes))
        for m in modules:
            row = {r["config"]: r for r in sizes if r["module"] == m}
            cells = []
            for arch in ARCHES:
                r = row.get(f"sw-{arch}")
                cells += [str(r["text_bytes"]), str(r["data_bytes"] + r["bss_bytes"])] if r else ["-", "-"]
            lines.append(f"| {m} | " + " | ".join(cells) + " |")
    rtl = [r for r in results if r["where"] == "rtl" and "cycles" in r]
    if rtl:
        lines += ["", "## Engine cycles (RTL, bus-free engines)", "",
                  "| op | curve / mode | bits | bytes | cycles | note |", "| --- | --- | ---: | ---: | ---: | --- |"]
        for r in rtl:
            lines.append(f"| {r['op']} | {r.get('curve') or r.get('mode', '')} | "
                         f"{r.get('key_bits', r.get('modulus_bits', ''))} | "
                         f"{r.get('msg_bytes', '')} | {r['cycles']} | {r.get('note', '')} |")
    vecs = [r for r in results if r["op"] == "vectors"]
    if vecs:
        lines += ["", "## Complete vector sets through `--backend rtl`", "", "| kind | passed |", "| --- | ---: |"]
        lines += [f"| {r['kind']} | {r['passed']} |" for r in vecs]
    lines += node_md(results)
    lines += handshake_md(results)
    lines += ct_node_md(results)
    lines += fuzz_md(results)
    lines += collector_md(results)
    path.write_text("\n".join(lines) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", default="build/reports")
    ap.add_argument("--only", choices=["node", "handshake", "fuzz", "ct_node", "collector"],
                    help="measure only this part (node: the nodebench rows; handshake: the sensor node's DTLS rows; "
                         "fuzz: the fuzzers, FUZZ_SECONDS each; ct_node: P-256 and AES cycles over several secrets "
                         "on sw-rv32im; collector: se load against se collector)")
    args = ap.parse_args()
    out = ROOT / args.out
    out.mkdir(parents=True, exist_ok=True)
    if args.only == "node":
        results = node_results()
    elif args.only == "handshake":
        results = handshake_results()
    elif args.only == "fuzz":
        results = fuzz_results()
    elif args.only == "ct_node":
        results = ct_node_results()
    elif args.only == "collector":
        results = collector_results()
    else:
        results = (module_sizes() + subset_sizes() + rtl_cycles() + pk_cycles() + rtl_full_vectors() + node_results()
                   + handshake_results() + ct_node_results() + fuzz_results() + collector_results())
    (out / "bench.json").write_text(json.dumps({"schema": 1, "results": results}, indent=1) + "\n")
    write_md(results, out / "bench.md")
    node = node_md(results)
    if node:  # the SW vs SW+HW comparison is also kept in the docs (committed, refreshed by make bench)
        head = ["# The node: SW vs SW+HW", "", "Generated by `make bench` (tools/bench.py, sw/apps/nodebench on "
                "sim/node, `--seed 1`); schema in docs/benchmarks.md. PicoRV32 at one clock, cycles from the "
                "simulator's phase markers."]
        (ROOT / "docs" / "node_bench.md").write_text("\n".join(head + node[1:]) + "\n")
    hs = handshake_md(results)
    if hs:  # the same for the sensor node's handshake (docs/handshake_bench.md)
        head = ["# The sensor node: DTLS handshake cycles", "", "Generated by `make bench` (tools/bench.py, "
                "sw/apps/sensor and, HW mode, sw/apps/sensor_hw on sim/node, `--seed 1`); schema in "
                "docs/benchmarks.md; how the node runs: sw/apps/sensor/README.md, sw/apps/sensor_hw/README.md."]
        (ROOT / "docs" / "handshake_bench.md").write_text("\n".join(head + hs) + "\n")
    col = collector_md(results)
    if col:
        head = ["# The collector under load", "", "Generated by `make bench` (tools/bench.py, `--only collector`); "
                "schema in docs/benchmarks.md; what it means: docs/scaling.md."]
        (ROOT / "docs" / "collector_bench.md").write_text("\n".join(head + col[2:]) + "\n")
    print((out / "bench.md").read_text())


if __name__ == "__main__":
    main()
