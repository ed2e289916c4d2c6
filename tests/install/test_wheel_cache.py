"""numpy 1.26.4 has no wheel for Python 3.13: built once from source, then taken from the cache."""

from pathlib import Path

import pytest

from tutorial.install import wheel_cache


class FakePip:
    def __init__(self, code=0):
        self.calls, self.code = [], code

    def __call__(self, *args, env=None):
        args = [str(a) for a in args]
        self.calls.append(args)
        if self.code == 0:
            (Path(args[args.index("-w") + 1]) / "numpy-1.26.4-cp313-cp313-linux_x86_64.whl").touch()
        return self.code


@pytest.fixture
def on_313(monkeypatch):
    monkeypatch.setattr(wheel_cache, "needs_source_build", lambda python=None: True)
    def use(pip):
        monkeypatch.setattr(wheel_cache, "build_into",
                            lambda folder, args, env=None, pip=pip, _real=wheel_cache.build_into:
                            _real(folder, args, env=env, pip=pip))
        return pip
    return use


def test_no_build_where_the_pinned_numpy_has_a_wheel(monkeypatch, tmp_path):
    monkeypatch.setattr(wheel_cache, "needs_source_build", lambda python=None: False)
    assert wheel_cache.source_built("numpy==1.26.4", cache=tmp_path) is None
    assert list(tmp_path.iterdir()) == []


def test_first_set_up_builds_once_and_the_second_takes_the_cached_wheel(on_313, tmp_path):
    pip = on_313(FakePip())
    folder = wheel_cache.source_built("numpy==1.26.4", cache=tmp_path)
    assert wheel_cache.wheel_in(folder, "numpy") is not None
    assert folder.name.startswith("numpy-1.26.4_cp3") and len(pip.calls) == 1
    assert pip.calls[0][:3] == ["wheel", "--no-deps", "--no-cache-dir"]
    assert wheel_cache.source_built("numpy==1.26.4", cache=tmp_path) == folder
    assert len(pip.calls) == 1                              # no second build


def test_a_failed_build_exits_with_the_way_out_and_caches_nothing(on_313, tmp_path):
    on_313(FakePip(code=1))
    with pytest.raises(SystemExit, match="build-essential.*PYTHON=python3.12"):
        wheel_cache.source_built("numpy==1.26.4", cache=tmp_path)
    assert not any(tmp_path.rglob("*.whl")) and not any(p.name.startswith("numpy")
                                                         for p in tmp_path.iterdir())
