"""The constant-time CBC-SHA256 record check (sw/proto/tls_cbc.c, Lucky Thirteen): its HMAC at
every secret plaintext length a record length allows, and its verdict on records that differ in
padding length, padding bytes, MAC validity and record length, each against the `cryptography`
package's HMAC-SHA256 and the RFC 5246 6.2.3.2 padding rule written out here. The C side is
tests/proto/c/cbc_check.c over sw/proto/tls_cbc.c and sw/crypto/sha256.c, built here."""
import random
import subprocess

import pytest
from cryptography.hazmat.primitives import hashes, hmac

from se_cli import ROOT

MAC, PAD_MAX = 32, 256


@pytest.fixture(scope="module")
def cbc(tmp_path_factory):
    exe = tmp_path_factory.mktemp("cbc") / "cbc_check"
    subprocess.run(["cc", "-std=c11", "-O2", "-Wall", "-Wextra", "-Wpedantic", "-Wshadow", "-Wconversion",
                    "-Werror", "-D_DEFAULT_SOURCE",
                    "-I", str(ROOT / "sw/crypto/include"), "-I", str(ROOT / "sw/drivers/include"),
                    "-I", str(ROOT / "sw/backend/include"), "-I", str(ROOT / "build/gen/include"),
                    "-I", str(ROOT / "sw/proto/include"), "-I", str(ROOT / "sw/proto"),
                    # tls_cbc.c's record classes need the whole stack: left out, unreferenced
                    "-ffunction-sections", "-fdata-sections", "-Wl,--gc-sections",
                    str(ROOT / "tests/proto/c/cbc_check.c"), str(ROOT / "sw/proto/tls_cbc.c"),
                    str(ROOT / "sw/crypto/sha256.c"), "-o", str(exe)], check=True)

    def run(lines):
        r = subprocess.run([str(exe)], input="".join(line + "\n" for line in lines),
                           capture_output=True, text=True, timeout=600)
        assert r.returncode == 0, r.stderr
        out = r.stdout.splitlines()
        assert len(out) == len(lines)
        return out
    return run


def ref_hmac(key, hdr, data):
    h = hmac.HMAC(key, hashes.SHA256())
    h.update(hdr + len(data).to_bytes(2, "big") + data)
    return h.finalize()


def ref_check(key, hdr, p):
    """(1, plen) or (0, None), per RFC 5246 6.2.3.2 with cryptography's HMAC."""
    n = len(p)
    if n < 16 + MAC or n % 16:
        return 0, None
    pad = p[-1]
    if pad + 1 + MAC > n or any(b != pad for b in p[n - 1 - pad:]):
        return 0, None
    plen = n - MAC - pad - 1
    h = hmac.HMAC(key, hashes.SHA256())
    h.update(hdr + plen.to_bytes(2, "big") + p[:plen])
    try:
        h.verify(p[plen:plen + MAC])
    except Exception:  # cryptography.exceptions.InvalidSignature
        return 0, None
    return 1, plen


def record(rng, key, hdr, clen, pad):
    """A good decrypted record body of clen bytes with pad + 1 padding bytes."""
    plen = clen - MAC - pad - 1
    data = rng.randbytes(plen)
    return data + ref_hmac(key, hdr, data) + bytes([pad]) * (pad + 1)


# Record lengths (after the IV): the shortest, around one and two SHA-256 blocks, around the
# 32 + 256 bytes where the padding window stops reaching the record's start, and long ones.
CLENS = [48, 64, 80, 96, 112, 128, 160, 208, 256, 288, 304, 320, 352, 400, 512, 1024, 4096, 16416]


@pytest.mark.parametrize("clen", CLENS)
def test_hmac_at_every_secret_length(cbc, clen):
    rng = random.Random(clen)
    key, hdr, p = rng.randbytes(32), rng.randbytes(11), rng.randbytes(clen)
    lo, hi = max(0, clen - MAC - PAD_MAX), clen - MAC
    plens = list(range(lo, hi + 1)) if clen <= 1024 else [lo, lo + 1, lo + 55, lo + 56, hi - 64, hi - 1, hi]
    out = cbc([f"hmac {key.hex()} {hdr.hex()} {p.hex()} {n}" for n in plens])
    for n, got in zip(plens, out):
        assert got == ref_hmac(key, hdr, p[:n]).hex(), f"clen {clen} plen {n}"


def _cases(clen, rng, key, hdr):
    """(name, body) pairs: good records for many padding lengths, and each broken one way."""
    pads = sorted({0, 1, 2, 14, 15, 16, 17, 63, 64, 100, 200, 254, 255} | {rng.randrange(256) for _ in range(6)})
    for pad in pads:
        if pad + 1 + MAC > clen:
            continue
        good = record(rng, key, hdr, clen, pad)
        plen = clen - MAC - pad - 1
        yield f"good pad {pad}", good
        for at in (plen, plen + 31):  # the MAC's first and last byte
            bad = bytearray(good)
            bad[at] ^= 0x01
            yield f"mac byte {at - plen} pad {pad}", bytes(bad)
        if pad > 0:
            for at in (clen - 1 - pad, clen - 2):  # the first and last padding byte before padding_length
                bad = bytearray(good)
                bad[at] ^= 0x80
                yield f"padding byte {at} pad {pad}", bytes(bad)
        # padding_length one more or less than the padding that is there (the MAC moves)
        for d in (-1, 1):
            if 0 <= pad + d <= 255:
                bad = bytearray(good)
                bad[-1] = pad + d
                yield f"padding_length {pad + d} for {pad}", bytes(bad)
    # padding_length too long for the record (pad + 1 + 32 > clen)
    if clen - MAC <= 255:
        yield "padding longer than the record", bytes([clen - MAC]) * clen
    # no padding at all: the MAC over the whole body before it but the last byte 0x00 missing
    data = rng.randbytes(clen - MAC)
    yield "unpadded", data + ref_hmac(key, hdr, data)


@pytest.mark.parametrize("clen", [48, 64, 96, 128, 288, 304, 320, 400, 1024, 16416])
def test_verdict_against_reference(cbc, clen):
    rng = random.Random(1000 + clen)
    key, hdr = rng.randbytes(32), rng.randbytes(11)
    cases = list(_cases(clen, rng, key, hdr))
    out = cbc([f"check {key.hex()} {hdr.hex()} {body.hex()}" for _, body in cases])
    goods = 0
    for (name, body), got in zip(cases, out):
        ok, plen = ref_check(key, hdr, body)
        assert got == (f"1 {plen}" if ok else "0"), f"clen {clen}: {name}"
        goods += ok
    assert goods >= 2, "too few good records among the cases"
    assert goods < len(cases)


@pytest.mark.parametrize("clen", [16, 32, 40, 47, 49, 63, 65, 100])
def test_record_lengths_refused(cbc, clen):
    rng = random.Random(clen)
    key, hdr = rng.randbytes(32), rng.randbytes(11)
    body = bytes([0]) * clen
    out = cbc([f"check {key.hex()} {hdr.hex()} {body.hex()}"])
    assert out == ["0"]
