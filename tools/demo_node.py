#!/usr/bin/env python3
"""make demo's main part: the simulated sensor node (sw/apps/sensor on sim/node, sw+hw-rv32imc: the
engine, compressed instructions) sends readings over DTLS 1.2 to `se collector` on loopback; then
the cycles per handshake phase, the firmware's size and stack, and the rows the collector stored.

    demo_node.py --pki build/demo --readings 5 [--config sw+hw-rv32imc]

--config hw-rv32imc (or hw-rv32i) runs HW mode, sw/apps/sensor_hw: the handshake in the engine's
protocol controller, with the same blob and lines (`make demo NODE_CONFIG=hw-rv32imc`).
"""
import argparse
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import provision  # noqa: E402
from bench import size_of  # noqa: E402

ROOT = provision.ROOT
ORDER = ("provision", "setup", "hello", "cert_verify", "key_exchange", "finished", "done", "app_data", "close")
NOTES = {"provision": "blob read from the UART", "setup": "DRBG seed, P-256: the engine's curve and G's comb table (HW mode: the anchor's too)",
         "hello": "ClientHello, cookie, ServerHello..ServerHelloDone in",
         "cert_verify": "server chain to the anchor (or the cache)",
         "key_exchange": "SKE signature, ECDHE keygen + ECDH, keys, our CertificateVerify",
         "finished": "Finished both ways", "done": "until the first record", "close": "close_notify"}


def table(report, readings):
    head = f"    {'phase':13s} {'cycles':>11s} {'CPU active':>11s} {'CPU asleep':>11s} {'pk busy':>10s} " \
           f"{'aes busy':>9s} {'sha busy':>9s} {'ctrl busy':>10s}  what"
    print(head)
    print("    " + "-" * (len(head) - 4))

    def row(name, t, note):
        b = t["engine_busy_cycles"]
        print(f"    {name:13s} {t['cycles']:>11,} {t['cpu_active_cycles']:>11,} {t['cpu_sleep_cycles']:>11,} "
              f"{b['pk']:>10,} {b['aes']:>9,} {b['sha']:>9,} {b['ctrl']:>10,}  {note}")
    totals = report["phase_totals"]
    for name in ORDER:
        if name in totals:
            row(name, totals[name], NOTES.get(name, f"{readings} readings, encrypted (CCM_8) and sent"))
    hs = provision.handshakes(report)
    for i, h in enumerate(hs, 1):
        row("handshake" if len(hs) == 1 else f"handshake {i}", h, "hello .. finished")
    print(f"    whole run: {report['cycles']:,} cycles, CPU asleep {report['cpu_sleep_cycles']:,} "
          f"({100 * report['cpu_sleep_cycles'] / report['cycles']:.0f} %), simulated at "
          f"{report['sim_cycles_per_s'] / 1e6:.2f} M cycles/s ({report['wall_seconds']:.0f} s)")


def describe(l):
    """The sensor's JSON line (numbers named by provision.NodeRun) in words."""
    if "handshake" in l:
        return (f"handshake {l['handshake']} {'cached' if l['cached'] else 'full'}, {l['suite']}, "
                f"{l['cycles']:,} cycles from se_tls_init to established (the sensor's own count; the "
                "table's handshake row counts from the hello marker)")
    if "app_data" in l:
        return f"{l['app_data']} bytes of readings in {l['records']} records, {l['cycles']:,} cycles"
    if "done" in l:
        return (f"ok, {l['readings']} readings sent as {l['name']}, {l['retransmits']} retransmits, "
                f"{l['dropped']} records dropped, {l['bytes_in']} bytes received")
    if "error" in l:
        alerts = "".join(f", {k.replace('_', ' ')} {l[k]}" for k in ("alert_sent", "alert_received") if k in l)
        return f"error {l['error']} ({l['where']}){alerts}"
    return str(l)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pki", default=str(ROOT / "build" / "demo"))
    ap.add_argument("--readings", type=int, default=5)
    ap.add_argument("--config", default="sw+hw-rv32imc")
    ap.add_argument("--timeout", type=float, default=300)
    a = ap.parse_args()
    pki = pathlib.Path(a.pki).resolve()
    db, rep = pki / "readings.db", pki / "node-run.json"
    for f in (db, pki / "readings.db-wal", pki / "readings.db-shm", rep):
        f.unlink(missing_ok=True)

    data = provision.blob(pki / "ca.pem", pki / "node-1.pem", pki / "node-1.key", readings=a.readings)
    with provision.Collector(pki, db, exit_after=a.readings) as col:
        print(f"    se collector listening on 127.0.0.1:{col.port}, database {db.relative_to(ROOT)}")
        print(f"    node: build/sim/{a.config.rsplit('-', 1)[1]}/node --elf build/fw/{a.config}/sensor.elf "
              f"--uart-rx --nic udp-connect:127.0.0.1:{col.port}  (provisioning blob of {len(data)} bytes on the UART)")
        r = provision.run_node(a.config, data, f"udp-connect:127.0.0.1:{col.port}", a.timeout, report=rep)
        for line in r.lines:
            print(f"    | sensor: {describe(line)}")
        if r.returncode != 0:
            print(r.stderr, col.output(), sep="\n")
            return 1
        col.wait(30)
        rows = col.rows()
        log = [l for l in col.output().splitlines() if "connected" in l or "records_stored" in l]

    print("\n\033[1m== Cycles per phase (simulator markers; CPU asleep = waitirq: engine work or waiting for "
          "the network)\033[0m")
    table(r.report, a.readings)
    text, data_b, bss = size_of(ROOT / "build" / "fw" / a.config / "sensor.elf")
    stack = next(l["stack_peak"] for l in r.lines if "stack_peak" in l)
    print(f"\n\033[1m== Firmware {a.config}/sensor.elf\033[0m")
    print(f"    .text {text:,} B (code + constants, ROM)   .data {data_b:,} B   .bss {bss:,} B   "
          f"peak stack {stack:,} B   RAM in use {data_b + bss + stack:,} B")
    print(f"\n\033[1m== Rows in {db.relative_to(ROOT)} (sqlite3: SELECT id, node, received_at, payload FROM readings)"
          "\033[0m")
    import sqlite3
    con = sqlite3.connect(db)
    for rid, node, at, payload in con.execute("SELECT id, node, received_at, payload FROM readings ORDER BY id"):
        print(f"    {rid:3d}  {node}  {at}  {bytes(payload).decode(errors='replace')}")
    con.close()
    for line in log:
        print(f"    | {line}")
    if len(rows) != a.readings or any(n != "node-1" for n, _ in rows):
        print(f"demo: expected {a.readings} rows from node-1, got {rows}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
