"""SASS as nvdisasm prints it, parsed into instructions and operands.

``nvdisasm -json -c`` gives each function's instructions as ``{"predicate", "opcode", "operands"}``
strings (``"@!P0"``, ``"LDS.U.128"``, ``"R4,[R2+UR4+0x10]"``); ``parse_instruction`` turns one into
an ``Instruction``: its guard, its opcode split at the dots, and typed ``Operand`` s. Registers keep
their modifiers (``-R3``, ``|R3|``, ``~R3``, ``R2.H1``, ``R2.64``); immediates keep their text, since
``5`` is 5.0 to an FMUL and 5 to an IADD3, which only the instruction's semantics know.
"""

from __future__ import annotations

import re

import attrs

#: Register file sizes and the index of the zero/true register of each (RZ, URZ, PT, UPT).
RZ, URZ, PT, UPT = 255, 63, 7, 7


@attrs.frozen
class Operand:
    """One operand: its ``kind`` and what that kind needs.

    kinds: ``R`` / ``UR`` registers (``index``; RZ 255, URZ 63), ``P`` / ``UP`` predicates (PT, UPT 7),
    ``imm`` (``text``: an integer or float literal as printed), ``c`` (constant bank: ``bank`` and an
    address in ``terms``/``offset``), ``mem`` (a ``[...]`` address: ``terms`` and ``offset``), ``SR``
    (a special register, ``text``), ``B`` (a convergence barrier, ``index``), ``SB`` (a scoreboard),
    ``SBSET`` (a set of scoreboards ``{5,4,3}``, each in ``terms``), ``label`` (a code address, ``offset``), ``name``
    (a symbol, ``text``), ``gdesc`` (a warpgroup MMA's matrix
    descriptors ``gdesc[URn]``: ``index`` n, ``suffix`` its ``tnspA``/``tnspB``/``negA``/``negB``), ``desc`` (an L2
    cache-policy descriptor ``desc[URn]`` of a TMA copy: ``index`` n).
    """

    kind: str
    index: int = 0
    text: str = ""
    neg: bool = False  # -x
    abs: bool = False  # |x|
    inv: bool = False  # ~x (registers) or !p (predicates)
    suffix: tuple[str, ...] = ()  # .64, .H1, .X4, .U32, ... (.reuse dropped)
    bank: int = 0
    terms: tuple[Operand, ...] = ()  # registers summed into an address
    offset: int = 0  # the address's immediate part; a label's address

    def __str__(self) -> str:
        return self.text


@attrs.frozen
class Instruction:
    """One SASS instruction at byte offset ``pc`` of its section."""

    pc: int
    opcode: str  # as printed: ISETP.GE.U32.AND
    operands: tuple[Operand, ...]
    guard: Operand | None = None  # @P0 / @!P0; None: always
    text: str = ""

    @property
    def name(self) -> str:
        """The opcode without modifiers: ISETP."""
        return self.opcode.split(".", 1)[0]

    @property
    def mods(self) -> tuple[str, ...]:
        """The opcode's modifiers: ("GE", "U32", "AND")."""
        return tuple(self.opcode.split(".")[1:])

    def __str__(self) -> str:
        return self.text


@attrs.frozen
class Control:
    """An instruction's control code (Volta and later: bits 105-125 of its 128): what the compiler tells the scheduler.

    ``stall``: cycles before the warp's next instruction may issue; ``yield_``: the scheduler may switch warps
    after it; ``write``/``read``: the scoreboard (0-5, None: none) released once its result is written / once it
    has read its registers; ``wait``: mask of the scoreboards it waits for before it issues; ``reuse``: operand
    reuse-cache flags."""

    stall: int = 1
    yield_: bool = False
    write: int | None = None
    read: int | None = None
    wait: int = 0
    reuse: int = 0

    @classmethod
    def of(cls, hi: int) -> Control:
        """The control code in an instruction's high 64 bits."""
        write, read = hi >> 46 & 7, hi >> 49 & 7
        return cls(hi >> 41 & 15, not hi >> 45 & 1, None if write == 7 else write, None if read == 7 else read, hi >> 52 & 63, hi >> 58 & 15)

    @property
    def bits(self) -> int:
        """The code as its 21 bits (105-125 of the instruction): ``Control.of(bits << 41)`` gives it back."""
        write, read = 7 if self.write is None else self.write, 7 if self.read is None else self.read
        return self.stall | (not self.yield_) << 4 | write << 5 | read << 8 | self.wait << 11 | self.reuse << 17


def controls(text: bytes) -> list[Control]:
    """The control code of every instruction of a code section."""
    return [Control.of(int.from_bytes(text[k + 8 : k + 16], "little")) for k in range(0, len(text) - 15, 16)]


class SassError(ValueError):
    """An operand or instruction nvdisasm printed that this parser does not know."""


_REG = re.compile(r"^(?P<neg>-?)(?P<inv>~?)(?P<abs>\|?)(?P<neg2>-?)(?P<file>UR|R)(?P<num>Z|\d+)\|?(?P<suf>(\.[A-Za-z0-9_]+)*)$")
_PRED = re.compile(r"^(?P<inv>!?)(?P<file>UP|P)(?P<num>T|\d)$")
_INT = re.compile(r"^-?(0x[0-9a-fA-F]+|\d+)$")
_FLOAT = re.compile(r"^[-+]?((\d+\.?\d*([eE][-+]?\d+)?)|INF|QNAN|NAN|SNAN)$")
_CBANK = re.compile(r"^(?P<neg>-?)(?P<abs>\|?)c\[(?P<bank>0x[0-9a-f]+)\]\[(?P<addr>[^\]]+)\]\|?(?P<suf>(\.[A-Z0-9]+)*)$")
_MEM = re.compile(r"^(?:desc\[[^\]]+\])?\[(?P<addr>[^\]]*)\]$")
_GDESC = re.compile(r"^gdesc\[UR(?P<num>\d+|Z)\](?P<suf>(\.[A-Za-z]+)*)$")
_POLICY = re.compile(r"^desc\[UR(?P<num>\d+|Z)\]$")


