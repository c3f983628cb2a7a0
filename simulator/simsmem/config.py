"""Architecture configs: the YAML files that say how an SM's shared memory is built.

A config names the banks, the shared-memory sizes, the warp and its sub-partitions, and for each
shared-memory operation the arch has, how the hardware splits a warp's request into phases and
wavefronts. ``load_arch("sm_90")`` reads a built-in config; ``load_arch("my.yaml")`` reads a file.
Every field is required and typed; a missing, unknown or mistyped field is a ``ConfigError`` naming it.
A config may start from another with ``base: sm_80``: its own fields are merged over the base's
(mappings key by key, everything else replaced), so an architect's variant states only what differs.
"""

from __future__ import annotations

import functools
import importlib.resources
import re
import types
import typing
from pathlib import Path
from typing import Any, Literal

import attrs
import yaml

from .errors import ConfigError
from .traces.records import ATOM_KINDS, BLOCK_OPS

#: ncu's names of an op class's wavefront and bank-conflict counters (``{}``: the class, e.g. ``ld``).
WAVEFRONTS = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{}.sum"
BANK_CONFLICTS = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{}.sum"
#: ncu's operation classes for shared-memory wavefront and bank-conflict counters.
Counter = Literal["ld", "st", "atom", "ldgsts"]
#: How a warp's lanes are split into phases.
#: ``bytes``: consecutive lanes, as many as move ``banks * bank_width`` bytes (a whole warp for
#: 32-bit and narrower, a half-warp for 64-bit, a quarter-warp for 128-bit).
#: ``matrix``: one phase per 8x8 b16 matrix, its 8 row addresses given by 8 consecutive lanes.
PhaseRule = Literal["bytes", "matrix"]
IssuePriority = Literal["youngest", "oldest", "round-robin", "greedy"]
PathOrder = Literal["oldest", "new-first"]


@attrs.frozen
class AtomSpec:
    """How one atomic operation of ``ATOMS`` is counted (H100: calibration/h100/RULES_v2.md, atomics)."""

    widths: tuple[int, ...]  # access widths in bits the SASS instruction exists in
    broadcast: bool  # lanes hitting one word share it (ATOMS.POPC.INC); False: they serialize
    rounds: int  # wavefronts per pass (CAS: 2); the bank conflicts are those of one round
    spin: bool = False  # one pass per phase: lanes it cannot serve fail, and the compiler's loop retries them (ATOMS.CAST.SPIN)
    generic_widths: tuple[int, ...] = ()  # more widths a generic ATOM on shared words takes (ATOM.E.ADD.64; ptxas: no ATOMS form)


@attrs.frozen
class OpSpec:
    """How one shared-memory operation is counted."""

    counter: Counter  # ncu op class of its wavefront and bank-conflict counters
    instructions: str  # ncu counter of executed instructions
    phase: PhaseRule
    widths: tuple[int, ...]  # access widths in bits (``bytes`` ops); ``matrix`` ops list ()
    nums: tuple[int, ...]  # matrices per instruction (``matrix`` ops); ``bytes`` ops list ()
    broadcast: bool  # lanes wanting one word share it; False: each lane is served alone (atomics)
    merge_phases: int  # sibling phases that may share one wavefront (loads: 2; otherwise 1)
    #: cycles from issue to the data returned (a load) or written (a store) with one wavefront and an
    #: empty pipeline, per form: keyed by width (``bytes`` ops) or matrix count (``matrix`` ops)
    latency: dict[int, int]
    #: ``ATOMS`` only: its atomic operations (an operation not listed is an error)
    atoms: dict[str, AtomSpec] = attrs.field(factory=dict)
    #: bytes of the global line an op with global sources (LDGSTS) reads its lanes' sources from; 0: none
    source_line: int = 0
    #: widths in bits that also have a ``.cg`` form (LDGSTS.E.BYPASS: cp.async.cg, L1 bypassed); () none
    bypass_widths: tuple[int, ...] = ()
    #: bytes of a global sector: a ``.cg`` copy is served in sector moves between source and destination
    #: sectors (``banks/reference.py``, rule 5); 0 for an op without ``bypass_widths``
    source_sector: int = 0
    #: classes of the global lines an LDGSTS reads (line ``l``: ``(l ^ l >> log2(classes)) % classes``): L1 serves one line
    #: of each class at a time (``banks/reference.py``, rule 11); 0: no rule for ncu's L1-level LDGSTS bank conflicts
    line_classes: int = 0
    #: ncu's SASS-level counter of its instructions: those a lane executed with its guard true ("": none measured)
    sass_instructions: str = ""
    #: ncu metrics of its wavefronts and bank conflicts (default: the ``l1tex__`` ones of ``counter``)
    wavefronts: str = attrs.field(default=attrs.Factory(lambda s: WAVEFRONTS.format(s.counter), takes_self=True))
    bank_conflicts: str = attrs.field(default=attrs.Factory(lambda s: BANK_CONFLICTS.format(s.counter), takes_self=True))


