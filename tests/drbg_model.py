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
