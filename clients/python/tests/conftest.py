"""Fixtures: the server under test (WPV_URL, started by run_tests.sh) and fresh accounts on it."""
from __future__ import annotations

import os
import secrets
from typing import Callable, Tuple

import pytest
import requests

import webplotviz

PASSWORD = "a long test passphrase"


@pytest.fixture(scope="session")
def url() -> str:
    url = os.environ.get("WPV_URL")
    if not url:
        pytest.fail("WPV_URL is not set: run clients/python/run_tests.sh, which starts a server")
    return url


@pytest.fixture(scope="session")
def make_account(url: str) -> Callable[[], Tuple[str, webplotviz.Client]]:
    """A new user, logged in through Client.login (a bearer token)."""

    def make() -> Tuple[str, webplotviz.Client]:
        username = "py_" + secrets.token_hex(4)
        response = requests.post(f"{url}/api/v1/auth/register", json={"username": username, "password": PASSWORD}, timeout=30)
        assert response.status_code == 201, response.text
        return username, webplotviz.Client.login(url, username, PASSWORD)

    return make


@pytest.fixture()
def client(make_account: Callable[[], Tuple[str, webplotviz.Client]]) -> webplotviz.Client:
    return make_account()[1]
