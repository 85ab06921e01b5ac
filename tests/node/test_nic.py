"""The NIC end to end: the nicecho firmware (sw/apps/nicecho) sends every packet back, sleeping in
waitirq between packets, over the simulator's socket bridge (--nic udp-listen:PORT and
tcp-listen:PORT) to a Python socket. Packets of 1..2048 bytes of binary content, one at a time and
several queued at once; "quit" ends the firmware."""
import random
import socket
import time

import pytest

CONFIG = "sw-rv32im"
SIZES = [1, 2, 3, 4, 5, 7, 8, 63, 64, 65, 255, 256, 1000, 1499, 2047, 2048]
TIMEOUT = 120


def free_port(kind):
    with socket.socket(socket.AF_INET, kind) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def payloads(seed):
    rng = random.Random(seed)
    out = [rng.randbytes(n) for n in SIZES]
    out.append(bytes(range(256)) * 8)  # every byte value, 2048 bytes
    out.append(b"\x00" * 100)
    return out


def test_udp_echo(node):
    sim, elf = node.require(CONFIG, "nicecho")
    port = free_port(socket.SOCK_DGRAM)
    wait = node.start(sim, elf, ["--nic", f"udp-listen:{port}", "--max-cycles", 0])
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        sock.settimeout(0.25)
        # The simulator binds its socket while starting: repeat a probe until it answers.
        deadline, seen = time.monotonic() + 30, None
        while seen is None and time.monotonic() < deadline:
            sock.sendto(b"probe", ("127.0.0.1", port))
            try:
                seen = sock.recvfrom(4096)[0]
            except (socket.timeout, ConnectionRefusedError):
                pass
        assert seen == b"probe", "no echo from the node within 30 s"
        # drain echoes of repeated probes
        while True:
            try:
                assert sock.recvfrom(4096)[0] == b"probe"
            except socket.timeout:
                break
        sock.settimeout(20)
        sent = 0
        for p in payloads(1):  # one at a time
            sock.sendto(p, ("127.0.0.1", port))
            assert sock.recvfrom(4096)[0] == p, f"{len(p)}-byte packet not echoed intact"
            sent += 1
        burst = [bytes([i]) * 900 for i in range(4)]  # 3600 bytes: fits the 4 KiB RX buffer at once
        for p in burst:
            sock.sendto(p, ("127.0.0.1", port))
        assert [sock.recvfrom(4096)[0] for _ in burst] == burst
        sock.sendto(b"quit", ("127.0.0.1", port))
        r = wait(TIMEOUT)
    finally:
        sock.close()
    assert r.returncode == 0, r
    assert r.report["reason"] == "exit" and r.report["exit_code"] == 0, r.report
    assert "nicecho: ready" in r.stdout and "0 dropped" in r.stdout, r.stdout
    nic = r.report["nic"]
    echoed = nic["tx_packets"]
    assert echoed >= 1 + sent + len(burst) and nic["rx_packets"] == echoed + 1, nic
    # between packets the core sleeps in waitirq rather than polling (the simulator does not let
    # cycles run on while it waits for the socket, so the sleep is short in cycles)
    assert r.report["cpu_sleep_cycles"] > 0, r.report


def test_tcp_echo(node):
    """A TCP stream has no packet boundaries: the bridge cuts it into packets of at most 2048
    bytes, so the echo is checked as a byte stream; "quit" goes alone after everything came back."""
    sim, elf = node.require(CONFIG, "nicecho")
    port = free_port(socket.SOCK_STREAM)
    wait = node.start(sim, elf, ["--nic", f"tcp-listen:{port}", "--max-cycles", 0])
    deadline, conn = time.monotonic() + 30, None
    while conn is None:
        try:
            conn = socket.create_connection(("127.0.0.1", port), timeout=20)
        except ConnectionRefusedError:
            if time.monotonic() > deadline:
                wait(5)
                pytest.fail("the simulator did not listen within 30 s")
            time.sleep(0.1)
    try:
        data = b"".join(payloads(2))
        for i in range(0, len(data), 1500):
            chunk = data[i:i + 1500]
            conn.sendall(chunk)
            got = b""
            while len(got) < len(chunk):
                part = conn.recv(65536)
                assert part, "the node closed the stream"
                got += part
            assert got == chunk
        time.sleep(0.2)
        conn.sendall(b"quit")
        r = wait(TIMEOUT)
    finally:
        conn.close()
    assert r.returncode == 0, r
    assert r.report["reason"] == "exit" and r.report["exit_code"] == 0, r.report
