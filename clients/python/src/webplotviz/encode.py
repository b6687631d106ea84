"""Request bodies built while they are sent: CSV text of NumPy points, a ZIP of CSV frames for a
time series, and multipart forms around them. Each is an iterator of byte chunks, so an upload
holds one chunk of rows in memory (see ``CHUNK_ROWS``) whatever the point count; requests sends
an iterator with chunked transfer encoding.
"""
from __future__ import annotations

import io
import os
import secrets
import stat
import zipfile
from typing import IO, Any, Dict, Iterable, Iterator, List, Mapping, NamedTuple, Optional, Sequence, Tuple, Union

import numpy as np

#: Rows formatted at a time: about 600 kB of CSV text for x, y, z and a cluster.
CHUNK_ROWS = 16_384
#: Bytes read from a file per chunk.
FILE_CHUNK = 1 << 20
#: Columns the server reads itself; metadata columns may not use these names.
RESERVED_COLUMNS = ("x", "y", "z", "cluster", "label", "id")

Column = Union[np.ndarray, Sequence[Any]]


def _frames_of(name: str, values: Optional[Column], frames: int, points: int) -> Optional[np.ndarray]:
    """`values` as an (F, N) array: (N,) is the same for every frame, (F, N) one row per frame."""
    if values is None:
        return None
    array = np.asarray(values)
    if array.shape == (points,):
        return np.broadcast_to(array, (frames, points))
    if array.shape == (frames, points):
        return array
    raise ValueError(f"{name}: expected shape ({points},) or ({frames}, {points}), got {array.shape}")


def _csv_field(text: str) -> str:
    """RFC 4180 quoting, only where the text needs it."""
    if any(c in text for c in ',"\r\n') or text != text.strip():
        return '"' + text.replace('"', '""') + '"'
    return text


def _text_cells(values: np.ndarray) -> List[str]:
    """A column as CSV cells: integers and floats in full precision, anything else as quoted text."""
    if values.dtype.kind in "iub":
        return [str(v) for v in values.astype(np.int64).tolist()]
    if values.dtype.kind == "f":
        return [repr(v) for v in values.astype(np.float64).tolist()]
    return [_csv_field("" if v is None else str(v)) for v in values.tolist()]


class PointTable:
    """Points, their clusters, labels and metadata columns for one or more frames, checked once.

    ``xyz`` is (N, 3) for one plot or (F, N, 3) for a time series of F frames of N points;
    ``clusters`` and ``labels`` are (N,) (the same in every frame) or (F, N); ``metadata`` maps
    column names to (N,) or (F, N) columns, or is a pandas DataFrame of N rows.
    """

    def __init__(
        self,
        xyz: np.ndarray,
        clusters: Optional[Column] = None,
        labels: Optional[Column] = None,
        metadata: Optional[Union[Mapping[str, Column], Any]] = None,
    ) -> None:
        array = np.asarray(xyz)
        if array.ndim == 2:
            array = array[np.newaxis]
        if array.ndim != 3 or array.shape[2] != 3:
            raise ValueError(f"xyz: expected an (N, 3) or (F, N, 3) array, got shape {np.shape(xyz)}")
        if array.shape[0] == 0 or array.shape[1] == 0:
            raise ValueError("xyz: no points")
        # Float32 is what the server stores: '%.9g' of a float32 reads back as the same float32.
        self.xyz = array.astype(np.float32, copy=False)
        if not np.isfinite(self.xyz).all():
            raise ValueError("xyz: coordinates must be finite (no NaN or infinity)")
        self.frames, self.points = int(array.shape[0]), int(array.shape[1])
        self.clusters = _frames_of("clusters", clusters, self.frames, self.points)
        if self.clusters is not None and self.clusters.dtype.kind in "iu" and (self.clusters < 0).any():
            raise ValueError("clusters: keys must be integers ≥ 0 (or names)")
        self.labels = _frames_of("labels", labels, self.frames, self.points)
        self.metadata: Dict[str, np.ndarray] = {}
        columns = dict(metadata.items()) if metadata is not None else {}
        for name, values in columns.items():
            name = str(name)
            if name.strip().lower() in RESERVED_COLUMNS:
                raise ValueError(f"metadata: column {name!r} clashes with the server's own column of that name")
            self.metadata[name] = _frames_of(f"metadata[{name!r}]", np.asarray(values), self.frames, self.points)  # type: ignore[assignment]

    @property
    def is_series(self) -> bool:
        return self.frames > 1

    def _header(self) -> str:
        names = ["x", "y", "z"]
        if self.clusters is not None:
            names.append("cluster")
        if self.labels is not None:
            names.append("label")
        names += [_csv_field(name) for name in self.metadata]
        return ",".join(names) + "\n"

    def frame_csv(self, frame: int) -> Iterator[bytes]:
        """The CSV text of one frame, ``CHUNK_ROWS`` rows per chunk: one '%' over a chunk's cells."""
        yield self._header().encode()
        numeric_clusters = self.clusters is not None and self.clusters.dtype.kind in "iub"
        text_columns = ([] if self.clusters is None or numeric_clusters else [self.clusters])
        text_columns += ([] if self.labels is None else [self.labels]) + list(self.metadata.values())
        width = 3 + (1 if numeric_clusters else 0)
        row = "%.9g,%.9g,%.9g" + (",%d" if numeric_clusters else "") + (",%s" * len(text_columns)) + "\n"
        for start in range(0, self.points, CHUNK_ROWS):
            end = min(start + CHUNK_ROWS, self.points)
            # Numbers as float64 (exact for float32 and for keys below 2**53): no Python object per cell
            # is made until tolist(), which is the cheapest way to hand them to '%'.
            cells = np.empty((end - start, width + len(text_columns)), dtype=np.float64 if not text_columns else object)
            numbers = cells if not text_columns else np.empty((end - start, width))
            numbers[:, :3] = self.xyz[frame, start:end]
            if numeric_clusters:
                numbers[:, 3] = self.clusters[frame, start:end]  # type: ignore[index]
            if text_columns:
                for at in range(width):
                    cells[:, at] = numbers[:, at].tolist()
                for at, column in enumerate(text_columns, start=width):
                    cells[:, at] = _text_cells(column[frame, start:end])
            yield ((row * (end - start)) % tuple(cells.ravel().tolist())).encode()

    def body(self, name: str) -> "FilePart":
        """The file to upload (size unknown until sent): a CSV, or a ZIP of CSV frames for a series."""
        if not self.is_series:
            return FilePart(f"{name}.csv", self.frame_csv(0))
        entries = [(f"frame_{frame:06d}.csv", self.frame_csv(frame)) for frame in range(self.frames)]
        index = "".join(entry + "\n" for entry, _ in entries)
        return FilePart(f"{name}.zip", zip_stream([("plot.index", iter([index.encode()]))] + entries))


