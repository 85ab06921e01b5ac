#!/usr/bin/env python3
"""The sensor node's provisioning blob (format: sw/apps/sensor/provision.h) and a runner for the
node simulator with it: used by tests/node/test_sensor.py, tools/demo.sh and tools/bench.py.

    provision.py blob --ca ca.pem --cert node-1.pem --key node-1.key [options] --out blob.bin
    provision.py run  --ca ... --cert ... --key ... --nic udp-connect:127.0.0.1:PORT [options]
                      [--config sw+hw-rv32im] [--report run.json]

`run` feeds the blob to the node's UART and keeps stdin open until the node stops: at end of
input the simulator would end a node that sleeps waiting for the network (sim/node: uart_eof).
It prints the node's UART output, its JSON lines with their numbers named (named()), and exits
with the simulator's status.
"""
import argparse
import json
import os
import pathlib
import struct
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
MAGIC = b"SNP1"
PROV_MAX = 1024  # SENSOR_PROV_MAX
TAG = dict(ca=1, cert=2, key=3, server_name=4, now=5, readings=6, suite=7, handshakes=8, mtu=9,
           record_size=10, retransmit_ms=11, cid=12)
SUITES = {"ccm8": 0xC0AE, "gcm": 0xC02B, "cbc": 0xC023}
# The handshake's phases as the stack names them (se/tls.h, the phase hook), in order.
HANDSHAKE_PHASES = ("hello", "cert_verify", "key_exchange", "finished")
ENGINES = ("aes", "sha", "pk", "gf2m", "dma", "ctrl")


def _pem_cert_der(path):
    from cryptography import x509
    from cryptography.hazmat.primitives import serialization
    cert = x509.load_pem_x509_certificate(pathlib.Path(path).read_bytes())
    return cert.public_bytes(serialization.Encoding.DER)


