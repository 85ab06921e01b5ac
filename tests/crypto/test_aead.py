"""AES-GCM and AES-CCM through the CLI: NIST CAVP files (including the failing decryptions),
random cross-checks against `cryptography` (and a small SP 800-38D model for IVs shorter than
cryptography accepts), tamper tests and the named errors."""
import random

import pytest
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.ciphers.aead import AESCCM, AESGCM

from nist import ccm_fields, ccm_records, parse

# The same suites run on the software library and on the engine's RTL (drivers + Verilator model).
pytestmark = pytest.mark.backends("sw", "rtl", "openssl")


def enc_req(mode, key, nonce, aad, pt, tag_len=None):
    req = {"op": "aead_encrypt", "mode": mode, "key": key, "nonce": nonce, "pt": pt}
    if aad is not None:
        req["aad"] = aad
    if tag_len is not None:
        req["tag_len"] = tag_len
    return req


def dec_req(mode, key, nonce, aad, ct, tag):
    req = {"op": "aead_decrypt", "mode": mode, "key": key, "nonce": nonce, "ct": ct, "tag": tag}
    if aad is not None:
        req["aad"] = aad
    return req


def check_decrypt(g, want_pt, what):
    """want_pt None means the tag must be rejected and no plaintext may appear."""
    if want_pt is None:
        assert g == {"error": "bad_tag"}, f"{what}: {g}"
    else:
        assert g == {"pt": want_pt}, f"{what}: {g}, want pt {want_pt}"


# ---- GCM: CAVP -------------------------------------------------------------------------

def gcm_records(path):
    for sec, r in parse(path):
        if "Key" in r:
            yield int(sec["Taglen"]) // 8, {k: (v.lower() if isinstance(v, str) else v)
                                            for k, v in r.items()}


def test_gcm_cavp_encrypt(batch, tally, vectors):
    reqs, want = [], []
    for bits in (128, 192, 256):
        for tag_len, r in gcm_records(vectors / "ciphers" / "AES" / "GCM" /
                                      f"gcmEncryptExtIV{bits}.rsp"):
            reqs.append(enc_req("gcm", r["Key"], r["IV"], r["AAD"], r["PT"], tag_len))
            want.append({"ct": r["CT"], "tag": r["Tag"]})
            reqs.append(dec_req("gcm", r["Key"], r["IV"], r["AAD"], r["CT"], r["Tag"]))
            want.append({"pt": r["PT"]})
    assert len(reqs) > 10000
    for q, g, w in zip(reqs, batch(reqs), want):
        assert g == w, f"GCM CAVP {q} -> {g}, want {w}"
    tally("aes-gcm cavp encryptExtIV (enc+dec)", len(reqs))


def test_gcm_cavp_decrypt(batch, tally, vectors):
    reqs, want = [], []
    for bits in (128, 192, 256):
        path = vectors / "ciphers" / "AES" / "GCM" / f"gcmDecrypt{bits}.rsp"
        for tag_len, r in gcm_records(path):
            assert len(r["Tag"]) == 2 * tag_len
            reqs.append(dec_req("gcm", r["Key"], r["IV"], r["AAD"], r["CT"], r["Tag"]))
            want.append(None if r.get("FAIL") else r["PT"])
    fails = sum(w is None for w in want)
    assert len(reqs) > 10000 and fails > 1000
    for q, g, w in zip(reqs, batch(reqs), want):
        check_decrypt(g, w, f"GCM CAVP decrypt {q}")
    tally("aes-gcm cavp decrypt (pass)", len(reqs) - fails)
    tally("aes-gcm cavp decrypt (FAIL -> bad_tag)", fails)


# ---- CCM: CAVP -------------------------------------------------------------------------