class _Sink(io.RawIOBase):
    """A write-only, unseekable stream that hands what was written to a generator:
    zipfile then writes entries with data descriptors (sizes after the data)."""

    def __init__(self) -> None:
        super().__init__()
        self.parts: List[bytes] = []
        self.position = 0

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        chunk = bytes(data)
        self.parts.append(chunk)
        self.position += len(chunk)
        return len(chunk)

    def tell(self) -> int:
        return self.position

    def take(self) -> bytes:
        out = b"".join(self.parts)
        self.parts = []
        return out


def zip_stream(entries: Iterable[Tuple[str, Iterator[bytes]]]) -> Iterator[bytes]:
    """A ZIP archive of `entries` (name, chunks), stored uncompressed, yielded as it is written."""
    sink = _Sink()
    with zipfile.ZipFile(sink, "w", compression=zipfile.ZIP_STORED) as archive:
        for name, chunks in entries:
            with archive.open(name, "w") as entry:
                for chunk in chunks:
                    entry.write(chunk)
                    yield sink.take()
            yield sink.take()
    yield sink.take()


def file_chunks(source: Union[str, "os.PathLike[str]", IO[bytes], bytes]) -> Iterator[bytes]:
    """A path's, binary file's or bytes' content in ``FILE_CHUNK`` pieces."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        yield bytes(source)
        return
    if isinstance(source, (str, os.PathLike)):
        with open(source, "rb") as handle:
            yield from iter(lambda: handle.read(FILE_CHUNK), b"")
        return
    yield from iter(lambda: source.read(FILE_CHUNK), b"")


def source_size(source: Union[str, "os.PathLike[str]", IO[bytes], bytes]) -> Optional[int]:
    """The bytes file_chunks(source) will yield, when known beforehand."""
    if isinstance(source, (bytes, bytearray)):
        return len(source)
    if isinstance(source, memoryview):
        return source.nbytes
    if isinstance(source, (str, os.PathLike)):
        return os.path.getsize(source)
    try:
        status = os.fstat(source.fileno())
        # A pipe or socket has no size to go by.
        return status.st_size - source.tell() if stat.S_ISREG(status.st_mode) else None
    except (AttributeError, OSError, ValueError):
        return None


class FilePart(NamedTuple):
    """A file part of a form: its name, its content in chunks and, when known, its size."""

    filename: str
    chunks: Iterable[bytes]
    size: Optional[int] = None


def file_part(filename: str, source: Union[str, "os.PathLike[str]", IO[bytes], bytes]) -> FilePart:
    return FilePart(filename, file_chunks(source), source_size(source))


FormPart = Union[str, FilePart]


class Multipart:
    """A multipart/form-data body: text fields and file parts, in order. Its `size` is known when
    every file part's is: the body then goes with a Content-Length (as a hand-made request's
    would, and the server can refuse an oversized upload before it is sent), else chunked."""

    def __init__(self, parts: Sequence[Tuple[str, FormPart]]) -> None:
        self.parts = parts
        self.boundary = "wpv-" + secrets.token_hex(16)

    @property
    def content_type(self) -> str:
        return f"multipart/form-data; boundary={self.boundary}"

    def _pieces(self) -> Iterator[Union[bytes, FilePart]]:
        for name, value in self.parts:
            head = f'--{self.boundary}\r\nContent-Disposition: form-data; name="{name}"'
            if isinstance(value, str):
                yield f"{head}\r\n\r\n{value}\r\n".encode()
                continue
            safe = value.filename.replace("\\", "_").replace('"', "_").replace("\r", "_").replace("\n", "_")
            yield f'{head}; filename="{safe}"\r\nContent-Type: application/octet-stream\r\n\r\n'.encode()
            yield value
            yield b"\r\n"
        yield f"--{self.boundary}--\r\n".encode()

    def size(self) -> Optional[int]:
        total = 0
        for piece in self._pieces():
            if isinstance(piece, FilePart):
                if piece.size is None:
                    return None
                total += piece.size
            else:
                total += len(piece)
        return total

    def __iter__(self) -> Iterator[bytes]:
        for piece in self._pieces():
            if isinstance(piece, FilePart):
                yield from (chunk for chunk in piece.chunks if chunk)
            else:
                yield piece


class SizedBody:
    """An iterable body with a length: requests then sends a Content-Length instead of chunks."""

    def __init__(self, chunks: Iterable[bytes], size: int) -> None:
        self.chunks = chunks
        self.size = size

    def __len__(self) -> int:
        return self.size

    def __iter__(self) -> Iterator[bytes]:
        return iter(self.chunks)
