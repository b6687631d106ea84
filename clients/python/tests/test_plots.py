"""Uploads in every format and from NumPy, read back equal; listing, edits, export, selections, errors."""
from __future__ import annotations

import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import webplotviz
from webplotviz import WebPlotVizError

from conftest import PASSWORD

RNG = np.random.default_rng(7)


def points(n: int) -> np.ndarray:
    # Values that are not exactly representable in decimal: read-back must still be bit-exact.
    return (RNG.normal(size=(n, 3)) * 1000).astype(np.float32)


def assert_same(actual: np.ndarray, expected: np.ndarray) -> None:
    assert actual.dtype == np.float32 and actual.shape == expected.shape
    np.testing.assert_array_equal(actual, expected.astype(np.float32))


def text_of(xyz: np.ndarray, clusters: np.ndarray, labels: list) -> str:
    return "".join(f"{i} {x!r} {y!r} {z!r} {c} {label}\n" for i, ((x, y, z), c, label) in enumerate(zip(xyz.tolist(), clusters.tolist(), labels)))


def test_each_file_format_reads_back_equal(client: webplotviz.Client, tmp_path: Path) -> None:
    xyz = points(50)
    clusters = np.arange(50) % 4
    labels = [f"point {i}" for i in range(50)]
    text = tmp_path / "run.txt"
    text.write_text(text_of(xyz, clusters, labels))
    csv = tmp_path / "run.csv"
    csv.write_text("x,y,z,cluster,label\n" + "".join(f"{x!r},{y!r},{z!r},{c},\"{l}\"\n" for (x, y, z), c, l in zip(xyz.tolist(), clusters.tolist(), labels)))
    pviz = tmp_path / "run.pviz"
    pviz.write_text(
        "<plotviz><plot><title>run</title></plot><clusters>"
        + "".join(f'<cluster><key>{k}</key><label>c{k}</label><visible>1</visible><color r="1" g="2" b="3" a="255"/><size>1</size><shape>0</shape></cluster>' for k in range(4))
        + "</clusters><points>"
        + "".join(f'<point><key>{i}</key><clusterkey>{c}</clusterkey><label>{l}</label><location x="{x!r}" y="{y!r}" z="{z!r}"/></point>' for i, ((x, y, z), c, l) in enumerate(zip(xyz.tolist(), clusters.tolist(), labels)))
        + '</points><edges><edge><key>e0</key><vertices><vertex key="0"/><vertex key="3"/><vertex key="7"/></vertices></edge></edges></plotviz>'
    )
    archive = tmp_path / "series.zip"
    second = points(50)
    with zipfile.ZipFile(archive, "w") as out:
        out.writestr("a.txt", text_of(xyz, clusters, labels))
        out.writestr("b.txt", text_of(second, clusters, labels))

    for path in (text, csv, pviz, archive):
        plot = client.upload(path, name=path.name, tags=["pytest", path.suffix[1:]])
        assert plot.name == path.name and plot.points == 50
        assert_same(plot.positions(0), xyz)
        np.testing.assert_array_equal(plot.cluster_keys(0), clusters.astype(np.uint32))
        assert plot.labels(0) == labels
        assert sorted(c["key"] for c in plot.clusters) == [0, 1, 2, 3]
    assert plot.frames == 2
    assert_same(plot.positions(1), second)
    pviz_plot = client.plots(q="run.pviz", mine=True)[0]
    assert pviz_plot.edges(0) == [{"key": "e0", "vertices": [0, 3, 7]}]


def test_numpy_points_with_clusters_labels_and_metadata(client: webplotviz.Client) -> None:
    xyz = points(1000)
    names = np.array(["alpha", "beta, gamma", 'say "hi"'])[np.arange(1000) % 3]
    labels = [f"p{i}" if i % 10 else f" spaced, {i} " for i in range(1000)]
    metadata = pd.DataFrame({"score": RNG.random(1000), "kind": np.where(np.arange(1000) % 2, "odd", "even")})
    plot = client.upload_points(xyz, clusters=names, labels=labels, metadata=metadata, name="numpy run")
    assert_same(plot.positions(), xyz)
    table = {c["key"]: c["label"] for c in plot.clusters}
    assert [table[k] for k in plot.cluster_keys().tolist()] == names.tolist()
    assert plot.labels() == labels
    frame = plot.to_dataframe()
    assert list(frame.columns) == ["x", "y", "z", "cluster", "cluster_label", "label", "score", "kind"]
    np.testing.assert_array_equal(frame["x"].to_numpy(), xyz[:, 0])
    assert frame["cluster_label"].astype(str).tolist() == names.tolist()
    # The metadata columns come back: numbers as float32, text as strings.
    assert [(c["name"], c["kind"]) for c in plot.columns] == [("score", "number"), ("kind", "category")]
    np.testing.assert_array_equal(plot.column("score"), metadata["score"].to_numpy().astype(np.float32))
    assert plot.column("kind").tolist() == metadata["kind"].tolist()
    assert frame["kind"].astype(str).tolist() == metadata["kind"].tolist()
    with pytest.raises(webplotviz.WebPlotVizError, match="no metadata column"):
        plot.column("colour")

    # Integer keys, no labels, one frame of (N, 2)-shaped input is refused before sending.
    keys = np.arange(1000) % 5
    plain = client.upload_points(xyz, clusters=keys)
    np.testing.assert_array_equal(plain.cluster_keys(), keys.astype(np.uint32))
    with pytest.raises(ValueError, match="xyz"):
        client.upload_points(xyz[:, :2])
    with pytest.raises(ValueError, match="clusters"):
        client.upload_points(xyz, clusters=keys[:10])
    with pytest.raises(ValueError, match="finite"):
        client.upload_points(np.full((3, 3), np.nan))


