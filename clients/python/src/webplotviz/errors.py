"""The one exception type of the package: an API error, or a request the client refuses to send."""
from __future__ import annotations

from typing import Any, Optional

import requests


class WebPlotVizError(Exception):
    """An error answered by the API (``{"error": {code, message, field?, line?, file?}}``) or found
    by the client before sending (then ``status`` is None).

    Attributes:
        status: the HTTP status, or None for a check made by the client.
        code: the machine-readable reason, e.g. ``"bad_request"``, ``"parse_error"``, ``"not_found"``.
        message: the API's message.
        field: the request field at fault (``"file"``, ``"params.metric"``), when known.
        line: the 1-based line of the uploaded file at fault, when known.
        file: the entry of an uploaded archive at fault, when known.
    """

    def __init__(
        self,
        code: str,
        message: str,
        *,
        status: Optional[int] = None,
        field: Optional[str] = None,
        line: Optional[int] = None,
        file: Optional[str] = None,
    ) -> None:
        self.status = status
        self.code = code
        self.message = message
        self.field = field
        self.line = line
        self.file = file
        super().__init__(str(self))

    def __str__(self) -> str:
        # The API's messages usually name the field or line already ("line 3: …"): not said twice.
        where = [
            f"{name} {value}"
            for name, value in (("field", self.field), ("file", self.file), ("line", self.line))
            if value is not None and str(value) not in self.message
        ]
        return self.message + (f" ({', '.join(where)})" if where else "")

    @classmethod
    def from_response(cls, response: requests.Response) -> "WebPlotVizError":
        """The error a failed response carries; a body that is not the API's error shape keeps its text."""
        try:
            body: Any = response.json()
            error = body["error"]
            return cls(
                str(error.get("code", "error")),
                str(error.get("message", "")),
                status=response.status_code,
                field=error.get("field"),
                line=error.get("line"),
                file=error.get("file"),
            )
        except (ValueError, KeyError, TypeError, AttributeError):
            text = response.text.strip()[:500] or response.reason
            return cls("http_error", f"HTTP {response.status_code}: {text}", status=response.status_code)
