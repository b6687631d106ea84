#!/usr/bin/env python3
"""Out-of-core DA-PWC benchmark: the E/M step (one pass over the rank's distance rows)
with the rows streamed from the SPIDAL file on every pass (kernels/dapwc/src/row_stream.cpp,
over kernels/common's spidal/row_stream.hpp) against the same step with the rows in
memory at the same N, and against the disk's sequential read bandwidth measured in the
same run. Shares its matrix generator, disk probe and CPU description with
bench/damds/stream.py. Writes bench/results/dapwc-stream.md.

    python3 bench/dapwc/stream.py [--bin kernels/build/bin] [--n 20000] [--large 150000] [--large-limit 24G]
                                  [--clusters 8] [--dir DIR]
"""
import argparse
import datetime
import importlib.util
import json
import os
import platform
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RESULTS = os.path.join(ROOT, "bench", "results", "dapwc-stream.md")

_spec = importlib.util.spec_from_file_location("damds_stream", os.path.join(ROOT, "bench", "damds", "stream.py"))
damds_stream = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(damds_stream)


def run_em_bench(args, path, n, iterations, limit=None):
    """`iterations` timed E/M steps after a warm-up, on 1 rank × 2 OpenMP threads."""
    command = [os.path.join(args.bin, "dapwc_em_bench"), "--distances", path, "--points", str(n),
               "--clusters", str(args.clusters), "--iterations", str(iterations)]
    if limit:
        command += ["--memory-limit", limit]
    lines, max_rss_gb, disk_read_gb = damds_stream.run_measured(command, "dapwc_em_bench")
    return {
        "streamed": lines[-1]["streamed"],
        "per_pass": lines[-1]["seconds_per_iteration"],
        "best_pass": lines[-1]["best_seconds"],
        "max_rss_gb": max_rss_gb,
        "disk_read_gb": disk_read_gb,
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default=os.path.join(ROOT, "kernels", "build", "bin"))
    parser.add_argument("--n", type=int, default=20000, help="N run both in memory and streamed (0: skip)")
    parser.add_argument("--large", type=int, default=150000, help="N of the larger-than-RAM run (0: skip)")
    parser.add_argument("--large-limit", default="24G", help="--memory-limit of the large run")
    parser.add_argument("--clusters", type=int, default=8)
    parser.add_argument("--iterations", type=int, default=5)
    parser.add_argument("--dir", default=os.path.join(ROOT, "bench", "out", "dapwc-stream"))
    args = parser.parse_args()
    os.makedirs(args.dir, exist_ok=True)
    generate = damds_stream.generator(args.dir)
    load_before = os.getloadavg()[0]
    # Each part's figures are kept in --dir, so the parts can run separately (--n 0 or
    # --large 0) and the report shows the latest of each.
    saved_path = os.path.join(args.dir, "figures.json")
    saved = json.load(open(saved_path)) if os.path.exists(saved_path) else {}
    if args.n:
        matrix_gb = 2 * args.n * args.n / 1e9
        # Rows over ¾ of the limit stream; blocks are a quarter of it: 8 and more per pass.
        limit = f"{max(1, int(matrix_gb * 1e3 / 2))}M"
        path = os.path.join(args.dir, f"n{args.n}.bin")
        subprocess.run([generate, str(args.n), path], check=True)
        try:
            in_memory = run_em_bench(args, path, args.n, args.iterations)
            disk_before = damds_stream.disk_read_bandwidth(path, 4 << 30)
            streamed = run_em_bench(args, path, args.n, args.iterations, limit)
            disk_after = damds_stream.disk_read_bandwidth(path, 4 << 30)
        finally:
            os.remove(path)
        saved["mid"] = {"n": args.n, "clusters": args.clusters, "iterations": args.iterations, "limit": limit,
                        "in_memory": in_memory, "streamed": streamed, "disk_before": disk_before,
                        "disk_after": disk_after, "cpu": damds_stream.cpu_description(),
                        "load_average": [load_before, os.getloadavg()[0]], "date": now()}
        print(json.dumps(saved["mid"]), flush=True)
    if args.large:
        path = os.path.join(args.dir, f"n{args.large}.bin")
        generate_seconds = damds_stream.large_matrix(generate, path, args.large)
        try:
            disk = damds_stream.disk_read_bandwidth(path, 4 << 30)
            # One timed E/M step after the warm-up: with the scan that checks the matrix, three passes over the file.
            large = run_em_bench(args, path, args.large, 1, args.large_limit)
        finally:
            os.remove(path)
        saved["large"] = dict(large, n=args.large, clusters=args.clusters, limit=args.large_limit, disk=disk,
                              generate=generate_seconds, cpu=damds_stream.cpu_description(),
                              load_average=[load_before, os.getloadavg()[0]], date=now())
        print(json.dumps(saved["large"]), flush=True)
    with open(saved_path, "w") as file:
        json.dump(saved, file)
    if "mid" in saved:
        write_report(saved)


