#!/usr/bin/env python3
"""Constant-time checker for the pk microcode: no conditional branch depends on secret data.

Every pk instruction takes a number of cycles fixed by its opcode, the digit count of its modulus
and the instruction executed before it (pk_core.sv's look-ahead), so a program's time depends on
data only through its path: the conditional branches
(JF/JNF on F, DJNZ on the loop counter). This checker follows, for each program of the table,
which locations hold secret-derived values (a taint analysis over the ROM, every path, every
call context, loops to a fixed point) using each instruction's dataflow from isa.toml (`flow`),
and refuses:

  * a conditional branch on a secret-derived F or counter, except one allowed case, the rule
    that ucode.py states: F is a range test (ZF, LTM, SCAL: isa.toml `range_test`) of a secret
    input as the host wrote it, and one way of the branch is an ERR instruction, so the program
    ends at once (BAD_SCALAR for k or d out of range) and the time says no more than the status;
  * a secret-derived operand where the ISA wants a public one (`public`: SETMOD's modulus,
    which fixes every later instruction's cycle count);
  * secret-derived data written into a state slot (0..11: the curve, kept between programs and
    assumed public) or into the precompute cache (kept between programs, assumed public);
  * a CALL deeper than the stack, a RET with no CALL, a path that runs off the ROM.

Where a program starts (isa.toml [slot] class, programs/index.toml inputs): the secret slots
(K, D) are secret; state slots public; io slots (E, QX, QY, RX, RY) public when the program lists
them as inputs, otherwise secret (an earlier program may have left its secret-derived result
there); work slots secret (leftovers, until written); F and the ladder's previous bit public
(reset by every command); the scalar register and the counter secret until written (isa.toml
[register]: RUN keeps them from the previous program).

`python rtl/pk/ctcheck.py` checks the real programs (make lint); -v lists every conditional
branch and why it is allowed; FILE.s arguments check those files instead (every .entry a
program, with no public inputs).
"""
import argparse
import sys
from dataclasses import dataclass

import asm
import isa


@dataclass(frozen=True)
class Why:
    """Why a location holds secret-derived data: where it came from, and from what."""
    loc: str
    how: str                   # the instruction's text, or what the location is at the start
    where: str = ""            # the instruction's source, "" for the start of the program
    parent: "Why" = None       # the secret-derived location it was computed from
    insn: str = ""             # the instruction's name ("" for the start)
    input: bool = False        # a secret input, as the host wrote it

    def chain(self):
        out, w = [], self
        while w is not None:
            out.append(f"{w.loc} <- `{w.how}` at {w.where}" if w.where else f"{w.loc}: {w.how}")
            w = w.parent
        return " <- ".join(out)


@dataclass
class Finding:
    program: str
    pc: int
    where: str
    text: str
    message: str
    path: tuple = ()           # the CALLs on the way, outermost first

    def __str__(self):
        via = "".join(f", called from {c}" for c in reversed(self.path))
        return f"{self.where}: {self.program}: `{self.text}` (pc {self.pc}{via}): {self.message}"


def entry_state(rom, program):
    """The secret-derived locations where `program` starts."""
    row = next(p for p in rom.table if p["name"] == program)
    inputs = set(row.get("inputs", []))
    state = {}
    for name, cls in isa.SLOT_CLASS.items():
        if cls == "secret":
            state[name] = Why(name, f"a secret input: {isa.SLOT_DOC.get(name, name)}", input=True)
        elif cls == "work":
            state[name] = Why(name, f"scratch, may hold what an earlier program left (not written yet by {program})")
        elif cls == "io" and name not in inputs:
            state[name] = Why(name, f"not an input of {program}: may hold an earlier program's secret-derived result")
    for reg, at_run in isa.REGISTERS.items():
        if at_run == "kept":
            state[reg] = Why(reg, f"kept from an earlier program (RUN does not clear it), not written yet by {program}")
    return state


def _loc(ln, name):
    return isa.SLOTS[ln.fields.get(name, 0)] if name in isa.SLOT_FIELDS else name


def _step(ln, state):
    """The state after instruction `ln` (every written location from the state before)."""
    new = dict(state)
    for dst, srcs in ln.insn.flow.items():
        d = _loc(ln, dst)
        hot = [state[_loc(ln, s)] for s in srcs if _loc(ln, s) in state]
        if hot:
            new[d] = Why(d, ln.text, ln.where(), hot[0], ln.insn.name)
        else:
            new.pop(d, None)
    return new


def _successors(rom, pc, stack):
    ln = rom.code[pc]
    c = ln.insn.control
    if c in ("end", "abort"):
        return []
    if c == "jump":
        return [(ln.fields["imm"], stack)]
    if c == "branch":
        return [(ln.fields["imm"], stack), (pc + 1, stack)]
    if c == "call":
        return [(ln.fields["imm"], stack + (pc + 1,))]
    if c == "ret":
        return [(stack[-1], stack[:-1])] if stack else []
    return [(pc + 1, stack)]


