#!/usr/bin/env python3
"""Stock time-series benchmark: mdsseries end to end on generated markets (factor model
with sectors, 2,750 trading days, one-year windows sliding by 7 days), and in the same
run the peer an analyst would write: NumPy correlations per window, scikit-learn's
metric SMACOF started from the previous frame, SciPy's orthogonal Procrustes.

Each step stores its figures in bench/out/mdsseries/*.json, so steps can run
separately (--steps) and the report (--steps report) assembles what is there into
bench/results/mdsseries.md.

    python3 bench/mdsseries/run.py [--sizes 500,2000,7000] [--bin DIR]
        [--steps markets,ours,peer,report] [--peer-frames 500:20]

With --baseline-bin DIR (another build of mdsseries, e.g. the previous commit's) the
"baseline" step runs the same mdsseries runs with it, interleaved with this build's in
the same run, and the report compares the two (time, stress, frame-to-frame movement).
"""
import argparse
import datetime
import json
import math
import os
import platform
import resource
import subprocess
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "bench", "out", "mdsseries")
RESULTS = os.path.join(ROOT, "bench", "results", "mdsseries.md")
DAYS = 2750
SECTORS = 11
WINDOW_DAYS = 365
STEP_DAYS = 7
THREADS = 2


def market_dir(n):
    return os.path.join(OUT, f"market-{n}")


def make_market(args, n):
    directory = market_dir(n)
    if os.path.exists(os.path.join(directory, "sectors.txt")):
        return directory
    os.makedirs(directory, exist_ok=True)
    subprocess.run([os.path.join(args.bin, "mdsseries-market"), "--directory", directory, "--stocks", str(n),
                    "--days", str(DAYS), "--sectors", str(SECTORS), "--seed", str(n)], check=True)
    return directory


def load_average():
    with open("/proc/loadavg") as file:
        return float(file.read().split()[0])


def save(name, value):
    with open(os.path.join(OUT, name), "w") as file:
        json.dump(value, file, indent=1)


def load(name):
    path = os.path.join(OUT, name)
    if not os.path.exists(path):
        return None
    with open(path) as file:
        return json.load(file)


def run_ours(args, n, weights, max_frames=0, build="ours"):
    """mdsseries over every window (or the first max_frames), 1 rank × 2 threads;
    /usr/bin/time gives the peak RSS and the CPU seconds. `build`: "ours" (--bin) or
    "base" (--baseline-bin), each with its own frames file and record."""
    directory = market_dir(n)
    output = os.path.join(OUT, f"frames-{n}-{weights}{'' if build == 'ours' else '-' + build}.txt")
    command = [os.path.join(args.bin if build == "ours" else args.baseline_bin, "mdsseries"), "--prices", f"{directory}/prices.bin", "--volumes",
               f"{directory}/volumes.bin", "--dates", f"{directory}/dates.txt", "--output", output,
               "--window-days", str(WINDOW_DAYS), "--step-days", str(STEP_DAYS), "--weights", weights,
               "--max-frames", str(max_frames)]
    environment = dict(os.environ, OMP_NUM_THREADS=str(THREADS), OMP_WAIT_POLICY="passive")
    load_before = load_average()
    start = time.perf_counter()
    result = subprocess.run(["/usr/bin/time", "-f", "maxrss_kb %M cpu_s %U %S"] + command, capture_output=True,
                            text=True, env=environment)
    wall = time.perf_counter() - start
    if result.returncode != 0:
        sys.exit(f"mdsseries failed: {result.stderr}")
    lines = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    frames = [line for line in lines if line["phase"] == "frame"]
    rss_line = [line for line in result.stderr.splitlines() if line.startswith("maxrss_kb")][-1].split()
    record = {"n": n, "weights": weights, "wall_s": wall, "frames_total": len(windows(read_dates(directory))), "maxrss_mb": int(rss_line[1]) / 1024,
              "cpu_s": float(rss_line[3]) + float(rss_line[4]), "done": lines[-1],
              "frames": [{k: f[k] for k in ("seconds", "iterations", "cg_iterations", "stress")} for f in frames],
              "load_before": load_before, "load_after": load_average()}
    save(f"{build}-{n}-{weights}.json", record)
    print(f"{build} n={n} weights={weights}: {wall:.1f} s, {len(frames)} frames, {record['maxrss_mb']:.0f} MB", flush=True)


