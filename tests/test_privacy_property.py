"""The privacy promise as a property: what the scanner flags never reaches git or the clone's state.

For generated inputs holding card numbers, phone numbers, SSNs, emails, home
paths in many forms, IP addresses and vendor secrets, mixed in prose, driven
through remember, import, harvest, working notes with session end, reflect and
recall: no committed object (blobs, trees, commit messages), ref name, index
row or file under the per-clone state directory holds the value or a telling
part of it (a digit group of 3 or more, a user name, an email's local part,
any 8-character window of a secret), compared case-folded with separators
removed. Examples: ``GITMEM_PRIVACY_EXAMPLES`` (default 12).
"""

from __future__ import annotations

import json
import os
import random
import re
import sqlite3
import string
import subprocess
import tempfile
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gitmem.api import MemoryRepo
from gitmem.base import clock, state
from gitmem.base.errors import SecretError
from gitmem.guards import pii

T = clock.parse_time("2026-11-29T12:00:00Z")
EXAMPLES = int(os.environ.get("GITMEM_PRIVACY_EXAMPLES", "12"))
DIGITS = string.digits


# --------------------------------------------------------------------------- generated values

def _luhn(body: str) -> str:
    total = 0
    for i, c in enumerate(reversed(body)):
        n = int(c) * (2 if i % 2 == 0 else 1)
        total += n - 9 if n > 9 else n
    return body + str((10 - total % 10) % 10)


# Values are made from a seed that hypothesis draws: shrinking a seed keeps them
# realistic (shrinking digits would end at 0000 0000 0000 0000, a placeholder the
# scanner rightly lets pass).

def _digits(r: random.Random, n: int) -> str:
    return "".join(r.choice(DIGITS) for _ in range(n))


def card(r: random.Random) -> str:
    """A Luhn-valid card number of a real issuer's range, grouped as people write it."""
    prefix = r.choice(["4", "51", "52", "53", "54", "55", "6011", "37"])
    size = 15 if prefix == "37" else 16
    number = _luhn(prefix + _digits(r, size - 1 - len(prefix)))
    parts = [number[i:i + 4] for i in range(0, 16, 4)] if size == 16 else [number[:4], number[4:10], number[10:]]
    return r.choice([" ", "-", ""]).join(parts)


def phone(r: random.Random) -> str:
    area, exchange = r.choice("23456789") + _digits(r, 2), r.choice("23456789") + _digits(r, 2)
    form = r.choice(["+1 {a} {e} {l}", "({a}) {e}-{l}", "{a}-{e}-{l}", "+1-{a}-{e}-{l}"])
    return form.format(a=area, e=exchange, l=_digits(r, 4))


def ssn(r: random.Random) -> str:
    return f"{r.randint(101, 665):03d}-{r.randint(10, 99):02d}-{r.randint(1001, 9999):04d}"


def word(r: random.Random, lo: int = 3, hi: int = 4) -> str:
    return "".join(r.choice("bdfgklmnprstvz") + r.choice("aeiou") for _ in range(r.randint(lo, hi)))


def email(r: random.Random) -> str:
    local = word(r) + r.choice([".", "_", ""]) + word(r, 2, 3)
    return f"{local}@{word(r, 2, 3)}.{r.choice(['com', 'io', 'net', 'org', 'de'])}"


def ip(r: random.Random) -> str:
    return f"{r.choice([23, 34, 52, 81, 104, 151, 185, 203])}." + ".".join(str(r.randint(100, 250)) for _ in range(3))


def _alnum(r: random.Random, n: int, alphabet: str = string.ascii_letters + DIGITS) -> str:
    return "".join(r.choice(alphabet) for _ in range(n))


def secret(r: random.Random) -> str:
    """A token of one of several vendors' formats."""
    kind = r.randrange(6)
    if kind == 0:
        return "ghp_" + _alnum(r, 36)
    if kind == 1:
        return "AKIA" + _alnum(r, 12, string.ascii_uppercase + "234567") + _alnum(r, 4, "234567")
    if kind == 2:
        return f"xoxb-{_alnum(r, 12, DIGITS)}-{_alnum(r, 13, DIGITS)}-{_alnum(r, 24)}"
    if kind == 3:
        return "sk_live_" + _alnum(r, 24)
    if kind == 4:
        return "sk-ant-api03-" + _alnum(r, 93) + "AA"
    return "AIza" + _alnum(r, 35)