def now():
    return f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M}"


def write_report(saved):
    f = saved["mid"]
    memory_gb = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 1e9
    matrix_mb = 2 * f["n"] * f["n"] / 1e6
    in_memory, streamed = f["in_memory"], f["streamed"]
    lines = [
        "# Out-of-core DA-PWC benchmark",
        "",
        f"Run {f['date']} UTC on {platform.node()}: {f['cpu']}; {memory_gb:.0f} GB RAM, no swap; load average "
        f"{f['load_average'][0]:.1f} before, {f['load_average'][1]:.1f} after (the machine and its disk are shared "
        "with other work, so figures are noisy). Command: `python3 bench/dapwc/stream.py`.",
        "",
        f"Matrix: N = {f['n']:,} random points in the unit cube as little-endian SPIDAL int16 "
        f"(`bench/damds/generate_matrix.cpp`), {matrix_mb / 1e3:.2f} GB, deleted after the run. "
        f"`dapwc_em_bench` times {f['iterations']} E/M steps at K = {f['clusters']} after a warm-up step, on 1 rank "
        "× 2 OpenMP threads; each step is one pass over the rank's rows (`multiply_rows`) plus O(N·K) work. "
        f"Streamed (`--memory-limit {f['limit']}`): the rows, more than ¾ of the limit, are read from the file on "
        f"every pass in blocks of a quarter of the limit (at most 256 MB) {damds_stream.STREAMING}",
        "",
        "| run | s/pass (mean) | s/pass (best) | peak RSS GB | read from disk GB |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for name, run in [("in memory", in_memory), (f"streamed (limit {f['limit']})", streamed)]:
        lines.append(f"| {name} | {run['per_pass']:.3f} | {run['best_pass']:.3f} | {run['max_rss_gb']:.2f} | "
                     f"{run['disk_read_gb']:.1f} |")
    lines += [
        "",
        damds_stream.bandwidth_sentence(f, matrix_mb, streamed["per_pass"], "rows") + "; it takes "
        f"**{streamed['per_pass'] / in_memory['per_pass']:.1f}×** the in-memory pass's time (means; the best "
        f"streamed pass read {matrix_mb / streamed['best_pass']:.0f} MB/s, {streamed['best_pass'] / in_memory['best_pass']:.1f}× "
        "the best in-memory one). The clusters are the same either way (`ctest -R dapwc`: byte-identical files "
        "and progress lines streamed and in memory).",
    ]
    large = saved.get("large")
    if large:
        large_mb = 2 * large["n"] ** 2 / 1e6
        heading, generated = damds_stream.large_section_head(large)
        lines += heading + [
            f"The SPIDAL file is {large_mb / 1e3:.0f} GB ({memory_gb:.0f} GB RAM), more than ¾ of `--memory-limit "
            f"{large['limit']}`, so the rows stream. Generated {generated}; disk {large['disk']:.0f} MB/s (sequential, "
            f"first 4 GB, probed once before the run). K = {large['clusters']}; the scan that checks the matrix, "
            f"the warm-up step and one timed E/M step read the file three times. The timed step took "
            f"**{large['per_pass']:.0f} s** ({large_mb / large['per_pass']:.0f} MB/s of rows, "
            f"{large_mb / large['per_pass'] / large['disk']:.0%} of the probe's bandwidth); peak RSS "
            f"**{large['max_rss_gb']:.2f} GB**, {large['disk_read_gb']:.0f} GB read from disk in all.",
        ]
    with open(RESULTS, "w") as file:
        file.write("\n".join(lines) + "\n")
    print(f"wrote {RESULTS}")


if __name__ == "__main__":
    main()