def analyse(rom, program):
    """Taint states at every (pc, call stack) `program` reaches: {(pc, stack): {location: Why}}."""
    start = (rom.entries[program], ())
    states = {start: entry_state(rom, program)}
    work = [start]
    while work:
        key = work.pop()
        pc, stack = key
        if not 0 <= pc < len(rom.code) or len(stack) > isa.CALL_DEPTH:
            continue                                 # reported by check()
        after = _step(rom.code[pc], states[key])
        for nxt in _successors(rom, pc, stack):
            old = states.get(nxt)
            if old is None:
                states[nxt] = dict(after)
            else:
                # a location is secret if it is on any path; its reason is the first found, unless
                # another path's reason is not excusable (_excusable: the branch exception)
                grow = {k: v for k, v in after.items()
                        if k not in old or (_excusable(old[k]) and not _excusable(v))}
                if not grow:
                    continue
                old.update(grow)
            work.append(nxt)
    return states


def reachable(rom, program):
    return {pc for pc, _ in analyse(rom, program)}


def check(rom, programs=None):
    """(findings, notes) for the programs (default: all of the table). findings: what breaks the
    rules; notes: every conditional branch and why it is allowed."""
    findings, notes = {}, {}
    for prog in programs or rom.programs:
        states = analyse(rom, prog)
        for (pc, stack), st in sorted(states.items()):
            def add(msg, out=findings, key=None):
                ln = rom.code[pc]
                path = tuple(rom.code[r - 1].where() for r in stack)
                out.setdefault((prog, pc, key or msg), Finding(prog, pc, ln.where(), ln.text, msg, path))

            if not 0 <= pc < len(rom.code):
                ln = rom.code[pc - 1]
                findings[(prog, pc, "off")] = Finding(prog, pc - 1, ln.where(), ln.text, "runs off the end of the ROM")
                continue
            if len(stack) > isa.CALL_DEPTH:
                pc = stack[-1] - 1
                add(f"CALL deeper than the {isa.CALL_DEPTH}-level stack")
                continue
            ln, insn = rom.code[pc], rom.code[pc].insn
            if insn.control == "ret" and not stack:
                add("RET with no CALL")
            for opnd, why in insn.public.items():
                w = st.get(_loc(ln, opnd))
                if w:
                    add(f"{_loc(ln, opnd)} must be public ({why}), but is secret-derived: {w.chain()}")
            after = _step(ln, st)
            for dst in insn.flow:
                d = _loc(ln, dst)
                if d in after and (isa.SLOT_CLASS.get(d) == "state" or d == "cache"):
                    what = "state slot" if d != "cache" else "precompute cache"
                    add(f"writes secret-derived data into the {what} {d}, which programs share and "
                        f"assume public: {after[d].chain()}")
            if insn.control != "branch":
                continue
            w = st.get(insn.cond)
            ends = any(0 <= t < len(rom.code) and rom.code[t].insn.control == "abort"
                       for t, _ in _successors(rom, pc, stack))    # one way is an ERR
            if w is None:
                add(f"branches on {insn.cond}, which is public", notes, "public")
            elif ends and _excusable(w):
                add(f"branches on F, secret-derived, only to end the program at once with ERR (a range test "
                    f"of a secret input, which the status reports anyway): {w.chain()}", notes, "abort")
            else:
                extra = (" (one way ends with ERR, but F is not a range test of a secret input as the host "
                         "wrote it)" if ends else "")
                add(f"branches on {insn.cond}, which is secret-derived: {w.chain()}{extra}")
    return list(findings.values()), list(notes.values())


def _excusable(why):
    """F is a range test (ZF, LTM, SCAL) of a secret input as the host wrote it."""
    return (why.loc == "F" and why.insn in isa.BY_NAME and isa.BY_NAME[why.insn].range_test
            and why.parent is not None and why.parent.input)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="*", help="program text to check instead of the real programs")
    ap.add_argument("-v", "--verbose", action="store_true", help="list every conditional branch")
    args = ap.parse_args()
    try:
        rom = asm.assemble([(f, open(f).read()) for f in args.files]) if args.files else asm.load()
    except asm.AsmError as e:
        sys.exit(f"ctcheck: {e}")
    findings, notes = check(rom)
    if args.verbose:
        for n in notes:
            print(f"ok: {n}")
    for f in findings:
        print(f"ctcheck: {f}", file=sys.stderr)
    if findings:
        sys.exit(f"ctcheck: {len(findings)} constant-time violation(s) in the pk microcode")
    aborts = sum("secret-derived" in n.message for n in notes)
    print(f"ctcheck: {len(rom.programs)} pk programs constant-time: {len(notes)} conditional branches "
          f"(program, pc), {len(notes) - aborts} on public data, {aborts} ending at once on an invalid secret input")


if __name__ == "__main__":
    main()
