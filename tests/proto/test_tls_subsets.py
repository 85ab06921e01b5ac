"""The protocol's build-time subsets for a small node (se/tls.h: -DSE_TLS_NO_SERVER,
-DSE_TLS_NO_STREAM, -DSE_TLS_NO_CBC, -DSE_TLS_NO_KEYLOG, the node's NODE_TLS_FLAGS, and -DSE_TLS_NO_CID,
rv32imc's NODE_TLS_FLAGS_rv32imc): sw/proto is compiled for the host
with those flags and tests/proto/c/subset_check.c, linked with the host's crypto library and
drivers. What was left out is refused by se_tls_init with not_supported, an unknown suite stays
bad_input, and a client with the default suite list offers CCM_8 and GCM only (the ClientHello is
parsed here, per RFC 6347 4.2.2 / RFC 5246 7.4.1.2)."""
import re
import subprocess

import pytest

from se_cli import ROOT

FLAGS = ["-DSE_TLS_NO_SERVER", "-DSE_TLS_NO_STREAM", "-DSE_TLS_NO_CBC", "-DSE_TLS_NO_CID", "-DSE_TLS_NO_KEYLOG"]
LIBS = [ROOT / "build" / "host" / n for n in ("libsebackend.a", "libsedrivers.a", "libsecrypto.a")]


@pytest.fixture(scope="module")
def out(tmp_path_factory):
    for lib in LIBS:
        if not lib.exists():
            pytest.fail(f"{lib.relative_to(ROOT)} is not built (run `make cli`)")
    exe = tmp_path_factory.mktemp("subset") / "subset_check"
    makefile = (ROOT / "Makefile").read_text()
    assert all(f in makefile for f in FLAGS), "the node's NODE_TLS_FLAGS(_rv32imc) no longer set these subsets"
    srcs = sorted(str(p) for p in (ROOT / "sw" / "proto").glob("*.c"))
    subprocess.run(["cc", "-std=c11", "-O1", "-Wall", "-Wextra", "-Werror", "-D_DEFAULT_SOURCE", *FLAGS,
                    "-I", str(ROOT / "sw/crypto/include"), "-I", str(ROOT / "sw/drivers/include"),
                    "-I", str(ROOT / "sw/backend/include"), "-I", str(ROOT / "build/gen/include"),
                    "-I", str(ROOT / "sw/proto/include"), str(ROOT / "tests/proto/c/subset_check.c"), *srcs, *map(str, LIBS), "-o", str(exe)],
                   check=True)
    r = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r
    return dict(line.split(" ", 1) for line in r.stdout.splitlines())


def test_left_out_parts_are_refused(out):
    assert out["datagram_ccm8"] == "ok"
    assert out["stream"] == "not_supported"
    assert out["server"] == "not_supported"
    assert out["cbc"] == "not_supported"
    assert out["unknown_suite"] == "bad_input"


def _client_hello_suites(dgram):
    """The cipher suites of a DTLS record carrying one unfragmented ClientHello."""
    assert dgram[0] == 22 and dgram[1:3] == b"\xfe\xfd", dgram[:3].hex()  # handshake, DTLS 1.2
    body = dgram[13:]
    assert body[0] == 1 and body[1:4] == body[9:12], "not one whole ClientHello"  # length == fragment length
    p = 12 + 2 + 32  # handshake header, client_version, random
    p += 1 + body[p]  # session_id
    p += 1 + body[p]  # cookie
    n = int.from_bytes(body[p:p + 2], "big")
    return [int.from_bytes(body[p + 2 + i:p + 4 + i], "big") for i in range(0, n, 2)]


def test_default_suites_leave_cbc_out(out):
    assert out["start"] == "ok"
    assert re.fullmatch(r"[0-9a-f]+", out["hello"]), out["hello"]
    assert _client_hello_suites(bytes.fromhex(out["hello"])) == [0xC0AE, 0xC02B]  # CCM_8, GCM
