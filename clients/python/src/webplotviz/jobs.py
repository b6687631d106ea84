"""An analytics job: its state and stages, followed live through the API's Server-Sent Events."""
from __future__ import annotations

import json
import sys
import time
from typing import TYPE_CHECKING, Any, Dict, Iterator, List, Optional, Tuple

import requests

from .errors import WebPlotVizError

if TYPE_CHECKING:
    from .client import Client
    from .plot import Plot

TERMINAL = ("succeeded", "failed", "cancelled")


class Job:
    """A job as the API describes it (``GET /jobs/{id}``)."""

    def __init__(self, client: "Client", data: Dict[str, Any]) -> None:
        self._client = client
        self._data = data
        self.id: str = data["id"]

    def __repr__(self) -> str:
        return f"<Job {self.id} {self.type} {self.state}>"

    @property
    def name(self) -> str:
        return str(self._data["name"])

    @property
    def type(self) -> str:
        return str(self._data["type"])

    @property
    def state(self) -> str:
        """queued, running, succeeded, failed or cancelled (as of the last read)."""
        return str(self._data["state"])

    @property
    def stages(self) -> List[Dict[str, Any]]:
        """The stages in order: name, state, progress (the program's latest progress line), error…"""
        return list(self._data["stages"])

    @property
    def error(self) -> Optional[str]:
        """Why the job failed: the program's message."""
        return self._data.get("error")

    @property
    def plot_id(self) -> Optional[str]:
        return self._data.get("plotId")

    @property
    def info(self) -> Dict[str, Any]:
        """The whole job document, as the API returns it."""
        return self._data

    def refresh(self) -> "Job":
        """Reads the job again."""
        self._data = self._client.request("GET", f"/jobs/{self.id}").json()
        return self

    def logs(self, stage: str) -> Dict[str, str]:
        """The last 64 KiB of a stage's stdout and stderr: ``{"stage", "stdout", "stderr"}``."""
        return dict(self._client.request("GET", f"/jobs/{self.id}/logs", params={"stage": stage}).json())

    def cancel(self) -> "Job":
        """Cancels the queued or running job."""
        self._data = self._client.request("POST", f"/jobs/{self.id}/cancel").json()
        return self

    def retry(self) -> "Job":
        """Runs a failed or cancelled job again, as a new job (returned)."""
        return self._client.job(self._client.request("POST", f"/jobs/{self.id}/retry").json()["id"])

    def plot(self) -> "Plot":
        """The plot the job made (it must have succeeded)."""
        if not self.plot_id:
            self.refresh()
        if not self.plot_id:
            raise WebPlotVizError("no_plot", f"job {self.id} is {self.state} and has no plot")
        return self._client.plot(self.plot_id)

    def wait(self, progress: bool = True, timeout: Optional[float] = None) -> "Job":
        """Follows the job's events until it ends; raises WebPlotVizError (code ``job_failed`` or
        ``job_cancelled``, message the program's) unless it succeeded.

        Args:
            progress: show a tqdm bar per stage when tqdm is installed (else a line per change on stderr).
            timeout: seconds to wait at most (default: as long as it takes).
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        bars = _ProgressBars(progress)
        try:
            bars.update(self.stages)
            last_id: Optional[str] = None
            while self.state not in TERMINAL:
                if deadline is not None and time.monotonic() > deadline:
                    raise WebPlotVizError("timeout", f"job {self.id} is still {self.state} after {timeout} s")
                last_id = self._follow(last_id, deadline, bars)
            # A cancelled job's running programs are recorded cancelled once the bridge has stopped
            # them, after the job: the stream ends when they are (or after the server's bounded wait).
            if any(stage["state"] not in TERMINAL for stage in self.stages):
                self._follow(last_id, deadline, bars)
        finally:
            bars.close()
        if self.state == "failed":
            failed = next((s for s in self.stages if s.get("error")), None)
            message = self.error or (failed or {}).get("error") or "the job failed"
            raise WebPlotVizError("job_failed", f"job {self.id} failed: {message}")
        if self.state == "cancelled":
            raise WebPlotVizError("job_cancelled", f"job {self.id} was cancelled")
        return self

    def _follow(self, last_id: Optional[str], deadline: Optional[float], bars: "_ProgressBars") -> Optional[str]:
        """Shows the stream's snapshots until it ends, then reads the job again; returns the last event id."""
        try:
            for event_id, data in self._events(last_id, deadline):
                last_id = event_id or last_id
                self._data = data
                bars.update(self.stages)
        except (requests.ConnectionError, requests.Timeout, requests.exceptions.ChunkedEncodingError):
            time.sleep(1)  # the server restarted or the connection dropped: reconnect where we were
        self.refresh()
        bars.update(self.stages)
        return last_id

    def _events(self, last_id: Optional[str], deadline: Optional[float]) -> Iterator[Tuple[Optional[str], Dict[str, Any]]]:
        """(event id, job) for each ``job`` event of the stream, until its ``end`` event (sent once the
        job and its stages have ended)."""
        headers = {"Accept": "text/event-stream"}
        if last_id is not None:
            headers["Last-Event-ID"] = last_id
        response = self._client.request("GET", f"/jobs/{self.id}/events", stream=True, headers=headers)
        with response:
            event: str = "message"
            event_id: Optional[str] = None
            data: List[str] = []
            for line in response.iter_lines(decode_unicode=True):
                if deadline is not None and time.monotonic() > deadline:
                    return
                if line == "":
                    if event == "end":
                        return
                    if event == "job" and data:
                        yield event_id, json.loads("\n".join(data))
                    event, data = "message", []
                elif line.startswith(":"):
                    continue
                else:
                    key, _, value = line.partition(":")
                    value = value[1:] if value.startswith(" ") else value
                    if key == "event":
                        event = value
                    elif key == "data":
                        data.append(value)
                    elif key == "id":
                        event_id = value


