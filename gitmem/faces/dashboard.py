"""The dashboard as one self-contained HTML file: data in, text out (issue 12 item 5).

The page (``dashboard.html`` beside this module) draws every chart with its own
small script into inline SVG; it loads nothing from anywhere. The data goes in
as JSON inside a ``<script type="application/json">`` element with ``<``, ``>``
and ``&`` escaped, so no text of a memory can close that element, and the
script puts every string on the page with ``textContent``. A Content-Security-
Policy allows only the page's own style and script, by their SHA-256 hashes.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from typing import Any

TEMPLATE = "dashboard.html"
_STYLE = re.compile(r"<style>(.*?)</style>", re.S)
_SCRIPT = re.compile(r"<script>(.*?)</script>", re.S)


def template() -> str:
    """The page template shipped in the package."""
    from importlib import resources

    return resources.files("gitmem.faces").joinpath(TEMPLATE).read_text("utf-8")


# Bidirectional controls and zero-width characters, shown as [U+XXXX] on the page as in
# every generated file (gitmem.engines.render.as_data): a reader sees what is there.
_INVISIBLE = re.compile("[\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]")


def embed(data: Any) -> str:
    """``data`` as JSON safe inside a script element: no ``<``, ``>`` or ``&`` left to end it or open markup,
    no invisible character left to reorder or hide what the page shows."""
    text = json.dumps(data, ensure_ascii=False, sort_keys=True, allow_nan=False)
    text = _INVISIBLE.sub(lambda m: f"[U+{ord(m[0]):04X}]", text)
    return (text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


def _hash(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii") + "'"


def policy(page: str) -> str:
    """The Content-Security-Policy of ``page``: nothing but its inline style and script, by hash."""
    styles = " ".join(_hash(m) for m in _STYLE.findall(page))
    scripts = " ".join(_hash(m) for m in _SCRIPT.findall(page))
    return (f"default-src 'none'; style-src {styles}; script-src {scripts}; img-src 'none'; "
            "base-uri 'none'; form-action 'none'")


def render(data: Any) -> str:
    """The dashboard page for ``data`` (what ``MemoryRepo.dashboard_data`` returns)."""
    page = template()
    return page.replace("__CSP__", policy(page), 1).replace("__DATA__", embed(data), 1)
