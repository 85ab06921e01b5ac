"""`se certs`: the test PKI our own code writes must satisfy independent readers (`cryptography`,
`openssl verify`), and our x509_verify must accept it; plus PEM/DER reading by the CLI."""
import datetime
import subprocess
import time

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from se_cli import CLI, ROOT, run_batch
from proto.pki import der


def se(*args):
    return subprocess.run([str(CLI), *map(str, args)], capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def out(tmp_path_factory):
    d = tmp_path_factory.mktemp("certs") / "pki"
    p = se("certs", "--out", d, "--server-name", "server.test", "--clients", "node-1,node-2", "--days", "30")
    assert p.returncode == 0, p.stderr
    return d


def load(d, stem):
    cert = x509.load_pem_x509_certificate((d / f"{stem}.pem").read_bytes())
    key = serialization.load_pem_private_key((d / f"{stem}.key").read_bytes(), password=None)
    return cert, key


def pub(cert):
    return cert.public_key().public_bytes(serialization.Encoding.X962,
                                          serialization.PublicFormat.UncompressedPoint)


@pytest.mark.parametrize("stem", ["ca", "server", "node-1", "node-2"])
def test_files_load_and_keys_match(out, stem):
    cert, key = load(out, stem)
    assert isinstance(key, ec.EllipticCurvePrivateKey) and key.curve.name == "secp256r1"
    assert pub(cert) == key.public_key().public_bytes(serialization.Encoding.X962,
                                                      serialization.PublicFormat.UncompressedPoint)
    assert (out / f"{stem}.key").stat().st_mode & 0o077 == 0, "private key readable by others"
    assert cert.version == x509.Version.v3 and cert.serial_number > 0
    now = datetime.datetime.now(datetime.timezone.utc)
    assert cert.not_valid_before_utc <= now - datetime.timedelta(minutes=50)
    assert abs((cert.not_valid_after_utc - now) - datetime.timedelta(days=30)) < datetime.timedelta(minutes=5)


def test_ca_profile(out):
    ca, _ = load(out, "ca")
    bc = ca.extensions.get_extension_for_class(x509.BasicConstraints)
    ku = ca.extensions.get_extension_for_class(x509.KeyUsage)
    assert bc.critical and bc.value.ca
    assert ku.critical and ku.value.key_cert_sign and ku.value.crl_sign and not ku.value.digital_signature
    assert ca.issuer == ca.subject
    ca.verify_directly_issued_by(ca)


@pytest.mark.parametrize("stem,name,eku", [("server", "server.test", x509.ExtendedKeyUsageOID.SERVER_AUTH),
                                           ("node-1", "node-1", x509.ExtendedKeyUsageOID.CLIENT_AUTH)])
def test_leaf_profile(out, stem, name, eku):
    ca, _ = load(out, "ca")
    leaf, _ = load(out, stem)
    leaf.verify_directly_issued_by(ca)
    assert leaf.subject.get_attributes_for_oid(x509.NameOID.COMMON_NAME)[0].value == name
    san = leaf.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert san.get_values_for_type(x509.DNSName) == [name]
    ku = leaf.extensions.get_extension_for_class(x509.KeyUsage).value
    assert ku.digital_signature and not ku.key_cert_sign
    assert not leaf.extensions.get_extension_for_class(x509.BasicConstraints).value.ca
    assert list(leaf.extensions.get_extension_for_class(x509.ExtendedKeyUsage).value) == [eku]


def test_openssl_verify(out):
    p = subprocess.run(["openssl", "verify", "-x509_strict", "-CAfile", out / "ca.pem",
                        "-verify_hostname", "server.test", "-purpose", "sslserver", out / "server.pem"],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr
    p = subprocess.run(["openssl", "verify", "-x509_strict", "-CAfile", out / "ca.pem", "-purpose", "sslclient",
                        out / "node-1.pem", out / "node-2.pem"], capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr
    # openssl also reads the keys and finds them matching their certificates
    for stem in ("server", "node-1"):
        k = subprocess.run(["openssl", "pkey", "-in", out / f"{stem}.key", "-pubout"], capture_output=True)
        c = subprocess.run(["openssl", "x509", "-in", out / f"{stem}.pem", "-pubkey", "-noout"], capture_output=True)
        assert k.returncode == 0 and k.stdout == c.stdout


def test_our_verify_accepts(out):
    ca = der(out / "ca.pem").hex()
    reqs = [{"op": "x509_verify", "chain": [der(out / "server.pem").hex()], "anchors": [ca],
             "now": int(time.time()), "name": "server.test"},
            {"op": "x509_verify", "chain": [der(out / "node-2.pem").hex(), ca], "anchors": [ca],
             "now": int(time.time()), "name": "node-2"},
            {"op": "x509_verify", "chain": [der(out / "server.pem").hex()], "anchors": [ca],
             "now": int(time.time()) + 31 * 86400}]
    res = run_batch(reqs, "sw")
    assert res[0] == {"ok": True, "pub": pub(load(out, "server")[0]).hex()}
    assert res[1]["ok"] is True
    assert res[2] == {"error": "cert_expired"}


def test_defaults_and_usage_errors(tmp_path):
    p = se("certs", "--out", tmp_path / "d")
    assert p.returncode == 0, p.stderr
    assert sorted(f.name for f in (tmp_path / "d").iterdir()) == [
        "ca.key", "ca.pem", "node-1.key", "node-1.pem", "server.key", "server.pem"]
    server, _ = load(tmp_path / "d", "server")
    assert server.extensions.get_extension_for_class(x509.SubjectAlternativeName).value \
        .get_values_for_type(x509.DNSName) == ["localhost"]
    assert se("certs", "--help").returncode == 0 and "--out" in se("certs", "--help").stdout
    for bad in (["certs"], ["certs", "--out"], ["certs", "--out", tmp_path, "--days", "0"],
                ["certs", "--out", tmp_path, "--bogus", "1"], ["certs", "--out", tmp_path, "--clients", "../x"]):
        p = se(*bad)
        assert p.returncode == 2 and "se certs" in p.stderr, bad
    p = se("certs", "--out", tmp_path / "no" / "such" / "dir")
    assert p.returncode == 1 and "no/such/dir" in p.stderr


PEM_HARNESS = r"""
#include <stdio.h>
#include <string.h>
#include "pem.h"
/* pemh certs FILE | pemh key FILE: what tools/cli/pem.c reads, as hex lines */
int main(int argc, char **argv)
{
    static uint8_t buf[65536];
    const uint8_t *c[8];
    size_t l[8];
    uint8_t k[32];
    if (argc == 3 && strcmp(argv[1], "certs") == 0) {
        int n = cli_read_certs(argv[2], buf, sizeof buf, c, l, 8);
        for (int i = 0; i < n; i++) {
            for (size_t j = 0; j < l[i]; j++)
                printf("%02x", c[i][j]);
            printf("\n");
        }
        return n < 0;
    }
    if (argc != 3 || cli_read_key(argv[2], k) != 0)
        return 1;
    for (int j = 0; j < 32; j++)
        printf("%02x", k[j]);
    printf("\n");
    return 0;
}
"""


@pytest.fixture(scope="module")
def pemh(tmp_path_factory):
    """tools/cli/pem.c (as built by `make cli`) behind a small main."""
    obj = ROOT / "build" / "host" / "cli" / "pem.o"
    if not obj.exists():
        pytest.fail(f"{obj} is missing: run `make cli`")
    d = tmp_path_factory.mktemp("pemh")
    (d / "pemh.c").write_text(PEM_HARNESS)
    subprocess.run(["cc", "-std=c11", "-I", ROOT / "tools" / "cli", d / "pemh.c", obj, "-o", d / "pemh"], check=True)
    return lambda *a: subprocess.run([d / "pemh", *map(str, a)], capture_output=True, text=True)


def test_pem_reading(out, pemh, tmp_path):
    """Certificates (PEM chain, DER) and keys (PKCS#8/SEC1, PEM/DER) as OpenSSL writes them."""
    (tmp_path / "chain.pem").write_bytes((out / "server.pem").read_bytes() + (out / "ca.pem").read_bytes())
    r = pemh("certs", tmp_path / "chain.pem")
    assert r.returncode == 0 and r.stdout.split() == [der(out / "server.pem").hex(), der(out / "ca.pem").hex()]
    (tmp_path / "s.der").write_bytes(der(out / "server.pem"))
    assert pemh("certs", tmp_path / "s.der").stdout.split() == [der(out / "server.pem").hex()]
    _, key = load(out, "server")
    want = key.private_numbers().private_value.to_bytes(32, "big").hex()
    forms = {"p8.pem": (serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8),
             "p8.der": (serialization.Encoding.DER, serialization.PrivateFormat.PKCS8),
             "sec1.pem": (serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL),
             "sec1.der": (serialization.Encoding.DER, serialization.PrivateFormat.TraditionalOpenSSL)}
    for name, (enc, fmt) in forms.items():
        (tmp_path / name).write_bytes(key.private_bytes(enc, fmt, serialization.NoEncryption()))
        r = pemh("key", tmp_path / name)
        assert r.returncode == 0 and r.stdout.strip() == want, (name, r.stderr)
    p384 = ec.generate_private_key(ec.SECP384R1())
    (tmp_path / "p384.key").write_bytes(p384.private_bytes(serialization.Encoding.PEM,
                                                           serialization.PrivateFormat.PKCS8,
                                                           serialization.NoEncryption()))
    for args, reason in [(("key", tmp_path / "p384.key"), "not a P-256"),
                         (("key", tmp_path / "missing"), "No such file"),
                         (("certs", out / "server.key"), "no CERTIFICATE"),
                         (("key", out / "server.pem"), "PRIVATE KEY")]:
        r = pemh(*args)
        assert r.returncode == 1 and reason in r.stderr and r.stderr.startswith("se: "), (args, r.stderr)
