"""Upload and read back POINTS points through the webplotviz client and through the raw path a
script would write by hand (numpy text → requests multipart; requests.get → numpy.frombuffer),
in ROUNDS paired rounds of alternating order against the server at WPV_URL.

Two cases: NumPy in memory (client.upload_points against np.savetxt + requests.post) and a CSV
file on disk (client.upload against requests.post(files=open(...))); both read the positions
back (plot.positions() against requests.get + np.frombuffer) and check them bit for bit.
"""
from __future__ import annotations

import io
import os
import platform
import secrets
import statistics
import sys
import tempfile
import time
from datetime import datetime, timezone
from typing import Callable, Dict, List, Tuple

import numpy as np
import requests

import webplotviz
import webplotviz.encode

URL = os.environ["WPV_URL"]
POINTS = int(os.environ.get("POINTS", 1_000_000))
ROUNDS = int(os.environ.get("ROUNDS", 3))
PASSWORD = "a long bench passphrase"


def cpu() -> Tuple[str, str]:
    model, flags = platform.processor() or "unknown", ""
    with open("/proc/cpuinfo") as info:
        for line in info:
            key, _, value = line.partition(":")
            if key.strip() == "model name":
                model = value.strip()
            elif key.strip() == "flags" and not flags:
                flags = " ".join(f for f in value.split() if f in ("sse4_2", "avx", "avx2", "fma", "avx512f", "avx512bw", "avx512vl"))
    return model, flags


def load() -> str:
    return " ".join(f"{v:.1f}" for v in os.getloadavg())


def main(out_path: str) -> None:
    user = "bench_" + secrets.token_hex(4)
    requests.post(f"{URL}/api/v1/auth/register", json={"username": user, "password": PASSWORD}, timeout=60).raise_for_status()
    client = webplotviz.Client.login(URL, user, PASSWORD)
    raw = requests.Session()
    raw.headers["Authorization"] = f"Bearer {client.token}"

    rng = np.random.default_rng(11)
    xyz = (rng.normal(size=(POINTS, 3)) * 100).astype(np.float32)
    keys = np.arange(POINTS) % 8
    csv = os.path.join(tempfile.mkdtemp(), "points.csv")
    with open(csv, "wb") as out:
        for chunk in webplotviz.encode.PointTable(xyz, keys).frame_csv(0):
            out.write(chunk)

    def raw_read(plot_id: str) -> np.ndarray:
        body = raw.get(f"{URL}/api/v1/plots/{plot_id}/frames/0/positions", timeout=600)
        body.raise_for_status()
        return np.frombuffer(body.content, dtype="<f4").reshape(-1, 3)

    def raw_post(files: Dict[str, object]) -> str:
        answer = raw.post(f"{URL}/api/v1/plots", files=files, timeout=3600)
        answer.raise_for_status()
        return str(answer.json()["id"])

    def raw_numpy() -> Tuple[str, np.ndarray]:
        text = io.BytesIO()
        np.savetxt(text, np.column_stack([xyz, keys]), fmt=["%.9g"] * 3 + ["%d"], delimiter=",", header="x,y,z,cluster", comments="")
        plot_id = raw_post({"file": ("points.csv", text.getvalue())})
        return plot_id, raw_read(plot_id)

    def raw_file() -> Tuple[str, np.ndarray]:
        with open(csv, "rb") as handle:
            plot_id = raw_post({"file": ("points.csv", handle)})
        return plot_id, raw_read(plot_id)

    def client_numpy() -> Tuple[str, np.ndarray]:
        plot = client.upload_points(xyz, clusters=keys)
        return plot.id, plot.positions()

    def client_file() -> Tuple[str, np.ndarray]:
        plot = client.upload(csv)
        return plot.id, plot.positions()

    cases: List[Tuple[str, Callable[[], Tuple[str, np.ndarray]], Callable[[], Tuple[str, np.ndarray]]]] = [
        ("NumPy array → plot → NumPy", client_numpy, raw_numpy),
        ("CSV file → plot → NumPy", client_file, raw_file),
    ]
    started = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%MZ")
    load_start = load()
    rows: List[str] = []
    summary: List[str] = []
    for name, through_client, by_hand in cases:
        ratios: List[float] = []
        for round_ in range(ROUNDS):
            timed: Dict[str, float] = {}
            order = [("client", through_client), ("raw", by_hand)]
            for label, run in order if round_ % 2 == 0 else order[::-1]:
                began = time.perf_counter()
                plot_id, back = run()
                timed[label] = time.perf_counter() - began
                if not np.array_equal(back, xyz):
                    sys.exit(f"{name}, {label}: the positions read back differ from those sent")
                client.plot(plot_id).delete()
            ratios.append(timed["client"] / timed["raw"])
            rows.append(f"| {name} | {round_ + 1} | {timed['raw']:.2f} | {timed['client']:.2f} | {ratios[-1]:.3f} |")
            print(rows[-1], flush=True)
        median = statistics.median(ratios)
        verdict = "within" if median <= 1.10 else "OVER"
        summary.append(f"| {name} | {median:.3f} | {min(ratios):.3f}–{max(ratios):.3f} | {verdict} the 1.10 limit |")

    model, flags = cpu()
    report = f"""## Python client (`webplotviz`) vs raw requests + numpy.frombuffer

Measured {started} on this machine ({os.cpu_count()} cores, {model}, flags {flags}), Python {platform.python_version()},
NumPy {np.__version__}, requests {requests.__version__}; API server on FerretDB (SQLite) on the same cores.
Load average {load_start} at the start, {load()} at the end (other work shares the machine).
{POINTS:,} points with a cluster key each, uploaded and read back (positions, bit-exact check) per run;
{ROUNDS} paired rounds per case, the order alternating, each plot deleted after its run.
Raw NumPy path: `np.savetxt` (`%.9g`, exact for float32) into memory, `requests.post(files=)`;
raw file path: `requests.post(files={{"file": open(...)}})`; both read back with `requests.get` + `np.frombuffer`.
The client streams NumPy points as CSV made in 16,384-row chunks (chunked transfer), a file from disk with a Content-Length, and reads positions into one buffer.
Command: `bash bench/with-stack.sh bash bench/python-client/run.sh`.

| case | client / raw (median) | range | limit |
| --- | --- | --- | --- |
{chr(10).join(summary)}

| case | round | raw s | client s | client / raw |
| --- | --- | --- | --- | --- |
{chr(10).join(rows)}

Most of each run is the server's ingest (parse, store), the same for both paths.
"""
    with open(out_path, "w") as out:
        out.write(report)
    print(report)


if __name__ == "__main__":
    main(sys.argv[1])
