"""ctrl_core (rtl/ctrl) against its Python model (rtl/ctrl/ctrl_model.py), program by program, in two
builds:
  - the engine's ROM: X509_PARSE on certificates from `se certs`, the `cryptography` package and
    the `openssl` command, on truncations and byte mutations of them, and VALIDITY around their
    times and NAME_CHECK with names that match and do not;
  - a ROM of directed programs (tests/ctrl/isa): every branch condition, the call stack's limits,
    the memory instructions' edge cases, the outputs, the BAD_PROGRAM stops, a program number
    past the table.
For every run the RTL must match the model exactly: the status, the cycle count (the cycles
isa.toml gives each instruction), every register at the end, and every output (spans read back
from the window, numbers right-aligned, register values). The model itself is checked against the
software stack and `cryptography` (tests/ctrl/test_ctrl_x509.py) and against hand-computed
results (tests/ctrl/test_ctrl_isa.py)."""
import copy
import datetime
import hashlib
import json
import os
import pathlib
import random
import subprocess
import sys

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, ReadOnly, RisingEdge

from rtlsim import ROOT, run_cocotb, sources
from tls_prf import p_sha256 as prf

sys.path.insert(0, str(ROOT / "rtl" / "ctrl"))
sys.path.insert(0, str(ROOT / "tests" / "ctrl"))   # (the ctrl tests import one another by name)
import ctrl_asm as asm  # noqa: E402
import ctrl_isa as isa  # noqa: E402
import ctrl_model as model  # noqa: E402
import ctrl_ucode as ucode  # noqa: E402

ISA_DIR = ROOT / "tests" / "ctrl" / "isa"
PK = {"BadSeq": isa.PK_STATUS["BAD_SEQ"]}   # ctrl_tb's pk answers
PK_PROGS = ("ECDSA_VERIFY", "ECDSA_VERIFY_COMB", "VALIDATE", "ECSM_COMB", "ECSM", "PADD", "ECDSA_SIGN",
            "PRECOMP")   # the ones the programs run

CERT_AT, NOW_AT, NAME_AT = 0x0000, 0x0c80, 0x0cc0   # where the tests put a certificate, the time, a name
SIG_AT, KEY_AT, DIGEST_AT = 0x0b80, 0x0bc0, 0x0c00  # SIG_CHECK's signature, key and digest
KIND = {0: "span", 1: "number", 2: "reg"}


class TB:
    def __init__(self, dut):
        self.dut = dut
        self.events = []
        self.aes = {}         # the AES key slots AESK filled: slot -> its key
        cocotb.start_soon(Clock(dut.clk_i, 10, unit="ns").start())
        cocotb.start_soon(self._outputs())
        cocotb.start_soon(self._sha())
        cocotb.start_soon(self._pk())
        cocotb.start_soon(self._aes())

    async def reset(self):
        d = self.dut
        for s in (d.start_i, d.prog_i, d.reg_we_i, d.reg_idx_i, d.reg_wdata_i, d.ld_we_i, d.ld_addr_i, d.ld_data_i,
                  d.sha_err_i, d.sha_err_final_i, d.sha_digest_i, d.pk_status_table_i,
                  d.pk_dout_i):
            s.value = 0
        d.sha_ready_i.value = 1
        d.aes_ready_i.value = 1
        d.rst_ni.value = 0
        await ClockCycles(d.clk_i, 2)
        d.rst_ni.value = 1
        await RisingEdge(d.clk_i)

    async def _outputs(self):
        d = self.dut
        while True:
            await RisingEdge(d.clk_i)
            await ReadOnly()
            if d.out_valid_o.value:
                self.events.append((int(d.out_slot_o.value), KIND[int(d.out_kind_o.value)], int(d.out_a_o.value),
                                    int(d.out_n_o.value)))

    async def _sha(self):
        """The SHA IP, answering at once: the model's SHA-256 (ctrl_model.Sha256) over the bytes of
        each INIT or RESUME (from the 36 bytes SHAR sends) to FINAL; the digest, or SHAS's chaining
        value, shows from the cycle after the request on, and sha_state_ok_i says whether SHAS has one."""
        d, h, digest, res = self.dut, model.Sha256(), None, b""
        while True:
            await RisingEdge(d.clk_i)
            if digest is not None:
                d.sha_digest_i.value, digest = digest, None
            d.sha_state_ok_i.value = int(h.state() is not None)
            await ReadOnly()
            if d.sha_req_o.value:
                kind, byte = int(d.sha_kind_o.value), bytes([int(d.sha_byte_o.value)])
                if kind == 0:
                    h = model.Sha256()
                elif kind == 1:
                    h.update(byte)
                elif kind == 2:
                    digest = int.from_bytes(h.digest(), "big")
                elif kind == 3:
                    res += byte
                elif kind == 4:
                    h, res = model.Sha256(res[:32], int.from_bytes(res[32:], "big")), b""
                elif h.state() is not None:
                    digest = int.from_bytes(h.state(), "big")

    async def _pk(self):
        """The pk IP, answering at once, as the model's pk (ctrl_model.Pk): its slots as WRITEs and
        RUNs leave them, the status of each program the programs run kept over them in
        pk_status_table_i, a READ's slot on pk_dout_i; when a program that used pk stops, its
        operand slots cleared (ctrl_wb's CLEAR)."""
        d, num, pk, table, dout, used = self.dut, 0, model.Pk(), None, None, False
        while True:
            await RisingEdge(d.clk_i)
            if table is not None:
                d.pk_status_table_i.value, table = table, None
            if dout is not None:
                d.pk_dout_i.value, dout = dout, None
            await ReadOnly()
            if d.done_o.value and used:
                pk.clear()
                used = False
            if not d.pk_req_o.value:
                continue
            kind, arg = int(d.pk_kind_o.value), int(d.pk_arg_o.value)
            used = True
            if kind == 0:
                num = 0
            elif kind == 1:
                num = (num << 8 | int(d.pk_byte_o.value)) & ((1 << 256) - 1)
            elif kind in (2, 3):
                if kind == 2:
                    pk.write(arg & 31, num)
                else:
                    pk.run(arg & 31, arg >> 5)   # its results, for the READs after it
                table = sum(isa.PK_STATUS[copy.deepcopy(pk).run(isa.PK_PROG[p], e)] << 4 * (32 * e + isa.PK_PROG[p])
                            for p in PK_PROGS for e in range(4))
            elif kind == 4:
                dout = pk.slots.get(arg & 31, 0)

    async def _aes(self):
        """The AES IP's key slots, taking every request at once: each byte shifts into its slot, which
        then holds no key until the LOAD."""
        d, key = self.dut, {}
        while True:
            await RisingEdge(d.clk_i)
            await ReadOnly()
            if not d.aes_req_o.value:
                continue
            slot = int(d.aes_slot_o.value)
            if int(d.aes_kind_o.value) == 0:
                key[slot] = key.get(slot, b"") + bytes([int(d.aes_byte_o.value)])
                self.aes.pop(slot, None)
            else:
                self.aes[slot] = key.pop(slot)
                assert len(self.aes[slot]) == 16

    async def load(self, addr, data):
        d = self.dut
        d.ld_we_i.value = 1
        for i, b in enumerate(data):
            d.ld_addr_i.value, d.ld_data_i.value = (addr + i) & 0xffff, b
            await RisingEdge(d.clk_i)
        d.ld_we_i.value = 0

    async def read(self, addr, n):
        d, out = self.dut, bytearray()
        for i in range(n):
            d.ld_addr_i.value = (addr + i) & 0xffff
            await RisingEdge(d.clk_i)
            await ReadOnly()
            out.append(int(d.ld_rdata_o.value))
            await RisingEdge(d.clk_i)
        return bytes(out)

    async def run(self, prog, regs):
        """Runs program number prog with these registers; (status, cycles from start to done)."""
        d = self.dut
        for k, v in regs.items():
            d.reg_we_i.value, d.reg_idx_i.value, d.reg_wdata_i.value = 1, k, v
            await RisingEdge(d.clk_i)
        d.reg_we_i.value = 0
        self.events = []
        d.prog_i.value = prog
        d.start_i.value = 1
        await RisingEdge(d.clk_i)
        d.start_i.value = 0
        cycles = 0
        while True:
            await ReadOnly()
            if d.done_o.value:
                break
            await RisingEdge(d.clk_i)
            cycles += 1
            assert cycles < 200_000, "ctrl_core did not stop"
        await RisingEdge(d.clk_i)
        return int(d.status_o.value), cycles

    async def regs(self):
        d, out = self.dut, []
        for k in range(16):
            d.reg_idx_i.value = k
            await RisingEdge(d.clk_i)
            await ReadOnly()
            out.append(int(d.reg_rdata_o.value))
            await RisingEdge(d.clk_i)
        return out


