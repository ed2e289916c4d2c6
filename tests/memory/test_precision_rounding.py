"""float16 and bfloat16 rounding against MXNet's own casts; the underflow report by hand.

With oneDNN on (MXNet's default), MXNet's bfloat16 cast runs oneDNN's conversion, whose code
path depends on the CPU (and on ``DNNL_MAX_CPU_ISA``, read when MXNet is imported). Every path
rounds normal numbers as ``to_bfloat16`` does; float32 subnormals it flushes to zero on some
paths and keeps on others, which ``test_bfloat16_subnormals_per_onednn_path`` checks path by
path. With oneDNN off (``MXNET_MKLDNN_ENABLED=0``) MXNet casts with its own code, which
truncates: it keeps float32's top 16 bits (``test_without_onednn_mxnet_truncates``)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import mxnet as mx
import numpy as np
import pytest

from tutorial.memory.amp_probe import onednn_on
from tutorial.memory.precision import (FLOAT16_SMALLEST, FLOAT16_SMALLEST_NORMAL, round_trip,
                                       to_bfloat16, underflow)

BFLOAT16 = np.dtype([("bfloat16", np.uint16)])     # how MXNet 1.9 names the type


def _values():
    rng = np.random.default_rng(0)
    magnitudes = np.float32(10.0) ** rng.integers(-40, 38, 4000).astype(np.float32)
    x = (rng.normal(size=4000).astype(np.float32) * magnitudes).astype(np.float32)
    return np.concatenate([x, np.float32([0.0, -0.0, 1.0, 1.0 + 2 ** -8, 1.0 + 3 * 2 ** -8,
                                          65504.0, 65520.0, 3e-8, 2 ** -25])])


ONEDNN = pytest.mark.skipif(not onednn_on(), reason="oneDNN is off (MXNET_MKLDNN_ENABLED=0): "
                            "MXNet's own cast truncates (test_without_onednn_mxnet_truncates)")
FLOAT32_TINY = np.finfo(np.float32).tiny              # 2^-126: below it, float32 is subnormal


def _subnormal(x):
    return (x != 0) & (np.abs(x) < FLOAT32_TINY)


@ONEDNN
def test_bfloat16_equals_mxnet_cast():
    x = _values()
    down = mx.nd.amp_cast(mx.nd.array(x), dtype=BFLOAT16)
    theirs = mx.nd.amp_cast(down, dtype="float32").asnumpy()
    ours = to_bfloat16(x)
    sub = _subnormal(x)
    normal = np.isfinite(x) & (np.abs(x) >= FLOAT32_TINY)
    assert sub.sum() > 100 and normal.sum() > 3000
    # normal numbers: bit for bit, whichever code path oneDNN takes
    np.testing.assert_array_equal(ours[normal].view(np.uint32), theirs[normal].view(np.uint32))
    # zeros (by value: MXNet's round trip may turn -0.0 into 0.0), inf and NaN as NaN
    np.testing.assert_array_equal(ours[~normal & ~sub], theirs[~normal & ~sub])
    # subnormals: as ours, or flushed to 0, depending on the path (the test below)
    assert np.all((theirs[sub] == ours[sub]) | (theirs[sub] == 0))


# What oneDNN 2.4 (MXNet 1.9.1's) does with a float32 subnormal cast to bfloat16, by path:
# - SSE41, AVX2 (and any CPU without AVX-512): its C++ conversion, which turns subnormals
#   into a zero of the same sign;
# - AVX512_CORE (AVX-512 F, BW, VL and DQ, no BF16): a JIT kernel that emulates the
#   bfloat16 instruction with integer arithmetic, rounding subnormals as IEEE does: kept;
# - AVX512_CORE_BF16 (avx512_bf16, AMX too): the instruction VCVTNEPS2BF16, which treats
#   subnormal inputs as zero (sign kept): flushed.
# DNNL_MAX_CPU_ISA only caps the path: on a CPU without AVX-512, AVX512_CORE means AVX2.
AVX512_CORE_FLAGS = {"avx512f", "avx512bw", "avx512vl", "avx512dq"}
PATHS = ["SSE41", "AVX2", "AVX512_CORE", "default"]

SUBNORMAL_SCRIPT = r"""
import json, sys
import numpy as np
import mxnet as mx
x = np.array(json.loads(sys.stdin.read()), dtype=np.uint32).view(np.float32)
down = mx.nd.amp_cast(mx.nd.array(x, dtype="float32"), dtype=np.dtype([("bfloat16", np.uint16)]))
print(json.dumps(down.asnumpy()["bfloat16"].astype(int).tolist()))
"""


def _cpu_flags():
    """The CPU's feature flags from /proc/cpuinfo, or None where there is none (macOS)."""
    try:
        lines = Path("/proc/cpuinfo").read_text().splitlines()
    except OSError:
        return None
    flags = [line.split(":", 1)[1].split() for line in lines if line.startswith("flags")]
    return set(flags[0]) if flags else None


