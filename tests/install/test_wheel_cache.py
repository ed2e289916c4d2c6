"""A wheel built from source (Horovod's) is built once, kept whole, then taken from the cache."""

from pathlib import Path

from tutorial.install import wheel_cache


class FakePip:
    def __init__(self, code=0, wheel="horovod-0.28.1-cp311-cp311-linux_x86_64.whl"):
        self.calls, self.code, self.wheel = [], code, wheel

    def __call__(self, *args, env=None):
        args = [str(a) for a in args]
        self.calls.append(args)
        if self.code == 0 and self.wheel:
            (Path(args[args.index("-w") + 1]) / self.wheel).touch()
        return self.code


def test_a_build_lands_in_its_folder_whole(tmp_path):
    pip = FakePip()
    folder = tmp_path / "horovod-key"
    assert wheel_cache.build_into(folder, ["horovod==0.28.1"], pip=pip)
    assert wheel_cache.wheel_in(folder, "horovod") is not None
    assert pip.calls[0][:3] == ["wheel", "--no-deps", "--no-cache-dir"]
    assert [p.name for p in tmp_path.iterdir()] == ["horovod-key"]     # no scratch left


def test_a_failed_build_or_one_without_a_wheel_caches_nothing(tmp_path):
    for pip in (FakePip(code=1), FakePip(wheel=None)):
        assert not wheel_cache.build_into(tmp_path / "k", ["horovod==0.28.1"], pip=pip)
        assert list(tmp_path.iterdir()) == []


def test_a_new_build_replaces_the_old_folder(tmp_path):
    folder = tmp_path / "k"
    assert wheel_cache.build_into(folder, ["x"], pip=FakePip(wheel="horovod-1-a.whl"))
    assert wheel_cache.build_into(folder, ["x"], pip=FakePip(wheel="horovod-1-b.whl"))
    assert [p.name for p in folder.iterdir()] == ["horovod-1-b.whl"]
