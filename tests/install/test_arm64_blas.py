"""The arm64 wheel's ArmPL names become Debian's OpenBLAS and LAPACKE (tutorial/install/arm64_blas.py).
The rewrite runs for real in an emulated arm64 Debian (`make test-arm64`)."""

import pytest

from tutorial.install import arm64_blas

# `patchelf --print-needed libmxnet.so` of mxnet-1.9.1-py3-none-manylinux2014_aarch64.whl
WHEEL_NEEDED = ["libdl.so.2", "libarmpl_lp64_mp.so", "libamath.so", "libastring.so",
                "libgfortran.so.5", "librt.so.1", "libpthread.so.0", "libm.so.6",
                "libgomp.so.1", "libstdc++.so.6", "libgcc_s.so.1", "libc.so.6",
                "ld-linux-aarch64.so.1"]

LDCONFIG = """3 libs found in cache `/etc/ld.so.cache'
	libopenblas.so.0 (libc6,AArch64) => /lib/aarch64-linux-gnu/libopenblas.so.0
	liblapacke.so.3 (libc6,AArch64) => /lib/aarch64-linux-gnu/liblapacke.so.3
	libgomp.so.1 (libc6,AArch64) => /lib/aarch64-linux-gnu/libgomp.so.1
"""


def apply(needed, steps):
    """What patchelf would leave in DT_NEEDED after ``steps``."""
    needed = list(needed)
    for step in steps:
        if step[0] == "--replace-needed":
            needed[needed.index(step[1])] = step[2]
        elif step[0] == "--remove-needed":
            needed.remove(step[1])
        else:
            needed.append(step[1])
    return needed


def test_the_wheel_then_needs_openblas_lapacke_and_no_armpl():
    after = apply(WHEEL_NEEDED, arm64_blas.rewrite(WHEEL_NEEDED))
    assert not set(arm64_blas.ARMPL) & set(after)
    assert {arm64_blas.OPENBLAS, arm64_blas.LAPACKE, arm64_blas.OPENMP} <= set(after)
    assert after[:3] == ["libdl.so.2", arm64_blas.OPENBLAS, arm64_blas.LAPACKE]   # order kept


def test_nothing_to_do_without_armpl_and_a_second_run_does_nothing():
    assert arm64_blas.rewrite(["libc.so.6", "libopenblas.so.0"]) == []
    once = apply(WHEEL_NEEDED, arm64_blas.rewrite(WHEEL_NEEDED))
    assert arm64_blas.rewrite(once) == []


@pytest.mark.parametrize("armpl", [["libarmpl_lp64_mp.so"], ["libamath.so", "libarmpl_lp64_mp.so"]])
def test_fewer_armpl_names_still_bring_both_libraries(armpl):
    after = apply(["libc.so.6", *armpl], arm64_blas.rewrite(["libc.so.6", *armpl]))
    assert sorted(after) == sorted(["libc.so.6", arm64_blas.OPENBLAS, arm64_blas.LAPACKE])


def test_the_loader_cache_is_read():
    assert arm64_blas.missing_libraries(LDCONFIG) == []
    without = "\n".join(line for line in LDCONFIG.splitlines() if "lapacke" not in line)
    assert arm64_blas.missing_libraries(without) == [arm64_blas.LAPACKE]
    assert arm64_blas.missing_libraries("") == [arm64_blas.OPENBLAS, arm64_blas.LAPACKE,
                                                arm64_blas.OPENMP]


def test_missing_libraries_are_refused_with_the_apt_line(monkeypatch, tmp_path):
    monkeypatch.setattr(arm64_blas, "needed_of", lambda lib, patchelf: WHEEL_NEEDED)
    monkeypatch.setattr(arm64_blas, "loader_cache", lambda: "")
    with pytest.raises(SystemExit) as refused:
        arm64_blas.provide(tmp_path / "libmxnet.so", "patchelf", armpl_found=False)
    assert arm64_blas.APT in str(refused.value) and "libopenblas.so.0" in str(refused.value)


def test_an_armpl_the_loader_finds_is_kept(monkeypatch, tmp_path):
    monkeypatch.setattr(arm64_blas, "needed_of", lambda lib, patchelf: pytest.fail("read"))
    assert arm64_blas.provide(tmp_path / "libmxnet.so", "patchelf", armpl_found=True) == []


def test_the_readme_gives_the_same_apt_line():
    from tutorial.install.mxnet_build import ROOT
    assert arm64_blas.APT in (ROOT / "README.md").read_text()