@attrs.frozen
class BlockSpec:
    """An op that moves a block of shared memory without lanes (a warpgroup's wgmma, a TMA or bulk copy): what its
    rows add to ncu's counters. Its bytes go through the banks (``l1tex__data_bank_reads``/``_writes``: a wgmma's
    operands and a copy out of shared memory are read, a copy into it written); only a wgmma's use the LSU data path."""

    instructions: tuple[str, ...]  # ncu metrics that count its instructions (into shared memory, for a copy); a SASS-level one
    # counts a copy only where its guard held (results/metrics.py, SASS_LEVEL)
    store_instructions: tuple[str, ...] = ()  # a copy out of shared memory (UBLKCP's ``store``): its metrics instead
    per_row: int = 1  # instructions a row stands for (a warpgroup's wgmma: one per warp, 4)
    wavefronts: str = ""  # ncu metric of its data-path wavefronts ("": it takes none)
    bank_conflicts: str = ""  # and of their bank conflicts
    wavefront_bytes: int = 0  # bytes one wavefront moves
    data_bytes: str = ""  # ncu metric of the bytes it moves ("": none)
    reads: bool = False  # its bytes are read out of the banks (False: written into them), a copy's ``store`` aside


@attrs.frozen
class Overtake:
    """The data path's exception to oldest first (``engine/path.py``): its oldest instruction not yet
    started goes before the started ones ready with it when each reached the banks at most ``within``
    cycles before it and has at most ``wavefronts`` wavefronts."""

    within: int
    wavefronts: int  # 2: an instruction's one replay


@attrs.frozen
class InFlight:
    """The SM's limit on shared-memory instructions in flight (``engine/entries.py``), all sub-partitions
    together: an instruction holds one of ``entries`` places from issue until ``after`` cycles after its
    last wavefront (its data returned); a warp finding none free waits to issue."""

    entries: int
    after: int


@attrs.frozen
class Timing:
    """Rates, depths and delays of the LSU pipeline that the timing engine (``simsmem.engine``) runs."""

    issue_interval: int  # cycles a sub-partition's issue port is busy with one instruction (shared-memory or other): one slot
    shared_issue_interval: int  # cycles from a sub-partition's issue of a shared-memory instruction to its next (MIO throttle)
    pipes: dict[str, int]  # per pipe of a sub-partition that a trace's other instructions name: cycles from one instruction's issue on it to the next's (``early_alu``/``issue_alu``: ``alu``)
    issue_priority: IssuePriority  # which of a sub-partition's ready warps gets its issue slot: youngest (highest number), oldest, round-robin (the first after the warp served last) or greedy (the warp served last, else the oldest)
    queue_depth: int  # shared-memory instructions a sub-partition's LSU queue holds; issue stalls when full
    accept_interval: int  # cycles between two instructions the LSU accepts from a sub-partition's queue (in order)
    feed_interval: int  # cycles between two wavefronts of one warp's instructions at the data path
    wavefronts_per_cycle: int  # wavefronts the data path (the banks) serves per cycle, all sub-partitions together
    window_phases: int  # the data path serves only the oldest issued instructions whose phases add up to this (the oldest always)
    to_banks: int  # cycles from issue to an instruction's first wavefront at the banks, empty pipeline
    calibrated: tuple[str, ...]  # which numbers were fitted to measurements: timing fields and ``OP.latency``
    calibration: str  # what they were fitted to
    overtake: Overtake | None = None  # when a younger instruction's first wavefront goes first (None: never, first come first served)
    in_flight: InFlight | None = None  # the SM's limit on instructions issued and not yet returned (None: no limit)
    path_order: PathOrder = "oldest"  # the data path's order: the oldest instruction first (with ``overtake``), or new instructions' first wavefronts first, the sub-partitions in turn, then the others oldest first