# Every form a home path takes in a transcript or a note; NAME is the user.
HOME_FORMS = ["/home/{n}/src/app.py", "/Users/{n}/code/app", "~{n}/notes.md", "C:\\Users\\{n}\\repo",
              "C:\\\\Users\\\\{n}\\\\repo", "/c/Users/{n}/work", "/mnt/c/Users/{n}/work", "file:///Users/{n}/doc.txt",
              "file:///home/{n}/x.txt", "file:///C:/Users/{n}/x", "-Users-{n}-proj", "C--Users-{n}-proj",
              "-home-{n}-work"]


# Written apart and never used while changing the detectors: the hold-out forms.
HOME_FORMS_HOLD_OUT = ["/d/Users/{n}/src", "D--Users-{n}-repo", "C:/Users/{n}/AppData/Local", "/export/home/{n}/bin",
                       "file:///c:/Users/{n}/a.pdf", "-Users-{n}-Library-x", "/home/{n}.dev/tmp"]


@dataclass
class Values:
    """One example's flagged values, and the parts of them nothing may hold."""

    card: str
    phone: str
    ssn: str
    email: str
    ip: str
    user: str
    homes: list[str]
    secret: str
    numbers: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.numbers = [self.card, self.phone, self.ssn, self.ip]


@st.composite
def values(draw: st.DrawFn, forms_from: tuple[str, ...] = tuple(HOME_FORMS)) -> Values:
    r = random.Random(draw(st.integers(0, 2**64)))
    user = word(r)
    user = user.capitalize() if r.random() < 0.5 else user
    forms = r.sample(forms_from, r.randint(3, 5))
    return Values(card(r), phone(r), ssn(r), email(r), ip(r), user, [f.format(n=user) for f in forms], secret(r))


def prose(v: Values, i: int) -> str:
    """A sentence that mixes the values with ordinary words (slightly different per ``i``)."""
    home = v.homes[i % len(v.homes)]
    return (f"Billing deploy note {i}: customer card {v.card}, call {v.phone} or mail {v.email}; "
            f"SSN on file {v.ssn}. The checkout lives in {home} and the server is {v.ip}.")


# --------------------------------------------------------------------------- driving gitmem

def claude_transcript(folder: Path, v: Values, sid: str, secret: bool = False) -> Path:
    """A Claude Code session file in its project folder, cwd under the user's home."""
    folder.mkdir(parents=True, exist_ok=True)
    cwd = f"/Users/{v.user}/billing"
    turns: list[tuple[str, object]] = [
        ("user", f"Please fix the billing export. {prose(v, 7)} Remember that {v.user} needs admin rights."),
        ("assistant", [{"type": "tool_use", "id": "t1", "name": "Bash",
                        "input": {"command": f"cat {v.homes[0]}/export.log && ping {v.ip}"}}]),
        ("user", [{"type": "tool_result", "tool_use_id": "t1", "is_error": True,
                   "content": f"Error: permission denied for {v.user} at {v.homes[-1]}; contact {v.email}"}]),
        ("user", f"No, don't email {v.email}; we decided to ask {v.user} and call {v.phone} instead."),
        ("assistant", [{"type": "text", "text": f"Done. {v.user} has the card {v.card} on file."}]),
    ]
    if secret:
        turns.append(("user", f"the deploy key is {v.secret}"))
    lines, parent = [], None
    for n, (kind, content) in enumerate(turns):
        uid = str(uuid.UUID(int=n + 1))
        msg = {"role": "user", "content": content} if kind == "user" else \
            {"id": f"msg_{n}", "type": "message", "role": "assistant", "model": "m", "content": content}
        lines.append(json.dumps({"parentUuid": parent, "isSidechain": False, "userType": "external", "cwd": cwd,
                                 "sessionId": sid, "version": "2.1.27", "type": kind, "message": msg, "uuid": uid,
                                 "timestamp": f"2026-11-20T10:{n:02d}:00Z"}))
        parent = uid
    path = folder / f"{sid}.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def drive(root: Path, work: Path, v: Values) -> None:
    """Every writer gitmem has, fed the values; secrets are refused on each path."""
    MemoryRepo.init(root / "mem", T, install_hooks=False)
    repo = MemoryRepo.open(root / "mem")
    for i in range(3):
        repo.remember(prose(v, i), tags=(v.email, v.homes[0]), now=T)
    for bad in (lambda: repo.remember(f"{prose(v, 9)} token {v.secret}", now=T),
                lambda: repo.note(f"the key is {v.secret}", now=T)):
        with pytest.raises(SecretError):
            bad()
    source = work / f"{v.user}-{v.email}.jsonl"
    source.write_text("\n".join(json.dumps({"content": prose(v, 10 + i), "id": f"{v.email}#{i}",
                                            "tags": [v.phone]}) for i in range(3)) + "\n")
    repo.import_file(source, now=T)
    leaky = work / f"leak-{v.email}.jsonl"
    leaky.write_text(json.dumps({"content": f"ssh key {v.secret} for {v.email}"}) + "\n")
    with pytest.raises(SecretError):
        repo.import_file(leaky, now=T)
    project = work / "projects" / f"-Users-{v.user}-billing"
    results = repo.harvest([claude_transcript(project, v, str(uuid.uuid4())),
                            claude_transcript(project, v, f"{v.user}-{v.email}"),
                            claude_transcript(project, v, str(uuid.uuid4()), secret=True)], now=T)
    assert sorted(r.status for r in results) == ["harvested", "harvested", "rejected"], results
    # the user's name is known now (a salted hash): it is redacted where it stands alone
    repo.remember(f"Ask {v.user} about the billing export.", tags=(f"user-{v.user}",), now=T)
    repo.note(f"Working note: {prose(v, 20)} Important: always check {v.homes[0]}.", importance=0.9, now=T)
    repo.session_end(now=T, session=f"{v.user}:{v.email}")
    repo.reflect(now=T)
    repo.recall(f"billing card {v.card} {v.email} {v.user}", now=T)


