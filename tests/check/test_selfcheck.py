from tutorial.check import environment


def test_pins_are_read_from_the_installed_metadata():
    assert environment.pins()["mxnet"] == "1.9.1"


def test_self_check_passes_here_and_trains_for_real():
    results = {r.name: r for r in environment.run_checks()}
    assert all(r.ok for r in results.values()), environment.report(results.values())
    assert "final MSE" in results["training"].detail


def test_report_shows_fixes_for_failures():
    text = environment.report([environment.Result("data", False, "bad file", "reinstall")])
    assert "FAIL" in text and "fix: reinstall" in text and "Some checks failed" in text


def test_the_gpu_build_counts_as_mxnet(monkeypatch):
    """Under `make lab GPU=1` the distribution is mxnet-cu117; the version check accepts it."""
    import importlib.metadata

    from tutorial.check import environment

    real = importlib.metadata.version

    def only_gpu_build(name):
        if name == "mxnet":
            raise importlib.metadata.PackageNotFoundError(name)
        return "1.9.1" if name == "mxnet-cu117" else real(name)

    monkeypatch.setattr(importlib.metadata, "version", only_gpu_build)
    assert environment._installed_version("mxnet") == "1.9.1"
    assert environment.check_versions().ok
    monkeypatch.setattr(importlib.metadata, "version", lambda name: (_ for _ in ()).throw(
        importlib.metadata.PackageNotFoundError(name)))
    assert environment._installed_version("mxnet") == "missing"