@attrs.frozen
class Memory:
    """Global memory as the timed SM sees it (``simsmem.sm.memory``): latencies in SM cycles from a load's issue
    until its data is back, and the bandwidths that queue the sectors."""

    l1_hit: int  # a sector in the SM's L1
    l2_hit: int  # a sector in L2, not in L1
    dram: int  # a sector in neither (the first touch: ncu flushes the caches before each replay)
    store_ack: int  # from a store's issue until L2 has it (what MEMBAR waits for)
    l1_bytes: int  # the L1 and shared memory's data array; L1 holds what shared memory leaves
    tma_load: int  # a TMA (or bulk) copy into shared memory: cycles from its last byte's turn at the copy engine to its mbarrier's completion
    tma_store: int  # ... out of shared memory, to its bulk group's completion
    tma_bytes_per_cycle: int  # the SM's copy engine, copying into shared memory
    tma_store_bytes_per_cycle: int  # ... and out of it
    store_line_cycles: int  # cycles the L1 takes per 128-byte line a store (or atomic) touches
    l2_partial_lines_per_cycle: float  # lines written in part (stores, atomics) the chip's L2 takes a cycle, shared by the SMs that run CTAs
    sm_bytes_per_cycle: int  # the link between L2 and one SM, each way
    dram_bytes_per_cycle: int  # the chip's DRAM, shared by the SMs that run CTAs
    l2_bytes_per_cycle: int  # the chip's L2 (sectors it sends the SMs), shared by the SMs that run CTAs
    flight_cycles: float  # cycles a DRAM sector's trip grows for each sector its SM has in flight when it leaves
    dram_tail: int  # cycles a DRAM trip adds in the DRAM's slow spells (``tail_window`` cycles of every ``tail_period``)
    tail_window: int
    tail_period: int


