"""Large arrays stream: the client's memory stays flat while 2M points upload."""
from __future__ import annotations

import tracemalloc

import numpy as np

import webplotviz

POINTS = 2_000_000


def test_two_million_points_stream_in_flat_memory(client: webplotviz.Client) -> None:
    xyz = np.random.default_rng(3).normal(size=(POINTS, 3)).astype(np.float32)  # 24 MB
    keys = (np.arange(POINTS) % 7).astype(np.int64)
    tracemalloc.start()
    try:
        plot = client.upload_points(xyz, clusters=keys, name="two million")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # The CSV text is ~70 MB: built whole it would show here. One 65,536-row chunk and its
    # formatting buffers take a few MB.
    assert peak < 24e6, f"upload peak {peak / 1e6:.1f} MB"
    assert plot.points == POINTS
    back = plot.positions()
    np.testing.assert_array_equal(back, xyz)
    np.testing.assert_array_equal(plot.cluster_keys(), keys.astype(np.uint32))
    plot.delete()