async def check(tb, m, prog, regs, what):
    """One run on the RTL and on the model, compared."""
    rom = m.asm
    status, cycles = await tb.run([p["name"] for p in rom.table].index(prog), regs)
    want = m.run(prog, regs)
    names = {v: k for k, v in rom.slots.items()}
    assert rom_status(status) == want, (what, rom_status(status), want)
    assert cycles == m.cycles, (what, cycles, m.cycles)
    assert await tb.regs() == m.regs, what
    assert tb.aes == m.aes, what
    got = {}
    for slot, kind, a, n in tb.events:
        if kind == "reg":
            got[names[slot]] = a
        else:
            data = await tb.read(a, n)
            got[names[slot]] = bytes(32 - n) + data if kind == "number" else data
    if want == "OK":
        assert got == m.out, (what, got, m.out)
    return want, cycles


def rom_status(code):
    return isa.STATUS_NAME.get(code, f"unknown({code})")


@cocotb.test()
async def programs(dut):
    tb = TB(dut)
    await tb.reset()
    m = model.Machine()
    certs = [bytes.fromhex(c) for c in json.loads(pathlib.Path(os.environ["CTRL_CERTS"]).read_text())]
    seen, parsed = {}, {}
    for i, cert in enumerate(certs):
        await tb.load(CERT_AT, cert)
        m.load(CERT_AT, cert)
        verdict, cycles = await check(tb, m, "X509_PARSE", {1: CERT_AT, 2: CERT_AT + len(cert)}, f"cert {i}")
        seen[verdict] = seen.get(verdict, 0) + 1
        if verdict == "OK":
            parsed.setdefault(m.out["SUBJECT"], (cert, dict(m.out), m.spans["TBS"]))   # (the first: unmutated)
        if i < 3 and verdict == "OK":   # VALIDITY around this certificate's times, NAME_CHECK with names
            for now in (b"19491231235959", b"20000101000000", b"20261127120000", b"20991231235959",
                        m.out["NOT_BEFORE"], m.out["NOT_AFTER"]):
                await tb.load(NOW_AT, now)
                m.load(NOW_AT, now)
                v, _ = await check(tb, m, "VALIDITY", {1: NOW_AT}, f"cert {i} at {now}")
                seen["VALIDITY " + v] = seen.get("VALIDITY " + v, 0) + 1
            await check(tb, m, "X509_PARSE", {1: CERT_AT, 2: CERT_AT + len(cert)}, f"cert {i} again")
            span, san = (m.spans["SAN"], 1) if "SAN" in m.spans else (m.spans.get("CN", (0, 0)), 0)
            for name in (b"localhost", b"LocalHost", b"node-1", b"localhos", b"a.example"):
                await tb.load(NAME_AT, name)
                m.load(NAME_AT, name)
                v, _ = await check(tb, m, "NAME_CHECK", {1: span[0], 2: span[0] + span[1], 6: NAME_AT,
                                                         7: NAME_AT + len(name), 9: san}, f"cert {i} name {name}")
                seen["NAME_CHECK " + v] = seen.get("NAME_CHECK " + v, 0) + 1
    # SIG_CHECK of every parsed certificate whose issuer is among them (the self-signed too), with
    # the issuer's key and, beside it, a key of another issuer
    keys = [o["PUB_X"] + o["PUB_Y"] for _, o, _ in parsed.values()]
    for cert, out, tbs in parsed.values():
        if out["ISSUER"] not in parsed:
            continue
        issuer = parsed[out["ISSUER"]][1]
        for key in {issuer["PUB_X"] + issuer["PUB_Y"], keys[0]}:
            for at, data in ((CERT_AT, cert), (SIG_AT, out["SIG_R"] + out["SIG_S"]), (KEY_AT, key)):
                await tb.load(at, data)
                m.load(at, data)
            v, _ = await check(tb, m, "SIG_CHECK", {1: tbs[0], 2: tbs[0] + tbs[1], 3: SIG_AT, 6: KEY_AT, 7: DIGEST_AT},
                               f"signature of {out['SUBJECT'].hex()}")
            seen["SIG_CHECK " + v] = seen.get("SIG_CHECK " + v, 0) + 1
    # CHAIN_CHECK of each certificate whose issuers are among them, up to a self-signed one, the
    # anchor: at the latest notBefore, with and without a name; with the anchor sent along; without
    # its intermediates; with an unrelated certificate as its issuer; and of the last 20 of the
    # corpus (mutations) in the first one's place
    chains = []
    for c, o, _ in parsed.values():
        up, x = [], o
        while x["ISSUER"] in parsed and x["ISSUER"] != x["SUBJECT"]:
            up.append(parsed[x["ISSUER"]])
            x = up[-1][1]
        if not up or x["ISSUER"] != x["SUBJECT"]:
            continue
        chain, root, now = [c] + [u[0] for u in up[:-1]], up[-1][0], max(u[1]["NOT_BEFORE"] for u in up)
        now = max(now, o["NOT_BEFORE"])
        chains += [(chain, [root], now, name) for name in (b"localhost", None)]
        chains += [(chain + [root], [root], now, None), (chain[:1], [root], now, None),
                   ([c, parsed[o["SUBJECT"]][0]], [root], now, None)]
    first = chains[0]
    chains += [([c], first[1], first[2], None) for c in certs[len(certs) - 20:]]
    for chain, anchors, now, name in chains:
        lst = b"".join(len(c).to_bytes(3, "big") + c for c in chain)
        anc = b"".join(len(c).to_bytes(3, "big") + c for c in anchors)
        data = lst + anc + now + (name or b"")
        await tb.load(0, data)
        m.load(0, data)
        a, n = len(lst), len(lst) + len(anc)
        v, _ = await check(tb, m, "CHAIN_CHECK", {1: 0, 2: a, 3: a, 4: n, 5: n, 6: n + 14, 7: len(data),
                                                  8: int(name is not None)}, f"chain of {chain[0][:16].hex()}")
        seen["CHAIN_CHECK " + v] = seen.get("CHAIN_CHECK " + v, 0) + 1
    # CERTIFICATE on the first chains as Certificate messages, the cache off and on (each twice: the
    # second run finds the leaf the first one kept), then cut short; the handshake's state compared
    hs_at, hs_bytes = m.asm.equ["HS_AT"], m.asm.equ["HS_BYTES"]
    for chain, anchors, now, name in chains[:6]:
        lst = b"".join(len(c).to_bytes(3, "big") + c for c in chain)
        anc = b"".join(len(c).to_bytes(3, "big") + c for c in anchors)
        for body, cache in ((len(lst).to_bytes(3, "big") + lst, 0), (len(lst).to_bytes(3, "big") + lst, 1),
                            (len(lst).to_bytes(3, "big") + lst, 1), (len(lst).to_bytes(3, "big") + lst[:-1], 1)):
            data = body + anc + now + (name or b"")
            await tb.load(0, data)
            m.load(0, data)
            a, n = len(body), len(body) + len(anc)
            v, _ = await check(tb, m, "CERTIFICATE", {1: 0, 2: a, 3: a, 4: n, 5: n, 6: n + 14, 7: len(data),
                                                      8: int(name is not None), 9: cache}, f"certificate {chain[0][:16].hex()}")
            seen["CERTIFICATE " + v] = seen.get("CERTIFICATE " + v, 0) + 1
            assert await tb.read(hs_at, hs_bytes) == bytes(m.mem[hs_at:hs_at + hs_bytes])
    for body in (b"", b"\x00"):
        await tb.load(0, body)
        m.load(0, body)
        v, _ = await check(tb, m, "SERVER_HELLO_DONE", {1: 0, 2: len(body)}, f"SERVER_HELLO_DONE {body.hex()}")
        seen["SERVER_HELLO_DONE " + v] = seen.get("SERVER_HELLO_DONE " + v, 0) + 1
    # HMAC and PRF: keys of 0, 32, 48 and 64 bytes, PRF outputs of the handshake's lengths, and two
    # refusals (BAD_INPUT): an output in the secret top, a key of 65 bytes
    rng = random.Random(5)
    scratch_end = m.asm.equ["SCRATCH_END"]
    for klen, n, out in ((0, 32, 0x0800), (32, 48, scratch_end), (48, 40, 0x0800), (48, 12, 0x0800),
                         (64, 33, 0x0800), (65, 12, 0x0800)):
        data = rng.randbytes(klen) + rng.randbytes(77)
        await tb.load(0x0100, data)
        m.load(0x0100, data)
        for prog in ("HMAC", "PRF"):
            v, _ = await check(tb, m, prog, {1: 0x0100, 2: 0x0100 + klen, 3: 0x0100 + klen, 4: 0x0100 + len(data),
                                             5: out, 6: n}, f"{prog} key {klen} out {n}")
            if v == "OK":
                got = await tb.read(out, 32 if prog == "HMAC" else n)
                assert got == bytes(m.mem[out:out + len(got)]), (prog, klen)
            seen[f"{prog} {v}"] = seen.get(f"{prog} {v}", 0) + 1
    # The DRBG: RANDOM and ECDHE without a seed (NO_ENTROPY), DRBG_SEED (instantiate, reseed, a
    # refusal), RANDOM of several lengths. Then ECDHE, its k from the DRBG: the peer's point from the
    # `cryptography` package, two off the curve (one with x = 0), and k G asked into
    # the secret top
    from cryptography.hazmat.primitives.asymmetric import ec
    ent_at, pms_at, peer_at, rest_at = m.asm.equ["ENT_AT"], m.asm.equ["PMS_AT"], 0x0300, 0x0380
    await tb.load(m.asm.equ["DC_AT"], bytes(2))   # (a fresh window: no seed)
    m.load(m.asm.equ["DC_AT"], bytes(2))
    for prog, regs, ent in (("RANDOM", {1: 0x0800, 2: 32}, None), ("ECDHE", {2: peer_at, 3: 0x0340}, None),
                            ("DRBG_SEED", {1: 48, 2: rest_at, 3: rest_at + 16, 4: 0}, rng.randbytes(48)),
                            ("RANDOM", {1: 0x0800, 2: 77}, None), ("DRBG_SEED", {1: 31, 2: rest_at, 3: rest_at, 4: 1}, None),
                            ("DRBG_SEED", {1: 32, 2: rest_at, 3: rest_at + 40, 4: 1}, rng.randbytes(32)),
                            ("RANDOM", {1: 0x0800, 2: 1024}, None), ("RANDOM", {1: 0x0800, 2: 1}, None)):
        if ent:
            await tb.load(ent_at, ent)
            m.load(ent_at, ent)
        v, _ = await check(tb, m, prog, regs, f"{prog} {regs}")
        seen[f"{prog} {v}"] = seen.get(f"{prog} {v}", 0) + 1
        if prog == "RANDOM" and v == "OK":
            assert await tb.read(0x0800, regs[2]) == bytes(m.mem[0x0800:0x0800 + regs[2]])
    peer = ec.generate_private_key(ec.SECP256R1()).public_key().public_numbers()
    good = peer.x.to_bytes(32, "big") + peer.y.to_bytes(32, "big")
    for point, pub_at in ((good, 0x0340), (good[:63] + b"\1", 0x0340), (bytes(32) + good[32:], 0x0340), (good, pms_at),
                          (good, 0x0340)):
        await tb.load(peer_at, point)
        m.load(peer_at, point)
        v, _ = await check(tb, m, "ECDHE", {2: peer_at, 3: pub_at}, f"ECDHE {point[:4].hex()}")
        if v == "OK":
            assert await tb.read(pub_at, 64) == bytes(m.mem[pub_at:pub_at + 64])
            assert await tb.read(pms_at, 32) == bytes(m.mem[pms_at:pms_at + 32])
        seen[f"ECDHE {v}"] = seen.get(f"ECDHE {v}", 0) + 1
    # The key schedule over the last ECDHE's premaster: MASTER, KEYS (the keys into the AES key
    # slots), FINISHED for both sides, the server's with a right and a wrong verify_data; the secret
    # top compared too (the bench's window is readable), and a refusal (one slot for both keys)
    cr_at, ivs_at, hash_at, vd_at = 0x0400, 0x0440, 0x0460, 0x0480
    h = hashlib.sha256(b"transcript").digest()
    data = rng.randbytes(64) + bytes(32) + h   # the randoms at cr_at, the IVs at ivs_at, h at hash_at
    await tb.load(cr_at, data)
    m.load(cr_at, data)
    ms_at, top = m.asm.equ["MS_AT"], isa.SECRET_BASE
    randoms = {1: cr_at, 2: cr_at + 32}
    for prog, regs, vd in (("MASTER", {1: hash_at, 3: 1}, None), ("MASTER", {**randoms, 3: 0}, None), ("KEYS", {**randoms, 3: 2, 4: 2, 5: ivs_at}, None),
                           ("KEYS", {**randoms, 3: 2, 4: 0, 5: ivs_at}, None), ("FINISHED", {1: hash_at, 2: 0, 3: vd_at}, None),
                           ("FINISHED", {1: hash_at, 2: 1, 3: vd_at}, 0), ("FINISHED", {1: hash_at, 2: 1, 3: vd_at}, 4)):
        if vd is not None:   # the server's verify_data (tests/tls_prf.py), right or with a bit off
            right = prf(bytes(m.mem[ms_at:ms_at + 48]), b"server finished" + h, 12)
            await tb.load(vd_at, bytes([right[0] ^ vd]) + right[1:])
            m.load(vd_at, bytes([right[0] ^ vd]) + right[1:])
        v, _ = await check(tb, m, prog, regs, f"{prog} {regs}")
        seen[f"{prog} {v}"] = seen.get(f"{prog} {v}", 0) + 1
        assert await tb.read(top, isa.MEM_BYTES - top) == bytes(m.mem[top:]), prog
        assert await tb.read(ivs_at, 8) == bytes(m.mem[ivs_at:ivs_at + 8]), prog
        assert await tb.read(vd_at, 12) == bytes(m.mem[vd_at:vd_at + 12]), prog
    assert sorted(tb.aes) == [0, 2]
    # SIGN with a key at CK_AT: a hash below n, one past it (reduced first), and no key (BAD_INPUT)
    ck_at, sig_at = m.asm.equ["CK_AT"], 0x0500
    for x, h in ((rng.randrange(1, model.P256_N), rng.randbytes(32)), (7, b"\xff" * 32), (0, bytes(32))):
        for at, data in ((ck_at, x.to_bytes(32, "big")), (hash_at, h)):
            await tb.load(at, data)
            m.load(at, data)
        v, _ = await check(tb, m, "SIGN", {1: hash_at, 3: sig_at}, f"SIGN {x:x}")
        assert await tb.read(sig_at, 64) == bytes(m.mem[sig_at:sig_at + 64])
        assert await tb.read(top, isa.MEM_BYTES - top) == bytes(m.mem[top:])
        seen[f"SIGN {v}"] = seen.get(f"SIGN {v}", 0) + 1
    # The transcript: TS_START, then messages of 10, 70, 0, 200 and 63 bytes (blocks begun, filled,
    # several at once), TS_HASH after each, and one TS_ADD over the state (BAD_INPUT)
    ts_at, msg_at, h_at = m.asm.equ["TS_AT"], 0x0600, 0x0900
    await check(tb, m, "TS_START", {}, "TS_START")
    for n in (10, 70, 0, 200, 63, -1):
        msg = rng.randbytes(max(n, 0))
        await tb.load(msg_at, msg)
        m.load(msg_at, msg)
        regs = {1: msg_at, 2: msg_at + n} if n >= 0 else {1: ts_at - 4, 2: ts_at + 4}
        v, _ = await check(tb, m, "TS_ADD", regs, f"TS_ADD {n}")
        seen[f"TS_ADD {v}"] = seen.get(f"TS_ADD {v}", 0) + 1
        await check(tb, m, "TS_HASH", {1: h_at}, f"TS_HASH after {n}")
        assert await tb.read(h_at, 32) == bytes(m.mem[h_at:h_at + 32])
        assert await tb.read(ts_at, 0x68) == bytes(m.mem[ts_at:ts_at + 0x68])
    # The hellos: the first ClientHello (a random from the DRBG), a HelloVerifyRequest refused and
    # one kept, the second ClientHello with its cookie; the handshake's state compared after each
    hvr_at = 0x0700
    for prog, regs, data in (("CLIENT_HELLO", {1: msg_at, 2: 0}, None),
                             ("HELLO_VERIFY", {1: hvr_at, 2: hvr_at + 5}, b"\xfe\xfd\x03ab"),
                             ("HELLO_VERIFY", {1: hvr_at, 2: hvr_at + 23}, b"\xfe\xfd\x14" + rng.randbytes(20)),
                             ("CLIENT_HELLO", {1: msg_at, 2: 1}, None)):
        if data:
            await tb.load(hvr_at, data)
            m.load(hvr_at, data)
        v, _ = await check(tb, m, prog, regs, f"{prog} {regs}")
        seen[f"{prog} {v}"] = seen.get(f"{prog} {v}", 0) + 1
        assert await tb.read(hs_at, hs_bytes + 0x68) == bytes(m.mem[hs_at:hs_at + hs_bytes + 0x68])
    # SERVER_HELLO on the ServerHellos tests/ctrl/test_ctrl_hello.py holds to the software client
    from ctrl.test_ctrl_hello import server_hellos
    for body in server_hellos():
        await tb.load(hvr_at, body)
        m.load(hvr_at, body)
        v, _ = await check(tb, m, "SERVER_HELLO", {1: hvr_at, 2: hvr_at + len(body)}, f"SERVER_HELLO {body.hex()}")
        seen[f"SERVER_HELLO {v}"] = seen.get(f"SERVER_HELLO {v}", 0) + 1
    assert await tb.read(hs_at, 0x68) == bytes(m.mem[hs_at:hs_at + 0x68])
    # SERVER_KEY_EXCHANGE over the randoms the state holds: signed by a key of the `cryptography`
    # package, by another one, with a point off the curve, another algorithm, a signature cut short
    from ctrl.test_ctrl_ske import ske_body
    from cryptography.hazmat.primitives.asymmetric import ec
    key, other = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    pn = key.public_key().public_numbers()
    cr, sr, key_at = bytes(m.mem[hs_at:hs_at + 32]), bytes(m.mem[hs_at + 68:hs_at + 100]), hs_at + m.asm.equ["HS_LK"]
    await tb.load(key_at, pn.x.to_bytes(32, "big") + pn.y.to_bytes(32, "big"))
    m.load(key_at, pn.x.to_bytes(32, "big") + pn.y.to_bytes(32, "big"))
    for body in (ske_body(key, cr, sr), ske_body(other, cr, sr), ske_body(key, cr, sr, point=b"\x04" + bytes(range(64))),
                 ske_body(key, cr, sr, alg=b"\x04\x01"), ske_body(key, cr, sr)[:-1], ske_body(key, cr, sr)[:30]):
        await tb.load(hvr_at, body)
        m.load(hvr_at, body)
        v, _ = await check(tb, m, "SERVER_KEY_EXCHANGE", {1: hvr_at, 2: hvr_at + len(body)},
                           f"SERVER_KEY_EXCHANGE {body.hex()}")
        seen[f"SERVER_KEY_EXCHANGE {v}"] = seen.get(f"SERVER_KEY_EXCHANGE {v}", 0) + 1
        assert await tb.read(hs_at, hs_bytes) == bytes(m.mem[hs_at:hs_at + hs_bytes])
    # KEY_TABLE: that key's table from a cached-certificate record (entry 2), then the joint comb's
    # verdicts; and a parse record (the bus writes it) naming a key in the secret top refused
    cc_at = hs_at + m.asm.equ["HS_CC"]
    for at, data in ((cc_at + m.asm.equ["CC_VALID"], b"\x01"), (cc_at + m.asm.equ["CC_PUB"], pn.x.to_bytes(32, "big")
                                                                  + pn.y.to_bytes(32, "big"))):
        await tb.load(at, data)
        m.load(at, data)
    rec_pub = m.asm.equ["REC"] + m.asm.equ["R_PUB"]
    for what, regs, pub in (("table", {1: 2}, None), ("secret key", {1: 1}, isa.SECRET_BASE - 8),
                            ("past REC", {1: 1}, m.asm.equ["REC"] - 63), ("no such", {1: 3}, None)):
        if pub is not None:
            await tb.load(rec_pub, pub.to_bytes(2, "big"))
            m.load(rec_pub, pub.to_bytes(2, "big"))
        v, _ = await check(tb, m, "KEY_TABLE", regs, f"KEY_TABLE {what}")
        seen[f"KEY_TABLE {v}"] = seen.get(f"KEY_TABLE {v}", 0) + 1
    for body in (ske_body(key, cr, sr), ske_body(other, cr, sr)):
        await tb.load(hvr_at, body)
        m.load(hvr_at, body)
        v, _ = await check(tb, m, "SERVER_KEY_EXCHANGE", {1: hvr_at, 2: hvr_at + len(body)},
                           f"SERVER_KEY_EXCHANGE (comb) {body.hex()}")
        seen[f"SERVER_KEY_EXCHANGE (comb) {v}"] = seen.get(f"SERVER_KEY_EXCHANGE (comb) {v}", 0) + 1
    assert ("ECDSA_VERIFY_COMB", 2, "OK") in m.pk.runs
    # CERTIFICATE_REQUEST: ours fits, only asked for, cut short
    from ctrl.test_ctrl_ske import cert_request
    for body in (cert_request(), cert_request(types=b"\x01\x02", algs=b"\x04\x01\x04\x03\x00"), cert_request()[:-1]):
        await tb.load(hvr_at, body)
        m.load(hvr_at, body)
        v, _ = await check(tb, m, "CERTIFICATE_REQUEST", {1: hvr_at, 2: hvr_at + len(body)}, f"CERTIFICATE_REQUEST {body.hex()}")
        seen[f"CERTIFICATE_REQUEST {v}"] = seen.get(f"CERTIFICATE_REQUEST {v}", 0) + 1
        assert await tb.read(hs_at, hs_bytes) == bytes(m.mem[hs_at:hs_at + hs_bytes])
    # CLIENT_FLIGHT on the point SERVER_KEY_EXCHANGE kept: a request ours fits (the chain, then
    # CertificateVerify with a key at CK_AT), then none; the handshake's state and transcript compared
    chain, chain_at, flight_at = len(certs[0]).to_bytes(3, "big") + certs[0], 0x0100, 0x0500
    for at, data in ((ck_at, rng.randrange(1, model.P256_N).to_bytes(32, "big")), (chain_at, chain)):
        await tb.load(at, data)
        m.load(at, data)
    for verdict in (3, 0):
        await tb.load(hs_at + m.asm.equ["HS_CREQ"], bytes([verdict]))
        m.load(hs_at + m.asm.equ["HS_CREQ"], bytes([verdict]))
        v, _ = await check(tb, m, "CLIENT_FLIGHT", {1: flight_at, 2: chain_at, 3: chain_at + len(chain), 4: 1, 5: 3},
                           f"CLIENT_FLIGHT {verdict}")
        seen[f"CLIENT_FLIGHT {v}"] = seen.get(f"CLIENT_FLIGHT {v}", 0) + 1
        assert await tb.read(hs_at, hs_bytes + 0x68) == bytes(m.mem[hs_at:hs_at + hs_bytes + 0x68])
    # HANDSHAKE and HS_RECORD: a whole handshake, the server's flight (tests/ctrl/test_ctrl_record.py's)
    # with its Certificate in fragments, a message out of order (UNEXPECTED_MESSAGE) in a second one
    import tempfile
    from ctrl.test_ctrl_hello import handshake_msg
    from ctrl.test_ctrl_record import Client, fragments, server_flight
    from proto.pki import make_pki
    pki = make_pki(pathlib.Path(tempfile.mkdtemp()))
    layout = Client(pki)            # (its model lays out the window; ours and the RTL's get the same bytes)
    await tb.load(0, bytes(layout.m.mem[:layout.rec]))
    m.load(0, bytes(layout.m.mem[:layout.rec]))
    await tb.load(ck_at, bytes(layout.m.mem[ck_at:ck_at + 32]))
    m.load(ck_at, bytes(layout.m.mem[ck_at:ck_at + 32]))
    for order in ("good", "bad"):
        v, _ = await check(tb, m, "HANDSHAKE", layout.regs, "HANDSHAKE")
        seen[f"HANDSHAKE {v}"] = seen.get(f"HANDSHAKE {v}", 0) + 1
        msgs, _ = server_flight(pki, m.out["MESSAGE"])
        recs = [handshake_msg(msgs[0][0], 0, msgs[0][1])] + fragments(msgs[1][0], 1, msgs[1][1], [100, 300]) + \
            [handshake_msg(t, i, b) for i, (t, b) in enumerate(msgs) if i > 1]
        recs = [(r, 22, 0) for r in recs] if order == "good" else [(recs[0], 22, 0), (handshake_msg(14, 1, b""), 22, 0)]
        if order == "good":
            recs.append((b"\x01", 20, 0))
        for rec, ctype, epoch in recs:
            await tb.load(layout.rec, rec)
            m.load(layout.rec, rec)
            v, _ = await check(tb, m, "HS_RECORD", {1: layout.rec, 2: layout.rec + len(rec), 3: ctype, 4: epoch},
                               f"HS_RECORD {rec[:12].hex()}")
            seen[f"HS_RECORD {v}"] = seen.get(f"HS_RECORD {v}", 0) + 1
            assert await tb.read(hs_at, hs_bytes + 0x68) == bytes(m.mem[hs_at:hs_at + hs_bytes + 0x68])
    dut._log.info(f"ctrl_core = model on {len(certs)} certificates: {seen}")
    missing = {"OK", "CERT_MALFORMED", "CERT_UNSUPPORTED", "VALIDITY OK", "VALIDITY CERT_EXPIRED",
            "VALIDITY CERT_NOT_YET_VALID", "NAME_CHECK OK", "NAME_CHECK CERT_NAME", "SIG_CHECK OK",
            "SIG_CHECK CERT_SIGNATURE", "CHAIN_CHECK OK", "CHAIN_CHECK CERT_NAME", "CHAIN_CHECK CERT_MALFORMED",
            "CHAIN_CHECK CERT_CHAIN", "CHAIN_CHECK CERT_NOT_CA", "CHAIN_CHECK CERT_UNKNOWN_CA", "HMAC OK", "PRF OK",
            "HMAC BAD_INPUT", "PRF BAD_INPUT", "ECDHE OK", "ECDHE INVALID_POINT", "ECDHE BAD_INPUT", "ECDHE NO_ENTROPY", "RANDOM NO_ENTROPY",
            "RANDOM OK", "DRBG_SEED OK", "DRBG_SEED BAD_INPUT", "MASTER OK", "KEYS OK", "KEYS BAD_INPUT",
            "FINISHED OK", "FINISHED BAD_FINISHED", "SIGN OK", "SIGN BAD_INPUT", "TS_ADD OK",
            "TS_ADD BAD_INPUT", "CLIENT_HELLO OK", "HELLO_VERIFY OK", "HELLO_VERIFY DECODE_ERROR", "SERVER_HELLO OK",
            "SERVER_HELLO DECODE_ERROR", "SERVER_HELLO PROTOCOL_VERSION", "SERVER_HELLO ILLEGAL_PARAMETER",
            "SERVER_HELLO UNSUPPORTED_EXTENSION", "SERVER_HELLO HANDSHAKE_FAILURE", "SERVER_KEY_EXCHANGE OK",
            "SERVER_KEY_EXCHANGE DECRYPT_ERROR", "SERVER_KEY_EXCHANGE ILLEGAL_PARAMETER",
            "SERVER_KEY_EXCHANGE DECODE_ERROR", "CERTIFICATE_REQUEST OK", "CERTIFICATE_REQUEST DECODE_ERROR",
            "CERTIFICATE OK", "CERTIFICATE DECODE_ERROR", "SERVER_HELLO_DONE OK", "SERVER_HELLO_DONE DECODE_ERROR",
            "CLIENT_FLIGHT OK", "HANDSHAKE OK", "HS_RECORD OK", "HS_RECORD UNEXPECTED_MESSAGE", "KEY_TABLE OK",
            "KEY_TABLE BAD_INPUT", "SERVER_KEY_EXCHANGE (comb) OK", "SERVER_KEY_EXCHANGE (comb) DECRYPT_ERROR"} - set(seen)
    assert not missing, (missing, seen)


