"""The ``webplotviz`` command: log in, upload, list, download and export plots, run jobs.

The server and token come from ``--url``/``--token``, else ``WEBPLOTVIZ_URL``/``WEBPLOTVIZ_TOKEN``,
else the file ``webplotviz login`` writes (``$XDG_CONFIG_HOME/webplotviz/config.json``, mode 600).
Errors print the API's message on stderr and exit with status 1 (2 for a usage error, 3 when the
server cannot be reached).
"""
from __future__ import annotations

import argparse
import getpass
import json
import os
import sys
from pathlib import Path
from typing import Any, Dict, Optional, Sequence

import numpy as np
import requests

from .client import TOKEN_ENV, Client
from .errors import WebPlotVizError
from .params import JOB_TYPES

URL_ENV = "WEBPLOTVIZ_URL"
# Servers before 2026-11-26 could give ids that start with "-", which argparse reads as an option.
ID_HELP = "the id (one that starts with '-' goes last, after '--': get --positions p.npy -- -abc)"


def config_path() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "webplotviz" / "config.json"


def _saved() -> Dict[str, str]:
    try:
        return dict(json.loads(config_path().read_text()))
    except (OSError, ValueError):
        return {}


def _client(args: argparse.Namespace) -> Client:
    saved = _saved()
    url = args.url or os.environ.get(URL_ENV) or saved.get("url")
    if not url:
        raise SystemExit("webplotviz: no server: pass --url, set WEBPLOTVIZ_URL or run `webplotviz login URL`")
    token = args.token or os.environ.get(TOKEN_ENV) or (saved.get("token") if saved.get("url") == url else None)
    return Client(url, token or "")


def _param(text: str) -> Any:
    """``k=v``: v as JSON when it parses (numbers, true, lists), else as a string."""
    try:
        return json.loads(text)
    except ValueError:
        return text


def cmd_login(args: argparse.Namespace) -> None:
    username = args.username or input("username: ")
    password = sys.stdin.readline().rstrip("\n") if args.password_stdin else getpass.getpass("password: ")
    client = Client.login(args.server, username, password, token_name=args.token_name)
    path = config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    # Created private before the token is written into it.
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as out:
        json.dump({"url": client.url, "token": client.token}, out)
    print(f"logged in to {client.url} as {username}; token saved in {path}")


def cmd_upload(args: argparse.Namespace) -> None:
    plot = _client(args).upload(args.file, args.name, tags=args.tag, visibility=args.visibility, collection=args.collection)
    for warning in plot.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    print(f"{plot.id}\t{plot.url}")


def cmd_ls(args: argparse.Namespace) -> None:
    for plot in _client(args).plots(q=args.q, tag=args.tag, mine=args.mine, sort=args.sort, limit=args.limit):
        print(f"{plot.id}\t{plot.name}\t{plot.frames}×{plot.points}\t{plot.visibility}\t{plot.owner}")


def _human_bytes(count: int) -> str:
    """Powers of 1024, as the library page writes them: "40 bytes", "4.9 KB", "177 MB"."""
    if count < 1024:
        return f"{count} bytes"
    units = ("KB", "MB", "GB", "TB")
    value, unit = count / 1024, 0
    while value >= 1024 and unit < len(units) - 1:
        value, unit = value / 1024, unit + 1
    return f"{value:.{1 if value < 10 else 0}f} {units[unit]}"


def cmd_storage(args: argparse.Namespace) -> None:
    use = _client(args).storage()
    if args.bytes:
        print(f"{use['usedBytes']}\t{use['limitBytes']}")
    else:
        share = 100 * use["usedBytes"] / use["limitBytes"] if use["limitBytes"] else 100.0
        print(f"{_human_bytes(use['usedBytes'])} of {_human_bytes(use['limitBytes'])} used ({share:.1f} %)")


def cmd_get(args: argparse.Namespace) -> None:
    plot = _client(args).plot(args.id)
    if args.positions:
        np.save(args.positions, plot.positions(args.frame))
    if args.clusters:
        np.save(args.clusters, plot.cluster_keys(args.frame))
    if not (args.positions or args.clusters):
        json.dump(plot.info, sys.stdout, indent=2)
        print()


def cmd_export(args: argparse.Namespace) -> None:
    print(_client(args).plot(args.id).export(args.out, format=args.format))


def cmd_jobs_submit(args: argparse.Namespace) -> None:
    params: Dict[str, Any] = {}
    for item in args.param:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise WebPlotVizError("bad_request", f"--param {item!r}: expected key=value", field="params")
        params[key] = _param(value)
    job = _client(args).submit(args.type, args.file, params, args.name, weights=args.weights)
    if args.wait:
        job.wait(progress=not args.quiet)
        print(f"{job.id}\t{job.state}\t{job.plot_id}")
    else:
        print(job.id)