# --------------------------------------------------------------------------- what must not hold the values

# Object ids, hashes, salts, UUIDs and memory-id tails: random hex whose digit runs would
# match a 3-digit group by chance; none of them is derived from user text.
_HEX_ID = re.compile(r"(?<![0-9A-Za-z])(?:[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}"
                     r"|(?=[0-9a-f]*[a-f])[0-9a-f]{10,64})(?![0-9A-Za-z])")


def flat(text: str) -> str:
    """Case-folded, separators removed."""
    return re.sub(r"[\W_]+", "", text.casefold())


def telling_parts(v: Values) -> tuple[list[str], list[str]]:
    """(digit groups that may not stand as a digit run, strings that may not appear once flattened)."""
    groups = [g for n in v.numbers for g in re.findall(r"\d{3,}", n)]
    wholes = [flat(n) for n in v.numbers if len(flat(n)) >= 7]
    secret = flat(v.secret)
    windows = [secret[i:i + 8] for i in range(len(secret) - 7)]
    return groups, [*wholes, flat(v.email.split("@")[0]), flat(v.user), *windows]


def surfaces(mem: Path) -> dict[str, str]:
    """Everything the promise covers, as text: objects, refs, index rows, per-clone state files."""
    def git(*args: str, data: bytes | None = None) -> bytes:
        return subprocess.run(["git", *args], cwd=mem, input=data, capture_output=True, check=True).stdout

    out: dict[str, str] = {}
    listing = git("rev-list", "--all", "--objects")
    out["object names"] = listing.decode()
    ids = b"\n".join(line.split(b" ")[0] for line in listing.splitlines()) + b"\n"
    kinds = git("cat-file", "--batch-check=%(objectname) %(objecttype)", data=ids).split()
    # a tree's entries are names (listed above) and binary ids, whose bytes read as random digits
    texts = b"\n".join(oid for oid, kind in zip(kinds[0::2], kinds[1::2]) if kind != b"tree") + b"\n"
    out["objects"] = git("cat-file", "--batch=%(objecttype)", data=texts).decode("utf-8", "replace")
    out["refs"] = git("for-each-ref", "--format=%(refname)").decode()
    git_dir, common = state.git_dirs(mem)
    rows, blobs = [], []
    con = sqlite3.connect(state.index_path(mem))
    for (table,) in con.execute("select name from sqlite_master where type='table'").fetchall():
        for row in con.execute(f"select * from \"{table}\""):
            rows += [c for c in row if isinstance(c, str)]   # numeric columns are gitmem's own scores and counts
            blobs += [c.decode("utf-8", "replace") for c in row if isinstance(c, bytes)]
    con.close()
    out["index rows"] = "\n".join(rows)
    out["binary index rows"] = "\n".join(blobs)   # full-text segments: varints look like digits
    for folder in {git_dir / state.STATE_DIR, common / state.STATE_DIR}:
        for path in folder.rglob("*"):
            if path.is_file():
                raw = path.read_bytes()
                if not raw.startswith(b"SQLite format 3"):   # the index is checked row by row above
                    text = raw.decode("utf-8", "replace")
                    if path.name == "harvest-cursor.json":   # each file's size and mtime: measurements,
                        text = re.sub(r"\[[\d, ]*\]", "[stat]", text)   # a digit run there is a coincidence
                    out[f"state {path.name}"] = text
    return out


