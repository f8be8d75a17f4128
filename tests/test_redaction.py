"""The use cases' redaction of a caller's text: PII replaced before anything is derived, a secret
refused and logged, user names learned from a source remembered by the clone."""

from __future__ import annotations

import json
import subprocess

import pytest

from gitmem.api import MemoryRepo
from gitmem.api.redaction import Redactor
from gitmem.base import clock, state
from gitmem.base.errors import SecretError
from tests.conftest import NOW

T = clock.parse_time(NOW)
TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


def test_pii_becomes_placeholders_and_the_kinds_are_named(repo: MemoryRepo) -> None:
    done = Redactor(repo.root, repo.cfg).redact("mail priya.natarajan@corp-mail.net", "note", "test.note", T)
    assert done.text == "mail [EMAIL]" and done.kinds == ("email",)


def test_a_secret_is_refused_and_logged_without_its_value(repo: MemoryRepo) -> None:
    with pytest.raises(SecretError) as info:
        Redactor(repo.root, repo.cfg).redact_text(f"token {TOKEN}", "tag", "memory.create", T, session="s-9")
    assert info.value.findings and info.value.findings[0][0] == "tag"
    lines = [json.loads(line) for line in state.events_path(repo.root).read_text().splitlines()]
    rejected = [e for e in lines if e.get("event") == "secret.rejected"]
    assert rejected and rejected[-1]["event_kind"] == "memory.create" and rejected[-1]["session"] == "s-9"
    assert TOKEN not in state.events_path(repo.root).read_text()


def test_a_learned_name_is_kept_by_the_clone_for_the_next_redactor(repo: MemoryRepo) -> None:
    first = Redactor(repo.root, repo.cfg)
    seen = first.redact("ran in /home/zoltanfekete/app", "transcript", "harvest.session", T, names=["zoltanfekete"])
    assert "zoltanfekete" not in seen.text
    later = Redactor(repo.root, repo.cfg).redact_text("ask zoltanfekete about it", "note", "test.note", T)
    assert "zoltanfekete" not in later


def test_the_writer_still_refuses_a_secret_the_caller_did_not_redact(repo: MemoryRepo) -> None:
    from gitmem.writer.plan import Plan

    head = repo.head
    with pytest.raises(SecretError):
        repo.writer.write(lambda parent: Plan({"memory/user/x.md": f"key {TOKEN}\n".encode()}, "s", "e"), T)
    assert repo.head == head


def test_a_name_learned_after_the_writer_opened_is_redacted_in_its_next_commit_message(repo: MemoryRepo) -> None:
    from gitmem.writer.plan import Plan

    def note(subject: str) -> Plan[None]:
        return Plan({"bank/notes.md": subject.encode() + b"\n"}, subject, "test.note")

    repo.writer.write(lambda parent: note("first note"), T)          # the writer has read the names by now
    Redactor(repo.root, repo.cfg).redact("ran in /home/zoltanfekete/app", "transcript", "harvest.session", T,
                                         names=["zoltanfekete"])
    written = repo.writer.write(lambda parent: note("ask zoltanfekete"), T)
    message = subprocess.run(["git", "log", "-1", "--format=%B", written.commit or ""], cwd=repo.root,
                             capture_output=True, text=True, check=True).stdout
    assert "zoltanfekete" not in message and "ask " in message
