"""Everything that needs the GPU, in one run: build, disassemble, profile, fault, time.

``run`` writes into ``out`` (at most 8 files; the device tool brings back no more):

==================  ==================================================================
``env.txt``          GPU, driver, clocks, nvcc / ncu / cuobjdump versions, date, command lines
``log.txt``          what each step did (also printed)
``sass.txt``         ``cuobjdump -sass`` of the probe and seed binaries
``<set>_raw<k>.csv`` ``ncu --csv --page raw`` over the launches of a pattern set: one ncu process
                     per chunk of ``chunk`` launches, so that a run cut short keeps the chunks done
``faults.txt``       each fault pattern launched alone, then under compute-sanitizer
``seeds_raw.csv``    ncu over the whole seed kernels (``h100/src/seeds.cu``)
``timing.txt``       the output of the timing microbenchmark (``h100/src/timing.cu``)
==================  ==================================================================

Build outputs go to ``build`` (outside the repository). Standard library only: the device has no simsmem.
"""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

from . import ncu, sass
from .patterns import probe_lines, read_set

HERE = Path(__file__).resolve().parent.parent  # calibration/
SOURCES = {"probe": HERE / "probe.cu", "seeds": HERE / "h100" / "src" / "seeds.cu", "timing": HERE / "h100" / "src" / "timing.cu"}


class Run:
    """One GPU session: a log, an output folder, a build folder."""

    def __init__(self, out: Path, build: Path, arch: str, budget: float) -> None:
        self.out, self.build, self.arch = out, build, arch
        self.deadline = time.time() + budget
        out.mkdir(parents=True, exist_ok=True)
        build.mkdir(parents=True, exist_ok=True)
        self.logfile = (out / "log.txt").open("a")

    def log(self, text: str) -> None:
        line = f"[{time.strftime('%H:%M:%S')}] {text}"
        print(line, flush=True)
        self.logfile.write(line + "\n")
        self.logfile.flush()

    def left(self, reserve: float = 0) -> float:
        """Seconds left before the deadline, less ``reserve``."""
        return self.deadline - time.time() - reserve

    def sh(self, cmd: list[str], timeout: float, stdout_path: Path | None = None) -> tuple[int, str]:
        """Run a command (at most ``timeout`` s, and not past the deadline); output to ``stdout_path`` or returned."""
        timeout = max(1.0, min(timeout, self.left()))
        self.log("$ " + shlex.join(cmd))
        t0 = time.time()
        out = stdout_path.open("w") if stdout_path is not None else subprocess.PIPE
        try:  # a session of its own, so that a timeout ends ncu together with the program it profiles
            p = subprocess.Popen(cmd, stdout=out, stderr=subprocess.PIPE if stdout_path else subprocess.STDOUT, text=True,
                                 start_new_session=True)
        except FileNotFoundError as exc:
            rc, text = 127, str(exc)
        else:
            try:
                o, e = p.communicate(timeout=timeout)
                rc, text = p.returncode, (e if stdout_path else o) or ""
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                o, e = p.communicate()
                rc, text = 124, f"timed out after {timeout:.0f} s; " + ((e if stdout_path else o) or "")[-2000:]
        finally:
            if stdout_path is not None:
                out.close()
        self.log(f"  exit {rc} after {time.time() - t0:.1f} s" + (f"; {text.strip()[-1500:]}" if rc and text else ""))
        return rc, text

    def nvcc(self, name: str) -> Path | None:
        binary = self.build / name
        arch = self.arch.removeprefix("sm_")
        rc, _ = self.sh(["nvcc", "-gencode", f"arch=compute_{arch},code=sm_{arch}", "-O3", "-o", str(binary), str(SOURCES[name])], 300)
        return binary if rc == 0 else None


def environment(run: Run, argv: list[str]) -> None:
    """What ran where: written to env.txt."""
    parts = [f"date_utc: {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())}", f"harness: {shlex.join(argv)}"]
    for cmd in (["nvidia-smi", "--query-gpu=name,driver_version,vbios_version,pci.bus_id,clocks.sm,clocks.max.sm,clocks.mem,"
                 "persistence_mode,compute_mode", "--format=csv"],
                ["nvidia-smi"], ["ncu", "--version"], ["nvcc", "--version"], ["cuobjdump", "--version"], ["uname", "-r"]):
        rc, text = run.sh(cmd, 60)
        parts.append(f"$ {shlex.join(cmd)}\n{text.strip()}")
    parts.append(f"python: {sys.version.split()[0]}")
    (run.out / "env.txt").write_text("\n\n".join(parts) + "\n")