@attrs.frozen
class SM:
    """The whole SM that ``simsmem.sm`` times a kernel on: its limits, pipes, latencies and memory."""

    sms: int  # SMs on the chip: CTAs go to them round robin
    max_warps: int  # resident warps per SM
    max_ctas: int  # resident CTAs per SM
    registers: int  # 32-bit registers per SM
    register_unit: int  # a thread's registers are allocated in multiples of this many
    launch_overhead: int  # sm__cycles_elapsed.max less sm__cycles_active.max: the launch's cycles before and after its warps
    cta_launch: int  # cycles from a CTA's retirement to the start of the next on its SM (idle if no other CTA runs there)
    pipes: dict[str, int]  # a sub-partition's pipes: cycles from one instruction's issue on it to the next's
    latency: dict[str, int]  # variable-latency classes (their results wait on a scoreboard): cycles from issue to result
    read_release: int  # cycles from a memory instruction's issue until it has read its registers (its read scoreboard)
    branch_resolve: int  # cycles after a branch (BRA, EXIT, ...) before its warp's next instruction: branch_resolving
    branch_refetch: int  # more cycles after a taken branch, fetching at its target: no_instruction
    icache_miss: int  # cycles to fetch a 128-byte line of code the SM has not fetched yet: no_instruction
    icache_next: int  # cycles after a line's fetch that the next line, fetched behind it, arrives
    icache_ahead: int  # lines the instruction fetcher runs ahead of the line a warp asks for
    constant_miss: int  # cycles an instruction with a constant-bank operand waits at the first use of its 64-byte line: imc_miss
    constant_contention: float  # cycles each further SM that starts the launch adds to that first fill (the last SM's wait)
    exit_drain: int  # cycles from a warp's EXIT to its leaving the SM: drain
    barrier: int  # cycles from the last warp's arrival at a barrier to the warps' next issue
    cluster_barrier: int  # ... at a cluster barrier (UCGABAR_ARV to UCGABAR_WAIT's issue)
    cg_store_clash: float  # store wavefronts (and store bank conflicts) a cp.async .cg copy adds per line it writes while a shared store is in flight
    split_store: float  # store wavefronts (and store bank conflicts) a shared store adds, on average, when a branch right after it splits its warp
    membar_gpu: int  # cycles a GPU-scope MEMBAR holds its warp once L2 has acknowledged the warp's global stores (stall reason membar)
    membar_cta: int  # cycles from a warp's last shared store passing the data path until a CTA-scope MEMBAR lets its next instruction go
    trywait_timeout: int | None  # cycles a suspended try_wait waits before it gives up and its loop runs again (None: it waits for its phase)
    warp_loads: int  # global loads (LDG) a warp may have in flight; the next waits for the oldest back (issue stalls: misc)
    mio_depth: int  # shared-memory instructions a sub-partition's MIO queue holds (issue stalls: mio_throttle)
    lg_depth: int  # global-memory instructions a sub-partition's LSU queue holds (issue stalls: lg_throttle)
    memory: Memory
    calibration: str  # what the numbers come from


@attrs.frozen
class ArchConfig:
    """One architecture's shared-memory hardware, as the model needs it."""

    name: str
    description: str
    validated: bool  # True only where the model reproduced measured hardware counters exactly
    validation: str  # what it was validated against, or why not
    banks: int
    bank_width: int  # bytes per bank word
    warp_size: int
    sub_partitions: int
    shared_memory_per_sm: int  # bytes
    shared_memory_per_cta: int  # bytes; the largest valid address range of a trace
    timing: Timing
    ops: dict[str, OpSpec]
    #: ops without lanes (``trace.records.BLOCK_OPS``) this arch has
    block_ops: dict[str, BlockSpec] = attrs.field(factory=dict)
    sm: SM | None = None  # the whole SM, for timing traced kernels (None: this arch has no such numbers)

    @property
    def phase_bytes(self) -> int:
        """Bytes one conflict-free wavefront moves: one word from every bank."""
        return self.banks * self.bank_width

    def op(self, name: str, where: str = "trace") -> OpSpec:
        """The spec of op ``name``; an op this arch lacks is an error."""
        try:
            return self.ops[name]
        except KeyError:
            raise ConfigError(where, f"op {name!r} does not exist on {self.name}") from None


def builtin_archs() -> list[str]:
    """Names of the configs shipped with simsmem (``sm_90`` ...)."""
    root = importlib.resources.files("simsmem.configs")
    return sorted(p.name[:-5] for p in root.iterdir() if p.name.endswith(".yaml"))


@functools.cache
def load_arch(name_or_path: str) -> ArchConfig:
    """Load a built-in config by name (``sm_90``) or a user's YAML file by path."""
    data, where = _raw(name_or_path, ())
    arch = structure(ArchConfig, data, where)
    _check(arch, where)
    return arch


def _yaml(text: str) -> object:
    """YAML's safe load, by libyaml where PyYAML has it (the pure-Python loader took 50 ms of a small run's 0.4 s); a
    document it refuses goes to the pure-Python loader, whose error names the problem as before."""
    try:
        return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError:
        return yaml.safe_load(text)


