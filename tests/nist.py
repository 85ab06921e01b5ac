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