def cmd_jobs_wait(args: argparse.Namespace) -> None:
    job = _client(args).job(args.id).wait(progress=not args.quiet)
    print(f"{job.id}\t{job.state}\t{job.plot_id}")


def cmd_jobs_cancel(args: argparse.Namespace) -> None:
    job = _client(args).job(args.id).cancel()
    print(f"{job.id}\t{job.state}")


def cmd_jobs_ls(args: argparse.Namespace) -> None:
    for job in _client(args).jobs():
        print(f"{job.id}\t{job.type}\t{job.state}\t{job.name}\t{job.plot_id or ''}")


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="webplotviz", description="WebPlotViz from the command line.")
    top.add_argument("--url", help=f"server address (default: ${URL_ENV}, else the saved login)")
    top.add_argument("--token", help=f"API token (default: ${TOKEN_ENV}, else the saved login)")
    commands = top.add_subparsers(dest="command", required=True)

    login = commands.add_parser("login", help="create an API token and save it")
    login.add_argument("server", help="server address, e.g. http://localhost:8080")
    login.add_argument("--username", "-u")
    login.add_argument("--password-stdin", action="store_true", help="read the password from stdin")
    login.add_argument("--token-name", help='a name for the token, unique among yours (default: the server\'s "API token <n>")')
    login.set_defaults(run=cmd_login)

    upload = commands.add_parser("upload", help="upload a plot file (pviz, text, csv, zip)")
    upload.add_argument("file")
    upload.add_argument("--name")
    upload.add_argument("--tag", action="append", help="a tag (repeatable)")
    upload.add_argument("--visibility", choices=["private", "public"])
    upload.add_argument("--collection")
    upload.set_defaults(run=cmd_upload)

    ls = commands.add_parser("ls", help="list plots: id, name, frames×points, visibility, owner")
    ls.add_argument("-q", help="text in name, description or tags")
    ls.add_argument("--tag")
    ls.add_argument("--mine", action="store_true")
    ls.add_argument("--limit", type=int)
    ls.add_argument("--sort", choices=["updated", "created", "name", "points", "size"], default="updated",
                    help="size: the largest first")
    ls.set_defaults(run=cmd_ls)

    storage = commands.add_parser("storage", help="what your plots take of your storage quota")
    storage.add_argument("--bytes", action="store_true", help="print used and limit bytes, tab-separated")
    storage.set_defaults(run=cmd_storage)

    get = commands.add_parser("get", help="a plot's metadata (JSON), or its arrays as .npy files")
    get.add_argument("id", help=ID_HELP)
    get.add_argument("--positions", metavar="OUT.npy", help="save the frame's float32 (N, 3) positions")
    get.add_argument("--clusters", metavar="OUT.npy", help="save the frame's uint32 cluster keys")
    get.add_argument("--frame", type=int, default=0)
    get.set_defaults(run=cmd_get)

    export = commands.add_parser("export", help="download a plot as PlotViz XML (or the original file)")
    export.add_argument("id", help=ID_HELP)
    export.add_argument("out")
    export.add_argument("--format", choices=["pviz", "original"], default="pviz")
    export.set_defaults(run=cmd_export)

    jobs = commands.add_parser("jobs", help="analytics jobs").add_subparsers(dest="jobs_command", required=True)
    submit = jobs.add_parser("submit", help="submit a job; prints its id")
    submit.add_argument("type", help="; ".join(f"{name} ({source})" for name, source in JOB_TYPES.items()))
    submit.add_argument("file")
    submit.add_argument("--param", "-p", action="append", default=[], metavar="KEY=VALUE", help="a parameter (VALUE as JSON when it parses)")
    submit.add_argument("--name")
    submit.add_argument("--weights", help="distance-matrix: the weight matrix file")
    submit.add_argument("--wait", action="store_true", help="follow the job until it ends")
    submit.add_argument("--quiet", action="store_true", help="no progress bars")
    submit.set_defaults(run=cmd_jobs_submit)
    wait = jobs.add_parser("wait", help="follow a job until it ends; exit 1 if it failed")
    wait.add_argument("id", help=ID_HELP)
    wait.add_argument("--quiet", action="store_true", help="no progress bars")
    wait.set_defaults(run=cmd_jobs_wait)
    cancel = jobs.add_parser("cancel", help="cancel a queued or running job; prints its id and state")
    cancel.add_argument("id", help=ID_HELP)
    cancel.set_defaults(run=cmd_jobs_cancel)
    jobs.add_parser("ls", help="your jobs: id, type, state, name, plot id").set_defaults(run=cmd_jobs_ls)
    return top


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = parser().parse_args(argv)
    try:
        args.run(args)
    except WebPlotVizError as err:
        print(f"webplotviz: {err}", file=sys.stderr)
        return 1
    except requests.ConnectionError as err:
        print(f"webplotviz: cannot reach the server: {err}", file=sys.stderr)
        return 3
    except (OSError, ValueError) as err:
        print(f"webplotviz: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
