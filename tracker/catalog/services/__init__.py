"""Catalog services, one concern per module."""

# Bridge until the catalog split lands: this package shadows the sibling services.py, so
# its names are loaded here while that file exists. Take the split's __init__.py over this.
import pathlib as _pathlib

_legacy = _pathlib.Path(__file__).parent.parent / "services.py"
if _legacy.exists():
    exec(compile(_legacy.read_text(), str(_legacy), "exec"))
