"""The CLI's own contract: batch error lines, continuation after bad lines, exit status, human mode."""
import hashlib
import hmac
import json
import subprocess

from se_cli import CLI


def run(args, stdin=""):
    return subprocess.run([str(CLI), *args], input=stdin, capture_output=True, text=True, timeout=60)


def test_a_line_that_is_not_utf8_gets_bad_input_and_processing_continues():
    # the JSON parser's error message quotes the bad bytes: the answer must still be JSON
    lines = [b'{"op": "sha256", "msg": "\xff\xfe"}',
             b'{"op": "sha256", "key": "0b0\\\xd0\x9d\xcf\x9d00", "ms\xa1\xdd: "00"}',  # found by fuzz_cli_batch
             b'{"op":"sha256","msg":"616263"}']
    p = subprocess.run([str(CLI), "--backend", "sw", "batch"], input=b"\n".join(lines) + b"\n",
                       capture_output=True, timeout=60)
    out = [json.loads(x) for x in p.stdout.splitlines()]
    assert [o.get("error") for o in out] == ["bad_input", "bad_input", None]
    assert out[-1]["digest"] == hashlib.sha256(b"abc").hexdigest()
    assert p.returncode == 1


def test_bad_lines_get_named_errors_and_processing_continues():
    lines = [
        '{"op":"sha256","msg":"6"}',            # odd-length hex
        '{"op":"sha256","msg":"zz"}',           # not hex
        '{"op":"sha256"}',                      # missing field
        '{"op":"frobnicate"}',                  # unknown op
        '{"msg":"00"}',                         # no op at all
        'this is not json',
        '{"op":"sha256","msg":"616263","id":"last"}',
    ]
    p = run(["--backend", "sw", "batch"], "\n".join(lines) + "\n")
    out = [json.loads(x) for x in p.stdout.splitlines()]
    assert [o.get("error") for o in out] == [
        "bad_hex", "bad_hex", "bad_input", "unknown_op", "bad_input", "bad_input", None]
    assert out[0]["field"] == "msg" and out[2]["field"] == "msg"
    assert out[-1] == {"digest": hashlib.sha256(b"abc").hexdigest(), "id": "last"}
    assert p.returncode == 1


def test_all_good_lines_exit_zero():
    p = run(["batch"], '{"op":"sha256","msg":""}\n\n{"op":"sha256","msg":"00","id":7}\n')
    out = [json.loads(x) for x in p.stdout.splitlines()]
    assert p.returncode == 0
    assert out[1] == {"digest": hashlib.sha256(b"\0").hexdigest(), "id": 7}


def test_human_subcommand_matches_batch_schema():
    p = run(["hmac-sha256", "--key", "6b6579", "--msg", "6d7367"])
    assert p.returncode == 0
    import hmac
    assert p.stdout.strip() == "mac: " + hmac.new(b"key", b"msg", hashlib.sha256).hexdigest()


def test_human_error_goes_to_stderr_with_status():
    p = run(["sha256", "--msg", "xyz"])
    assert p.returncode == 1 and p.stdout == ""
    assert "error: bad_hex" in p.stderr


def test_unknown_backend_is_refused():
    p = run(["--backend", "quantum", "batch"], "")
    assert p.returncode == 2 and "quantum" in p.stderr


def test_ops_lists_every_op_with_fields():
    p = run(["ops"])
    assert p.returncode == 0
    assert any(line.startswith("sha256 ") for line in p.stdout.splitlines())


def test_human_flags_accept_dashes_for_underscores():
    args = ["aead-encrypt", "--mode", "gcm", "--key", "00" * 16, "--nonce", "00" * 12, "--pt", "00"]
    short = run(args + ["--tag-len", "8"])
    assert short.returncode == 0
    tag = [l for l in short.stdout.splitlines() if l.startswith("tag: ")][0]
    assert len(tag) == len("tag: ") + 16


def test_every_op_is_documented():
    """docs/cli.md stays true to the code: each op `se ops` lists has its own entry there."""
    doc = (CLI.parent.parent.parent / "docs" / "cli.md").read_text()
    names = [line.split()[0] for line in run(["ops"]).stdout.splitlines()]
    assert len(names) >= 10
    missing = [n for n in names if f"`{n}`" not in doc]
    assert not missing, f"ops without documentation in docs/cli.md: {missing}"


def test_rtl_backend_runs_engine_ops():
    """On --backend rtl the hash, ECC and DRBG ops run on the engine model (checked against
    hashlib, the cryptography package and an hmac-module HMAC_DRBG step); a bad request keeps its
    named error."""
    from cryptography.hazmat.primitives.asymmetric import ec
    lines = ['{"op":"sha256","msg":"616263","id":1}',
             '{"op":"ec_pubkey","curve":"secp256r1","key":"' + "00" * 31 + '07","id":2}',
             '{"op":"hmac_drbg","entropy":"00","id":3}',
             '{"op":"hmac_drbg","entropy":"' + "00" * 32 + '","nonce":"","bytes":32,"id":4}']
    p = run(["--backend", "rtl", "batch"], "\n".join(lines) + "\n")
    out = [json.loads(x) for x in p.stdout.splitlines()]
    q = ec.derive_private_key(7, ec.SECP256R1()).public_key().public_numbers()
    assert out[0] == {"digest": hashlib.sha256(b"abc").hexdigest(), "id": 1}
    assert out[1]["x"] == "%064x" % q.x and out[1]["y"] == "%064x" % q.y
    assert out[2] == {"error": "bad_input", "field": "bytes", "id": 3}
    h = lambda k, m: hmac.new(k, m, hashlib.sha256).digest()  # noqa: E731
    k, v, seed = b"\0" * 32, b"\1" * 32, b"\0" * 32       # SP 800-90A 10.1.2: instantiate,
    k = h(k, v + b"\0" + seed)
    v = h(k, v)
    k = h(k, v + b"\1" + seed)
    v = h(k, v)
    v = h(k, v)                                             # the first generate and its update,
    k = h(k, v + b"\0")
    v = h(k, v)
    assert out[3] == {"out": h(k, v).hex(), "id": 4}        # the second generate's block
    assert p.returncode == 1


def test_names_are_the_registries():
    """`se names` (the numbers the node prints -> names): cipher suites by their IANA numbers
    (RFC 7251, RFC 5289), alerts by RFC 5246 7.2 / RFC 8446's certificate_required, and the status
    names the batch mode answers with."""
    p = run(["names"])
    assert p.returncode == 0, p.stderr
    n = json.loads(p.stdout)
    assert n["suite"] == {"49326": "TLS_ECDHE_ECDSA_WITH_AES_128_CCM_8",
                          "49195": "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
                          "49187": "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256"}
    assert {n["alert"][k] for k in ("0", "20", "42", "48", "51", "116")} == {
        "close_notify", "bad_record_mac", "bad_certificate", "unknown_ca", "decrypt_error", "certificate_required"}
    assert n["alert"]["42"] == "bad_certificate" and n["alert"]["48"] == "unknown_ca"
    assert n["status"]["0"] == "ok" and len(set(n["status"].values())) == len(n["status"])
    bad = run(["batch"], '{"op":"sha256","msg":"6"}\n')
    assert json.loads(bad.stdout)["error"] in n["status"].values()