# Where a finding was ("aws_access_key at line 1, column 220"): gitmem's own count, not the value's.
_LOCATION = re.compile(r"\b(?:line|column) \d+")
# gitmem's own numbers and times on a line of their own ("importance: 0.825", "created: 2026-…",
# "Gitmem-Files: 3"): a generated value's digit group equal to one of them is a coincidence
_OWN_NUMBER = re.compile(r"(?m)^[ \t]*[A-Za-z_-]+:[ \t]*['\"]?[-+]?[\d.:TZ+-]+['\"]?[ \t]*$")
_BASELINE: list[set[str]] = []


def baseline_runs() -> set[str]:
    """The digit runs a new, empty memory repository already holds (config values, template
    text): a generated group equal to one of them tells nothing, and is not looked for."""
    if not _BASELINE:
        with tempfile.TemporaryDirectory() as tmp:
            MemoryRepo.init(Path(tmp) / "mem", T, install_hooks=False)
            MemoryRepo.open(Path(tmp) / "mem").recall("anything", now=T)
            text = "\n".join(_HEX_ID.sub(" ", t) for t in surfaces(Path(tmp) / "mem").values())
            _BASELINE.append(set(re.findall(r"\d+", text)))
    return _BASELINE[0]


def leaks(mem: Path, v: Values) -> list[str]:
    """Where a telling part of a value was found (empty: the promise holds)."""
    groups, needles = telling_parts(v)
    groups = [g for g in groups if g not in baseline_runs()]
    found = []
    for where, text in surfaces(mem).items():
        text = _OWN_NUMBER.sub(" ", _LOCATION.sub(" ", _HEX_ID.sub(" ", text)))
        for g in groups if not where.startswith("binary") else ():
            m = re.search(rf"(?<!\d){g}(?!\d)", text)
            if m is not None:
                found.append(f"{where}: digit group {g} in {text[max(0, m.start() - 60):m.end() + 20]!r}")
        squashed = flat(text)
        found += [f"{where}: {n!r}" for n in needles if n in squashed]
    return found


def assert_flagged(v: Values) -> None:
    """The generated values are realistic: the scanner flags each of them where it stands
    (a home path: the part that names the user)."""
    for value in (*v.numbers, v.email, *v.homes, v.secret):
        text = f"note: {value} ."
        start = text.index(value)
        if value in v.homes:
            start = text.index(v.user)
            hits = [f for f in pii.scan(text) if f.start <= start and f.end >= start + len(v.user)]
        else:
            hits = [f for f in pii.scan(text) if f.start <= start + 2 and f.end >= start + len(value) - 4]
        assert hits, value
    assert pii.has_secret(pii.scan(f"key {v.secret}"))


def check(v: Values) -> None:
    """Drive every writer with ``v`` in a new repository, then look for what it may not hold."""
    assert_flagged(v)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        work = root / "in"
        work.mkdir()
        drive(root, work, v)
        assert leaks(root / "mem", v) == []


@pytest.mark.slow
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(values())
def test_nothing_flagged_reaches_git_the_index_or_the_state(v: Values) -> None:
    check(v)


@pytest.mark.slow
@settings(max_examples=max(2, EXAMPLES // 3), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(values(tuple(HOME_FORMS_HOLD_OUT)))
def test_nothing_flagged_reaches_git_hold_out_home_forms(v: Values) -> None:
    check(v)