def _expected(path, flags):
    """"kept" or "flushed" under ``path`` on a CPU with ``flags``; None if it cannot tell."""
    if path in ("SSE41", "AVX2"):
        return "flushed"
    if flags is None:
        return None
    if not AVX512_CORE_FLAGS <= flags:
        return "flushed"                       # capped at what the CPU has: AVX2 or less
    if path == "AVX512_CORE" or "avx512_bf16" not in flags:
        return "kept"
    return "flushed"                           # the default path uses the instruction


def _float32_subnormals():
    """Both signs of: the smallest, ties to even (down and up), the largest (which rounds
    up to 2^-126, a normal number) and 200 random ones, as float32."""
    mantissas = np.uint32([1, 0x7FFF, 0x8000, 0x8001, 0x18000, 0x400000, 0x7F7FFF, 0x7F8000,
                           0x7FFFFF])
    rng = np.random.default_rng(1)
    mantissas = np.concatenate([mantissas, rng.integers(1, 1 << 23, 200, dtype=np.uint32)])
    return np.concatenate([mantissas, mantissas | np.uint32(1 << 31)]).view(np.float32)


def _mxnet_bfloat16_bits(x, path, onednn="1"):
    """MXNet's bfloat16 bits of float32 ``x``, cast in a fresh process on oneDNN ``path``
    (``onednn="0"``: with oneDNN off), and the ISA oneDNN reports it runs on."""
    env = {k: v for k, v in os.environ.items() if k != "DNNL_MAX_CPU_ISA"}
    env["MXNET_MKLDNN_ENABLED"] = onednn
    if path != "default":
        env["DNNL_MAX_CPU_ISA"] = path
    env["DNNL_VERBOSE"] = "1"                  # prints "dnnl_verbose,info,cpu,isa:..."
    done = subprocess.run([sys.executable, "-c", SUBNORMAL_SCRIPT], env=env, text=True,
                          input=json.dumps(x.view(np.uint32).tolist()), capture_output=True,
                          timeout=120)
    lines = done.stdout.splitlines()
    assert done.returncode == 0 and lines and lines[-1].startswith("["), done.stderr[-2000:]
    isa = [ln.split("isa:", 1)[1] for ln in lines if ",isa:" in ln] or ["(not reported)"]
    return np.array(json.loads(lines[-1]), dtype=np.uint32), isa[0]


@pytest.mark.slow
@ONEDNN
@pytest.mark.parametrize("path", PATHS)
def test_bfloat16_subnormals_per_onednn_path(path, record_property):
    x = _float32_subnormals()
    theirs, isa = _mxnet_bfloat16_bits(x, path)
    kept = to_bfloat16(x).view(np.uint32) >> 16           # as IEEE rounds them
    flushed = x.view(np.uint32) >> 16 & 0x8000            # a zero of the same sign
    wrong = (theirs != kept) & (theirs != flushed)
    assert not wrong.any(), (f"{path} ({isa}): MXNet cast {x[wrong][:5]} to bfloat16 bits "
                             f"{[hex(b) for b in theirs[wrong][:5]]}: neither kept nor flushed")
    tells = kept != flushed                    # where keeping and flushing differ
    assert tells.sum() > 300
    behaviour = ("kept" if (theirs == kept)[tells].all() else
                 "flushed" if (theirs == flushed)[tells].all() else "mixed")
    record_property("bfloat16 subnormals", f"{path} ({isa}): {behaviour}")
    assert behaviour != "mixed", f"{path} ({isa}) keeps some subnormals and flushes others"
    flags = _cpu_flags()
    expected = _expected(path, flags)
    if expected is not None:
        has = sorted((flags or set()) & (AVX512_CORE_FLAGS | {"avx512_bf16", "avx2"}))
        assert behaviour == expected, (f"{path} ({isa}) on a CPU with {has}: subnormals "
                                       f"{behaviour}, expected {expected}")


