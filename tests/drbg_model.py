"""HMAC_DRBG with SHA-256 written from SP 800-90A Rev. 1, section 10.1.2, on Python's hmac
module: the reference the DRBG tests compare the CLI's hmac_drbg op against, on every backend."""
import hashlib
import hmac


class HmacDrbg:
    """SP 800-90A 10.1.2 with SHA-256, no prediction resistance."""

    def __init__(self, entropy, nonce, pers):
        self.k, self.v = b"\0" * 32, b"\1" * 32
        self._update(entropy + nonce + pers)
        self.reseed_counter = 1

    def _hmac(self, data):
        return hmac.new(self.k, data, hashlib.sha256).digest()

    def _update(self, provided):
        self.k = self._hmac(self.v + b"\0" + provided)
        self.v = self._hmac(self.v)
        if provided:
            self.k = self._hmac(self.v + b"\1" + provided)
            self.v = self._hmac(self.v)

    def reseed(self, entropy, add):
        self._update(entropy + add)
        self.reseed_counter = 1

    def generate(self, n, add):
        if add:
            self._update(add)
        out = b""
        while len(out) < n:
            self.v = self._hmac(self.v)
            out += self.v
        self._update(add)
        self.reseed_counter += 1
        return out[:n]


def model(c):
    d = HmacDrbg(c["entropy"], c["nonce"], c.get("pers", b""))
    if "reseed_entropy" in c:
        d.reseed(c["reseed_entropy"], c.get("reseed_add", b""))
    d.generate(c["bytes"], c.get("add1", b""))
    return d.generate(c["bytes"], c.get("add2", b""))


# NIST CAVP HMAC_DRBG.rsp, [SHA-256] [PredictionResistance = False] [EntropyInputLen = 256]
# [NonceLen = 128] [PersonalizationStringLen = 0] [AdditionalInputLen = 0] [ReturnedBitsLen = 1024],
# COUNT = 0 (quoted because cryptography-vectors does not ship the DRBG files). It anchors the
# model as well as the C code and the engine's DRBG (tests/ctrl/test_ctrl_drbg.py).
CAVP_COUNT0 = {
    "entropy": "ca851911349384bffe89de1cbdc46e6831e44d34a4fb935ee285dd14b71a7488",
    "nonce": "659ba96c601dc69fc902940805ec0ca8",
    "bytes": 128,
}
CAVP_COUNT0_OUT = ("e528e9abf2dece54d47c7e75e5fe302149f817ea9fb4bee6f4199697d04d5b89"
                   "d54fbb978a15b5c443c9ec21036d2460b6f73ebad0dc2aba6e624abf07745bc1"
                   "07694bb7547bb0995f70de25d6b29e2d3011bb19d27676c07162c8b5ccde0668"
                   "961df86803482cb37ed6d5c0bb8d50cf1f50d476aa0458bdaba806f48be9dcb8")
