"""P-256 in affine coordinates, written from SEC 1 section 2.2.1 and SEC 2's curve parameters: the
host's model for the node's elliptic-curve applications (tests/node/test_schnorr.py,
test_ecmqv.py). Public data only, not constant time. Points are (x, y) tuples, None is infinity."""
from cryptography.hazmat.primitives.asymmetric import ec

P = 2**256 - 2**224 + 2**192 + 2**96 - 1
A = P - 3
B = 0x5AC635D8AA3A93E7B3EBBD55769886BC651D06B0CC53B0F63BCE3C3E27D2604B
N = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
G = (0x6B17D1F2E12C4247F8BCE6E563A440F277037D812DEB33A0F4A13945D898C296,
     0x4FE342E2FE1A7F9B8EE7EB4A7C0F9E162BCE33576B315ECECBB6406837BF51F5)


def add(p1, p2):
    """The sum of two points."""
    if p1 is None:
        return p2
    if p2 is None:
        return p1
    (x1, y1), (x2, y2) = p1, p2
    if x1 == x2 and (y1 + y2) % P == 0:
        return None
    if p1 == p2:
        lam = (3 * x1 * x1 + A) * pow(2 * y1, P - 2, P) % P
    else:
        lam = (y2 - y1) * pow(x2 - x1, P - 2, P) % P
    x3 = (lam * lam - x1 - x2) % P
    return x3, (lam * (x1 - x3) - y1) % P


def mul(k, pt):
    """k pt by double-and-add."""
    acc = None
    for bit in bin(k)[2:]:
        acc = add(add(acc, acc), pt) if bit == "1" else add(acc, acc)
    return acc


def decode(hexstr):
    """A node's uncompressed point, validated by `cryptography` (on the curve, not infinity)."""
    pub = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), bytes.fromhex(hexstr))
    nums = pub.public_numbers()
    return nums.x, nums.y


def encode(pt):
    return (b"\x04" + pt[0].to_bytes(32, "big") + pt[1].to_bytes(32, "big")).hex()


def times_g(k):
    """k G by `cryptography`, the independent P-256."""
    nums = ec.derive_private_key(k, ec.SECP256R1()).public_key().public_numbers()
    return nums.x, nums.y


def points_with_x_zero():
    """The curve's two points with x = 0, (0, +-sqrt(B)): B is a square mod P, and as P = 3 mod 4
    its roots are +-B^((P+1)/4)."""
    y = pow(B, (P + 1) // 4, P)
    assert y * y % P == B
    return [(0, y), (0, P - y)]