def test_numpy_time_series(client: webplotviz.Client) -> None:
    series = np.stack([points(300) for _ in range(4)])
    labels = [f"ticker{i}" for i in range(300)]
    clusters = np.stack([np.arange(300) % (f + 2) for f in range(4)])
    plot = client.upload_points(series, clusters=clusters, labels=labels, name="series")
    assert plot.frames == 4 and plot.points == 300 and plot.info["format"] == "zip"
    for frame in range(4):
        assert_same(plot.positions(frame), series[frame])
        np.testing.assert_array_equal(plot.cluster_keys(frame), clusters[frame].astype(np.uint32))
        assert plot.labels(frame) == labels


def test_errors_carry_code_field_and_line(client: webplotviz.Client, tmp_path: Path) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text("x,y,z\n1,2,3\n4,five,6\n")
    with pytest.raises(WebPlotVizError) as caught:
        client.upload(bad)
    assert caught.value.status == 422 and caught.value.line == 3 and caught.value.code == "bad_number"
    assert str(caught.value) == 'line 3: y: "five" is not a number'
    good = tmp_path / "good.txt"
    good.write_text("1 2 3\n")
    with pytest.raises(WebPlotVizError) as caught:
        client.upload(good, visibility="everyone")
    assert caught.value.field == "visibility" and caught.value.status == 400
    assert "visibility" in str(caught.value)
    with pytest.raises(WebPlotVizError) as caught:
        client.plot("no-such-plot")
    assert caught.value.status == 404 and caught.value.code == "not_found"


def test_listing_updates_export_and_delete(make_account, tmp_path: Path) -> None:
    _, alice = make_account()
    _, bob = make_account()
    xyz = points(20)
    plot = alice.upload_points(xyz, name="listing probe", tags=["probe"])
    assert [p.id for p in alice.plots(q="listing probe")] == [plot.id]
    assert [p.id for p in alice.plots(tag="probe", mine=True)] == [plot.id]
    assert bob.plots(q="listing probe") == []
    listed = alice.plots(q="listing probe")[0]
    assert listed.clusters == plot.clusters  # fetched on demand: listings leave the table out

    plot.update(name="listing probe 2", visibility="public", tags=["probe", "shared"])
    assert (plot.name, plot.visibility, plot.tags) == ("listing probe 2", "public", ["probe", "shared"])
    assert_same(bob.plot(plot.id).positions(), xyz)
    with pytest.raises(WebPlotVizError) as caught:
        bob.plot(plot.id).update(name="mine now")
    assert caught.value.status == 403

    exported = plot.export(tmp_path / "out.pviz")
    assert "<plotviz>" in Path(exported).read_text()[:200]
    reupload = alice.upload(exported)
    assert_same(reupload.positions(), xyz)
    original = plot.export(tmp_path / "orig.csv", format="original")
    assert Path(original).read_text().startswith("x,y,z\n")

    # Sizes: each plot's, the largest first, and their sum as the quota counts it.
    larger = alice.upload_points(points(2000), name="larger probe")
    by_size = alice.plots(mine=True, sort="size")
    assert {p.id for p in by_size} == {larger.id, reupload.id, plot.id} and by_size[0].id == larger.id
    sizes = [p.stored_bytes for p in by_size]
    assert all(size is not None and size > 0 for size in sizes) and sizes == sorted(sizes, reverse=True)
    use = alice.storage()
    assert use["usedBytes"] == sum(sizes) and use["limitBytes"] > use["usedBytes"]

    plot.delete()
    with pytest.raises(WebPlotVizError) as caught:
        alice.plot(plot.id)
    assert caught.value.status == 404


def test_named_selections(make_account) -> None:
    _, alice = make_account()
    _, bob = make_account()
    plot = alice.upload_points(points(100), name="selections", visibility="public")
    assert plot.selections() == {}
    saved = plot.save_selection("outliers", [99, 3, 42])
    assert saved["count"] == 3 and saved["frame"] == 0
    flags = np.zeros(100, dtype=bool)
    flags[::10] = True
    plot.save_selection("every tenth", flags)
    found = bob.plot(plot.id).selections()
    assert sorted(found) == ["every tenth", "outliers"]
    np.testing.assert_array_equal(found["outliers"], [3, 42, 99])
    np.testing.assert_array_equal(found["every tenth"], np.arange(0, 100, 10))
    with pytest.raises(WebPlotVizError) as caught:
        bob.plot(plot.id).save_selection("mine", [1])
    assert caught.value.status == 403
    with pytest.raises(WebPlotVizError) as caught:
        plot.save_selection("../bad", [1])
    assert caught.value.field == "name"
    with pytest.raises(WebPlotVizError) as caught:
        plot.save_selection("big", [100])
    assert caught.value.field == "indices"
    plot.delete_selection("outliers")
    assert list(plot.selections()) == ["every tenth"]


