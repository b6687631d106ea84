"""A plot on the server: its metadata, per-frame binary data as NumPy arrays, edits, selections, its tree."""
from __future__ import annotations

import base64
import html
import os
from urllib.parse import quote
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence, Union

import numpy as np

from .encode import file_part
from .errors import WebPlotVizError

if TYPE_CHECKING:
    from .client import Client
    from .jobs import Job

#: Bytes streamed to disk per read when exporting.
EXPORT_CHUNK = 1 << 20


class Plot:
    """A plot as the API describes it (``GET /plots/{id}``); point data is fetched on request.

    Attributes:
        id: the plot id.
        warnings: the server's warnings when this Plot came from an upload, else [].
    """

    def __init__(self, client: "Client", data: Dict[str, Any]) -> None:
        self._client = client
        self._data = data
        self.id: str = data["id"]
        self.warnings: List[str] = list(data.get("warnings", []))

    def __repr__(self) -> str:
        return f"<Plot {self.id} {self.name!r}: {self.frames} frame(s) × {self.points} points, {self.visibility}>"

    def _full(self) -> Dict[str, Any]:
        """Library listings leave out the cluster table and frame list: fetched when first needed."""
        if "clusters" not in self._data:
            self.refresh()
        return self._data

    def refresh(self) -> "Plot":
        """Reads the plot's metadata again."""
        self._data = self._client.request("GET", f"/plots/{self.id}").json()
        return self

    @property
    def name(self) -> str:
        return str(self._data["name"])

    @property
    def url(self) -> str:
        """The plot's page in the viewer."""
        return f"{self._client.url}/plots/{self.id}"

    @property
    def frames(self) -> int:
        """The number of frames (1 unless a time series)."""
        return int(self._data["frames"])

    @property
    def points(self) -> int:
        """Points per frame (the largest frame's count)."""
        return int(self._data["points"])

    @property
    def visibility(self) -> str:
        return str(self._data["visibility"])

    @property
    def stored_bytes(self) -> Optional[int]:
        """Bytes it takes of its owner's storage quota (None for plots stored before sizes were counted)."""
        value = self._data.get("storedBytes")
        return None if value is None else int(value)

    @property
    def tags(self) -> List[str]:
        return list(self._data["tags"])

    @property
    def owner(self) -> str:
        return str(self._data["owner"])

    @property
    def info(self) -> Dict[str, Any]:
        """The whole metadata document, as the API returns it."""
        return self._full()

    @property
    def clusters(self) -> List[Dict[str, Any]]:
        """The cluster table: dicts of key, label, color {r,g,b,a}, shape, size, visible, count."""
        return list(self._full()["clusters"])

    @property
    def frame_list(self) -> List[Dict[str, Any]]:
        """Per frame: index, title, points, edges."""
        return list(self._full()["frameList"])

    @property
    def columns(self) -> List[Dict[str, Any]]:
        """The metadata columns (extra CSV columns, PlotViz point properties, FASTA descriptions,
        stock sectors): dicts of name, kind (``"category"`` with its ``categories``, or ``"number"``
        with ``min``/``max``). Their values: :meth:`column`."""
        return list(self._full().get("columns", []))

    # -- point data ---------------------------------------------------------------------------

    def _frame_bytes(self, frame: int, kind: str) -> Union[bytearray, bytes]:
        """A frame's binary blob, read straight into one buffer of its announced length."""
        response = self._client.request("GET", f"/plots/{self.id}/frames/{frame}/{kind}", stream=True)
        with response:
            length = response.headers.get("Content-Length")
            if length is None or response.headers.get("Content-Encoding"):
                return response.content
            buffer = bytearray(int(length))
            view = memoryview(buffer)
            filled = 0
            while filled < len(buffer):
                read = response.raw.readinto(view[filled:])
                if not read:
                    raise WebPlotVizError("truncated", f"{kind} of frame {frame}: {filled} of {len(buffer)} bytes arrived")
                filled += read
            return buffer

    def positions(self, frame: int = 0) -> np.ndarray:
        """The frame's points as a float32 (N, 3) array over the downloaded bytes (no copy)."""
        return np.frombuffer(self._frame_bytes(frame, "positions"), dtype="<f4").reshape(-1, 3)

    def cluster_keys(self, frame: int = 0) -> np.ndarray:
        """The frame's cluster key per point, uint32 (N,)."""
        return np.frombuffer(self._frame_bytes(frame, "clusters"), dtype="<u4")

    def labels(self, frame: int = 0) -> List[str]:
        """The frame's point labels ("" where a point has none)."""
        return list(self._client.request("GET", f"/plots/{self.id}/frames/{frame}/labels").json())

    def column(self, name: str, frame: int = 0) -> np.ndarray:
        """A metadata column's value per point of the frame: float32 (N,) for a number column (NaN
        where a point has none), else an object array of str ("" where a point has none), decoded
        from the compact codes the server sends."""
        columns = self.columns
        found = [k for k, c in enumerate(columns) if c["name"] == name]
        if not found:
            raise WebPlotVizError("not_found", f"no metadata column {name!r}; the plot has {[c['name'] for c in columns]}", field="name")
        spec = columns[found[0]]
        data = self._frame_bytes(frame, f"columns/{found[0]}")
        if spec["kind"] == "number":
            return np.frombuffer(data, dtype="<f4")
        codes = np.frombuffer(data, dtype="<u2" if spec.get("codeBytes") == 2 else "<u4")
        return np.asarray(spec["categories"], dtype=object)[codes]

    def edges(self, frame: int = 0) -> List[Dict[str, Any]]:
        """The frame's edges: dicts of key and vertices (point indices of a polyline)."""
        return list(self._client.request("GET", f"/plots/{self.id}/frames/{frame}/edges").json())

    def to_dataframe(self, frame: int = 0) -> Any:
        """The frame as a pandas DataFrame: x, y, z, cluster (key), cluster_label, label, then
        the metadata columns by name (text columns as categoricals).

        Needs pandas (``pip install 'webplotviz[pandas]'``)."""
        try:
            import pandas as pd
        except ImportError as err:  # pragma: no cover - depends on the environment
            raise ImportError("to_dataframe needs pandas: pip install 'webplotviz[pandas]'") from err
        xyz = self.positions(frame)
        keys = self.cluster_keys(frame)
        names = {c["key"]: c["label"] for c in self.clusters}
        return pd.DataFrame({
            "x": xyz[:, 0],
            "y": xyz[:, 1],
            "z": xyz[:, 2],
            "cluster": keys,
            "cluster_label": pd.Categorical([names.get(int(k), str(k)) for k in keys.tolist()]),
            "label": self.labels(frame),
            **{c["name"]: self._series(c, frame) for c in self.columns},
        })

    def _series(self, spec: Dict[str, Any], frame: int) -> Any:
        import pandas as pd

        values = self.column(spec["name"], frame)
        return pd.Categorical(values, categories=spec["categories"]) if spec["kind"] == "category" else values

    # -- changes ------------------------------------------------------------------------------

    def export(self, path: Union[str, "os.PathLike[str]"], format: str = "pviz") -> str:
        """Writes the plot to `path`, streamed: ``"pviz"`` (PlotViz XML, a ZIP for a time series)
        or ``"original"`` (the file as uploaded). Returns the path."""
        response = self._client.request("GET", f"/plots/{self.id}/export", params={"format": format}, stream=True)
        with response, open(path, "wb") as out:
            for chunk in response.iter_content(EXPORT_CHUNK):
                out.write(chunk)
        return os.fspath(path)

    def update(
        self,
        *,
        name: Optional[str] = None,
        visibility: Optional[str] = None,
        tags: Optional[Sequence[str]] = None,
        description: Optional[str] = None,
        collection: Optional[str] = None,
    ) -> "Plot":
        """Changes the plot's metadata (owner only); arguments left out stay as they are."""
        patch = {"name": name, "visibility": visibility, "description": description, "collection": collection}
        body: Dict[str, Any] = {key: value for key, value in patch.items() if value is not None}
        if tags is not None:
            body["tags"] = list(tags)
        self._data = self._client.request("PATCH", f"/plots/{self.id}", json=body).json()
        return self

    def delete(self) -> None:
        """Deletes the plot and all its data (owner only)."""
        self._client.request("DELETE", f"/plots/{self.id}")

    # -- re-clustering (SPIDAL's multistage DA-PWC) ---------------------------------------------

    def recluster(
        self,
        *,
        cluster: Optional[int] = None,
        points: Optional[Union[np.ndarray, Sequence[int]]] = None,
        selection: Optional[str] = None,
        max_clusters: Optional[int] = None,
        name: Optional[str] = None,
    ) -> "Job":
        """Re-clusters some points of a clustering job's plot (owner only): the server cuts their
        rows and columns out of the job's distance matrix and runs DA-MDS and DA-PWC on them.

        Args (exactly one of the first three):
            cluster: a cluster key; its points.
            points: point indices, or a boolean array over the points.
            selection: the name of a saved selection.
            max_clusters: DA-PWC's most clusters (default: the parent job's).
            name: the new job's and plot's name.

        Returns the started job; its plot names this one as ``parent``.
        """
        # int(): a key read from cluster_keys() is a NumPy integer, which JSON does not take.
        body: Dict[str, Any] = {"cluster": None if cluster is None else int(cluster), "selection": selection, "maxClusters": max_clusters, "name": name}
        if points is not None:
            chosen = np.asarray(points)
            body["points"] = (np.flatnonzero(chosen) if chosen.dtype == bool else chosen.ravel()).astype(np.int64).tolist()
        answer = self._client.request("POST", f"/plots/{self.id}/recluster", json={k: v for k, v in body.items() if v is not None}).json()
        return self._client.job(answer["jobId"])

    @property
    def parent(self) -> Optional["Plot"]:
        """The plot this one re-clusters points of, if it is a re-clustering."""
        parent = self._full().get("parent")
        return self._client.plot(parent) if parent else None

    @property
    def children(self) -> List["Plot"]:
        """The re-clusterings of this plot's points (the ones you may see), oldest first."""
        return [self._client.plot(child) for child in self._full().get("children", [])]

    # -- named selections ---------------------------------------------------------------------

    def selections(self) -> Dict[str, np.ndarray]:
        """The plot's saved selections: name → ascending int64 point indices (of the selection's frame)."""
        found: Dict[str, np.ndarray] = {}
        for info in self._client.request("GET", f"/plots/{self.id}/selections").json():
            found[info["name"]] = self.selection(info["name"])
        return found

    def selection(self, name: str) -> np.ndarray:
        """One saved selection's point indices, fetched as a bitset and decoded here."""
        answer = self._client.request("GET", f"/plots/{self.id}/selections/{quote(name, safe='')}", params={"encoding": "mask"}).json()
        bits = np.unpackbits(np.frombuffer(base64.b64decode(answer["mask"]), dtype=np.uint8), bitorder="little")
        return np.flatnonzero(bits).astype(np.int64)

    def save_selection(self, name: str, indices: Union[np.ndarray, Sequence[int]], frame: int = 0) -> Dict[str, Any]:
        """Saves (or replaces) a named selection of the frame's points (owner only).

        Args:
            name: 1–100 letters, digits, spaces, "_", "." or "-".
            indices: point indices, or a boolean array over the frame's points.
            frame: the frame the indices refer to.

        Returns the stored selection's name, frame, count and updatedAt. Sent as a bitset, so a
        selection of millions of points is a few hundred kB.
        """
        count = int(self.frame_list[frame]["points"]) if 0 <= frame < self.frames else 0
        chosen = np.asarray(indices)
        if chosen.dtype == bool:
            if chosen.shape != (count,):
                raise WebPlotVizError("bad_request", f"indices: a boolean mask needs {count} entries, got {chosen.shape}", field="indices")
            bits = chosen
        else:
            bits = np.zeros(count, dtype=bool)
            if chosen.size:
                flat = chosen.astype(np.int64).ravel()
                if flat.min() < 0 or flat.max() >= count:
                    bad = int(flat[(flat < 0) | (flat >= count)][0])
                    raise WebPlotVizError("bad_request", f"indices: index {bad} is out of range (frame {frame} has {count} points)", field="indices")
                bits[flat] = True
        mask = base64.b64encode(np.packbits(bits, bitorder="little").tobytes()).decode()
        return dict(self._client.request("PUT", f"/plots/{self.id}/selections/{quote(name, safe='')}", json={"frame": frame, "mask": mask}).json())

    def delete_selection(self, name: str) -> None:
        """Deletes a named selection (owner only)."""
        self._client.request("DELETE", f"/plots/{self.id}/selections/{quote(name, safe='')}")

    # -- phylogenetic tree --------------------------------------------------------------------

    def set_tree(self, source: Union[str, "os.PathLike[str]", bytes, None] = None, root: str = "file", filename: Optional[str] = None,
                 *, newick: Optional[str] = None) -> Dict[str, Any]:
        """Attaches a Newick tree whose leaf names are point labels (owner only; replaces one).

        Args:
            source: a Newick file's path, or its bytes.
            root: "file" keeps the file's root; "midpoint" roots an unrooted tree (FastTree,
                RAxML, IQ-TREE) at the middle of its longest leaf-to-leaf path.
            filename: the name to store (default: the path's base name, or "tree.nwk").
            newick: the tree as Newick text, instead of ``source``
                (``plot.set_tree(newick="(a:1,b:1);")``).

        Returns what matched: leaves, matched, unmatched (the first 20 leaf names no point has;
        they are left out). A malformed file raises WebPlotVizError naming its line and column.
        """
        if (source is None) == (newick is None):
            raise TypeError("set_tree takes a file (source: a path or bytes) or newick= text, one of the two")
        if newick is not None:
            source = newick.encode("utf-8")
        elif isinstance(source, str) and source.lstrip().startswith("(") and not os.path.exists(source):
            # A path is never Newick text: say how to pass text rather than "no such file".
            raise TypeError("set_tree's source is a file path; pass Newick text as newick=\"(a:1,b:1);\"")
        assert source is not None
        name = filename or (os.path.basename(os.fspath(source)) if not isinstance(source, bytes) else "tree.nwk")
        return self._client.send_form(f"/plots/{self.id}/tree", [("root", root), ("file", file_part(name, source))], method="PUT")

    def tree(self) -> Optional[Dict[str, Any]]:
        """The plot's tree, or None: its nodes in preorder as parallel lists ``parent`` (-1 for the
        root), ``length``, ``name`` and ``point`` (a leaf's point index in frame 0, else -1)."""
        tree = self._client.request("GET", f"/plots/{self.id}/tree").json()
        return None if tree is None else dict(tree)

    def delete_tree(self) -> None:
        """Removes the plot's tree (owner only)."""
        self._client.request("DELETE", f"/plots/{self.id}/tree")

    # -- notebooks ----------------------------------------------------------------------------

    def _repr_html_(self) -> str:
        """In a notebook: the viewer in an iframe when the plot is public, else its thumbnail
        (or its name) linking to the viewer, since a private page would not open in the frame."""
        title = html.escape(f"{self.name} — {self.frames} frame(s), {self.points} points")
        link = html.escape(self.url, quote=True)
        if self.visibility == "public":
            return (
                f'<iframe src="{link}?embed=1" title="{title}" width="100%" height="480" '
                'style="border:1px solid #ccc" loading="lazy"></iframe>'
            )
        try:
            png = self._client.request("GET", f"/plots/{self.id}/thumbnail").content
            image = f'<img src="data:image/png;base64,{base64.b64encode(png).decode()}" alt="{title}" style="max-width:320px"><br>'
        except WebPlotVizError:
            image = ""
        return f'<a href="{link}" target="_blank" rel="noopener">{image}{title}</a> (private: opens in the viewer)'
