"""``bao serve`` refuses, before starting, an address it cannot serve on (and a source it
cannot open)."""

from __future__ import annotations

import socket

import pytest

import webui.app
from webui.cli import main


@pytest.fixture
def no_server(monkeypatch):
    """Fail the test if the web app is made: the address must be refused first."""
    def made(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        raise AssertionError("the app was started")
    monkeypatch.setattr(webui.app, "create_app", made)


@pytest.mark.parametrize("port", ["0", "65536", "99999"])
def test_a_port_out_of_range_is_named(no_server, capsys, port: str) -> None:
    # (Werkzeug would quietly listen on the port modulo 65536: 99999 -> 34463)
    assert main(["serve", "--port", port]) == 2
    assert f"--port must be 1-65535, got {port}" in capsys.readouterr().err


def test_a_port_in_use_is_named(no_server, capsys) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["serve", "--port", str(port)]) == 2
    err = capsys.readouterr().err
    assert f"cannot serve on 127.0.0.1:{port}" in err and "another --port" in err


def test_a_host_that_does_not_resolve_is_named(no_server, capsys) -> None:
    assert main(["serve", "--host", "no-such-host.invalid"]) == 2
    assert "'no-such-host.invalid' is no address to listen on" in capsys.readouterr().err


def test_a_camera_index_out_of_range_is_named(tmp_path, capsys) -> None:
    # OpenCV takes the index as a C int: a larger one was a cv2.error traceback
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    argv = ["serve", "--port", str(port), "--instance", str(tmp_path), "--source", "99999999999999999999"]
    assert main(argv) == 2
    assert capsys.readouterr().err == (
        "bao: error: camera index 99999999999999999999 is out of range (at most 2147483647)\n")
