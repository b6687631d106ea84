"""Jobs through the client: a vectors job run by the real gateway and kernels; params checks."""
from __future__ import annotations

import json
import time

import numpy as np
import pytest

import webplotviz
from webplotviz import WebPlotVizError
from webplotviz.jobs import TERMINAL, _ProgressBars
from webplotviz.params import check_job_params, job_types, params_schema

VECTORS = "name,a,b,c\n" + "".join(
    f"v{i},{(i // 5) * 10 + i % 5 * 0.1},{(i // 5) * -3 + 0.05 * i},{(i % 5) * 0.2}\n" for i in range(20)
)


def test_a_vectors_job_runs_to_a_plot(client: webplotviz.Client, capsys: pytest.CaptureFixture) -> None:
    job = client.submit("vectors", VECTORS.encode(), {"labelColumn": 0, "maxClusters": 4}, name="py vectors")
    assert job.type == "vectors" and job.state in ("queued", "running")
    assert job.wait(progress=True, timeout=300) is job
    assert job.state == "succeeded", job.stages
    assert [s["name"] for s in job.stages] == ["distances", "mds", "pwc", "assemble"]
    assert [s["title"] for s in job.stages] == ["Computing distances", "Mapping to 3D", "Clustering", "Building the plot"]
    # The progress lines name the stages by the titles the API serves.
    assert "4/4 Building the plot" in capsys.readouterr().err
    plot = job.plot()
    # One point per vector, in input order (cluster centres are marked in place, not appended).
    assert plot.name == "py vectors" and plot.points == 20
    assert plot.labels() == [f"v{i}" for i in range(20)]
    xyz = plot.positions()
    assert xyz.shape == (plot.points, 3) and np.isfinite(xyz).all()
    progress = [json.loads(line) for line in job.logs("mds")["stdout"].splitlines() if line.startswith("{")]
    assert progress and all(line["program"] == "damds" for line in progress)
    assert job.id in [j.id for j in client.jobs()]
    with pytest.raises(WebPlotVizError) as caught:
        job.cancel()
    assert caught.value.status == 409


def slow_vectors() -> str:
    """1,500 random 8-D vectors: a job that runs for seconds, long enough to cancel it."""
    rng = np.random.default_rng(5)
    rows = "".join(f"v{i}," + ",".join(f"{x:.4f}" for x in row) + "\n" for i, row in enumerate(rng.normal(size=(1500, 8))))
    return "name," + ",".join("abcdefgh") + "\n" + rows


def test_wait_after_a_cancel_shows_every_stage_stopped(client: webplotviz.Client) -> None:
    job = client.submit("vectors", slow_vectors().encode(), {"labelColumn": 0}, name="py cancelled")
    deadline = time.monotonic() + 120
    while not any(s["runner"] == "hpc" and s["state"] == "running" for s in job.refresh().stages):
        assert job.state in ("queued", "running") and time.monotonic() < deadline, job.stages
        time.sleep(0.05)
    job.cancel()  # the reply still has the program running: the bridge stops it and records it after
    with pytest.raises(WebPlotVizError) as caught:
        job.wait(progress=False, timeout=60)
    assert caught.value.code == "job_cancelled"
    assert [s["name"] for s in job.stages if s["state"] not in TERMINAL] == [], job.stages


def test_progress_lines_say_when_a_program_waits_for_cpus(capsys: pytest.CaptureFixture) -> None:
    bars = _ProgressBars(True)
    bars.tqdm = None  # the stderr lines, whether or not tqdm is installed
    stage = {"name": "pwc", "title": "Clustering", "runner": "hpc", "state": "running", "progress": None, "backendJobId": "4242", "launchedAt": None}
    bars.update([stage])
    bars.update([{**stage, "launchedAt": "2026-11-26T10:00:00Z", "progress": {"fraction": 0.25}}])
    assert capsys.readouterr().err.splitlines() == ["1/1 Clustering: waiting for CPUs", "1/1 Clustering: running 25%"]


def test_wrong_params_fail_with_the_field(client: webplotviz.Client) -> None:
    with pytest.raises(WebPlotVizError) as caught:
        client.submit("vectors", VECTORS.encode(), {"labelColum": 0})
    assert caught.value.field is not None and caught.value.field.startswith("params"), caught.value
    assert "labelColum" in str(caught.value)
    with pytest.raises(WebPlotVizError) as caught:
        client.submit("clustering", VECTORS.encode())
    assert caught.value.field == "type"
    # Where the server's document has per-type schemas, the client refuses before uploading.
    if params_schema(client.openapi(), "vectors") is not None:
        assert caught.value.status is None


def _document(form: dict) -> dict:
    return {
        "paths": {"/jobs": {"post": {"requestBody": {"content": {"multipart/form-data": {"schema": form}}}}}},
        "components": {"schemas": {"VectorsParams": {
            "type": "object", "additionalProperties": False, "required": ["metric"],
            "properties": {"metric": {"enum": ["euclidean"]}, "labelColumn": {"type": "integer"}},
        }}},
    }


