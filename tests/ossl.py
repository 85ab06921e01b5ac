"""OpenSSL's libcrypto as an independent reference for curves the `cryptography` package lacks
(sect233r1/k1, secp160r1): point multiplication n*G + m*Q through ctypes."""
import ctypes
import ctypes.util

_lib = ctypes.CDLL(ctypes.util.find_library("crypto") or "libcrypto.so.3")
_vp = ctypes.c_void_p
for name, res, args in [
    ("OBJ_sn2nid", ctypes.c_int, [ctypes.c_char_p]),
    ("EC_GROUP_new_by_curve_name", _vp, [ctypes.c_int]),
    ("EC_GROUP_get0_order", _vp, [_vp]),
    ("EC_GROUP_free", None, [_vp]),
    ("EC_POINT_new", _vp, [_vp]),
    ("EC_POINT_free", None, [_vp]),
    ("EC_POINT_mul", ctypes.c_int, [_vp, _vp, _vp, _vp, _vp, _vp]),
    ("EC_POINT_is_at_infinity", ctypes.c_int, [_vp, _vp]),
    ("EC_POINT_get_affine_coordinates", ctypes.c_int, [_vp, _vp, _vp, _vp, _vp]),
    ("EC_POINT_set_affine_coordinates", ctypes.c_int, [_vp, _vp, _vp, _vp, _vp]),
    ("BN_new", _vp, []),
    ("BN_free", None, [_vp]),
    ("BN_bin2bn", _vp, [ctypes.c_char_p, ctypes.c_int, _vp]),
    ("BN_bn2hex", _vp, [_vp]),
    ("CRYPTO_free", None, [_vp, ctypes.c_char_p, ctypes.c_int]),
    ("BN_CTX_new", _vp, []),
]:
    f = getattr(_lib, name)
    f.restype, f.argtypes = res, args


def _bn(v):
    b = v.to_bytes(max(1, (v.bit_length() + 7) // 8), "big")
    return _lib.BN_bin2bn(b, len(b), None)


def _int(bn):
    p = _lib.BN_bn2hex(bn)
    v = int(ctypes.cast(p, ctypes.c_char_p).value, 16)
    _lib.CRYPTO_free(p, b"", 0)
    return v


class Curve:
    """A named OpenSSL curve; points are (x, y) integer pairs, None for infinity."""

    def __init__(self, name):
        nid = _lib.OBJ_sn2nid(name.encode())
        self.group = _lib.EC_GROUP_new_by_curve_name(nid)
        if not self.group:
            raise ValueError(f"OpenSSL lacks {name}")
        self.ctx = _lib.BN_CTX_new()
        self.n = _int(_lib.EC_GROUP_get0_order(self.group))

    def mul(self, g_scalar, q=None, q_scalar=0):
        """g_scalar * G + q_scalar * Q."""
        r = _lib.EC_POINT_new(self.group)
        a, b = _bn(g_scalar), _bn(q_scalar)
        qp = None
        if q is not None:
            qp = _lib.EC_POINT_new(self.group)
            x, y = _bn(q[0]), _bn(q[1])
            assert _lib.EC_POINT_set_affine_coordinates(self.group, qp, x, y, self.ctx) == 1, "Q not on curve"
            _lib.BN_free(x)
            _lib.BN_free(y)
        assert _lib.EC_POINT_mul(self.group, r, a, qp, b if q is not None else None, self.ctx) == 1
        out = None
        if not _lib.EC_POINT_is_at_infinity(self.group, r):
            x, y = _lib.BN_new(), _lib.BN_new()
            assert _lib.EC_POINT_get_affine_coordinates(self.group, r, x, y, self.ctx) == 1
            out = (_int(x), _int(y))
            _lib.BN_free(x)
            _lib.BN_free(y)
        for p in (r, qp):
            if p:
                _lib.EC_POINT_free(p)
        _lib.BN_free(a)
        _lib.BN_free(b)
        return out