def signed(flip):
    """e, r, s, x, y (32 bytes each) of a P-256 signature the `cryptography` package made; flip
    changes r's low bit."""
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
    key = ec.generate_private_key(ec.SECP256R1())
    r, s = decode_dss_signature(key.sign(b"tbs", ec.ECDSA(hashes.SHA256())))
    pub = key.public_key().public_numbers()
    nums = [int.from_bytes(hashlib.sha256(b"tbs").digest(), "big"), r ^ flip, s, pub.x, pub.y]
    return b"".join(v.to_bytes(32, "big") for v in nums)


@cocotb.test()
async def isa_programs(dut):
    tb = TB(dut)
    await tb.reset()
    m = model.Machine(asm.load(ISA_DIR))
    for prog, regs, data in (("ALU", {}, None), ("CALLS", {2: 8}, None), ("CALLS", {2: 9}, None),
                             ("RET_EMPTY", {}, None), ("MEM", {1: 0x100, 2: 0x200}, (0x100, b"abcd")),
                             ("HALF", {1: 0x200, 2: 0xa55a}, None),
                             ("OUTS", {1: 0x100}, (0x100, b"\x01\x02\x03\x04" + bytes(28))),
                             ("OVERLAP", {1: 0x300}, (0x300, bytes(6))),
                             ("SHA", {1: 0x500, 2: 300, 3: 64, 4: 0x800}, (0x500, bytes(range(256)) + bytes(44))),
                             ("SHA", {1: 0x500, 2: 300, 3: 7, 4: 0x800}, None),
                             ("SHA_NO_INIT", {1: 0x500}, None), ("SHA_TWICE", {1: 0x900}, None),
                             ("SHA_SAVE", {1: 0x500, 2: 300, 3: 128, 4: 0xa00, 5: 0xb00}, (0xa20, (2).to_bytes(4, "big"))),
                             ("SHA_SAVE_BAD", {1: 0x500, 2: 65, 4: 0xa00}, None),
                             ("SHA_SAVE_BAD", {1: 0x500, 2: 0, 4: 0xa00}, None),
                             ("SHA_SAVE_BAD", {1: 0x500, 2: 64, 4: 0xa00}, None),
                             ("PK", {1: 0x100}, (0x100, bytes(range(1, 33)))), ("PK_READ_BAD", {1: 0x100}, None),
                             ("PK_VERIFY", {1: 0xa00}, (0xa00, signed(0))), ("PK_VERIFY", {1: 0xa00}, (0xa00, signed(1)))):
        if data:
            await tb.load(*data)
            m.load(*data)
        status, cycles = await check(tb, m, prog, regs, prog)
        dut._log.info(f"{prog} {regs}: {status} in {cycles} cycles")
    status, cycles = await tb.run(len(m.asm.table), {})   # no such program: the ROM's empty last word
    assert (rom_status(status), cycles) == ("BAD_PROGRAM", 1)
    # The SHA IP refusing (another master took it): the program stops with ENGINE, at SHAI already
    # or, with an IP that refuses only the digest, at SHAF.
    progs = [p["name"] for p in m.asm.table]
    dut.sha_err_i.value = 1
    status, cycles = await tb.run(progs.index("SHA"), {1: 0x500, 2: 300, 3: 7, 4: 0x800})
    assert (rom_status(status), cycles) == ("ENGINE", 1)
    dut.sha_err_i.value, dut.sha_err_final_i.value = 0, 1
    status, cycles = await tb.run(progs.index("SHA"), {1: 0x500, 2: 300, 3: 7, 4: 0x800})
    assert (rom_status(status), cycles) == ("ENGINE", 1 + 8 + 2 + 294 + 1)   # SHAI, SHAU 7, ADD, SUB, SHAU 293, SHAF
    dut.sha_err_final_i.value = 0


