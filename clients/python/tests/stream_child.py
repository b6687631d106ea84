"""Run by test_streaming in a fresh interpreter (so freed memory of other tests cannot hide growth):
uploads N random points with cluster keys, prints {"id", "growth"} as JSON. Argv: URL N SEED."""
from __future__ import annotations

import json
import os
import sys
import threading

import numpy as np

import webplotviz

PAGE = os.sysconf("SC_PAGE_SIZE")


def rss() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * PAGE


def main() -> None:
    url, count, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    xyz = np.random.default_rng(seed).normal(size=(count, 3)).astype(np.float32)
    keys = np.arange(count) % 7
    client = webplotviz.Client(url)  # the token from WEBPLOTVIZ_TOKEN
    before = peak = rss()
    done = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not done.wait(0.005):
            peak = max(peak, rss())

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    plot = client.upload_points(xyz, clusters=keys, name=f"{count} points")
    done.set()
    sampler.join()
    print(json.dumps({"id": plot.id, "growth": peak - before}))


if __name__ == "__main__":
    main()
