"""DTLS 1.2 and TLS 1.2 AEAD records through the crypto API's record_seal and record_open (the CLI's
record_seal/record_open ops): on the engine each is one DMA command (SEAL, OPEN), on the library a
composition of AEAD messages. Every record is checked against one built here from RFC 5246 6.2.3.3
with the nonces of RFC 5288 and RFC 6655, sealed by `cryptography`; tampered records must fail
with bad_tag and lengths out of range with bad_length."""
import random

import pytest
from cryptography.hazmat.primitives.ciphers.aead import AESCCM, AESGCM

pytestmark = pytest.mark.backends("sw", "rtl", "openssl")

DTLS12, TLS12 = 0xFEFD, 0x0303


def reference(key, salt, sn, typ, ver, pt, dtls, mode, tag_len):
    """The record: header (type, version, for DTLS the 8-byte seq_num, the body's length), then the
    body: the explicit nonce (seq_num), the ciphertext and the tag. Nonce = salt || explicit; AAD =
    seq_num || type || version || plaintext length."""
    expl = sn.to_bytes(8, "big")
    aad = expl + bytes([typ]) + ver.to_bytes(2, "big") + len(pt).to_bytes(2, "big")
    if mode == "ccm":
        sealed = AESCCM(key, tag_length=tag_len).encrypt(salt + expl, pt, aad)
    else:
        sealed = AESGCM(key).encrypt(salt + expl, pt, aad)[:len(pt) + tag_len]
    body = expl + sealed
    return bytes([typ]) + ver.to_bytes(2, "big") + (expl if dtls else b"") + len(body).to_bytes(2, "big") + body


def fields(mode, key, salt, sn, typ, ver, dtls, tag_len):
    return {"mode": mode, "key": key.hex(), "salt": salt.hex(), "seq_hi": sn >> 32, "seq_lo": sn & 0xFFFFFFFF,
            "type": typ, "version": ver, "dtls": int(dtls), "tag_len": tag_len}


def cases(rng, n):
    """n records over the suites' modes (GCM-16, CCM_8, CCM-16, and GCM with an 8-byte tag), both
    transports, keys of every length, plaintexts of 0 to 600 bytes."""
    kinds = [("gcm", 16), ("ccm", 8), ("ccm", 16), ("gcm", 8)]
    for i in range(n):
        mode, tag_len = kinds[i % 4]
        dtls = i % 3 != 2
        yield (mode, rng.randbytes((16, 24, 32)[i % 3]), rng.randbytes(4), rng.getrandbits(64),
               rng.choice((20, 21, 22, 23)), DTLS12 if dtls else TLS12, dtls, tag_len,
               rng.randbytes(rng.choice((0, 1, 13, 16, 100, 600))))


def test_records_against_cryptography(batch, budget, tally):
    rng = random.Random(6347)
    reqs, want = [], []
    for mode, key, salt, sn, typ, ver, dtls, tl, pt in cases(rng, budget(400, 40)):
        f = fields(mode, key, salt, sn, typ, ver, dtls, tl)
        rec = reference(key, salt, sn, typ, ver, pt, dtls, mode, tl)
        reqs.append({"op": "record_seal", **f, "pt": pt.hex()})
        want.append({"record": rec.hex()})
        reqs.append({"op": "record_open", **f, "body": rec[13 if dtls else 5:].hex()})
        want.append({"pt": pt.hex()})
    for q, g, w in zip(reqs, batch(reqs), want):
        assert g == w, f"{q} -> {g}, want {w}"
    tally("dtls/tls aead records (seal+open)", len(reqs))


def test_tampered_records_fail(batch, budget):
    """Any byte of the body, or any field the AAD or the nonce takes from the receiver, changed."""
    rng = random.Random(6655)
    reqs = []
    for mode, key, salt, sn, typ, ver, dtls, tl, pt in cases(rng, budget(40, 12)):
        body = bytearray(reference(key, salt, sn, typ, ver, pt, dtls, mode, tl)[13 if dtls else 5:])
        f = fields(mode, key, salt, sn, typ, ver, dtls, tl)
        i = rng.randrange(len(body))
        body[i] ^= 1 << rng.randrange(8)
        reqs.append({"op": "record_open", **f, "body": body.hex()})
        good = reference(key, salt, sn, typ, ver, pt, dtls, mode, tl)[13 if dtls else 5:].hex()
        for k, v in (("seq_lo", f["seq_lo"] ^ 1), ("type", typ ^ 1), ("version", ver ^ 0x100),
                     ("salt", bytes([salt[0] ^ 1]).hex() + salt[1:].hex())):
            reqs.append({"op": "record_open", **{**f, k: v}, "body": good})
    for q, g in zip(reqs, batch(reqs)):
        assert g == {"error": "bad_tag"}, f"{q} -> {g}"


def test_record_lengths(batch):
    key, salt = bytes(range(16)), b"\x01\x02\x03\x04"
    f = fields("ccm", key, salt, 1 << 48 | 7, 23, DTLS12, True, 8)
    reqs = [
        {"op": "record_seal", **f, "pt": bytes(16385).hex()},          # above 2^14
        {"op": "record_open", **f, "body": bytes(15).hex()},           # shorter than nonce and tag
        {"op": "record_open", **f, "body": bytes(8 + 8 + 16385).hex()},
        {"op": "record_seal", **{**f, "tag_len": 12}, "pt": "00"},     # no suite's tag
        {"op": "record_open", **{**f, "tag_len": 4}, "body": bytes(40).hex()},
    ]
    for q, g in zip(reqs, batch(reqs)):
        assert g.get("error") == "bad_length", f"{q['op']} of {len(q.get('pt', q.get('body', '')))//2}: {g}"
    # the longest plaintext seals; the engine opens what its plaintext buffer holds (2 KiB)
    pt = random.Random(5).randbytes(16384)
    rec = reference(key, salt, 1 << 48 | 7, 23, DTLS12, pt, True, "ccm", 8)
    short = reference(key, salt, 1 << 48 | 7, 23, DTLS12, pt[:2048], True, "ccm", 8)
    got = batch([{"op": "record_seal", **f, "pt": pt.hex()}, {"op": "record_open", **f, "body": short[13:].hex()}])
    assert got == [{"record": rec.hex()}, {"pt": pt[:2048].hex()}]