# ---- the peer: what an analyst would write -------------------------------------------

def read_dates(directory):
    with open(f"{directory}/dates.txt") as file:
        return np.array([np.datetime64(line.strip(), "D").astype(int) for line in file if line.strip()])


def read_market(directory):
    header = np.fromfile(f"{directory}/prices.bin", dtype=np.uint8, count=32)
    symbols, days = (int(v) for v in header[16:32].view("<u8"))
    prices = np.fromfile(f"{directory}/prices.bin", dtype="<f8", offset=32).reshape(symbols, days)
    return prices, read_dates(directory)


def windows(dates):
    out = []
    start = dates[0]
    while start + WINDOW_DAYS - 1 <= dates[-1]:
        first = int(np.searchsorted(dates, start, "left"))
        last = int(np.searchsorted(dates, start + WINDOW_DAYS - 1, "right")) - 1
        out.append((first, last))
        start += STEP_DAYS
    return out


def read_our_frames(path, wanted):
    """{frame index: (symbols, points)} for the frames in `wanted`, read in one pass."""
    frames, current = {}, None
    last = max(wanted)
    with open(path) as file:
        for line in file:
            if line.startswith("frame "):
                index = int(line.split()[1])
                if index > last:
                    break
                current = ([], []) if index in wanted else None
                if current is not None:
                    frames[index] = current
            elif current is not None and line[0].isdigit():
                fields = line.split()
                current[0].append(int(fields[0]))
                current[1].append([float(v) for v in fields[1:4]])
    return {k: (np.array(s), np.array(p)) for k, (s, p) in frames.items()}


def scaled_stress(target, points):
    """Normalised stress Σ(δ − c·d)²/Σδ² at the best c: frames are aligned with a scale,
    so the map's overall size is not part of the fit."""
    upper = np.triu_indices(len(points), 1)
    d = np.sqrt(((points[:, None, :] - points[None, :, :]) ** 2).sum(-1))[upper]
    delta = target[upper]
    c = (delta * d).sum() / (d * d).sum()
    return float(((delta - c * d) ** 2).sum() / (delta * delta).sum())


