"""Parser for NIST CAVP .rsp/.fax/.txt vector files: sections ([P-256,SHA-256]) and KEY = VALUE records."""
import re


def parse(path):
    """Yields (section_headers: dict, record: dict) for every record in a CAVP file.

    A record is a run of `KEY = VALUE` lines ended by a blank line; bare words such as
    FAIL on their own line are stored as {word: True}. Section headers `[...]` accumulate
    until the next record; `[key = value]` headers become section entries, a curve header
    `[P-256]` or `[P-256,SHA-384]` sets section["curve"] (and section["hash"]), any other
    `[name]` becomes section["name"].
    """
    section, record = {}, {}
    with open(path, encoding="latin-1") as f:
        for raw in f:
            line = raw.strip()
            if line.startswith("#"):
                continue
            if not line:
                if record:
                    yield dict(section), record
                    record = {}
                continue
            m = re.fullmatch(r"\[(.*)\]", line)
            if m:
                if record:
                    yield dict(section), record
                    record = {}
                body = m.group(1)
                if "=" in body:
                    k, v = (s.strip() for s in body.split("=", 1))
                    section[k] = v
                elif re.fullmatch(r"[PKB]-\d+(,SHA-\d+)?", body):
                    curve, _, hash_name = body.partition(",")
                    section["curve"] = curve
                    if hash_name:
                        section["hash"] = hash_name
                else:
                    section["name"] = body
                continue
            if "=" in line:
                k, v = (s.strip() for s in line.split("=", 1))
                record[k] = v
            else:
                record[line] = True
    if record:
        yield dict(section), record


def ccm_records(path):
    """The CCM files keep Key/Nonce and the lengths in headers above the records, partly in
    `[Alen = 0, Plen = 0, ...]` brackets; a record is complete at the next Count/header/EOF."""
    state, open_rec = {}, False
    with open(path, encoding="latin-1") as f:
        lines = [x.strip() for x in f] + ["[EOF]"]
    for line in lines:
        if not line or line.startswith("#"):
            continue
        m = re.fullmatch(r"\[(.*)\]", line)
        key = line.split("=", 1)[0].strip() if "=" in line else None
        if open_rec and (m or key in ("Count", "Key")):
            yield dict(state)
            open_rec = False
        if m:
            for part in m.group(1).split(","):
                if "=" in part:
                    k, v = (s.strip() for s in part.split("=", 1))
                    state[k] = v
        elif key == "Count":
            for k in ("Adata", "Payload", "CT", "Result"):
                state.pop(k, None)
            open_rec = True
        elif key:
            state[key] = line.split("=", 1)[1].strip()


def ccm_fields(r):
    alen, plen, tlen = int(r["Alen"]), int(r["Plen"]), int(r["Tlen"])
    ct = r["CT"].lower()
    assert len(ct) == 2 * (plen + tlen) and len(r["Nonce"]) == 2 * int(r["Nlen"])
    payload = r["Payload"].lower()[: 2 * plen] if "Payload" in r else None
    return (r["Key"].lower(), r["Nonce"].lower(), r["Adata"].lower()[: 2 * alen], payload,
            ct[: 2 * plen], ct[2 * plen:], tlen)
