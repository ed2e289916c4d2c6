"""`make lab` starts a server that answers on 127.0.0.1 only and refuses requests without the token."""

import socket
import subprocess
import time
import urllib.error
import urllib.request

import pytest

from jupyter_browser import free_port
from tutorial.lab import NOTEBOOKS, lab_command


def _other_address():
    """A non-loopback address of this machine, or None when it has none."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("10.255.255.255", 1))     # UDP connect sends nothing
            address = s.getsockname()[0]
        except OSError:
            return None
    return None if address.startswith("127.") else address


def _get(url):
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code


def test_empty_token_is_refused():
    with pytest.raises(ValueError, match="disable authentication"):
        lab_command(token="")


def test_lab_server_is_local_and_needs_the_token(tmp_path):
    port, token = free_port(), "course-test-token"
    cmd = lab_command(NOTEBOOKS, port=port, token=token, open_browser=False)
    log = open(tmp_path / "lab.log", "w")
    server = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT,
                              env={**__import__("os").environ, "JUPYTER_RUNTIME_DIR": str(tmp_path)})
    try:
        base = f"http://127.0.0.1:{port}"
        for _ in range(120):
            try:
                if _get(f"{base}/api/status?token={token}") == 200:
                    break
            except (urllib.error.URLError, ConnectionError):
                pass
            if server.poll() is not None:
                pytest.fail("jupyter lab exited early:\n" + (tmp_path / "lab.log").read_text())
            time.sleep(0.5)
        else:
            pytest.fail("jupyter lab did not answer within 60 s")
        assert _get(f"{base}/api/status?token={token}") == 200
        assert _get(f"{base}/api/status") == 403
        assert _get(f"{base}/api/contents?token=wrong") == 403
        other = _other_address()
        if other is not None:
            with pytest.raises(OSError):
                socket.create_connection((other, port), timeout=3).close()
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()
