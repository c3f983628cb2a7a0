"""``python3 -m harness COMMAND`` (from ``calibration/``): see ``calibration/README.md``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
SETS = HERE / "patterns"


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    ap = argparse.ArgumentParser(prog="python3 -m harness", description=__doc__)
    sub = ap.add_subparsers(dest="command", required=True)

    sub.add_parser("patterns", help="write the pattern sets (patterns/design.json, holdout.json, faults.json, followup2.json, holdout2.json, r4.json, holdout3.json, ldgsts2.json, ldgsts3.json; followup.json is kept as measured)")

    g = sub.add_parser("gpu", help="on a GPU: build, SASS check, ncu over the pattern sets, faults, seeds, timing")
    g.add_argument("--out", type=Path, required=True, help="folder for what the run writes (at most 8 files)")
    g.add_argument("--build", type=Path, default=Path("/tmp/simsmem-calibration"), help="build folder (outside the repo)")
    g.add_argument("--arch", default="sm_90")
    g.add_argument("--sets", default="design,holdout", help="pattern sets to profile, in order (names in patterns/)")
    g.add_argument("--no-faults", action="store_true")
    g.add_argument("--no-seeds", action="store_true")
    g.add_argument("--no-timing", action="store_true")
    g.add_argument("--chunk", type=int, default=500, help="launches per ncu process")
    g.add_argument("--budget", type=float, default=570, help="seconds the whole run may take")

    c = sub.add_parser("corpus", help="ncu CSV + pattern set + SASS dump -> corpus JSON (instructions, op_misc)")
    c.add_argument("--set", type=Path, required=True, help="the pattern set that was profiled")
    c.add_argument("--csv", type=Path, nargs="+", required=True, help="its ncu raw CSVs, in launch order (.csv or .csv.gz)")
    c.add_argument("--sass", type=Path, required=True, help="sass.txt of the same run")
    c.add_argument("--env", type=Path, required=True, help="env.txt of the same run")
    c.add_argument("--out", type=Path, required=True, help="corpus JSON of the memory instructions")
    c.add_argument("--misc-out", type=Path, help="corpus JSON of the op_misc probes (if the set has any)")

    k = sub.add_parser("kernels", help="ncu CSV of whole kernels + SASS dump -> kernel corpus JSON")
    k.add_argument("--csv", type=Path, required=True)
    k.add_argument("--sass", type=Path, required=True)
    k.add_argument("--env", type=Path, required=True)
    k.add_argument("--source", required=True, help="the measured source, as the JSON should name it")
    k.add_argument("--out", type=Path, required=True)

    t = sub.add_parser("timing", help="timing microbenchmark output -> timing JSON")
    t.add_argument("--text", type=Path, required=True)
    t.add_argument("--env", type=Path, required=True)
    t.add_argument("--out", type=Path, required=True)
    t.add_argument("--source", default="calibration/h100/src/timing.cu", help="the measured program's source, for the record")

    g2 = sub.add_parser("agree", help="hold simsmem's bank model against corpus files: rows compared, exact, disagreements")
    g2.add_argument("corpus", type=Path, nargs="+")
    g2.add_argument("--arch", default="sm_90")

    s = sub.add_parser("sass", help="check a cuobjdump -sass dump of probe.cu and print the report")
    s.add_argument("dump", type=Path)

    a = ap.parse_args(argv)
    if a.command == "patterns":
        from .patterns import design, faults, followup2, holdout, holdout2, holdout3, ldgsts2, ldgsts3, r4, write_set

        SETS.mkdir(exist_ok=True)
        for name, ps in (("design", design()), ("holdout", holdout()), ("faults", faults()), ("followup2", followup2()),
                         ("holdout2", holdout2()), ("r4", r4()), ("holdout3", holdout3()), ("ldgsts2", ldgsts2()), ("ldgsts3", ldgsts3())):
            write_set(ps, SETS / f"{name}.json")
            print(f"{SETS / name}.json: {len(ps)} launches")
        return 0
    if a.command == "gpu":
        from .gpu import run

        sets = [SETS / f"{n}.json" for n in a.sets.split(",") if n]
        return run(sys.argv, a.out, a.build, a.arch, sets, None if a.no_faults else SETS / "faults.json",
                   not a.no_seeds, not a.no_timing, a.chunk, a.budget)
    if a.command == "agree":
        from simsmem.config import load_arch
        from simsmem.corpus import load_corpus

        from .agreement import compare, summary

        arch = load_arch(a.arch)
        for path in a.corpus:
            rows = load_corpus(path)
            compared, bad = compare(rows, arch)
            print(f"== {path}\n{summary(compared, rows, bad)}")
        return 0
    if a.command == "sass":
        from .sass import check, report

        verdicts = check(a.dump.read_text())
        print(report(verdicts), end="")
        return 0 if all(v.ok for v in verdicts) else 1
    if a.command == "corpus":
        from .corpus import write_corpus

        return write_corpus(a.set, a.csv, a.sass, a.env, a.out, a.misc_out)
    if a.command == "kernels":
        from .kernels import write_kernels

        return write_kernels(a.csv, a.sass, a.env, a.source, a.out)
    from .timing import write_timing

    return write_timing(a.text, a.env, a.out, a.source)


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (OSError, ValueError) as exc:  # a file that cannot be read, a line that is not a record
        print(f"harness: {exc}", file=sys.stderr)
        sys.exit(2)