def _raw(name_or_path: str, seen: tuple[str, ...]) -> tuple[Any, str]:
    """The YAML data of a config, with its ``base`` chain merged in, and the name to cite in errors."""
    path = Path(name_or_path)
    if path.suffix in (".yaml", ".yml") or path.exists():
        try:
            text = path.read_text()
        except OSError as exc:
            raise ConfigError(str(path), f"cannot read config: {exc.strerror}") from None
        where = str(path)
    else:
        resource = importlib.resources.files("simsmem.configs") / f"{name_or_path}.yaml"
        if not resource.is_file():
            known = ", ".join(builtin_archs())
            raise ConfigError(seen[-1] if seen else "--arch", f"unknown arch {name_or_path!r} (built in: {known}; or give a .yaml path)")
        text = resource.read_text()
        where = f"{name_or_path}.yaml"
    try:
        data = _yaml(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f" line {mark.line + 1}" if mark else ""
        raise ConfigError(where + line, f"invalid YAML: {getattr(exc, 'problem', exc)}") from None
    if isinstance(data, dict) and "base" in data:
        base = data.pop("base")
        if not isinstance(base, str):
            raise ConfigError(f"{where}: base", "expected the name or path of another config")
        if base in seen or base == name_or_path:
            raise ConfigError(f"{where}: base", f"configs form a cycle through {base!r}")
        base_data, _ = _raw(base, (*seen, name_or_path))
        data = _merge(base_data, data)
    return data, where


def _merge(base: Any, over: Any) -> Any:
    """``over`` merged onto ``base``: mappings key by key, anything else replaced."""
    if isinstance(base, dict) and isinstance(over, dict):
        return {**base, **{k: _merge(base[k], v) if k in base else v for k, v in over.items()}}
    return over


def structure(cls: type, data: Any, where: str) -> Any:
    """Build attrs class ``cls`` from plain YAML data, checking every field's presence and type."""
    if not isinstance(data, dict):
        raise ConfigError(where, f"expected a mapping for {cls.__name__}, got {_kind(data)}")
    hints = typing.get_type_hints(cls)
    fields = attrs.fields(cls)
    unknown = set(data) - {f.name for f in fields}
    if unknown:
        raise ConfigError(where, f"unknown field {sorted(map(str, unknown))[0]!r}")
    values = {}
    for f in fields:
        if f.name in data:
            values[f.name] = _value(hints[f.name], data[f.name], f"{where}: {f.name}")
        elif f.default is attrs.NOTHING:
            raise ConfigError(where, f"missing field {f.name!r}")
    return cls(**values)


def _value(tp: Any, value: Any, where: str) -> Any:
    origin = typing.get_origin(tp)
    if attrs.has(tp):
        return structure(tp, value, where)
    if origin in (typing.Union, types.UnionType) and types.NoneType in typing.get_args(tp):  # optional: null or the type
        (item,) = (a for a in typing.get_args(tp) if a is not types.NoneType)
        return None if value is None else _value(item, value, where)
    if origin is Literal:
        if value not in typing.get_args(tp):
            raise ConfigError(where, f"expected one of {list(typing.get_args(tp))}, got {value!r}")
        return value
    if origin is tuple:
        (item, _) = typing.get_args(tp)
        if not isinstance(value, list):
            raise ConfigError(where, f"expected a list, got {_kind(value)}")
        return tuple(_value(item, v, f"{where}[{i}]") for i, v in enumerate(value))
    if origin is dict:
        (key, item) = typing.get_args(tp)
        if not isinstance(value, dict):
            raise ConfigError(where, f"expected a mapping, got {_kind(value)}")
        return {_value(key, k, f"{where}.{k}") if key is int else str(k): _value(item, v, f"{where}.{k}") for k, v in value.items()}
    if tp is bool:
        if not isinstance(value, bool):
            raise ConfigError(where, f"expected true or false, got {_kind(value)}")
        return value
    if tp is int:
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ConfigError(where, f"expected a non-negative integer, got {value!r}")
        return value
    if tp is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
            raise ConfigError(where, f"expected a non-negative number, got {value!r}")
        return float(value)
    if tp is str:
        if not isinstance(value, str):
            raise ConfigError(where, f"expected a string, got {_kind(value)}")
        return value
    raise TypeError(f"config field type {tp} is not supported")  # a bug in the config classes


def _kind(value: Any) -> str:
    return {types.NoneType: "nothing"}.get(type(value), type(value).__name__)


def _check(arch: ArchConfig, where: str) -> None:
    """Consistency rules beyond types."""
    positive = ("banks", "bank_width", "warp_size", "sub_partitions", "shared_memory_per_cta")
    for name in positive:
        if getattr(arch, name) == 0:
            raise ConfigError(f"{where}: {name}", "must be positive")
    if arch.bank_width & (arch.bank_width - 1) or arch.bank_width > 16:
        raise ConfigError(f"{where}: bank_width", f"must be a power of two up to 16 bytes (accesses are aligned powers of two), got {arch.bank_width}")
    widest = max(1, 16 // arch.bank_width)  # bank words a 128-bit access (or a matrix row) covers
    if arch.banks % widest:
        raise ConfigError(f"{where}: banks", f"must be a multiple of {widest}, the words a 16-byte access covers, got {arch.banks}")
    if arch.warp_size != 32:
        raise ConfigError(f"{where}: warp_size", "traces carry 32 lanes; only warp_size 32 is supported")
    if arch.shared_memory_per_cta > arch.shared_memory_per_sm:
        raise ConfigError(f"{where}: shared_memory_per_cta", "larger than shared_memory_per_sm")
    if arch.sm is not None:
        sm = arch.sm
        for name in ("sms", "max_warps", "max_ctas", "registers", "register_unit"):
            if getattr(sm, name) == 0:
                raise ConfigError(f"{where}: sm.{name}", "must be positive")
        for pipe, interval in sm.pipes.items():
            if interval == 0:
                raise ConfigError(f"{where}: sm.pipes.{pipe}", "must be positive (cycles between two instructions on the pipe)")
        for name in ("sm_bytes_per_cycle", "dram_bytes_per_cycle", "l2_bytes_per_cycle", "tma_bytes_per_cycle", "tma_store_bytes_per_cycle"):
            if getattr(sm.memory, name) == 0:
                raise ConfigError(f"{where}: sm.memory.{name}", "must be positive")
        missing = {"special", "mufu", "shuffle", "tensor", "fp64", "conv", "constant", "gmma", "gmma_a_regs", "mbarrier_wait", "other"} - set(sm.latency)
        if missing:
            raise ConfigError(f"{where}: sm.latency", f"needs an entry for {sorted(missing)[0]}")
    for name, block in arch.block_ops.items():
        at = f"{where}: block_ops.{name}"
        if name not in BLOCK_OPS:
            raise ConfigError(at, f"not an op without lanes (those: {', '.join(sorted(BLOCK_OPS))})")
        if block.per_row < 1 or not block.instructions:
            raise ConfigError(at, "needs its instruction metrics and a per_row of at least 1")
        if bool(block.wavefronts) != (block.wavefront_bytes > 0):
            raise ConfigError(f"{at}.wavefront_bytes", "give wavefronts and wavefront_bytes together")
    for name, op in arch.ops.items():
        at = f"{where}: ops.{name}"
        if op.merge_phases not in (1, 2):
            raise ConfigError(f"{at}.merge_phases", "must be 1 or 2 (sibling phases pair up)")
        if op.phase == "bytes" and not op.widths:
            raise ConfigError(f"{at}.widths", "a 'bytes' op needs at least one width")
        if op.phase == "matrix" and not op.nums:
            raise ConfigError(f"{at}.nums", "a 'matrix' op needs at least one matrix count")
        for w in op.widths:
            if w not in (8, 16, 32, 64, 128) or w // 8 > arch.phase_bytes:
                raise ConfigError(f"{at}.widths", f"unsupported width {w}")
        for n in op.nums:
            if n not in (1, 2, 4):
                raise ConfigError(f"{at}.nums", f"unsupported matrix count {n}")
        for kind, atom in op.atoms.items():
            if kind not in ATOM_KINDS:
                raise ConfigError(f"{at}.atoms", f"unknown atomic operation {kind!r} (known: {', '.join(ATOM_KINDS)})")
            if not set(atom.widths) | set(atom.generic_widths) <= set(op.widths) or not atom.widths:
                raise ConfigError(f"{at}.atoms.{kind}.widths", f"must be some of the op's widths {list(op.widths)}")
            if atom.rounds < 1:
                raise ConfigError(f"{at}.atoms.{kind}.rounds", "must be at least 1")
        if op.source_line and (op.source_line & (op.source_line - 1) or op.source_line < max(op.widths or (8,)) // 8):
            raise ConfigError(f"{at}.source_line", f"must be a power of two holding the widest access, got {op.source_line}")
        if not set(op.bypass_widths) <= set(op.widths) or bool(op.bypass_widths) != bool(op.source_sector):
            raise ConfigError(f"{at}.bypass_widths", "must be some of the op's widths, and given with source_sector")
        if op.source_sector and (op.source_sector & (op.source_sector - 1) or not max(op.bypass_widths) // 8 < op.source_sector < op.source_line):
            raise ConfigError(f"{at}.source_sector", f"must be a power of two between the widest .cg copy and source_line, got {op.source_sector}")
        if op.line_classes and (op.line_classes & (op.line_classes - 1) or op.line_classes > 64 or not op.source_line):
            raise ConfigError(f"{at}.line_classes", f"must be a power of two up to 64, with source_line, got {op.line_classes}")
        if name == "ATOMS" and not op.atoms:
            raise ConfigError(f"{at}.atoms", "ATOMS needs its atomic operations")
        forms = op.widths or op.nums
        if sorted(op.latency) != sorted(forms):
            raise ConfigError(f"{at}.latency", f"needs one entry for each of {list(forms)}, got {sorted(op.latency)}")
    t = arch.timing
    for name in ("issue_interval", "shared_issue_interval", "queue_depth", "accept_interval", "feed_interval", "wavefronts_per_cycle", "window_phases"):
        if getattr(t, name) == 0:
            raise ConfigError(f"{where}: timing.{name}", "must be positive")
    if t.in_flight is not None and t.in_flight.entries == 0:
        raise ConfigError(f"{where}: timing.in_flight.entries", "must be positive (in_flight null: no limit)")
    for name, gap in t.pipes.items():
        if gap == 0:
            raise ConfigError(f"{where}: timing.pipes.{name}", "must be positive (leave a pipe out for no limit)")
        if not re.fullmatch(r"[a-z][a-z0-9_]*", name):
            raise ConfigError(f"{where}: timing.pipes.{name}", "a pipe's name is lower-case letters, digits and _, a letter first")
    if t.overtake is not None and t.path_order != "oldest":
        raise ConfigError(f"{where}: timing.overtake", "overtaking is a rule of path_order 'oldest' (new-first serves new instructions first anyway): null")
    if t.overtake is not None and t.overtake.wavefronts < 2:
        raise ConfigError(f"{where}: timing.overtake.wavefronts", "must be at least 2 (a started instruction has two or more)")
    for name, op in arch.ops.items():
        for form, cycles in op.latency.items():
            if cycles <= t.to_banks:
                raise ConfigError(f"{where}: ops.{name}.latency.{form}", f"must exceed timing.to_banks ({t.to_banks})")
    known = {f.name for f in attrs.fields(Timing)} | {f"{name}.latency" for name in arch.ops}
    for name in t.calibrated:
        if name not in known:
            raise ConfigError(f"{where}: timing.calibrated", f"{name!r} is neither a timing field nor an OP.latency of this arch")
