"""The TLS 1.2 PRF written from RFC 5246 section 5 over Python's hmac: the reference the tests hold
the stack's and the engine's PRF to."""
import hashlib
import hmac


def p_sha256(secret, seed, n):
    """P_SHA256(secret, seed), n bytes: A(1) = HMAC(secret, seed), A(i+1) = HMAC(secret, A(i)), the
    output HMAC(secret, A(1) || seed) || HMAC(secret, A(2) || seed) || ...; seed is label || seed."""
    a, out = seed, b""
    while len(out) < n:
        a = hmac.new(secret, a, hashlib.sha256).digest()
        out += hmac.new(secret, a + seed, hashlib.sha256).digest()
    return out[:n]