def _pem_key_raw(path):
    """The 32-byte big-endian scalar of a P-256 private key in PEM (PKCS#8 or SEC 1)."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    key = serialization.load_pem_private_key(pathlib.Path(path).read_bytes(), password=None)
    if not isinstance(key, ec.EllipticCurvePrivateKey) or key.curve.name != "secp256r1":
        raise ValueError(f"{path}: not a P-256 private key")
    return key.private_numbers().private_value.to_bytes(32, "big")


def fnv1a(data):
    h = 2166136261
    for b in data:
        h = ((h ^ b) * 16777619) & 0xFFFFFFFF
    return h


def blob(ca, cert, key, server_name="localhost", now=None, readings=1, suite="ccm8", handshakes=1,
         mtu=0, record_size=0, retransmit_ms=0, cid=False):
    """The provisioning blob. ca, cert, key: PEM file paths; suite: "ccm8", "gcm", "cbc" or a
    number (the node's protocol build has no CBC: it refuses "cbc" with not_supported); now: Unix
    seconds (default: the host's clock); server_name None/"": no name check; cid: offer a DTLS
    connection ID (RFC 9146; rv32imc firmware has none and refuses it with not_supported)."""
    suite = SUITES[suite] if isinstance(suite, str) else int(suite)
    fields = [(TAG["ca"], _pem_cert_der(ca)), (TAG["cert"], _pem_cert_der(cert)),
              (TAG["key"], _pem_key_raw(key)),
              (TAG["now"], struct.pack("<Q", int(time.time() if now is None else now))),
              (TAG["readings"], struct.pack("<H", readings)), (TAG["suite"], struct.pack("<H", suite)),
              (TAG["handshakes"], struct.pack("<B", handshakes)), (TAG["mtu"], struct.pack("<H", mtu)),
              (TAG["record_size"], struct.pack("<H", record_size)),
              (TAG["retransmit_ms"], struct.pack("<I", retransmit_ms))]
    if cid:
        fields.append((TAG["cid"], b"\x01"))
    if server_name:
        fields.append((TAG["server_name"], server_name.encode()))
    body = b"".join(struct.pack("<BH", t, len(v)) + v for t, v in fields)
    if len(body) > PROV_MAX:
        raise ValueError(f"provisioning blob of {len(body)} bytes, the node takes {PROV_MAX}")
    return MAGIC + struct.pack("<H", len(body)) + body + struct.pack("<I", fnv1a(body))


_NAMES = {}


def names(se=None):
    """`se names`: {"status", "alert", "suite"} -> {number as text: name}, from the C library's own
    tables (the firmware prints numbers: the names would cost the node's ROM). Read once per
    process (from se, or build/host/se)."""
    if not _NAMES:
        out = subprocess.run([str(se or ROOT / "build" / "host" / "se"), "names"], check=True,
                             capture_output=True, text=True).stdout
        _NAMES.update(json.loads(out))
    return _NAMES


def named(line):
    """A JSON line of the node with its numbers named: "error" and "fatal" (se_status numbers; a
    provisioning problem comes as text already), "alert_sent", "alert_received" (TLS alerts) and
    "suite" (the IANA number). A number without a name becomes "unknown(N)"."""
    for key, table in (("error", "status"), ("fatal", "status"), ("alert_sent", "alert"),
                       ("alert_received", "alert"), ("suite", "suite")):
        v = line.get(key)
        if isinstance(v, int) and not isinstance(v, bool):
            line[key] = names()[table].get(str(v), f"unknown({v})")
    return line


class NodeRun:
    """A finished node run: returncode, stdout (UART), stderr, report (dict or None), the JSON
    lines the firmware printed (lines, numbers named: named()), wall seconds."""

    def __init__(self, returncode, stdout, stderr, report, seconds):
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr
        self.report, self.seconds = report, seconds
        self.lines = [named(json.loads(l)) for l in stdout.splitlines() if l.startswith("{")]

    def __repr__(self):
        return f"<NodeRun status {self.returncode}, stderr {self.stderr[-600:]!r}, stdout {self.stdout[-800:]!r}>"


def sim_and_elf(config, app="sensor", noengine=False):
    """The simulator and firmware of a config; noengine: the node without the engine (sim/node
    README), for sw configs only (their firmware never touches the engine)."""
    arch = config.rsplit("-", 1)[1]
    if noengine and "+hw" in config:
        raise ValueError(f"{config} needs the engine")
    sim = ROOT / "build" / "sim" / (arch + ("-noengine" if noengine else "")) / "node"
    return sim, ROOT / "build" / "fw" / config / f"{app}.elf"


def start_node(config, data, nic, report=None, max_cycles=0, seed=1, app="sensor", noengine=False,
               profile=None):
    """Starts the sensor firmware on the simulator with the blob on its UART; returns a function
    wait(timeout) -> NodeRun (the simulator is killed when the timeout passes). profile: a file for
    the simulator's --profile (tools/fwprofile.py)."""
    sim, elf = sim_and_elf(config, app, noengine)
    own_report = report is None
    if own_report:
        fd, report = tempfile.mkstemp(prefix="sensor-report-", suffix=".json")
        os.close(fd)
    cmd = [str(sim), "--elf", str(elf), "--uart-rx", "--nic", nic, "--max-cycles", str(max_cycles),
           "--seed", str(seed), "--report", str(report)] + (["--profile", str(profile)] if profile else [])
    out, err = tempfile.TemporaryFile(), tempfile.TemporaryFile()
    t0 = time.monotonic()
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=out, stderr=err)
    proc.stdin.write(data)
    proc.stdin.flush()  # and left open: see the module's doc

    def wait(timeout):
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            raise TimeoutError(f"the node did not finish within {timeout} s: {' '.join(cmd)}")
        finally:  # a timeout, Ctrl-C, ...: the simulator does not outlive us
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            proc.stdin.close()
        out.seek(0), err.seek(0)
        text = pathlib.Path(report).read_text() if os.path.exists(report) else ""
        if own_report and os.path.exists(report):
            os.unlink(report)
        return NodeRun(proc.returncode, out.read().decode(errors="replace"),
                       err.read().decode(errors="replace"), json.loads(text) if text.strip() else None,
                       time.monotonic() - t0)
    return wait


def run_node(config, data, nic, timeout, **kw):
    """start_node(...)(timeout)."""
    return start_node(config, data, nic, **kw)(timeout)


def free_udp_port():
    import socket
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Collector:
    """`se collector` on 127.0.0.1 in the background (start(), then stop() or use `with`): a fresh
    database db, the server identity of a PKI directory (ca.pem, server.pem, server.key). Long
    DTLS timers by default: the simulated node is thousands of times slower than a real one.
    env: its environment (default: ours)."""

    def __init__(self, pki_dir, db, *, exit_after=None, retransmit_ms=30000, max_retransmits=None,
                 idle_timeout=3600, stats=None, se=None, env=None):
        d = pathlib.Path(pki_dir)
        self.port = free_udp_port()
        self.db, self.stats, self.env = pathlib.Path(db), stats, env
        self.cmd = [str(se or ROOT / "build" / "host" / "se"), "collector", "--listen", f"127.0.0.1:{self.port}",
                    "--db", str(db), "--cert", str(d / "server.pem"), "--key", str(d / "server.key"),
                    "--ca", str(d / "ca.pem"), "--retransmit-ms", str(retransmit_ms),
                    "--idle-timeout", str(idle_timeout)]
        if max_retransmits:
            self.cmd += ["--max-retransmits", str(max_retransmits)]
        if exit_after:
            self.cmd += ["--exit-after-records", str(exit_after)]
        if stats:
            self.cmd += ["--stats", str(stats)]
        self.proc = None
        self.log = tempfile.TemporaryFile()

    def start(self, timeout=20):
        """Starts it and waits for its "listening" line."""
        self.proc = subprocess.Popen(self.cmd, stdin=subprocess.DEVNULL, stdout=self.log, stderr=self.log, env=self.env)
        deadline = time.monotonic() + timeout
        while b"listening" not in self.output(raw=True):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"se collector did not start: {self.output()}")
            time.sleep(0.05)
        return self

    def output(self, raw=False):
        self.log.seek(0)
        data = self.log.read()
        return data if raw else data.decode(errors="replace")

    def wait(self, timeout):
        """Waits for it to exit by itself (--exit-after-records); its status."""
        return self.proc.wait(timeout=timeout)

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode if self.proc else None

    def rows(self):
        """(node, payload bytes) of every stored reading, in order."""
        import sqlite3
        con = sqlite3.connect(self.db)
        try:
            return [(n, bytes(p) if isinstance(p, (bytes, memoryview)) else str(p).encode())
                    for n, p in con.execute("SELECT node, payload FROM readings ORDER BY id")]
        finally:
            con.close()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()


def handshakes(report):
    """The handshakes of a run report: a list (one per handshake, in order) of dicts with
    "phases" (name -> cycles, cpu_active_cycles, cpu_sleep_cycles, idle_cycles, engine_busy_cycles;
    a name that comes back within one handshake is summed) and the same figures summed over the
    handshake's phases; "work_cycles" = cycles - idle_cycles, the node's own work without the time
    it waited for its peer. A handshake starts with "hello" and ends where "done" starts; phases
    outside handshakes ("provision", "setup", "done", "app_data", "close", "key_table") are left out."""
    keys = ("cycles", "cpu_active_cycles", "cpu_sleep_cycles", "idle_cycles")
    out, cur = [], None
    for ph in report["phases"]:
        name = ph["name"]
        if name in ("provision", "setup", "done", "app_data", "close", "key_table"):
            cur = None
            continue
        if cur is None:
            cur = {"phases": {}}
            out.append(cur)
        acc = cur["phases"].setdefault(name, {**{k: 0 for k in keys},
                                              "engine_busy_cycles": dict.fromkeys(ENGINES, 0)})
        for k in keys:
            acc[k] += ph[k]
        for e in ENGINES:
            acc["engine_busy_cycles"][e] += ph["engine_busy_cycles"][e]
    for h in out:
        ps = list(h["phases"].values())
        for k in keys:
            h[k] = sum(p[k] for p in ps)
        for p in ps + [h]:
            p["work_cycles"] = p["cycles"] - p["idle_cycles"]
        h["engine_busy_cycles"] = {e: sum(p["engine_busy_cycles"][e] for p in ps) for e in ENGINES}
    return out


def phase(report, name, index=-1):
    """The report's phase entry `name` (the last one by default), or None."""
    found = [p for p in report["phases"] if p["name"] == name]
    return found[index] if found else None


def _args(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("what", choices=["blob", "run"])
    ap.add_argument("--ca", required=True)
    ap.add_argument("--cert", required=True)
    ap.add_argument("--key", required=True)
    ap.add_argument("--server-name", default="localhost")
    ap.add_argument("--now", type=int)
    ap.add_argument("--readings", type=int, default=1)
    ap.add_argument("--suite", default="ccm8", help="ccm8 (default) or gcm (the node's build has no cbc)")
    ap.add_argument("--handshakes", type=int, default=1)
    ap.add_argument("--mtu", type=int, default=0)
    ap.add_argument("--record-size", type=int, default=0)
    ap.add_argument("--retransmit-ms", type=int, default=0)
    ap.add_argument("--cid", action="store_true", help="offer a DTLS connection ID (RFC 9146)")
    ap.add_argument("--out", help="blob: file to write")
    ap.add_argument("--config", default="sw+hw-rv32im", help="run: firmware config")
    ap.add_argument("--nic", help="run: the simulator's --nic MODE")
    ap.add_argument("--report", help="run: the simulator's --report FILE")
    ap.add_argument("--profile", help="run: the simulator's --profile FILE (tools/fwprofile.py)")
    ap.add_argument("--noengine", action="store_true",
                    help="run: a sw config on the node without the engine (same cycles, faster)")
    ap.add_argument("--timeout", type=float, default=600, help="run: wall seconds")
    return ap.parse_args(argv)


def main(argv=None):
    a = _args(argv)
    data = blob(a.ca, a.cert, a.key, a.server_name, a.now, a.readings, a.suite, a.handshakes, a.mtu,
                a.record_size, a.retransmit_ms, a.cid)
    if a.what == "blob":
        pathlib.Path(a.out).write_bytes(data) if a.out else sys.stdout.buffer.write(data)
        return 0
    if not a.nic:
        sys.exit("provision.py run: --nic is required")
    r = run_node(a.config, data, a.nic, a.timeout, report=a.report, profile=a.profile, noengine=a.noengine)
    sys.stdout.write("".join((json.dumps(named(json.loads(l))) if l.startswith("{") else l) + "\n"
                             for l in r.stdout.splitlines()))
    sys.stderr.write(r.stderr)
    return r.returncode


if __name__ == "__main__":
    sys.exit(main())
