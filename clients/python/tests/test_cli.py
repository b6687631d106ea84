"""The webplotviz command: login, upload, ls, get, export, jobs; errors exit non-zero with the API's message."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Dict, Optional

import numpy as np
import requests

from conftest import PASSWORD
import webplotviz
from webplotviz.cli import parser
from webplotviz.params import JOB_TYPES, job_types
from test_jobs import VECTORS, slow_vectors


def run(args: list, env: Dict[str, str], stdin: Optional[str] = None) -> subprocess.CompletedProcess:
    command = shutil.which("webplotviz", path=os.path.dirname(sys.executable)) or "webplotviz"
    return subprocess.run([command, *args], env=env, input=stdin, capture_output=True, text=True, timeout=600)


def test_cli_round_trip(url: str, tmp_path: Path) -> None:
    username = "cli_" + os.urandom(4).hex()
    assert requests.post(f"{url}/api/v1/auth/register", json={"username": username, "password": PASSWORD}, timeout=30).status_code == 201
    env = {k: v for k, v in os.environ.items() if k not in ("WEBPLOTVIZ_TOKEN", "WEBPLOTVIZ_URL")}
    env["XDG_CONFIG_HOME"] = str(tmp_path / "config")

    login = run(["login", url, "--username", username, "--password-stdin"], env, PASSWORD + "\n")
    assert login.returncode == 0, login.stderr
    config = tmp_path / "config" / "webplotviz" / "config.json"
    assert oct(config.stat().st_mode & 0o777) == "0o600"

    xyz = np.arange(30, dtype=np.float32).reshape(10, 3) / 7
    source = tmp_path / "points.txt"
    source.write_text("".join(f"{x!r} {y!r} {z!r}\n" for x, y, z in xyz.tolist()))
    upload = run(["upload", str(source), "--name", "cli plot", "--tag", "cli"], env)
    assert upload.returncode == 0, upload.stderr
    plot_id, link = upload.stdout.strip().split("\t")
    assert link.endswith(f"/plots/{plot_id}")

    listing = run(["ls", "--mine"], env)
    assert listing.returncode == 0 and plot_id in listing.stdout and "cli plot" in listing.stdout
    assert run(["ls", "--mine", "--sort", "size"], env).stdout.split("\t")[0] == plot_id
    used, limit = map(int, run(["storage", "--bytes"], env).stdout.split("\t"))
    assert 0 < used < limit
    assert re.fullmatch(r"[\d.]+ (bytes|KB|MB) of [\d.]+ [KMGT]?B used \(\d+\.\d %\)\n", run(["storage"], env).stdout)
    out = tmp_path / "out.npy"
    assert run(["get", plot_id, "--positions", str(out)], env).returncode == 0
    np.testing.assert_array_equal(np.load(out), xyz)
    exported = tmp_path / "out.pviz"
    assert run(["export", plot_id, str(exported)], env).returncode == 0
    assert "<plotviz>" in exported.read_text()[:200]

    vectors = tmp_path / "vectors.csv"
    vectors.write_text(VECTORS)
    submit = run(["jobs", "submit", "vectors", str(vectors), "--param", "labelColumn=0", "--param", "metric=euclidean"], env)
    assert submit.returncode == 0, submit.stderr
    job_id = submit.stdout.strip()
    waited = run(["jobs", "wait", job_id, "--quiet"], env)
    assert waited.returncode == 0, waited.stderr
    assert waited.stdout.split("\t")[1] == "succeeded"
    assert job_id in run(["jobs", "ls"], env).stdout

    missing = run(["get", "no-such-plot"], env)
    assert missing.returncode == 1 and "plot not found" in missing.stderr
    bad = run(["jobs", "submit", "vectors", str(vectors), "--param", "labelColum=0"], env)
    assert bad.returncode == 1 and "labelColum" in bad.stderr
    # The token comes from the environment too, and a wrong one is the API's 401 message.
    env["WEBPLOTVIZ_TOKEN"] = "wrong"
    assert "bearer token" in run(["ls"], env).stderr


def test_cli_cancels_a_job(client: webplotviz.Client, tmp_path: Path) -> None:
    env = {**os.environ, "WEBPLOTVIZ_URL": client.url, "WEBPLOTVIZ_TOKEN": client.token}
    vectors = tmp_path / "vectors.csv"
    vectors.write_text(slow_vectors())
    job_id = run(["jobs", "submit", "vectors", str(vectors), "--param", "labelColumn=0"], env).stdout.strip()
    cancelled = run(["jobs", "cancel", job_id], env)
    assert cancelled.returncode == 0, cancelled.stderr
    assert cancelled.stdout.strip() == f"{job_id}\tcancelled"
    again = run(["jobs", "cancel", job_id], env)
    assert again.returncode == 1 and "has already been cancelled" in again.stderr
    waited = run(["jobs", "wait", job_id, "--quiet"], env)
    assert waited.returncode == 1 and "was cancelled" in waited.stderr


def test_submit_help_names_every_job_type_of_the_server(client: webplotviz.Client) -> None:
    assert sorted(JOB_TYPES) == sorted(job_types(client.openapi()))
    # Wide enough that argparse does not break a type's name at its hyphen.
    shown = run(["jobs", "submit", "--help"], {**os.environ, "COLUMNS": "300"})
    assert shown.returncode == 0, shown.stderr
    for job_type in JOB_TYPES:
        assert job_type in shown.stdout, shown.stdout


def test_an_id_that_starts_with_a_dash_goes_after_double_dash() -> None:
    # Servers before 2026-11-26 could make such ids; the server now never does (server/test/ids.test.ts).
    args = parser().parse_args(["get", "--positions", "p.npy", "--", "--30N9hv7TeZqvOeUILb9A"])
    assert (args.id, args.positions) == ("--30N9hv7TeZqvOeUILb9A", "p.npy")