def certificates(tmp):
    """Well-formed certificates of several makers, and some of their truncations and mutations."""
    sys.path.insert(0, str(ROOT / "tests"))
    from proto.pki import der, make_cert, make_pki
    pki = make_pki(tmp / "pki", clients=("node-1",))
    good = [der(pki.ca_pem), der(pki.server_pem), der(pki.client("node-1")[0])]
    ca = (pki.ca_pem, pki.ca_key)
    good.append(der(make_cert(tmp, "gen", issuer_cert=ca[0], issuer_key=ca[1], cn="localhost", key_usage=None,
                              not_after=datetime.datetime(2061, 2, 28, tzinfo=datetime.timezone.utc))[0]))
    good.append(der(make_cert(tmp, "p384", issuer_cert=ca[0], issuer_key=ca[1], cn="p384", key="p384")[0]))
    # an intermediate with a leaf under it, and a certificate issued by a leaf (for CHAIN_CHECK)
    inter = make_cert(tmp, "inter", issuer_cert=ca[0], issuer_key=ca[1], cn="inter", is_ca=True, path_len=0,
                      key_usage="ca")
    good.append(der(inter[0]))
    good.append(der(make_cert(tmp, "deep", issuer_cert=inter[0], issuer_key=inter[1], cn="localhost")[0]))
    good.append(der(make_cert(tmp, "under", issuer_cert=pki.server_pem, issuer_key=pki.server_key, cn="under")[0]))
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                    "-nodes", "-keyout", str(tmp / "o.key"), "-out", str(tmp / "o.pem"), "-days", "10",
                    "-subj", "/C=CH/O=iotse/CN=openssl.example", "-addext", "subjectAltName=DNS:a.example,IP:10.0.0.1",
                    "-addext", "extendedKeyUsage=serverAuth"], check=True, capture_output=True)
    good.append(der(tmp / "o.pem"))
    rng = random.Random(7)
    out = list(good)
    out += [good[1][:n] for n in range(0, len(good[1]), 9)]
    for _ in range(120):
        b = bytearray(rng.choice(good))
        b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
        out.append(bytes(b))
    return out