def test_params_schemas_in_both_document_shapes() -> None:
    # Today's form: type enum, params a JSON string without a per-type schema.
    today = _document({"type": "object", "properties": {"type": {"enum": ["vectors", "distance-matrix"]}, "params": {"type": "string"}}})
    assert job_types(today) == ["vectors", "distance-matrix"]
    assert params_schema(today, "vectors") is None
    check_job_params(today, "vectors", {"anything": 1})
    with pytest.raises(WebPlotVizError, match="not a job type"):
        check_job_params(today, "nope", {})
    # Per-type variants: oneOf by type, params as an object ($ref) or as JSON text with a contentSchema.
    split = _document({"oneOf": [
        {"type": "object", "properties": {"type": {"const": "vectors"}, "params": {"$ref": "#/components/schemas/VectorsParams"}}},
        {"type": "object", "properties": {"type": {"const": "distance-matrix"}, "params": {
            "type": "string", "contentMediaType": "application/json",
            "contentSchema": {"type": "object", "additionalProperties": False, "properties": {"points": {"type": "integer"}}},
        }}},
    ]})
    assert job_types(split) == ["vectors", "distance-matrix"]
    check_job_params(split, "vectors", {"metric": "euclidean", "labelColumn": 0})
    with pytest.raises(WebPlotVizError) as caught:
        check_job_params(split, "vectors", {"metric": "euclidean", "labelColum": 0})
    assert caught.value.field == "params.labelColum" and caught.value.status is None
    with pytest.raises(WebPlotVizError) as caught:
        check_job_params(split, "vectors", {})
    assert caught.value.field == "params.metric"
    with pytest.raises(WebPlotVizError) as caught:
        check_job_params(split, "distance-matrix", {"n": 5})
    assert caught.value.field == "params.n"
    # One params field for all types, its JSON text's schema a oneOf titled by type.
    titled = _document({"type": "object", "properties": {"type": {"enum": ["vectors", "distance-matrix"]}, "params": {
        "type": "string", "contentMediaType": "application/json", "contentSchema": {"oneOf": [
            {"title": "distance-matrix", "type": "object", "additionalProperties": False, "properties": {"points": {"type": "integer"}}},
            {"$ref": "#/components/schemas/VectorsParams", "title": "vectors"},
        ]},
    }}})
    assert params_schema(titled, "distance-matrix")["properties"] == {"points": {"type": "integer"}}
    with pytest.raises(WebPlotVizError) as caught:
        check_job_params(titled, "distance-matrix", {"n": 5})
    assert caught.value.field == "params.n"
    check_job_params(titled, "distance-matrix", {"points": 5})
    with pytest.raises(WebPlotVizError, match="params.labelColum"):
        check_job_params(titled, "vectors", {"metric": "euclidean", "labelColum": 0})


def _groups_matrix() -> bytes:
    """Two far groups of 12 points, the second made of two tight halves: SPIDAL int16 (distance × 32767)."""
    rng = np.random.default_rng(3)
    centres = np.repeat(np.array([[0.0, 0.0], [10.0, 0.0], [10.0, 3.0]]), [12, 6, 6], axis=0)
    xy = centres + rng.normal(scale=0.3, size=centres.shape)
    distances = np.linalg.norm(xy[:, None, :] - xy[None, :, :], axis=2)
    return np.round(distances / distances.max() * 32767).astype("<i2").tobytes()


def test_recluster_a_cluster_of_a_job_plot(client: webplotviz.Client) -> None:
    job = client.submit("distance-matrix", _groups_matrix(), {"points": 24, "maxClusters": 2, "minClusterSize": 2}, name="py groups")
    plot = job.wait(progress=False, timeout=300).plot()
    keys = plot.cluster_keys()
    second = keys[12]  # a NumPy integer, as scripts have it
    assert (keys[12:] == second).all() and (keys[:12] != second).all(), keys
    child_job = plot.recluster(cluster=second, max_clusters=2, name="py halves")
    assert child_job.type == "recluster"
    child = child_job.wait(progress=False, timeout=300).plot()
    assert child.name == "py halves" and child.points == 12
    assert child.labels() == [str(i) for i in range(12, 24)], "the parent's labels of the chosen points"
    halves = child.cluster_keys()
    assert len(set(halves[:6])) == 1 and len(set(halves[6:])) == 1 and halves[0] != halves[6], halves
    assert child.parent is not None and child.parent.id == plot.id
    assert [c.id for c in plot.refresh().children] == [child.id]
    with pytest.raises(WebPlotVizError) as caught:
        plot.recluster(points=[0, 1])
    assert caught.value.status == 422 and caught.value.code == "too_few_points"
