"""`make lab` starts a server that answers on 127.0.0.1 only and refuses requests without the token."""

import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from jupyter_browser import free_port
from tutorial.jupyter.lab import NOTEBOOKS, lab_command


def _listening_addresses(port):
    """Local addresses of the sockets listening on ``port``, read from /proc (Linux).

    Reading the kernel's table sends no traffic, and sees every address the server bound,
    IPv4 and IPv6 alike; None where /proc/net is not available.
    """
    tables = [Path("/proc/net/tcp"), Path("/proc/net/tcp6")]
    if not tables[0].exists():
        return None
    found = []
    for table in tables:
        if not table.exists():
            continue
        for line in table.read_text().splitlines()[1:]:
            local, state = line.split()[1], line.split()[3]
            address, _, hexport = local.partition(":")
            if state == "0A" and int(hexport, 16) == port:          # 0A = LISTEN
                if len(address) == 8:                               # IPv4, little-endian
                    found.append(".".join(str(int(address[i:i + 2], 16)) for i in (6, 4, 2, 0)))
                else:
                    found.append("ipv6:" + address)
    return found


def _get(url):
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code


def test_empty_token_is_refused():
    with pytest.raises(ValueError, match="disable authentication"):
        lab_command(token="")


@pytest.mark.slow    # starts JupyterLab
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
        listening = _listening_addresses(port)
        if listening is not None:
            assert listening == ["127.0.0.1"], f"the server also listens on {listening}"
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()


def test_trust_notebooks_signs_what_it_serves_with_the_servers_notary(tmp_path):
    import nbformat
    from nbformat.sign import NotebookNotary

    from tutorial.jupyter.lab import trust_notebooks

    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("1")])
    nbformat.write(nb, tmp_path / "a.ipynb")
    trust_dir = tmp_path / "trust"
    notary = NotebookNotary(data_dir=str(tmp_path / "other"))
    (tmp_path / "other").mkdir()
    trust_notebooks(tmp_path, trust_dir=trust_dir)
    assert f"--NotebookNotary.data_dir={trust_dir}" in lab_command(trust_dir=trust_dir)
    assert NotebookNotary(data_dir=str(trust_dir)).check_signature(nb)
    assert not notary.check_signature(nb)          # signed in trust_dir, nowhere else