def parse_operand(text: str) -> Operand:
    """One operand as nvdisasm prints it (without surrounding spaces)."""
    t = text.strip()
    if m := _PRED.match(t):
        top = PT if m["file"] == "P" else UPT
        return Operand(m["file"], top if m["num"] == "T" else int(m["num"]), t, inv=bool(m["inv"]))
    if m := _REG.match(t):
        zero = RZ if m["file"] == "R" else URZ
        suffix = tuple(s for s in m["suf"].split(".") if s and s != "reuse")
        return Operand(m["file"], zero if m["num"] == "Z" else int(m["num"]), t, neg=bool(m["neg"] or m["neg2"]), abs=bool(m["abs"]),
                       inv=bool(m["inv"]), suffix=suffix)
    if _INT.match(t) or _FLOAT.match(t):
        return Operand("imm", text=t)
    if m := _CBANK.match(t):
        terms, offset = _address(m["addr"], t)
        suffix = tuple(s for s in m["suf"].split(".") if s)
        return Operand("c", text=t, bank=int(m["bank"], 16), terms=terms, offset=offset, neg=bool(m["neg"]), abs=bool(m["abs"]), suffix=suffix)
    if m := _GDESC.match(t):
        return Operand("gdesc", URZ if m["num"] == "Z" else int(m["num"]), t, suffix=tuple(s for s in m["suf"].split(".") if s))
    if m := _POLICY.match(t):  # a cache-policy descriptor (createpolicy's; CuTe's TMA copies pass one): no effect on what is copied
        return Operand("desc", URZ if m["num"] == "Z" else int(m["num"]), t)
    if m := _MEM.match(t):
        terms, offset = _address(m["addr"], t)
        return Operand("mem", text=t, terms=terms, offset=offset)
    if t.startswith("SR_") or t == "SRZ" or t == "PR":
        return Operand("SR", text=t)
    if re.fullmatch(r"B\d+", t):
        return Operand("B", int(t[1:]), t)
    if re.fullmatch(r"SB\d+", t):
        return Operand("SB", int(t[2:]), t)
    if re.fullmatch(r"\{\s*\d+(\s*,\s*\d+)*\s*\}", t):  # DEPBAR {5,4,3,2,1,0}: the scoreboards it waits for
        return Operand("SBSET", text=t, terms=tuple(Operand("SB", int(b), f"SB{int(b)}") for b in t[1:-1].split(",")))
    if re.fullmatch(r"[$A-Za-z_.][$\w.]*", t):
        return Operand("name", text=t)
    raise SassError(f"operand {t!r} not understood")


def _address(inner: str, whole: str) -> tuple[tuple[Operand, ...], int]:
    """The registers and immediate offset of an address such as ``R2.64+UR4+-0x10``."""
    terms: list[Operand] = []
    offset = 0
    for part in re.split(r"\+", inner.replace("-0x", "+-0x") if not inner.startswith("-") else inner):
        part = part.strip()
        if not part:
            continue
        if _INT.match(part):
            offset += int(part, 0)
            continue
        op = parse_operand(part)
        if op.kind not in ("R", "UR"):
            raise SassError(f"address {whole!r} not understood")
        terms.append(op)
    return tuple(terms), offset


def split_operands(text: str) -> list[str]:
    """Operands separated by top-level commas (a scoreboard set ``{5,4,3}`` is one operand)."""
    return [p.strip() for p in re.split(r",(?![^{]*})", text) if p.strip()] if text else []


def parse_instruction(pc: int, entry: dict) -> Instruction:
    """An instruction from one ``nvdisasm -json`` entry."""
    opcode = entry["opcode"].strip()
    raw = entry.get("operands", "")
    guard = entry.get("predicate")
    operands = split_operands(raw)
    if guard and not guard.startswith("@"):  # nvdisasm's JSON puts P2R's and R2P's PR operand there
        operands.insert(1 if opcode.startswith(("P2R", "UP2UR")) else 0, guard)
        raw = ",".join(operands)
        guard = None
    g = parse_operand(guard[1:]) if guard else None
    ops = tuple(_branch_target(opcode, p) for p in operands)
    text = (f"{guard} " if guard else "") + opcode + (f" {raw.replace(',', ', ')}" if raw else "")
    return Instruction(pc, opcode, ops, g, text)


def parse_text(pc: int, text: str) -> Instruction:
    """An instruction from its ``text`` (``Instruction.text``: guard, opcode, operands as nvdisasm printed them)."""
    guard, _, rest = text.partition(" ") if text.startswith("@") else (None, "", text)
    opcode, _, operands = rest.partition(" ")
    return parse_instruction(pc, {"predicate": guard, "opcode": opcode, "operands": operands.replace(", ", ",")})


def _branch_target(opcode: str, text: str) -> Operand:
    """Branch and BSSY targets print as bare hex addresses: labels, not immediates."""
    name = opcode.split(".", 1)[0]
    if name in ("BRA", "BSSY", "BREAK", "CALL", "JMP", "SSY", "PBK", "PCNT", "BRX", "JMX") and re.fullmatch(r"0x[0-9a-f]+", text):
        return Operand("label", text=text, offset=int(text, 16))
    return parse_operand(text)
