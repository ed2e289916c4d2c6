"""Every package's docstring names every module in it, so the map of the library cannot
drift from its files: add a module, and this fails until its package says what it is for."""

import ast
from pathlib import Path

import pytest

import tutorial

ROOT = Path(tutorial.__file__).parent
PACKAGES = sorted(p.parent for p in ROOT.rglob("__init__.py") if "__pycache__" not in p.parts)


def members(package):
    """Module and subpackage names of ``package`` (private ones and __main__ left out)."""
    names = [p.stem for p in package.glob("*.py") if not p.stem.startswith("_")]
    names += [p.name for p in package.iterdir() if (p / "__init__.py").exists()]
    return sorted(names)


@pytest.mark.parametrize("package", PACKAGES, ids=lambda p: str(p.relative_to(ROOT.parent)))
def test_package_docstring_names_every_module(package):
    doc = ast.get_docstring(ast.parse((package / "__init__.py").read_text())) or ""
    missing = [name for name in members(package)
               if f"``{name}``" not in doc and f"``tutorial.{name}``" not in doc]
    assert not missing, (f"{package.name}/__init__.py's docstring does not "
                         f"name {', '.join(missing)} (write ``name``  what it is for)")


def test_the_check_can_fail(tmp_path):
    (tmp_path / "__init__.py").write_text('"""Names ``kept`` only."""\n')
    (tmp_path / "kept.py").write_text("")
    (tmp_path / "forgotten.py").write_text("")
    assert members(tmp_path) == ["forgotten", "kept"]
    with pytest.raises(AssertionError, match="forgotten"):
        test_package_docstring_names_every_module(tmp_path)
