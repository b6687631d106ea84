"""The connection to a WebPlotViz server: authentication, uploads, finding plots, submitting jobs."""
from __future__ import annotations

import json
import os
from typing import IO, Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np
import requests

from .encode import FilePart, FormPart, Multipart, PointTable, SizedBody, file_part
from .errors import WebPlotVizError
from .jobs import Job
from .params import check_job_params
from .plot import Plot

API_PREFIX = "/api/v1"
TOKEN_ENV = "WEBPLOTVIZ_TOKEN"
Source = Union[str, "os.PathLike[str]", IO[bytes], bytes]


class Client:
    """A WebPlotViz server at `url` (e.g. ``http://localhost:8080``).

    Args:
        url: the server's address; a trailing ``/api/v1`` is accepted.
        token: a bearer API token; by default the ``WEBPLOTVIZ_TOKEN`` environment variable.
            Without one the client reads public plots only.
        timeout: seconds to wait for the server to start answering a request.
    """

    def __init__(self, url: str, token: Optional[str] = None, *, timeout: float = 300.0) -> None:
        url = url.rstrip("/")
        if url.endswith(API_PREFIX):
            url = url[: -len(API_PREFIX)]
        self.url = url
        self.api = url + API_PREFIX
        self.token = token if token is not None else os.environ.get(TOKEN_ENV) or None
        self.timeout = timeout
        self.session = requests.Session()
        if self.token:
            self.session.headers["Authorization"] = f"Bearer {self.token}"
        self._openapi: Optional[Dict[str, Any]] = None

    def __repr__(self) -> str:
        return f"Client({self.url!r}, token={'…' if self.token else None})"

    @classmethod
    def login(
        cls,
        url: str,
        username: str,
        password: str,
        token_name: Optional[str] = None,
        *,
        scope: str = "full",
        expires_in_days: Optional[int] = None,
    ) -> "Client":
        """Creates a bearer token named `token_name` for the account and returns a client using it
        (the token is in ``client.token``; keep it in ``WEBPLOTVIZ_TOKEN`` to skip logging in).
        A user's token names are unique: a name already taken raises WebPlotVizError (409); without
        one the server names it "API token <n>", so logging in again (a notebook re-run) works.
        ``scope="read"`` makes a token that only reads (any change raises WebPlotVizError 403
        ``read_only_token``); ``expires_in_days`` one that stops working after that many days."""
        anonymous = cls(url, token="")
        fields: Dict[str, Any] = {"username": username, "password": password, "scope": scope}
        if token_name:
            fields["name"] = token_name
        if expires_in_days is not None:
            fields["expiresInDays"] = expires_in_days
        created = anonymous.request("POST", "/auth/token", json=fields).json()
        return cls(url, created["token"], timeout=anonymous.timeout)

    # -- HTTP ---------------------------------------------------------------------------------

    def request(self, method: str, path: str, *, stream: bool = False, **kwargs: Any) -> requests.Response:
        """Sends a request to ``/api/v1{path}``; an answer of 400 or above raises WebPlotVizError."""
        response = self.session.request(method, self.api + path, stream=stream, timeout=self.timeout, **kwargs)
        if response.status_code >= 400:
            error = WebPlotVizError.from_response(response)
            response.close()
            raise error
        return response

    def send_form(self, path: str, parts: Sequence[Tuple[str, FormPart]], method: str = "POST") -> Dict[str, Any]:
        """Sends a multipart form streamed from `parts` (POST unless `method` says) and returns the JSON answer."""
        body = Multipart(parts)
        size = body.size()
        data = iter(body) if size is None else SizedBody(body, size)
        answer: Dict[str, Any] = self.request(method, path, data=data, headers={"Content-Type": body.content_type}).json()
        return answer

    def openapi(self) -> Dict[str, Any]:
        """The server's OpenAPI document (fetched once per client)."""
        if self._openapi is None:
            self._openapi = self.request("GET", "/openapi.json").json()
        return self._openapi

    def me(self) -> Optional[str]:
        """The username the token belongs to, or None without a token."""
        if not self.token:
            return None
        return str(self.request("GET", "/auth/me").json()["username"])

    def storage(self) -> Dict[str, int]:
        """What your plots take of your storage quota: ``{"usedBytes": ..., "limitBytes": ...}``."""
        return {key: int(value) for key, value in self.request("GET", "/storage").json().items()}

    # -- plots --------------------------------------------------------------------------------

    def upload(
        self,
        path: Union[str, "os.PathLike[str]"],
        name: Optional[str] = None,
        *,
        tags: Optional[Sequence[str]] = None,
        visibility: Optional[str] = None,
        collection: Optional[str] = None,
        description: Optional[str] = None,
    ) -> Plot:
        """Uploads a plot file (PlotViz XML, text, CSV, or a ZIP time series), streamed from disk.

        Args:
            path: the file; its name tells the server the format (``.pviz``/``.xml``, ``.csv``, ``.zip``, else text).
            name: the plot's name (default: the file's title or name).
            tags: tags for the library.
            visibility: ``"private"`` (the default) or ``"public"``.
            collection: the id of one of your collections.
            description: free text.

        Returns the new Plot; the server's warnings (auto-declared clusters…) are in ``plot.warnings``.
        """
        filename = os.path.basename(os.fspath(path))
        return self._upload(file_part(filename, path), name, tags, visibility, collection, description)

    def upload_points(
        self,
        xyz: np.ndarray,
        clusters: Optional[Union[np.ndarray, Sequence[Any]]] = None,
        labels: Optional[Union[np.ndarray, Sequence[Any]]] = None,
        metadata: Optional[Union[Mapping[str, Any], Any]] = None,
        name: str = "points",
        *,
        tags: Optional[Sequence[str]] = None,
        visibility: Optional[str] = None,
        collection: Optional[str] = None,
        description: Optional[str] = None,
    ) -> Plot:
        """Uploads NumPy points as a plot, streamed as CSV (one chunk of rows in memory at a time).

        Args:
            xyz: an (N, 3) array, or (F, N, 3) for a time series of F frames (sent as a ZIP of CSV
                frames). Stored as float32, as the server keeps every plot.
            clusters: (N,) or (F, N) cluster keys (integers ≥ 0) or cluster names.
            labels: (N,) or (F, N) point labels. A time series follows points across frames by label.
            metadata: extra per-point columns, a dict of (N,) or (F, N) columns or a pandas
                DataFrame of N rows, sent as extra CSV columns: the plot's metadata columns
                (``plot.columns``, ``plot.column(name)``), which the viewer colours, labels,
                searches and hovers by.
            name: the plot's name (and the uploaded file's base name).
            tags, visibility, collection, description: as in :meth:`upload`.
        """
        table = PointTable(xyz, clusters, labels, metadata)
        return self._upload(table.body(name), name, tags, visibility, collection, description)

    def _upload(
        self,
        file: FilePart,
        name: Optional[str],
        tags: Optional[Sequence[str]],
        visibility: Optional[str],
        collection: Optional[str],
        description: Optional[str],
    ) -> Plot:
        fields = {"name": name, "visibility": visibility, "collection": collection, "description": description}
        parts: List[Tuple[str, FormPart]] = [(key, value) for key, value in fields.items() if value is not None]
        if tags is not None:
            parts.append(("tags", json.dumps(list(tags))))
        parts.append(("file", file))
        return Plot(self, self.send_form("/plots", parts))

    def plots(
        self,
        q: Optional[str] = None,
        tag: Optional[str] = None,
        mine: bool = False,
        *,
        collection: Optional[str] = None,
        owner: Optional[str] = None,
        sort: str = "updated",
        limit: Optional[int] = None,
    ) -> List[Plot]:
        """The plots you can see: yours and public ones (`mine`: yours only), newest change first.

        Args:
            q: text in the name, description or tags (case-insensitive).
            tag: an exact tag.
            mine: only your own plots.
            collection: a collection id.
            owner: a username.
            sort: ``"updated"``, ``"created"``, ``"name"``, ``"points"`` or ``"size"`` (the largest first).
            limit: at most this many plots (default: all, fetched 100 per page).
        """
        query: Dict[str, Any] = {"q": q, "tag": tag, "collection": collection, "owner": owner, "sort": sort}
        query = {key: value for key, value in query.items() if value is not None}
        if mine:
            query["scope"] = "mine"
        found: List[Plot] = []
        page = 1
        while limit is None or len(found) < limit:
            answer = self.request("GET", "/plots", params={**query, "page": page, "pageSize": 100}).json()
            found += [Plot(self, item) for item in answer["items"]]
            if page * answer["pageSize"] >= answer["total"] or not answer["items"]:
                break
            page += 1
        return found if limit is None else found[:limit]

    def plot(self, id: str) -> Plot:
        """The plot with this id (404 as WebPlotVizError when missing or private to someone else)."""
        return Plot(self, self.request("GET", f"/plots/{id}").json())

    # -- jobs ---------------------------------------------------------------------------------

    def submit(
        self,
        type: str,
        file_or_path: Source,
        params: Optional[Mapping[str, Any]] = None,
        name: Optional[str] = None,
        *,
        weights: Optional[Source] = None,
    ) -> Job:
        """Submits an analytics job and returns it (queued); ``job.wait()`` follows it to its plot.

        Args:
            type: one of ``webplotviz.params.JOB_TYPES`` (``"sequence-clustering"``, ``"vectors"``…),
                or any type the server's OpenAPI document lists.
            file_or_path: the input, as a path, a binary file object or bytes.
            params: the type's parameters. Checked against the server's OpenAPI document before
                anything is uploaded: an unknown key raises WebPlotVizError naming ``params.<key>``.
            name: the job's (and its plot's) name.
            weights: distance-matrix only: the DA-MDS weight matrix.
        """
        params = dict(params or {})
        check_job_params(self.openapi(), type, params)
        filename = os.path.basename(os.fspath(file_or_path)) if isinstance(file_or_path, (str, os.PathLike)) else "input"
        parts: List[Tuple[str, FormPart]] = [("type", type), ("params", json.dumps(params))]
        if name is not None:
            parts.append(("name", name))
        parts.append(("file", file_part(filename, file_or_path)))
        if weights is not None:
            parts.append(("weights", file_part("weights", weights)))
        return self.job(self.send_form("/jobs", parts)["id"])

    def job(self, id: str) -> Job:
        """The job with this id (yours only)."""
        return Job(self, self.request("GET", f"/jobs/{id}").json())

    def jobs(self) -> List[Job]:
        """Your jobs, newest first (summaries: no params or history until ``job.refresh()``)."""
        return [Job(self, item) for item in self.request("GET", "/jobs").json()["items"]]