@pytest.mark.parametrize("group", ["DVPT", "VADT", "VNT", "VPT", "VTT"])
def test_ccm_cavp(batch, tally, vectors, group):
    reqs, want = [], []
    for bits in (128, 192, 256):
        for r in ccm_records(vectors / "ciphers" / "AES" / "CCM" / f"{group}{bits}.rsp"):
            key, nonce, aad, payload, ct, tag, tlen = ccm_fields(r)
            if group == "DVPT":
                assert r["Result"].startswith(("Pass", "Fail"))
                ok = r["Result"].startswith("Pass")
                reqs.append(dec_req("ccm", key, nonce, aad, ct, tag))
                want.append(("dec", payload if ok else None))
                assert (payload is not None) == ok
                continue
            reqs.append(enc_req("ccm", key, nonce, aad, payload, tlen))
            want.append(("enc", {"ct": ct, "tag": tag}))
            reqs.append(dec_req("ccm", key, nonce, aad, ct, tag))
            want.append(("dec", payload))
    assert len(reqs) >= 3 * (40 if group == "DVPT" else 20)
    fails = 0
    for q, g, (kind, w) in zip(reqs, batch(reqs), want):
        if kind == "enc":
            assert g == w, f"CCM {group} {q} -> {g}, want {w}"
        else:
            check_decrypt(g, w, f"CCM {group} {q}")
            fails += w is None
    if group == "DVPT":
        assert fails == 3 * 160
        tally("aes-ccm cavp DVPT (pass)", len(reqs) - fails)
        tally("aes-ccm cavp DVPT (Fail -> bad_tag)", fails)
    else:
        tally(f"aes-ccm cavp {group} (enc+dec)", len(reqs))


# ---- GCM: a model from SP 800-38D for the IV lengths cryptography refuses (< 8 bytes) ------

def _gf128_mul(x, y):
    z, v = 0, y
    for i in range(127, -1, -1):
        if (x >> i) & 1:
            z ^= v
        v = (v >> 1) ^ (0xE1 << 120) if v & 1 else v >> 1
    return z


def _ghash(h, *parts):
    y = 0
    for p in parts:
        for i in range(0, len(p), 16):
            y = _gf128_mul(y ^ int.from_bytes(p[i:i + 16].ljust(16, b"\0"), "big"), h)
    return y


def gcm_model(key, iv, aad, pt):
    """Returns ct || full 16-byte tag (SP 800-38D section 7.1)."""
    ecb = Cipher(algorithms.AES(key), modes.ECB()).encryptor()
    e = lambda b: ecb.update(b)  # noqa: E731
    h = int.from_bytes(e(bytes(16)), "big")
    if len(iv) == 12:
        j0 = iv + b"\0\0\0\1"
    else:
        j0 = _ghash(h, iv, (8 * len(iv)).to_bytes(16, "big")).to_bytes(16, "big")
    nblocks = (len(pt) + 15) // 16
    ctr0 = int.from_bytes(j0[12:], "big")
    cbs = b"".join(j0[:12] + ((ctr0 + 1 + i) % 2**32).to_bytes(4, "big") for i in range(nblocks))
    ks = e(cbs)
    ct = bytes(a ^ b for a, b in zip(pt, ks))
    lens = (8 * len(aad)).to_bytes(8, "big") + (8 * len(ct)).to_bytes(8, "big")
    s = _ghash(h, aad, ct, lens)
    tag = (int.from_bytes(e(j0), "big") ^ s).to_bytes(16, "big")
    return ct + tag


def test_gcm_model_matches_cryptography(seed):
    """The model above stands in for cryptography only where cryptography cannot run: show it
    agrees with cryptography everywhere both can."""
    rng = random.Random(f"{seed}-model")
    for _ in range(40):
        key, iv = rng.randbytes(rng.choice((16, 24, 32))), rng.randbytes(rng.randrange(8, 70))
        aad, pt = rng.randbytes(rng.randrange(50)), rng.randbytes(rng.randrange(70))
        assert gcm_model(key, iv, aad, pt) == AESGCM(key).encrypt(iv, pt, aad)


def gcm_reference(key, iv, aad, pt):
    if 8 <= len(iv) <= 128:
        return AESGCM(key).encrypt(iv, pt, aad)
    return gcm_model(key, iv, aad, pt)


def ccm_reference(key, nonce, aad, pt, tag_len):
    return AESCCM(key, tag_length=tag_len).encrypt(nonce, pt, aad)