def test_ctrl_core(tmp_path):
    certs = tmp_path / "certs.json"
    certs.write_text(json.dumps([c.hex() for c in certificates(tmp_path)]))
    run_cocotb("ctrl_tb", sources("iotse:ip:ctrl", "core") + ["tests/rtl/tb/ctrl_tb.sv"], "test_ctrl_core", parameters=PK,
               test_filter=r"\.programs$", extra_env={"CTRL_CERTS": str(certs)})


def test_ctrl_core_isa():
    """The same core over a ROM of the directed programs, generated here (build/rtl/ctrl_isa_rom)."""
    gen = ROOT / "build" / "rtl" / "ctrl_isa_rom"
    gen.mkdir(parents=True, exist_ok=True)
    for name, text in ucode.gen_sv(asm.load(ISA_DIR)).items():
        (gen / name).write_text(text)
    core = [s for s in sources("iotse:ip:ctrl", "core") if not s.startswith("build/gen/")]
    run_cocotb("ctrl_tb", [str((gen / "ctrl_pkg.sv").relative_to(ROOT)), str((gen / "ctrl_rom.sv").relative_to(ROOT))]
               + core + ["tests/rtl/tb/ctrl_tb.sv"], "test_ctrl_core", tag="_isa", test_filter=r"\.isa_programs$",
               parameters=PK)
