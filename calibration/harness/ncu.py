"""The Nsight Compute side: which metrics to collect, and the command line that collects them.

``METRICS`` are the shared-memory counters simsmem reproduces plus the ones the new ops need
(LDGSTS's SASS-level counters, op_misc, atomics' ALU/CAS split). A metric the installed ncu does not
know would stop the whole run, so ``available`` keeps only those ``ncu --query-metrics`` lists.
"""

from __future__ import annotations

import re

_OPS = ("ld", "st", "atom")
METRICS: tuple[str, ...] = (
    # instructions
    *(f"smsp__inst_executed_op_shared_{op}.sum" for op in _OPS),
    "smsp__inst_executed_op_ldsm.sum",
    "smsp__inst_executed_op_shared_stsm.sum",
    "smsp__inst_executed_op_ldgsts.sum",
    "smsp__inst_executed_op_shared_ld_pred_on_any.sum",
    "smsp__inst_executed_op_shared_atom_dot_alu.sum",
    "smsp__inst_executed_op_shared_atom_dot_cas.sum",
    "smsp__inst_executed.sum",
    # the L1TEX data-stage counters (hardware)
    "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum",
    *(f"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{op}.sum" for op in (*_OPS, "misc", "ldsm", "ldgsts")),
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_cmd_read.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_cmd_write.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum",
    *(f"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{op}.sum" for op in (*_OPS, "misc", "ldgsts")),
    "l1tex__data_bank_reads.sum",
    "l1tex__data_bank_writes.sum",
    # SASS-level counters (ncu patches the code to count them)
    "smsp__sass_data_bytes_mem_shared.sum",
    *(f"smsp__sass_data_bytes_mem_shared_op_{op}.sum" for op in (*_OPS, "ldsm", "stsm", "ldgsts")),
    "smsp__sass_inst_executed_op_shared.sum",
    "smsp__sass_inst_executed_op_ldgsts.sum",
    *(f"smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_{op}.sum" for op in (*_OPS, "ldsm", "stsm", "ldgsts")),
    *(f"smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_{op}.sum" for op in (*_OPS, "ldsm", "stsm", "ldgsts")),
    # LDGSTS's global side
    "l1tex__t_requests_pipe_lsu_mem_global_op_ldgsts.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ldgsts.sum",
)

#: Metrics known to exist on sm_90 with ncu 2025.3.1 (calibration/h100/ncu_csv): if the query lists
#: none of them, it was not understood, and nothing is filtered.
KNOWN = ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "smsp__sass_data_bytes_mem_shared.sum")

_NAME = re.compile(r'^"?([a-z0-9]+__[a-z0-9_]+)')


def listed(query: str) -> set[str]:
    """Base metric names in ``ncu --query-metrics`` output (plain or ``--csv``)."""
    return {m[1] for line in query.splitlines() if (m := _NAME.match(line.strip()))}


def available(query: str, metrics: tuple[str, ...] = METRICS) -> tuple[list[str], list[str]]:
    """(kept, dropped): the metrics whose base name the query lists (all kept if it lists none we know)."""
    names = listed(query)
    base = lambda m: m.rsplit(".", 1)[0]  # noqa: E731
    if not any(base(k) in names for k in KNOWN):
        return list(metrics), []
    return [m for m in metrics if base(m) in names], [m for m in metrics if base(m) not in names]


def command(program: list[str], metrics: list[str]) -> list[str]:
    """ncu over every kernel ``program`` launches: one CSV row per launch (raw page), clocks as found."""
    return ["ncu", "--clock-control", "none", "--print-units", "base", "--csv", "--page", "raw",
            "--metrics", ",".join(metrics), *program]
