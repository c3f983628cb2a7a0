"""Write manifest_scale.json: corpus kernels of this project (sgemm_rb64_naive, sgemm_at32_naive, hgemm_cpasync_plain,
transpose_smem_naive; src/ and ptx/ as manifest.json has them) launched at sizes whose grids put 1 CTA on each SM
(64 CTAs) and several (256 to 4096), with zero-filled inputs (no kernel here branches on data): do the wavefronts that
vary run to run on public GEMMs come with several CTAs sharing an SM? Measured by measure_timing.sh
(TIMING_GROUPS='scale:manifest_scale.json:all:ncu_metrics_variance.txt', METRICS=ncu_metrics.txt); round 2,
manifest_scale2.json and round 3, manifest_scale3.json, the same with TIMING_GROUPS='scale2:manifest_scale2.json:all:...'
'scale3:manifest_scale3.json:all:...' and 'scale4:manifest_scale4.json:all:...'.
Run from calibration/realk: python make_scale_probes.py"""
import json
from pathlib import Path

BASE = {e["name"]: e for e in json.loads(Path("manifest.json").read_text())}
#: dynamic shared memory the kernels do not use, which leaves room for at most 1 to 4 CTAs an SM (228 KiB an SM on
#: sm_90; each CTA takes its static shared memory and 1 KiB more: 9 KiB for the SGEMMs, 5 for transpose, 33 for hgemm)
OCC = {160 * 1024: 1, 100 * 1024: 2, 80 * 1024: 2, 64 * 1024: 3, 45 * 1024: 4}
NOTE = {s: f"; {s // 1024} KiB of unused dynamic shared memory, so at most {n} CTA(s) an SM" for s, n in OCC.items()}


def sgemm(name, tile, m, k, f32=True, smem=None):
    e = BASE[name]
    size = 4 if f32 else 2
    return {**{key: e[key] for key in ("source", "ptx", "kernel", "block")}, "name": f"scale_{name}_{m}" + (f"_occ{OCC[smem]}" if smem else ""),
            "smem": smem or e["smem"], "origin": f"written here: {name} (manifest.json) at C({m}x{m}), K {k}, zero inputs" + NOTE.get(smem, ""),
            "grid": [m // tile, m // tile, 1],
            "args": [f"zeros:{m * m * 4}", f"zeros:{m * k * size}", f"zeros:{k * m * size}", str(m), str(m), str(k)],
            "problem": f"{name} at C({m}x{m}) = A({m}x{k}) B({k}x{m}): {(m // tile) ** 2} CTAs"}


def transpose(n, smem=None):
    e = BASE["transpose_smem_naive"]
    return {**{key: e[key] for key in ("source", "ptx", "kernel", "block")}, "name": f"scale_transpose_smem_naive_{n}" + (f"_occ{OCC[smem]}" if smem else ""),
            "smem": smem or e["smem"], "origin": f"written here: transpose_smem_naive (manifest.json) at {n}x{n}, zero input" + NOTE.get(smem, ""),
            "grid": [n // 32, n // 32, 1],
            "args": [f"zeros:{n * n * 4}", f"zeros:{n * n * 4}", str(n), str(n)], "problem": f"{n}x{n} f32: {(n // 32) ** 2} CTAs"}


def main() -> None:
    entries = [sgemm("sgemm_rb64_naive", 64, 512, 256), sgemm("sgemm_rb64_naive", 64, 1024, 256), sgemm("sgemm_rb64_naive", 64, 2048, 256),
               sgemm("sgemm_at32_naive", 32, 256, 256), sgemm("sgemm_at32_naive", 32, 1024, 256),
               sgemm("hgemm_cpasync_plain", 64, 512, 256, f32=False), sgemm("hgemm_cpasync_plain", 64, 2048, 256, f32=False),
               transpose(256), transpose(2048)]
    # round 2 (manifest_scale2.json): the same work at most 1 or 2 CTAs an SM at a time (waves without co-residency), and
    # a one-wave grid
    second = [sgemm("sgemm_rb64_naive", 64, 2048, 256, smem=160 * 1024), sgemm("sgemm_rb64_naive", 64, 2048, 256, smem=100 * 1024),
                sgemm("sgemm_rb64_naive", 64, 1024, 256, smem=160 * 1024), sgemm("hgemm_cpasync_plain", 64, 2048, 256, f32=False, smem=160 * 1024),
                transpose(2048, smem=160 * 1024), transpose(512)]
    # round 3 (manifest_scale3.json): 2, 3 and 4 CTAs an SM for each kernel
    third = [sgemm("sgemm_rb64_naive", 64, 2048, 256, smem=64 * 1024), sgemm("sgemm_rb64_naive", 64, 1024, 256, smem=100 * 1024),
             sgemm("sgemm_at32_naive", 32, 1024, 256, smem=100 * 1024), sgemm("sgemm_at32_naive", 32, 1024, 256, smem=45 * 1024),
             transpose(2048, smem=100 * 1024), transpose(2048, smem=45 * 1024), sgemm("hgemm_cpasync_plain", 64, 2048, 256, f32=False, smem=80 * 1024)]
    # round 4 (manifest_scale4.json): one wave against several at the same CTAs an SM
    fourth = [sgemm("sgemm_at32_naive", 32, 2048, 256), transpose(512, smem=100 * 1024), transpose(1024, smem=100 * 1024),
              sgemm("sgemm_rb64_naive", 64, 4096, 256)]
    for path, group in (("manifest_scale.json", entries), ("manifest_scale2.json", second), ("manifest_scale3.json", third),
                        ("manifest_scale4.json", fourth)):
        Path(path).write_text(json.dumps(group, indent=1) + "\n")
        print(path, len(group), "entries:", " ".join(f"{e['name']}({e['grid'][0] * e['grid'][1]})" for e in group))


if __name__ == "__main__":
    main()