def random_cases(rng, mode, n):
    cases = []
    for i in range(n):
        key = rng.randbytes(rng.choice((16, 24, 32)))
        if mode == "gcm":
            nlen = rng.choice((12, 12, 12, rng.randrange(1, 8), rng.randrange(8, 17),
                               rng.randrange(1, 129)))
            tag_len = rng.randrange(4, 17)
        else:
            nlen = rng.randrange(7, 14)
            tag_len = rng.choice((4, 6, 8, 10, 12, 14, 16))
        aad = rng.randbytes(rng.choice((0, 0, rng.randrange(1, 17), rng.randrange(300))))
        pt = rng.randbytes(rng.choice((0, rng.randrange(1, 33), rng.randrange(500))))
        cases.append((key, rng.randbytes(nlen), aad, pt, tag_len))
    return cases


@pytest.mark.parametrize("mode", ["gcm", "ccm"])
def test_random_vs_cryptography(batch, tally, seed, mode):
    """Encrypt against the reference (tag truncated to tag_len), then decrypt our own output."""
    rng = random.Random(f"{seed}-{mode}")
    cases = random_cases(rng, mode, 1200)
    reqs, want = [], []
    for i, (key, nonce, aad, pt, tag_len) in enumerate(cases):
        ref = (gcm_reference(key, nonce, aad, pt) if mode == "gcm"
               else ccm_reference(key, nonce, aad, pt, tag_len))
        ct, tag = ref[: len(pt)], ref[len(pt):][:tag_len]
        # An absent aad and an empty one mean the same; exercise both, and the default tag_len.
        a = aad.hex() if aad or i % 2 else None
        reqs.append(enc_req(mode, key.hex(), nonce.hex(), a, pt.hex(),
                            None if tag_len == 16 and i % 3 == 0 else tag_len))
        want.append({"ct": ct.hex(), "tag": tag.hex()})
        reqs.append(dec_req(mode, key.hex(), nonce.hex(), a, ct.hex(), tag.hex()))
        want.append({"pt": pt.hex()})
    got = batch(reqs)
    for i, (q, g, w) in enumerate(zip(reqs, got, want)):
        assert g == w, f"seed {seed} {mode} request {i}: {q} -> {g}, want {w}"
    tally(f"aes-{mode} random vs cryptography (enc+dec)", len(reqs))


def flip_bit(rng, hexstr):
    b = bytearray.fromhex(hexstr)
    b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
    return b.hex()


@pytest.mark.parametrize("mode", ["gcm", "ccm"])
def test_tamper(batch, tally, seed, mode):
    """One flipped bit in ciphertext, tag, AAD or nonce, or a truncated tag of another
    length, must yield bad_tag and no plaintext."""
    rng = random.Random(f"{seed}-{mode}-tamper")
    cases = random_cases(rng, mode, 1000)
    reqs = []
    for key, nonce, aad, pt, tag_len in cases:
        ref = (gcm_reference(key, nonce, aad, pt) if mode == "gcm"
               else ccm_reference(key, nonce, aad, pt, tag_len))
        f = {"key": key.hex(), "nonce": nonce.hex(), "aad": aad.hex(), "ct": ref[: len(pt)].hex(),
             "tag": ref[len(pt):][:tag_len].hex()}
        where = rng.choice([w for w in ("ct", "tag", "aad", "nonce") if f[w]])
        f[where] = flip_bit(rng, f[where])
        reqs.append(dec_req(mode, f["key"], f["nonce"], f["aad"], f["ct"], f["tag"]))
    got = batch(reqs)
    for i, (q, g) in enumerate(zip(reqs, got)):
        assert g == {"error": "bad_tag"}, f"seed {seed} {mode} tamper {i}: {q} -> {g}"
    tally(f"aes-{mode} tamper -> bad_tag", len(reqs))