@pytest.mark.slow
def test_without_onednn_mxnet_truncates():
    """MXNet's own cast (oneDNN off, the course's second numeric configuration) drops
    float32's low 16 bits: rounding toward zero, not to nearest as ``to_bfloat16`` and
    oneDNN do (7e4 becomes 69632, not 70144), subnormals included."""
    x = np.concatenate([_values(), _float32_subnormals()])
    x = x[np.isfinite(x)]
    theirs, _ = _mxnet_bfloat16_bits(x, "default", onednn="0")
    np.testing.assert_array_equal(theirs, x.view(np.uint32) >> 16)
    assert (theirs != to_bfloat16(x).view(np.uint32) >> 16).sum() > 1000   # not to nearest


def test_subnormal_expectations_follow_the_cpu():
    avx2, avx512 = {"avx2"}, AVX512_CORE_FLAGS | {"avx2"}
    assert [_expected(p, avx2) for p in PATHS] == ["flushed"] * 4
    assert [_expected(p, avx512) for p in PATHS] == ["flushed", "flushed", "kept", "kept"]
    assert [_expected(p, avx512 | {"avx512_bf16"}) for p in PATHS] == \
        ["flushed", "flushed", "kept", "flushed"]
    assert [_expected(p, None) for p in PATHS] == ["flushed", "flushed", None, None]


def test_bfloat16_ties_go_to_even():
    # 1 + 2^-8 lies halfway between 1 and 1 + 2^-7: even mantissa is 1
    assert to_bfloat16([1.0 + 2 ** -8, 1.0 + 3 * 2 ** -8]).tolist() == [1.0, 1.0 + 2 ** -6]
    assert np.isnan(to_bfloat16([np.nan])[0]) and to_bfloat16([np.inf])[0] == np.inf


def test_float16_equals_mxnet_cast():
    x = _values()
    theirs = mx.nd.array(x).astype("float16").astype("float32").asnumpy()
    np.testing.assert_array_equal(round_trip(x, "float16"), theirs)


def test_float16_limits():
    assert FLOAT16_SMALLEST == 2.0 ** -24 and FLOAT16_SMALLEST_NORMAL == 2.0 ** -14
    assert round_trip([2 ** -25, 2 ** -24, 65504, 65520], "float16").tolist() == \
        [0.0, 2 ** -24, 65504.0, np.inf]         # 2^-25 ties to even (0); 65520 rounds up


def test_underflow_report_by_hand():
    grads = [np.float32([1e-9, 0.0, 1e-6]), np.float32([[1e-2, 2e-8]])]
    report = underflow(grads)
    assert report.nonzero == 4                   # the exact zero is not counted
    assert report.flushed == 0.5                 # 1e-9 and 2e-8 become 0
    assert report.subnormal == 0.75              # all but 1e-2 are below 6.1e-5
    scaled = underflow(grads, scale=1024.0)
    assert scaled.flushed == 0.0 and scaled.overflowed == 0.0
    assert underflow(grads, scale=1e7).overflowed == 0.25    # 1e-2 * 1e7 > 65504


def test_refuses_what_it_cannot_do():
    with pytest.raises(ValueError, match="dtype"):
        round_trip([1.0], "int8")
    with pytest.raises(ValueError, match="nonzero"):
        underflow([np.zeros(3)])
