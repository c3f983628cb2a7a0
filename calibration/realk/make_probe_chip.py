"""Write manifest_chip.json: the same work per SM on 1 to 132 SMs (one CTA an SM), and a few launches of 2 and 4 CTAs an
SM, to find what a launch over the whole chip costs that one over a few SMs does not (runs/2026-11-29-chip, PREDICTED
there). Kernels: src/probe_chip.cu (pc_*) and two corpus kernels of manifest.json (transpose_smem_naive, sgemm_rb64_naive
at K = 256) on zero-filled inputs. Measured by
measure_timing.sh (TIMING_GROUPS='chip:manifest_chip.json:all:ncu_metrics_chip.txt'). Round 2: manifest_chip2.json, pc_clock, measured with DUMP=arg2 (TIMING_GROUPS='chip2:manifest_chip2.json:all:ncu_metrics_chip.txt').
Round 3: manifest_chip3.json, pc_scatter (TIMING_GROUPS='chip3:manifest_chip3.json:all:ncu_metrics_chip.txt').
Round 4: manifest_chip4.json, waves of short CTAs (TIMING_GROUPS='chip4:manifest_chip4.json:all:ncu_metrics_chip.txt').
Run from calibration/realk."""
import json
from pathlib import Path

BASE = {e["name"]: e for e in json.loads(Path("manifest.json").read_text())}
PTX = "ptx/probe_chip.ptx"


def probe(kernel, ctas, threads, args, what):
    return {"name": f"{kernel}_{ctas}x{threads}", "source": "src/probe_chip.cu", "ptx": PTX, "kernel": kernel, "grid": [ctas, 1, 1],
            "block": [threads, 1, 1], "smem": 0, "args": args(ctas * threads), "origin": "written here: " + what,
            "problem": f"{ctas} CTAs of {threads} threads"}


def copy(ctas, threads=512, per=2):
    return probe("pc_copy", ctas, threads, lambda n: [f"zeros:{n * per * 4}", f"zeros:{n * per * 4}", str(per)], f"a copy of {per} floats a thread")


def clock(ctas, threads, per, iters):
    warps = ctas * threads // 32
    e = probe("pc_clock", ctas, threads, lambda n: [f"zeros:{n * 4}", f"zeros:{n * max(per, 1) * 4}", f"zeros:{warps * 32}", str(per), str(iters)],
              f"{per} loads a thread" if per else f"{iters} dependent FMAs a thread, no loads")
    return {**e, "name": f"pc_clock_{ctas}x{threads}_" + (f"p{per}" if per else "alu")}


def scatter(ctas, threads, stride, n=8):
    e = probe("pc_scatter", ctas, threads, lambda t: [f"zeros:{(t * stride + n) * 4}", f"zeros:{t * 4}", str(stride), str(n)],
              f"{n} stores a thread, lanes {stride} words apart")
    return {**e, "name": f"pc_scatter_{ctas}x{threads}_s{stride}"}


def waves(kernel, ctas, iters, smem):
    e = copy(ctas, 256) if kernel == "pc_copy" else probe("pc_alu", ctas, 256, lambda t: [f"zeros:{t * 4}", str(iters)], f"{iters} dependent FMAs a thread")
    return {**e, "name": f"{e['name']}_{'occ1' if smem else 'occ8'}", "smem": smem,
            "origin": e["origin"] + (f"; {smem // 1024} KiB of unused dynamic shared memory: one CTA an SM" if smem else "")}


def corpus(name, grid, args, what):
    e = BASE[name]
    return {**{key: e[key] for key in ("source", "ptx", "kernel", "block", "smem")}, "name": f"chip_{name}_{grid[0] * grid[1]}",
            "grid": [*grid, 1], "args": args, "origin": f"written here: {name} (manifest.json) {what}, zero inputs",
            "problem": f"{grid[0] * grid[1]} CTAs"}


def transpose(gx, gy):
    w, h = 32 * gx, 32 * gy
    return corpus("transpose_smem_naive", (gx, gy), [f"zeros:{w * h * 4}", f"zeros:{w * h * 4}", str(w), str(h)], f"{w}x{h}")


def sgemm(gx, gy, k=256):
    m, n = 64 * gy, 64 * gx
    return corpus("sgemm_rb64_naive", (gx, gy), [f"zeros:{m * n * 4}", f"zeros:{m * k * 4}", f"zeros:{k * n * 4}", str(m), str(n), str(k)],
                  f"at C({m}x{n}), K {k}")


def main() -> None:
    entries = [copy(n) for n in (4, 16, 64, 132, 264, 528)]
    entries += [probe("pc_alu", n, 256, lambda t: [f"zeros:{t * 4}", "512"], "512 dependent FMAs a thread") for n in (1, 4, 132)]
    entries += [probe("pc_s2r8", n, t, lambda k: [f"zeros:{k * 4}"], "eight S2R a thread") for n, t in ((1, 32), (1, 256), (1, 1024), (132, 1024))]
    entries += [probe("pc_ldc8", n, t, lambda k: [f"zeros:{k * 4}"] + [f"zeros:{k * 4}"] * 7, "eight LDC.64 a thread, then 7 loads")
                for n, t in ((1, 32), (1, 1024), (132, 1024))]
    entries += [transpose(gx, gy) for gx, gy in ((2, 2), (4, 4), (8, 8), (12, 11))]
    entries += [sgemm(gx, gy) for gx, gy in ((2, 2), (8, 8), (12, 11))]
    # round 2 (manifest_chip2.json): each warp's SM and clock64 before and after its loads (pc_clock, dumped: DUMP=arg2)
    second = [clock(n, t, per, iters) for n, t, per, iters in ((4, 512, 2, 0), (132, 512, 2, 0), (264, 512, 2, 0), (132, 512, 16, 0),
                                                               (132, 256, 64, 0), (132, 512, 0, 512))]
    # round 3 (manifest_chip3.json): stores that scatter, 1 to 32 lines an STG (pc_scatter)
    third = [scatter(n, t, stride) for n, t, stride in ((4, 512, 1), (4, 512, 4), (4, 512, 32), (4, 512, 512), (4, 128, 512), (132, 512, 512))]
    # round 4 (manifest_chip4.json): waves of one CTA an SM (160 KiB of unused dynamic shared memory), short CTAs
    fourth = [waves("pc_alu", n, 64, smem) for n in (132, 264, 1320) for smem in (160 * 1024, 0)] + [waves("pc_copy", 1320, 0, 160 * 1024)]
    for path, group in (("manifest_chip.json", entries), ("manifest_chip2.json", second), ("manifest_chip3.json", third),
                        ("manifest_chip4.json", fourth)):
        Path(path).write_text(json.dumps(group, indent=1) + "\n")
        print(path, len(group), "entries:", " ".join(e["name"] for e in group))


if __name__ == "__main__":
    main()
