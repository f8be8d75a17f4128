"""Tests for gitmem.guards.pii, the package: its public surface and a light import.

Every secret here is fabricated: random characters with a real prefix and length.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


from gitmem.guards import pii


def test_public_names() -> None:
    assert set(pii.__all__) == {
        "MANDATORY_KINDS", "PII_KINDS", "SECRET_KINDS", "Allowlist", "Finding", "Names", "audit", "describe",
        "find_names", "has_secret", "names_in", "placeholder", "position", "scan",
    }
    assert pii.SECRET_KINDS == (
        "aws_access_key", "aws_secret_key", "github_token", "openai_key", "anthropic_key", "slack_token",
        "stripe_key", "google_api_key", "jwt", "private_key", "url_credentials", "env_secret", "generic_api_key",
    )
    assert pii.PII_KINDS == ("email", "phone", "ipv4", "ipv6", "ssn", "home_path", "credit_card")


def test_import_is_light_and_compiles_nothing() -> None:
    """The pre-commit hook imports this module on every commit."""
    code = (
        "import sys, gitmem.guards.pii as p\n"
        "from gitmem.guards.pii import encoded, keywords, network, numbers, personal, plausibility, vendors, view\n"
        "from gitmem.guards.pii import commands, disguise, layouts, values\n"
        "mods = (encoded, keywords, network, numbers, personal, plausibility, vendors, view,\n"
        "        commands, disguise, layouts, values)\n"
        "fresh = all(set(vars(m._rx)) == {'_sources'} for m in mods) and not vendors._VENDOR_CACHE\n"
        "heavy = [m for m in ('pygit2', 'ruamel', 'markdown_it', 'regex', 'yaml', 'ipaddress', 'dataclasses', 'typing')\n"
        "         if m in sys.modules]\n"
        "print(fresh and network._NETWORKS is None, heavy)\n"
    )
    root = Path(__file__).resolve().parent.parent
    out = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "True []"


PACKAGE = Path(__file__).resolve().parent.parent / "gitmem" / "guards" / "pii"
# Who may import whom inside the package: each module only from the rows above it.
LAYERS = [
    {"kinds", "view"},
    {"plausibility", "audit", "credname"},
    {"vendors", "personal", "numbers", "network", "encoded", "values"},
    {"disguise", "layouts", "commands", "words"},
    {"keywords"},
    {"scan"},
    {"names"},
    {"stream", "__init__"},
]
# codecs: the interpreter loads it at start-up, so stream's incremental decoder costs no import
STDLIB_ALLOWED = {"__future__", "re", "collections", "collections.abc", "typing", "ipaddress", "binascii", "unicodedata",
                  "bisect", "hashlib", "codecs"}


def package_imports() -> dict[str, set[str]]:
    """module name -> the modules it imports (function-level imports included)."""
    import ast

    found: dict[str, set[str]] = {}
    for path in sorted(PACKAGE.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module:
                names.add(node.module)
        found[path.stem] = names
    assert found, "no module found in the pii package"
    return found


def test_every_module_has_a_layer_and_imports_only_below_it() -> None:
    layer_of = {name: i for i, layer in enumerate(LAYERS) for name in layer}
    imports = package_imports()
    assert set(imports) == set(layer_of)
    for module, names in imports.items():
        for name in names:
            if name.startswith("gitmem.guards.pii."):
                other = name.rsplit(".", 1)[1]
                assert layer_of[other] < layer_of[module] or module == "__init__", (module, other)
            else:
                assert name in STDLIB_ALLOWED, (module, name)


def test_modules_stay_small() -> None:
    sizes = {p.name: len(p.read_text(encoding="utf-8").splitlines()) for p in PACKAGE.glob("*.py")}
    assert sizes
    assert max(sizes.values()) <= 500, sizes


def test_public_functions_are_documented_and_annotated() -> None:
    import inspect

    for name in pii.__all__:
        obj = getattr(pii, name)
        if callable(obj):
            assert inspect.getdoc(obj), name
        if inspect.isfunction(obj):
            assert "return" in obj.__annotations__, name


def test_scan_of_each_session_fixture_finds_no_overlap() -> None:
    files = sorted((Path(__file__).parent / "fixtures" / "sessions").rglob("*"))
    texts = [p.read_text(encoding="utf-8", errors="replace") for p in files if p.is_file()]
    assert texts, "no session fixture"
    for text in texts:
        found = pii.scan(text)
        assert all(a.end <= b.start for a, b in zip(found, found[1:]))
        assert all(0 <= f.start < f.end <= len(text) for f in found)
