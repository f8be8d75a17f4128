"""Find secrets and personal data in text.

Every write into a memory repository passes through :func:`scan` (DESIGN.md
section 7): PII is replaced by typed placeholders (:mod:`gitmem.guards.redact`
replaces, this package finds), and any secret aborts the write. The same
functions back ``gitmem pii`` and the ``gitmem-pii`` / ``gitmem-secrets``
pre-commit hooks, so importing this package must stay cheap: only ``re`` and
``collections`` at import time, every pattern compiled on first use
(:class:`view.Patterns`), ``ipaddress`` and ``binascii`` imported when a
candidate address or blob turns up.

One module per family of detectors:

* :mod:`.view`: the same-length byte views of a text the detectors search,
  lazily compiled patterns, offsets back to (line, column);
* :mod:`.vendors`: vendor token formats and private keys;
* :mod:`.keywords`: secrets around a keyword (URLs, assignments, headers,
  command lines, prose), with :mod:`.plausibility` to tell values from
  placeholders, :mod:`.credname` to tell a credential's name from an
  identifier's and :mod:`.values` to read the value after a label;
* :mod:`.words`: credentials and phone numbers introduced by words of other
  languages (``密码``, ``пароль``, ``Passwort``, ``手机号``);
* :mod:`.layouts`: labelled values in any layout (label lines, tables) and
  password files; :mod:`.commands`: passwords of particular command-line tools;
* :mod:`.disguise`: what a person cannot see (invisible characters,
  look-alike separators) removed before a second scan, and vendor tokens cut
  by whitespace or a swapped separator joined again;
* :mod:`.personal`: emails (spelled ``[at]``/``[dot]`` too) and home paths; :mod:`.numbers`: phones, SSNs,
  cards; :mod:`.network`: IPv4 and IPv6 through ``ipaddress``;
* :mod:`.encoded`: percent-encoded and base64 forms, decoded and rescanned;
* :mod:`.names`: user names learned from a session's home paths, kept as salted hashes;
* :mod:`.scan`: all of them (the text as written and as a person sees it),
  the allowlist and the overlap resolution;
* :mod:`.audit`: the check of an allowlist and of the disabled kinds.

Each detector starts from a cheap anchor that ``re`` finds with its fast
literal-prefix search (``://``, ``@``, ``-----BEGIN``, ``/home/``, a keyword
such as ``pass`` or ``token``…), then an anchored pattern or a little Python
confirms it. Each kind thus costs a pass or two over the text instead of a
pattern tried at every position: several times the speed of the plain
patterns run one after the other (``bench/scan.py``).
"""

from __future__ import annotations

from gitmem.guards.pii.audit import audit
from gitmem.guards.pii.kinds import (
    MANDATORY_KINDS,
    PII_KINDS,
    SECRET_KINDS,
    Allowlist,
    Finding,
    has_secret,
    placeholder,
)
from gitmem.guards.pii.names import Names, find_names, names_in
from gitmem.guards.pii.scan import describe, scan
from gitmem.guards.pii.view import position

__all__ = [
    "MANDATORY_KINDS",
    "PII_KINDS",
    "SECRET_KINDS",
    "Allowlist",
    "Finding",
    "Names",
    "audit",
    "describe",
    "find_names",
    "has_secret",
    "names_in",
    "placeholder",
    "position",
    "scan",
]
