"""Nsight Compute ``--csv`` reports: read either page layout, and write simsmem's results as ncu does.

ncu prints its own messages (``==PROF== ...``) and the profiled program's output first; the report
starts at the header row ``"ID","Process ID",...``. Two layouts follow it:

* details page (the default): one row per kernel and metric, with ``"Metric Name","Metric Unit",
  "Metric Value"`` columns (older ncu adds ``"Kernel Time"`` and lacks ``"Block Size"``/``"Grid Size"``);
* raw page (``--page raw``): one row per kernel, every metric a column, and a second row of units.

Values are kept as ncu printed them (``"3,072"``); ``number`` reads one.
"""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import attrs

from ..errors import SimsmemError
from .analysis import Result
from .metrics import reported, unit

HEADER_START = '"ID",'


@attrs.frozen
class Kernel:
    """One profiled launch: its ID, name, launch shape and every metric as ncu printed it."""

    id: str
    name: str
    block: str  # "(32, 1, 1)", or "" where the report has no Block Size column
    grid: str
    metrics: dict[str, str]
    units: dict[str, str]

    @property
    def short_name(self) -> str:
        """The function name alone: ``trans_shm1(int *, int)`` -> ``trans_shm1``, ``void f<4>(int)`` -> ``f``."""
        head = re.sub(r"<.*>", "", self.name.split("(", 1)[0]).strip()
        return head.split()[-1].split("::")[-1] if head else self.name


def read_report(path: str | Path) -> list[Kernel]:
    """The kernels of an ncu ``--csv`` report file (either page layout)."""
    try:
        text = Path(path).read_bytes().decode("utf-8", errors="replace")
    except OSError as exc:
        raise SimsmemError(str(path), f"cannot read ncu report: {exc.strerror}") from None
    return parse_report(text, str(path))


def parse_report(text: str, where: str) -> list[Kernel]:
    """The kernels of an ncu ``--csv`` report given as text (``where`` names it in errors)."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith(HEADER_START)), None)
    if start is None:
        raise SimsmemError(where, 'no ncu CSV header ("ID","Process ID",...): write the report with ncu --csv')
    rows = []
    reader = csv.reader(lines[start:])
    try:
        header = next(reader)
        for row in reader:
            if row and not (len(row) == 1 and row[0].startswith("==")):  # ncu's own messages may follow
                rows.append((start + reader.line_num, row))
    except csv.Error as exc:
        raise SimsmemError(f"{where}: line {start + reader.line_num}", f"malformed CSV: {exc}") from None
    for line, row in rows:
        if len(row) != len(header):
            raise SimsmemError(f"{where}: line {line}", f"expected {len(header)} fields like the header, got {len(row)}")
    if "Metric Name" in header:
        kernels = _details(header, rows, where)
    else:
        kernels = _raw(header, rows, where)
    if not kernels:
        raise SimsmemError(where, "the report holds no kernels")
    return kernels


def _details(header: list[str], rows: list[tuple[int, list[str]]], where: str) -> list[Kernel]:
    """One row per kernel and metric."""
    _require(header, ("Kernel Name", "Metric Unit", "Metric Value"), where)
    kernels: dict[str, Kernel] = {}
    for line, row in rows:
        f = dict(zip(header, row))
        k = kernels.setdefault(f["ID"], Kernel(f["ID"], f["Kernel Name"], f.get("Block Size", ""), f.get("Grid Size", ""), {}, {}))
        name, value = f["Metric Name"], f["Metric Value"]
        if k.name != f["Kernel Name"]:
            raise SimsmemError(f"{where}: line {line}", f"kernel ID {k.id} is named both {k.name!r} and {f['Kernel Name']!r}")
        if k.metrics.get(name, value) != value:
            raise SimsmemError(f"{where}: line {line}", f"{name} of kernel {k.id} given twice: {k.metrics[name]} and {value}")
        k.metrics[name] = value
        k.units[name] = f["Metric Unit"]
    return list(kernels.values())


def _raw(header: list[str], rows: list[tuple[int, list[str]]], where: str) -> list[Kernel]:
    """One row per kernel, after a row of units; metric columns are those with ncu's ``__`` in the name."""
    _require(header, ("Kernel Name",), where)
    if not rows or rows[0][1][0] != "":
        raise SimsmemError(where, "raw page without its row of units under the header")
    units = dict(zip(header, rows[0][1]))
    metrics = [name for name in header if "__" in name]
    kernels = []
    for _, row in rows[1:]:
        f = dict(zip(header, row))
        kernels.append(Kernel(f["ID"], f["Kernel Name"], f.get("Block Size", ""), f.get("Grid Size", ""), {m: f[m] for m in metrics}, {m: units[m] for m in metrics}))
    return kernels


def _require(header: list[str], columns: tuple[str, ...], where: str) -> None:
    missing = [c for c in columns if c not in header]
    if missing:
        raise SimsmemError(where, f"ncu CSV header lacks column {missing[0]!r}")


def number(text: str, where: str) -> int | float:
    """A value as ncu prints it, thousands separators and all: ``"3,072"`` -> 3072, ``"0.06"`` -> 0.06."""
    plain = text.replace(",", "")
    for kind in (int, float):
        try:
            return kind(plain)
        except ValueError:
            pass
    raise SimsmemError(where, f"expected a number, got {text!r}")


def pick(kernels: list[Kernel], key: str | None, where: str) -> Kernel:
    """The kernel whose ID, full name or function name is ``key`` (None: the report's only kernel)."""
    if key is None:
        found = kernels
    else:
        found = [k for k in kernels if key in (k.id, k.name, k.short_name)]
    if len(found) == 1:
        return found[0]
    listing = "; ".join(f"{k.id}: {k.short_name}" for k in kernels)
    if not found:
        raise SimsmemError(where, f"no kernel {key!r} in the report (ID: name: {listing})")
    if key is None:
        raise SimsmemError(where, f"the report holds {len(kernels)} kernels, pick one with --kernel NAME|ID ({listing})")
    raise SimsmemError(where, f"{len(found)} kernels match {key!r}, pick one by ID ({'; '.join(f'{k.id}: {k.name}' for k in found)})")


def details_csv(result: Result) -> str:
    """simsmem's metrics of ``result`` as an ncu details page (``ncu --csv``), one row per metric."""
    cc = re.fullmatch(r"sm_(\d+)(\d)", result.arch.name)
    launch = {  # the details page's columns before the metric, in ncu's order (sm_90, ncu 2025.3.1)
        "ID": "0", "Process ID": "", "Process Name": "simsmem", "Host Name": "", "Kernel Name": result.name,
        "Context": "", "Stream": "", "Block Size": str(result.shape[1]),
        "Grid Size": str(result.shape[0]), "Device": "", "CC": f"{cc[1]}.{cc[2]}" if cc else "",
        "Section Name": "simsmem",
    }
    return metric_csv(reported(result.metrics, result.unmodelled), launch)


def metric_csv(metrics: dict[str, int | str], launch: dict[str, str] | None = None) -> str:
    """One CSV row per metric under ncu's column names: with ``launch`` (the details page's leading
    columns) values are written as ncu does (``3,072``), without it as plain integers; a text value (``not modelled``) as it is."""
    out = io.StringIO()
    w = csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\n")
    w.writerow([*(launch or {}), "Metric Name", "Metric Unit", "Metric Value"])
    for name, value in metrics.items():
        w.writerow([*(launch or {}).values(), name, unit(name), f"{value:,}" if launch and not isinstance(value, str) else value])
    return out.getvalue()