def test_tree(make_account, tmp_path: Path) -> None:
    _, alice = make_account()
    _, bob = make_account()
    labels = ["a1", "a2", "a3", "b1", "b2"]
    plot = alice.upload_points(points(5), labels=labels, name="tree", visibility="public")
    assert plot.tree() is None
    newick = tmp_path / "fasttree.nwk"
    newick.write_text("(a1:1,a2:1,(a3:0.5,(b1:1,(b2:1,ghost:1):0.2):6):0.5);\n")
    attached = plot.set_tree(newick, root="midpoint")
    assert (attached["leaves"], attached["matched"], attached["unmatched"], attached["root"]) == (6, 5, ["ghost"], "midpoint")
    tree = bob.plot(plot.id).tree()
    assert tree is not None and tree["originalName"] == "fasttree.nwk"
    assert sorted(labels[p] for p in tree["nodes"]["point"] if p >= 0) == sorted(labels)
    with pytest.raises(WebPlotVizError) as caught:
        plot.set_tree(b"(a1,\n  a2;")
    assert (caught.value.status, caught.value.field) == (400, "file") and "line 2, column 5" in str(caught.value)
    with pytest.raises(WebPlotVizError) as caught:
        bob.plot(plot.id).delete_tree()
    assert caught.value.status == 403
    # Newick text goes as newick=; a str source is a path, and Newick text there says so.
    text = plot.set_tree(newick="((a1:1,a2:1):2,(b1:1,b2:1):2);", filename="text.nwk")
    assert (text["matched"], text["originalName"]) == (4, "text.nwk")
    assert plot.tree()["nodes"]["name"].count("a1") == 1  # type: ignore[index]
    with pytest.raises(TypeError, match="newick="):
        plot.set_tree("(a1:1,b1:1);")
    with pytest.raises(TypeError, match="one of the two"):
        plot.set_tree(newick, newick="(a1:1,b1:1);")
    plot.delete_tree()
    assert plot.tree() is None


def test_token_from_the_environment(make_account, url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    _, owner = make_account()
    plot = owner.upload_points(points(5), name="env token")
    monkeypatch.setenv("WEBPLOTVIZ_TOKEN", owner.token)
    from_env = webplotviz.Client(url)
    assert from_env.token == owner.token
    assert from_env.plot(plot.id).id == plot.id
    monkeypatch.delenv("WEBPLOTVIZ_TOKEN")
    with pytest.raises(WebPlotVizError) as caught:
        webplotviz.Client(url).plot(plot.id)
    assert caught.value.status == 404, "a private plot is invisible without the token"


def test_notebook_html(client: webplotviz.Client) -> None:
    plot = client.upload_points(points(5), name="<notebook>")
    private = plot._repr_html_()
    assert "<iframe" not in private and f'href="{plot.url}"' in private and "&lt;notebook&gt;" in private
    plot.update(visibility="public")
    public = plot._repr_html_()
    assert f'src="{plot.url}?embed=1"' in public


def test_logging_in_again_makes_another_token_and_a_taken_name_is_refused(make_account, url: str) -> None:
    username, first = make_account()
    password = PASSWORD
    second = webplotviz.Client.login(url, username, password)  # a notebook re-run: a second unnamed token
    assert second.token and second.token != first.token
    webplotviz.Client.login(url, username, password, token_name="laptop")
    with pytest.raises(WebPlotVizError) as refused:
        webplotviz.Client.login(url, username, password, token_name="laptop")
    assert (refused.value.status, refused.value.field) == (409, "name")
    names = sorted(token["name"] for token in second.request("GET", "/auth/tokens").json())
    assert names == ["API token 1", "API token 2", "laptop"]


def test_a_read_only_token_reads_and_is_refused_changes(make_account, url: str) -> None:
    username, owner = make_account()
    xyz = points(10)
    plot = owner.upload_points(xyz, name="read probe")
    reader = webplotviz.Client.login(url, username, PASSWORD, "notebook", scope="read", expires_in_days=30)
    assert_same(reader.plot(plot.id).positions(), xyz)
    with pytest.raises(WebPlotVizError) as caught:
        reader.plot(plot.id).update(name="renamed")
    assert (caught.value.status, caught.value.code) == (403, "read_only_token")
    with pytest.raises(WebPlotVizError) as caught:
        reader.upload_points(xyz, name="not mine to add")
    assert caught.value.code == "read_only_token"
    assert owner.plot(plot.id).name == "read probe"