def test_ccm_long_aad_and_payload_limit(batch, tally):
    """AAD lengths around the switch from the 2-byte to the 6-byte (0xFFFE) length encoding,
    and the payload limit of a 13-byte nonce (q = 2: at most 65535 bytes)."""
    rng = random.Random(7)
    key, nonce = rng.randbytes(16), rng.randbytes(13)
    reqs, want = [], []
    for alen in (0xFEFF, 0xFF00, 0xFF01, 65536):
        aad, pt = rng.randbytes(alen), rng.randbytes(33)
        ref = ccm_reference(key, nonce, aad, pt, 8)
        reqs.append(enc_req("ccm", key.hex(), nonce.hex(), aad.hex(), pt.hex(), 8))
        want.append({"ct": ref[:33].hex(), "tag": ref[33:].hex()})
    pt = rng.randbytes(65535)
    ref = ccm_reference(key, nonce, b"", pt, 16)
    reqs.append(enc_req("ccm", key.hex(), nonce.hex(), None, pt.hex()))
    want.append({"ct": ref[:65535].hex(), "tag": ref[65535:].hex()})
    reqs.append(enc_req("ccm", key.hex(), nonce.hex(), None, (pt + b"x").hex()))
    want.append({"error": "bad_length"})
    pt = rng.randbytes(65536)
    ref = ccm_reference(key, nonce[:12], b"", pt, 16)
    reqs.append(enc_req("ccm", key.hex(), nonce[:12].hex(), None, pt.hex()))
    want.append({"ct": ref[:65536].hex(), "tag": ref[65536:].hex()})
    for q, g, w in zip(reqs, batch(reqs), want):
        assert g == w, f"{str(q)[:200]} -> {str(g)[:200]}"
    tally("aes-ccm long aad / payload limit", len(reqs))


K16 = "00" * 16


@pytest.mark.parametrize("req,err", [
    (enc_req("ccm", K16, "00" * 6, None, "00", 8), "bad_length"),
    (enc_req("ccm", K16, "00" * 14, None, "00", 8), "bad_length"),
    (enc_req("ccm", K16, "00" * 13, None, "00", 3), "bad_length"),
    (enc_req("ccm", K16, "00" * 13, None, "00", 5), "bad_length"),
    (enc_req("ccm", K16, "00" * 13, None, "00", 17), "bad_length"),
    (enc_req("ccm", K16, "00" * 13, None, "00", 2), "bad_length"),
    (dec_req("ccm", K16, "00" * 6, None, "00", "00" * 8), "bad_length"),
    (dec_req("ccm", K16, "00" * 14, None, "00", "00" * 8), "bad_length"),
    (dec_req("ccm", K16, "00" * 13, None, "00", "00" * 7), "bad_length"),
    (dec_req("ccm", K16, "00" * 13, None, "00", "00" * 18), "bad_length"),
    (enc_req("gcm", K16, "", None, "00", 16), "bad_length"),
    (enc_req("gcm", K16, "00" * 12, None, "00", 3), "bad_length"),
    (enc_req("gcm", K16, "00" * 12, None, "00", 17), "bad_length"),
    (dec_req("gcm", K16, "00" * 12, None, "00", "00" * 3), "bad_length"),
    (dec_req("gcm", K16, "00" * 12, None, "00", "00" * 17), "bad_length"),
    (dec_req("gcm", K16, "", None, "00", "00" * 16), "bad_length"),
    (enc_req("gcm", "00" * 15, "00" * 12, None, "00"), "bad_length"),
    (enc_req("ccm", "00" * 33, "00" * 12, None, "00"), "bad_length"),
    (dec_req("gcm", "00" * 20, "00" * 12, None, "00", "00" * 16), "bad_length"),
    (enc_req("ocb", K16, "00" * 12, None, "00"), "bad_input"),
    (dec_req("GCM", K16, "00" * 12, None, "00", "00" * 16), "bad_input"),
    ({"op": "aead_encrypt", "mode": "gcm", "key": K16, "nonce": "00" * 12}, "bad_input"),
    ({"op": "aead_decrypt", "mode": "ccm", "key": K16, "nonce": "00" * 12, "ct": ""}, "bad_input"),
])
def test_errors(batch, req, err):
    (got,) = batch([req])
    assert got.get("error") == err, f"{req} -> {got}"
    assert "pt" not in got and "ct" not in got