def disassemble(run: Run, binaries: dict[str, Path]) -> str:
    """cuobjdump -sass of each binary into sass.txt; returns the probe's dump."""
    dumps = {}
    for name, binary in binaries.items():
        rc, text = run.sh(["cuobjdump", "-sass", str(binary)], 120)
        dumps[name] = text if rc == 0 else ""
    with (run.out / "sass.txt").open("w") as f:
        for name, text in dumps.items():
            f.write(f"#### cuobjdump -sass {name} ({SOURCES[name].relative_to(HERE)})\n")
            f.write("\n".join(line for line in text.splitlines() if line.strip()) + "\n")
    return dumps.get("probe", "")


def profile_set(run: Run, probe: Path, set_path: Path, metrics: list[str], chunk: int, reserve: float) -> None:
    """ncu over every launch of one pattern set, ``chunk`` launches per process -> <set>_raw<k>.csv."""
    patterns = read_set(set_path)
    for k, start in enumerate(range(0, len(patterns), chunk), 1):
        part = patterns[start : start + chunk]
        lines = run.build / f"{set_path.stem}{k}.txt"
        lines.write_text(probe_lines(part))
        run.log(f"profiling launches {start}..{start + len(part) - 1} of {set_path.name} ({len(patterns)})")
        run.sh(ncu.command([str(probe), str(lines)], metrics), run.left(reserve), run.out / f"{set_path.stem}_raw{k}.csv")


def faults(run: Run, probe: Path, set_path: Path) -> None:
    """Each fault pattern alone (a fault ends the CUDA context), plain and under compute-sanitizer."""
    patterns = read_set(set_path)
    lines = run.build / "faults.txt"
    lines.write_text(probe_lines(patterns))
    with (run.out / "faults.txt").open("w") as f:
        for i, p in enumerate(patterns):
            for tool in ([], ["compute-sanitizer", "--tool", "memcheck", "--show-backtrace", "no"]):
                cmd = [*tool, str(probe), str(lines), str(i)]
                rc, text = run.sh(cmd, 30)
                f.write(f"#### {p.name} ({p.kernel}, lane 0 at {p.addrs[0]}, mask {p.mask:08x})\n$ {shlex.join(cmd)}\nexit {rc}\n{text.strip()}\n\n")


def run(argv: list[str], out: Path, build: Path, arch: str, sets: list[Path], fault_set: Path | None,
        seeds: bool, timing: bool, chunk: int, budget: float) -> int:
    """The whole GPU session (see the module docstring) within ``budget`` seconds; 0 if every probe passed the SASS check."""
    r = Run(out, build, arch, budget)
    environment(r, argv)
    binaries = {name: b for name in ("probe", *(["seeds"] if seeds else []), *(["timing"] if timing else [])) if (b := r.nvcc(name))}
    if "probe" not in binaries:
        r.log("probe.cu did not build")
        return 1
    verdicts = sass.check(disassemble(r, {k: v for k, v in binaries.items() if k != "timing"}))
    bad = [v for v in verdicts if not v.ok]
    r.log(f"SASS check: {len(verdicts) - len(bad)} of {len(verdicts)} probes hold exactly their instruction")
    for v in bad:
        r.log(f"  FAIL probe_{v.form.kernel}: {v.why}")
    if bad:
        return 1
    rc, query = r.sh(["ncu", "--query-metrics"], 120)
    metrics, dropped = ncu.available(query if rc == 0 else "")
    r.log(f"{len(metrics)} metrics; not on this GPU/ncu: {dropped}")
    if "timing" in binaries:
        r.sh([str(binaries["timing"])], 120, out / "timing.txt")
    if "seeds" in binaries:
        r.sh(ncu.command([str(binaries["seeds"])], metrics), 120, out / "seeds_raw.csv")
    reserve = 80 if fault_set is not None else 0  # for the faults, after the profiles
    for s in sets:
        profile_set(r, binaries["probe"], s, metrics, chunk, reserve)
    if fault_set is not None:
        faults(r, binaries["probe"], fault_set)
    r.log("done")
    return 0