def median_move(previous, current):
    # The extent over at most ~2,000 of the points (all pairs of 7,000 would need a 1.2 GB
    # array); every run measures it on the same points.
    sample = previous[:: max(1, len(previous) // 2000)]
    extent = np.sqrt(((sample[:, None, :] - sample[None, :, :]) ** 2).sum(-1)).max()
    return float(np.median(np.sqrt(((current - previous) ** 2).sum(-1))) / extent)


def peer_worker(n, max_frames, ours_path):
    """Runs in its own process (so its peak RSS is its own). Times each frame's parts;
    evaluates both programs' frames on the same distance matrices outside the timings."""
    from scipy.linalg import orthogonal_procrustes
    from sklearn.manifold import MDS

    prices, dates = read_market(market_dir(n))
    log_prices = np.log(prices)  # the generated markets have no gaps
    frames = windows(dates)
    count = len(frames) if max_frames == 0 else min(max_frames, len(frames))
    evaluate = set(range(0, count, max(1, count // 10))) | {1}
    ours = read_our_frames(ours_path, evaluate | {k - 1 for k in evaluate if k > 0}) if ours_path else {}
    previous = None
    records = []
    for index in range(count):
        first, last = frames[index]
        start = time.perf_counter()
        returns = np.diff(log_prices[:, first:last + 1], axis=1)
        distances = (1.0 - np.corrcoef(returns)) / 2.0
        np.fill_diagonal(distances, 0.0)
        corr_s = time.perf_counter() - start
        start = time.perf_counter()
        # init="random" is the first frame's start; later frames pass the previous one to
        # fit_transform, which takes precedence.
        mds = MDS(n_components=3, metric_mds=True, metric="precomputed", n_init=1, init="random", random_state=1)
        if previous is None:
            points = mds.fit_transform(distances)
        else:
            points = mds.fit_transform(distances, init=previous)
        mds_s = time.perf_counter() - start
        start = time.perf_counter()
        if previous is not None:
            mean_p, mean_x = previous.mean(0), points.mean(0)
            rotation, singular_sum = orthogonal_procrustes(points - mean_x, previous - mean_p)
            scale = singular_sum / ((points - mean_x) ** 2).sum()
            points = scale * (points - mean_x) @ rotation + mean_p
        align_s = time.perf_counter() - start
        record = {"frame": index, "corr_s": corr_s, "mds_s": mds_s, "align_s": align_s,
                  "iterations": int(mds.n_iter_)}
        if index in evaluate:
            record["peer_stress"] = scaled_stress(distances, points)
            if index in ours:
                record["ours_stress"] = scaled_stress(distances, ours[index][1])
            if previous is not None:
                record["peer_move"] = median_move(previous, points)
                if index in ours and index - 1 in ours:
                    record["ours_move"] = median_move(ours[index - 1][1], ours[index][1])
        records.append(record)
        previous = points
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"n": n, "frames_total": len(frames), "frames_run": count, "maxrss_mb": rss, "records": records}))


def run_peer(args, n, max_frames):
    ours = os.path.join(OUT, f"frames-{n}-none.txt")
    environment = dict(os.environ, OMP_NUM_THREADS=str(THREADS), OPENBLAS_NUM_THREADS=str(THREADS))
    load_before = load_average()
    start = time.perf_counter()
    result = subprocess.run([sys.executable, os.path.abspath(__file__), "--peer-worker", str(n), str(max_frames),
                             ours if os.path.exists(ours) else ""], capture_output=True, text=True, env=environment)
    wall = time.perf_counter() - start
    if result.returncode != 0:
        sys.exit(f"peer failed: {result.stderr}")
    record = json.loads(result.stdout.strip().splitlines()[-1])
    record.update(wall_s=wall, load_before=load_before, load_after=load_average())
    save(f"peer-{n}.json", record)
    print(f"peer n={n}: {record['frames_run']} of {record['frames_total']} frames in {wall:.1f} s", flush=True)


# ---- report ----------------------------------------------------------------------------

def cpu_description():
    model, flags = "unknown", []
    with open("/proc/cpuinfo") as file:
        for line in file:
            if line.startswith("model name") and model == "unknown":
                model = line.split(":", 1)[1].strip()
            if line.startswith("flags") and not flags:
                flags = line.split(":", 1)[1].split()
    simd = [f for f in ("sse4_2", "avx", "avx2", "fma", "avx512f", "avx512bw", "avx512vl") if f in flags]
    return model, simd, os.cpu_count()


def mean(values):
    values = list(values)
    return sum(values) / len(values) if values else float("nan")


def extrapolate(record):
    """Adds wall_all_s and cpu_all_s: a run over the first frames only has its times
    extrapolated to all frames from the mean of its warm frames; returns the mark "*" then."""
    warm = record["frames"][1:]
    frames = record["done"]["frames"]
    record.setdefault("frames_total", frames)
    missing = record["frames_total"] - frames
    record["wall_all_s"] = record["wall_s"] + missing * mean(f["seconds"] for f in warm)
    record["cpu_all_s"] = record["cpu_s"] * (1 + missing * mean(f["seconds"] for f in warm) / record["wall_s"])
    return "*" if missing else ""


def frames_movement(path, count):
    """Median displacement of the stocks between consecutive frames (fraction of the extent),
    averaged over up to 10 frame pairs spread over the first `count` frames."""
    pairs = sorted(set(range(1, count, max(1, count // 10))))[:10]
    frames = read_our_frames(path, set(pairs) | {k - 1 for k in pairs})
    return mean(median_move(frames[k - 1][1], frames[k][1]) for k in pairs if k in frames and k - 1 in frames)


def baseline_comparison(args):
    rows = []
    for n in args.sizes:
        for weights in ("none", "tradedValue"):
            ours, base = load(f"ours-{n}-{weights}.json"), load(f"base-{n}-{weights}.json")
            if not ours or not base:
                continue
            cells = []
            for record, suffix in ((base, "-base"), (ours, "")):
                mark = extrapolate(record)
                warm = record["frames"][1:]
                t = record["done"]["timings"]
                frames = record["done"]["frames"]
                cells.append({
                    "cpu": f"{record['cpu_all_s']:.0f}{mark}", "wall": f"{record['wall_all_s']:.0f}{mark}",
                    "cpu_s": record["cpu_all_s"],
                    "mds": f"{1000 * (t['mds'] - t['first_mds']) / max(1, frames - 1):.0f}",
                    "its": f"{mean(f['iterations'] for f in warm):.1f} ({mean(f['cg_iterations'] for f in warm):.0f})",
                    "stress": f"{mean(f['stress'] for f in warm):.5f}",
                    "move": f"{frames_movement(os.path.join(OUT, f'frames-{n}-{weights}{suffix}.txt'), frames):.4f}",
                    "frames": frames, "load": f"{record['load_before']:.1f}/{record['load_after']:.1f}"})
            b, o = cells
            rows.append(f"| {n} | {weights} | {b['frames']}, {o['frames']} | {b['wall']} → {o['wall']} | {b['cpu']} → {o['cpu']} | "
                        f"{b['cpu_s'] / o['cpu_s']:.2f}× | {b['mds']} → {o['mds']} | {b['its']} → {o['its']} | "
                        f"{b['stress']} → {o['stress']} | {b['move']} → {o['move']} | {b['load']}, {o['load']} |")
    if not rows:
        return []
    return [
        "",
        f"## This build against the baseline build (`{args.baseline_bin}`), same run",
        "",
        "Each size and weighting ran with the baseline build, then with this one, back to back. Times of a run "
        "over the first frames are extrapolated to all frames (marked *). Stress: mdsseries's normalised weighted "
        "stress of the warm frames at T = 0, mean; movement: median displacement of the stocks between consecutive "
        "frames as a fraction of the extent, mean over up to 10 frame pairs.",
        "",
        "| stocks | weights | frames run (base, this) | wall s | CPU s | CPU ratio | MDS ms per warm frame | warm iterations (CG) | "
        "stress | movement | load start/end (base, this) |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ] + rows


def report(args):
    model, simd, cores = cpu_description()
    lines = [
        "# mdsseries benchmark: stock time series (bench/mdsseries)",
        "",
        f"Generated {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC by `bench/mdsseries/run.sh`.",
        f"CPU: {model}, {cores} cores; SIMD flags: {' '.join(simd)}; {platform.platform()}.",
        f"Build: kernels default (portable, AVX2 chosen at run time), Release. {THREADS} OpenMP threads, 1 rank, "
        "`OMP_WAIT_POLICY=passive`; the peer's NumPy/BLAS with 2 threads.",
        "",
        f"Markets: `mdsseries-market` (factor model, {SECTORS} sectors, {DAYS} trading days on weekdays from "
        f"2004-01-02, no gaps); windows of {WINDOW_DAYS} calendar days every {STEP_DAYS} days; distance "
        "`correlation`. The machine is shared: the 1-minute load average at each run's start and end is listed "
        "(2 cores; a load above 2 means other work took part of the cores).",
        "",
        "## mdsseries end to end",
        "",
        "| stocks | weights | frames | wall s | CPU s | per frame ms: distances | MDS | alignment | "
        "warm iterations (CG) | first window MDS s | peak RSS MB | load start/end |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    ours_runs = {}
    for n in args.sizes:
        for weights in ("none", "tradedValue"):
            record = load(f"ours-{n}-{weights}.json")
            if not record:
                continue
            ours_runs[(n, weights)] = record
            done, t = record["done"], record["done"]["timings"]
            frames = done["frames"]
            warm = record["frames"][1:]
            mark = extrapolate(record)
            lines.append(
                f"| {n} | {weights} | {frames} of {record['frames_total']} | {record['wall_all_s']:.0f}{mark} | "
                f"{record['cpu_all_s']:.0f}{mark} | {1000 * t['distances'] / frames:.1f} | "
                f"{1000 * (t['mds'] - t['first_mds']) / max(1, frames - 1):.1f} | {1000 * t['alignment'] / frames:.2f} | "
                f"{mean(f['iterations'] for f in warm):.1f} ({mean(f['cg_iterations'] for f in warm):.0f}) | "
                f"{t['first_mds']:.1f} | {record['maxrss_mb']:.0f} | {record['load_before']:.1f}/{record['load_after']:.1f} |")
    growth = []
    for weights in ("none", "tradedValue"):
        sizes = [n for n in args.sizes if (n, weights) in ours_runs]
        for a, b in zip(sizes, sizes[1:]):
            ta = ours_runs[(a, weights)]["cpu_all_s"] / ours_runs[(a, weights)]["frames_total"]
            tb = ours_runs[(b, weights)]["cpu_all_s"] / ours_runs[(b, weights)]["frames_total"]
            growth.append(f"{weights} {a}→{b}: ×{tb / ta:.1f} per frame (exponent {math.log(tb / ta) / math.log(b / a):.2f})")
    if growth:
        lines += ["", "Growth of the CPU time per frame with the number of stocks (n² would be exponent 2): " +
                  "; ".join(growth) + "."]
    lines += [
        "",
        "## Peer: NumPy + scikit-learn + SciPy, same markets, same windows",
        "",
        "Per frame: `np.corrcoef` of the window's log returns → (1 − r)/2; `sklearn.manifold.MDS(n_components=3, "
        "metric_mds=True, metric='precomputed', n_init=1)` with `fit_transform(D, init=previous frame)` (scikit-learn "
        "has no pair weights, so it is compared with mdsseries `--weights none`); `scipy.linalg.orthogonal_procrustes` "
        "plus the least-squares scale on the centred frames. Where the peer ran a subset of the frames, its total is "
        "extrapolated from the mean of its warm frames (marked *).",
        "",
        "| stocks | frames run | per frame ms: correlations | MDS | alignment | iterations | peer total s | "
        "mdsseries (none) s | ratio | peer peak RSS MB | load start/end |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    quality, peer_times = [], []
    for n in args.sizes:
        record = load(f"peer-{n}.json")
        if not record:
            continue
        # A peer run is kept across reports (--steps without peer): say when it ran.
        peer_times.append(f"{n}: {datetime.datetime.fromtimestamp(os.path.getmtime(os.path.join(OUT, f'peer-{n}.json')), datetime.timezone.utc):%Y-%m-%d %H:%M} UTC")
        runs = record["records"]
        warm = runs[1:] if len(runs) > 1 else runs
        per_frame = mean(r["corr_s"] + r["mds_s"] + r["align_s"] for r in warm)
        total = sum(r["corr_s"] + r["mds_s"] + r["align_s"] for r in runs)
        extrapolated = record["frames_run"] < record["frames_total"]
        if extrapolated:
            total += per_frame * (record["frames_total"] - record["frames_run"])
        ours = ours_runs.get((n, "none"))
        ratio = f"{total / ours['wall_all_s']:.0f}×" if ours else "—"
        lines.append(
            f"| {n} | {record['frames_run']} of {record['frames_total']} | {1000 * mean(r['corr_s'] for r in warm):.1f} | "
            f"{1000 * mean(r['mds_s'] for r in warm):.0f} | {1000 * mean(r['align_s'] for r in warm):.2f} | "
            f"{mean(r['iterations'] for r in warm):.0f} | {total:.0f}{'*' if extrapolated else ''} | "
            f"{ours['wall_all_s']:.1f} | {ratio} | {record['maxrss_mb']:.0f} | "
            f"{record['load_before']:.1f}/{record['load_after']:.1f} |" if ours else
            f"| {n} | {record['frames_run']} | … | … | … | … | {total:.0f} | — | — | {record['maxrss_mb']:.0f} | |")
        evaluated = [r for r in runs if "ours_stress" in r]
        moved = [r for r in runs if "ours_move" in r]
        if evaluated:
            quality.append(
                f"| {n} | {len(evaluated)} | {mean(r['ours_stress'] for r in evaluated):.4f} | "
                f"{mean(r['peer_stress'] for r in evaluated):.4f} | "
                f"{mean(r['ours_move'] for r in moved):.4f} | {mean(r['peer_move'] for r in moved):.4f} |")
    if peer_times:
        lines += ["", "Peer runs finished at (stocks: time) " + "; ".join(peer_times) +
                  "; the ratio sets them against this report's mdsseries run, which may have had another load."]
    if quality:
        lines += [
            "",
            "Same frames, same distance matrices (evaluated outside the timings): normalised stress Σ(δ − c·d)²/Σδ² "
            "at the best scale c (both align with a scale), and the median displacement of the stocks between "
            "consecutive frames as a fraction of the frame's extent.",
            "",
            "| stocks | frames evaluated | stress mdsseries | stress peer | displacement mdsseries | displacement peer |",
            "| --- | --- | --- | --- | --- | --- |",
        ] + quality
    lines += baseline_comparison(args)
    lines.append("")
    with open(RESULTS, "w") as file:
        file.write("\n".join(lines))
    print("\n".join(lines))


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--peer-worker":
        peer_worker(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] if len(sys.argv) > 4 and sys.argv[4] else None)
        return
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="500,2000,7000")
    parser.add_argument("--bin", default=os.path.join(ROOT, "kernels", "build", "bin"))
    parser.add_argument("--steps", default="markets,ours,peer,report",
                        help="any of markets, baseline, ours, peer, report")
    parser.add_argument("--baseline-bin", help="a second mdsseries build for the baseline step")
    parser.add_argument("--weights", default="none,tradedValue")
    parser.add_argument("--max-frames", type=int, default=0,
                        help="mdsseries runs only the first K windows (0: all); the report extrapolates")
    parser.add_argument("--peer-frames", default="500:20",
                        help="size:frames for the peer (0: all); sizes not listed are not run")
    args = parser.parse_args()
    args.sizes = [int(v) for v in args.sizes.split(",")]
    steps = args.steps.split(",")
    os.makedirs(OUT, exist_ok=True)
    if "baseline" in steps and not args.baseline_bin:
        parser.error("the baseline step needs --baseline-bin")
    if "markets" in steps or "ours" in steps or "peer" in steps or "baseline" in steps:
        for n in args.sizes:
            make_market(args, n)
    if "ours" in steps or "baseline" in steps:
        for n in args.sizes:
            for weights in args.weights.split(","):
                if "baseline" in steps:
                    run_ours(args, n, weights, args.max_frames, build="base")
                if "ours" in steps:
                    run_ours(args, n, weights, args.max_frames)
    if "peer" in steps:
        limits = dict((int(a), int(b)) for a, b in (item.split(":") for item in args.peer_frames.split(",")))
        for n in args.sizes:
            if n in limits:
                run_peer(args, n, limits[n])
    if "report" in steps:
        report(args)


if __name__ == "__main__":
    main()
