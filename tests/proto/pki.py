"""Test PKIs made with the `cryptography` package, independently of our code: a CA, a server
leaf and client leaves (ECDSA P-256, PKCS#8 PEM keys), plus one-off certificates for error cases.

    from proto.pki import make_pki, make_cert, der      # from any test (pytest.ini: pythonpath = tests)
    pki = make_pki(tmp_path)                            # pki.ca_pem, pki.server_pem, pki.client("node-1")
"""
import datetime
import pathlib
import secrets

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

_KU_NAMES = ("digital_signature", "content_commitment", "key_encipherment", "data_encipherment",
             "key_agreement", "key_cert_sign", "crl_sign", "encipher_only", "decipher_only")
_KU_PRESETS = {"leaf": ("digital_signature",), "ca": ("key_cert_sign", "crl_sign")}
_EKU = {"server": ExtendedKeyUsageOID.SERVER_AUTH, "client": ExtendedKeyUsageOID.CLIENT_AUTH}


class Pki:
    """Paths (pathlib.Path) to the PEM files of one test PKI."""

    def __init__(self, dir, server_name):
        self.dir = pathlib.Path(dir)
        self.server_name = server_name
        self.ca_pem = self.ca_key = self.server_pem = self.server_key = None
        self.clients = {}  # name -> (cert_pem_path, key_pem_path)

    def client(self, name="node-1"):
        """(cert_pem_path, key_pem_path) of a client."""
        return self.clients[name]


def _new_key(kind):
    if kind is None or kind == "p256":
        return ec.generate_private_key(ec.SECP256R1())
    if kind == "p384":
        return ec.generate_private_key(ec.SECP384R1())
    if kind == "rsa":
        return rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return kind  # already a private key object


def _load_cert(path):
    return x509.load_pem_x509_certificate(pathlib.Path(path).read_bytes())


def _load_key(path):
    return serialization.load_pem_private_key(pathlib.Path(path).read_bytes(), password=None)


def _key_usage(names):
    flags = {n: (n in names) for n in _KU_NAMES}
    return x509.KeyUsage(**flags)


def make_cert(dir, stem, *, issuer_cert=None, issuer_key=None, cn, san=None, is_ca=False, path_len=None,
              not_before=None, not_after=None, key_usage="leaf", key=None, eku=None,
              extensions=(), corrupt_signature=False):
    """Writes <dir>/<stem>.pem and <stem>.key, returns their paths.

    issuer_cert/issuer_key: paths (or loaded objects) of the issuer; None for a self-signed certificate.
    san: list of DNS names; None = [cn] for a leaf, none for a CA; [] = no subjectAltName.
    key_usage: "leaf" (digitalSignature), "ca" (keyCertSign|cRLSign), None (no extension), or a tuple
    of cryptography KeyUsage field names. key: None/"p256", "p384", "rsa" or a private key object.
    eku: None, "server" or "client" (non-critical ExtendedKeyUsage).
    extensions: more (ExtensionType, critical) pairs, e.g. an x509.UnrecognizedExtension.
    not_before/not_after: datetimes (UTC), default now-1h .. now+30d.
    corrupt_signature: flips a bit of the signature value (the DER stays well formed)."""
    dir = pathlib.Path(dir)
    dir.mkdir(parents=True, exist_ok=True)
    key = _new_key(key)
    now = datetime.datetime.now(datetime.timezone.utc)
    not_before = not_before or now - datetime.timedelta(hours=1)
    not_after = not_after or now + datetime.timedelta(days=30)
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)])
    if issuer_cert is None:
        icert, ikey = None, key
        issuer_name = subject
    else:
        icert = _load_cert(issuer_cert) if isinstance(issuer_cert, (str, pathlib.Path)) else issuer_cert
        ikey = _load_key(issuer_key) if isinstance(issuer_key, (str, pathlib.Path)) else issuer_key
        issuer_name = icert.subject

    b = (x509.CertificateBuilder()
         .subject_name(subject).issuer_name(issuer_name).public_key(key.public_key())
         .serial_number(secrets.randbits(63) | 1)
         .not_valid_before(not_before).not_valid_after(not_after)
         .add_extension(x509.BasicConstraints(ca=is_ca, path_length=path_len), critical=True)
         .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False))
    if icert is not None:
        b = b.add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ikey.public_key()),
                            critical=False)
    if key_usage is not None:
        names = _KU_PRESETS.get(key_usage, key_usage) if isinstance(key_usage, str) else key_usage
        b = b.add_extension(_key_usage(names), critical=True)
    if san is None:
        san = [] if is_ca else [cn]
    if san:
        b = b.add_extension(x509.SubjectAlternativeName([x509.DNSName(n) for n in san]), critical=False)
    if eku is not None:
        b = b.add_extension(x509.ExtendedKeyUsage([_EKU[eku]]), critical=False)
    for ext, critical in extensions:
        b = b.add_extension(ext, critical=critical)
    # An issuer on P-384 signs with SHA-384 (as a real one would); everything else with SHA-256.
    is_p384 = isinstance(ikey, ec.EllipticCurvePrivateKey) and ikey.curve.name == "secp384r1"
    cert = b.sign(ikey, hashes.SHA384() if is_p384 else hashes.SHA256())

    cert_der = cert.public_bytes(serialization.Encoding.DER)
    if corrupt_signature:
        # The certificate ends with the signature BIT STRING, whose last byte is the last byte of
        # the ECDSA s (or RSA) value: flipping its low bit keeps every DER length intact.
        cert_der = cert_der[:-1] + bytes([cert_der[-1] ^ 0x01])
    cert_path, key_path = dir / f"{stem}.pem", dir / f"{stem}.key"
    cert_path.write_bytes(_pem(cert_der))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return cert_path, key_path


def _pem(cert_der):
    import base64
    b64 = base64.b64encode(cert_der).decode()
    lines = [b64[i:i + 64] for i in range(0, len(b64), 64)]
    return ("-----BEGIN CERTIFICATE-----\n" + "\n".join(lines) + "\n-----END CERTIFICATE-----\n").encode()


def make_pki(dir, clients=("node-1",), server_name="localhost"):
    """A CA (ca.pem/ca.key), a server leaf for server_name (server.pem/.key, serverAuth) and one leaf per
    client (<name>.pem/.key, clientAuth), all under dir."""
    pki = Pki(dir, server_name)
    pki.ca_pem, pki.ca_key = make_cert(dir, "ca", cn="iotse test CA", is_ca=True, key_usage="ca",
                                       not_after=datetime.datetime.now(datetime.timezone.utc)
                                       + datetime.timedelta(days=365))
    pki.server_pem, pki.server_key = make_cert(dir, "server", issuer_cert=pki.ca_pem, issuer_key=pki.ca_key,
                                               cn=server_name, eku="server")
    for name in clients:
        pki.clients[name] = make_cert(dir, name, issuer_cert=pki.ca_pem, issuer_key=pki.ca_key,
                                      cn=name, eku="client")
    return pki


def der(path):
    """DER of the first certificate in a PEM file."""
    return _load_cert_der(pathlib.Path(path).read_bytes())


def _load_cert_der(data):
    import base64
    text = data.decode("ascii", "replace")
    begin = text.index("-----BEGIN CERTIFICATE-----") + len("-----BEGIN CERTIFICATE-----")
    end = text.index("-----END CERTIFICATE-----", begin)
    return base64.b64decode("".join(text[begin:end].split()))
