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
