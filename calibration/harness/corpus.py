"""From what a GPU run wrote to corpus JSON: one row per launch, in the format of ``h100/instructions.json``.

The n-th kernel of the ncu report is the n-th pattern of the set (checked by kernel name). Each
row keeps the pattern's lanes and the SASS opcode the probe was *found* to hold (the SASS check of the
same run), and every counter ncu reported, as integers. Extra fields beside ``name sass mask addrs
ncu``: ``ptx`` (what the probe ran), ``family``, ``src`` (LDGSTS global source offsets, from a 4 KiB
boundary), ``atom`` (atomics' operation), ``threads`` (op_misc probes with more than one warp).
op_misc probes go to a file of their own: they hold no shared-memory instruction.
"""

from __future__ import annotations

import gzip
import re
from pathlib import Path
from typing import Any

import orjson
from simsmem.results.ncu_csv import Kernel, number, parse_report
from simsmem.traces.files import write_atomically

from .forms import BY_KERNEL
from .ncu import METRICS
from .patterns import Pattern, read_set
from .sass import check

METHOD = (
    "one CTA executes one probe of calibration/probe.cu per launch: lane l (threadIdx.x % 32) takes byte offset addrs[l] "
    "into a 48 KiB static __shared__ array and, if bit l of mask is set, executes the one instruction in `ptx` "
    "(SASS `sass`, checked with cuobjdump); LDSM/STSM run on all 32 lanes; LDGSTS copies from byte offset src[l] of a "
    "4 KiB-aligned global buffer, then waits (cp.async.wait_all). Inactive lanes branch around the instruction. "
    "Every launch also shows op_misc wavefronts that do not belong to the instruction (kernel exit)."
)


def read_text(path: Path) -> str:
    """A text file, gzip-compressed or not."""
    data = path.read_bytes()
    return (gzip.decompress(data) if path.suffix == ".gz" else data).decode("utf-8", errors="replace")


def provenance(env: str) -> dict[str, str]:
    """GPU, driver, ncu and CUDA versions and the date, from env.txt of the run."""
    gpu = re.search(r"^(NVIDIA [^,\n]+), ([\d.]+), ", env, re.M)
    ncu = re.search(r"Version (\S+) \(build", env)
    cuda = re.search(r"Cuda compilation tools, release ([\d.]+), (V[\d.]+)", env)
    date = re.search(r"^date_utc: (\S+)", env, re.M)
    return {
        "gpu": f"{gpu[1]} (sm_90), driver {gpu[2]}" if gpu else "unknown",
        "ncu": f"Nsight Compute {ncu[1]}, --clock-control none" if ncu else "unknown",
        "cuda": f"{cuda[1]} ({cuda[2]}; nvcc -gencode arch=compute_90,code=sm_90 -O3)" if cuda else "unknown",
        "date": date[1] if date else "unknown",
    }


def counters(kernel: Kernel, where: str) -> dict[str, int]:
    """The launch's counters (``ncu.METRICS`` that were collected) as integers; device attributes are left out."""
    return {m: int(number(v, f"{where}: {m}")) for m, v in sorted(kernel.metrics.items()) if m in METRICS}


def row(p: Pattern, kernel: Kernel, sass_found: dict[str, str | None], where: str) -> dict[str, Any]:
    """One corpus row."""
    if kernel.short_name != f"probe_{p.kernel}":
        raise ValueError(f"{where}: launch {kernel.id} is {kernel.short_name}, pattern {p.name} expects probe_{p.kernel}")
    form = BY_KERNEL[p.kernel]
    out: dict[str, Any] = {
        "name": p.name,
        "sass": sass_found[p.kernel] or "EXIT",
        "mask": f"0x{(0xFFFFFFFF if form.lanes_all else p.mask):08x}",
        "addrs": p.addrs,
    }
    if p.src is not None:
        out["src"] = p.src
    out.update(form.extra)
    if p.threads != 32:
        out["threads"] = p.threads
    out["ptx"] = form.ptx
    out["family"] = p.family
    out["ncu"] = counters(kernel, where)
    return out


def measured(kernels: list[Kernel], patterns: list[Pattern], where: str) -> list[Kernel]:
    """The launches that completed: a failed launch (ncu reports its counters as ``nan``) ends the run."""
    for i, k in enumerate(kernels):
        if any(v == "nan" for m, v in k.metrics.items() if m in METRICS):
            print(f"{where}: launch {i} ({patterns[i].name if i < len(patterns) else '?'}) failed; "
                  f"{len(patterns) - i} of {len(patterns)} patterns not measured")
            return kernels[:i]
    if len(kernels) != len(patterns):
        raise ValueError(f"{where}: {len(kernels)} profiled launches for {len(patterns)} patterns")
    return kernels


def build(patterns: list[Pattern], kernels: list[Kernel], dump: str, where: str) -> tuple[list[dict], list[dict]]:
    """(memory rows, op_misc rows) of one profiled set (up to a failed launch, if one failed)."""
    kernels = measured(kernels, patterns, where)
    used = {p.kernel for p in patterns}
    verdicts = [v for v in check(dump) if v.form.kernel in used]
    failed = [v.form.kernel for v in verdicts if not v.ok]
    if failed:
        raise ValueError(f"{where}: probes the set launches failed the SASS check: {failed}")
    found = {v.form.kernel: v.sass for v in verdicts}
    memory: list[dict] = []
    misc: list[dict] = []
    for p, k in zip(patterns, kernels):
        (misc if BY_KERNEL[p.kernel].kind == "misc" else memory).append(row(p, k, found, where))
    return memory, misc


def document(env: str, set_path: Path, rows: list[dict], what: str) -> bytes:
    """The corpus file: provenance header, then one row per line."""
    head = {**provenance(env), "method": METHOD, "source": "calibration/probe.cu",
            "patterns": f"calibration/patterns/{set_path.name} ({what})",
            "command": "cd calibration && python3 -m harness gpu (calibration/README.md); ncu command line in the run's log"}
    body = b",\n".join(orjson.dumps(r) for r in rows)
    return orjson.dumps(head)[:-1] + b',\n"patterns":[\n' + body + b"\n]}\n"


def write_corpus(set_path: Path, csvs: list[Path], sass_path: Path, env_path: Path, out: Path, misc_out: Path | None) -> int:
    """The ``corpus`` command."""
    patterns = read_set(set_path)
    kernels = [k for c in csvs for k in parse_report(read_text(c), str(c))]
    memory, misc = build(patterns, kernels, read_text(sass_path), ", ".join(map(str, csvs)))
    env = env_path.read_text()
    write_atomically(out, document(env, set_path, memory, "memory-instruction probes"))
    print(f"{out}: {len(memory)} rows")
    if misc:
        if misc_out is None:
            raise ValueError("the set has op_misc probes: name a --misc-out file")
        write_atomically(misc_out, document(env, set_path, misc, "op_misc probes"))
        print(f"{misc_out}: {len(misc)} rows")
    return 0