class _ProgressBars:
    """One tqdm bar per stage (0–100 %), or a line on stderr per stage change without tqdm."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.bars: Dict[str, Any] = {}
        self.shown: Dict[str, str] = {}
        try:
            from tqdm.auto import tqdm
        except ImportError:
            tqdm = None
        self.tqdm = tqdm if enabled else None

    def update(self, stages: List[Dict[str, Any]]) -> None:
        if not self.enabled:
            return
        for index, stage in enumerate(stages):
            name = stage["name"]
            fraction = _fraction(stage)
            title = f"{index + 1}/{len(stages)} {stage.get('title') or name}"
            if self.tqdm is not None:
                bar = self.bars.get(name)
                if bar is None:
                    bar = self.bars[name] = self.tqdm(total=100, desc=title, unit="%", position=index, leave=True)
                if fraction is not None:
                    bar.n = round(fraction * 100, 1)
                bar.set_postfix_str(_state_text(stage), refresh=True)
            else:
                status = _state_text(stage)
                status += f" {fraction:.0%}" if fraction is not None and status == "running" else ""
                if self.shown.get(name) != status:
                    self.shown[name] = status
                    print(f"{title}: {status}", file=sys.stderr)

    def close(self) -> None:
        for bar in self.bars.values():
            bar.close()


def _waits_for_cpus(stage: Dict[str, Any]) -> bool:
    """A program not started yet: its backend waits for CPUs (local slots, a Slurm allocation), or the bridge is submitting it."""
    return stage["state"] == "running" and stage.get("runner") == "hpc" and stage.get("launchedAt") is None


def _state_text(stage: Dict[str, Any]) -> str:
    return "waiting for CPUs" if _waits_for_cpus(stage) else stage["state"]


def _fraction(stage: Dict[str, Any]) -> Optional[float]:
    """The stage's done fraction from its state and the program's progress line, when known."""
    if stage["state"] == "succeeded":
        return 1.0
    if stage["state"] in ("pending", "queued") or _waits_for_cpus(stage):
        return 0.0
    value = (stage.get("progress") or {}).get("fraction")
    return min(1.0, max(0.0, float(value))) if isinstance(value, (int, float)) else None
