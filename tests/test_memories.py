"""remember, show, list, forget, import, export through the library and the CLI."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from gitmem.base import clock
from gitmem.api import MemoryRepo
from gitmem.base.errors import DocumentError, NotFoundError, SecretError, ValidationError
from gitmem.base.model import shard
from tests.conftest import NOW, run_cli

T = clock.parse_time(NOW)


def head_count(repo_dir: Path) -> int:
    return int(subprocess.run(["git", "rev-list", "--count", "HEAD"], cwd=repo_dir, capture_output=True,
                              text=True, check=True).stdout)


def test_remember_creates_then_reinforces_a_duplicate(repo: MemoryRepo) -> None:
    a = repo.remember("Remember that the staging database runs on port 5432", now=T)
    assert a.action == "created" and a.memory.importance == 0.9 and a.memory.tier == "short"
    b = repo.remember("the staging database runs on port 5432", now=T)
    assert b.action == "reinforced" and b.id == a.id
    assert b.memory.reinforced == 1 and b.memory.importance == pytest.approx(0.99)
    c = repo.remember("the staging database runs on port 5433", now=T)
    assert c.action == "created" and c.id != a.id
    assert len(repo.list().memories) == 2


def test_negation_is_never_merged(repo: MemoryRepo) -> None:
    a = repo.remember("use tabs for indentation in this repo", now=T)
    b = repo.remember("never use tabs for indentation in this repo", now=T)
    assert b.action == "created" and a.id != b.id


def test_explicit_fields_and_validation(repo: MemoryRepo) -> None:
    r = repo.remember("Deploys happen on Tuesdays", type="decision", domain="project", importance=0.3,
                      memory_id="deploy-day", tags=["release"], now=T)
    m = repo.show("deploy-day")
    assert (m.type, m.domain, m.importance, m.tags) == ("decision", "project", 0.3, ("release",))
    assert m.path == f"memory/project/{shard('deploy-day')}/deploy-day.md"
    assert r.memory.band == "background"
    with pytest.raises(ValidationError):
        repo.remember("x", memory_id="../../etc/passwd", now=T)
    with pytest.raises(ValidationError):
        repo.remember("x", importance=1.5, now=T)
    with pytest.raises(ValidationError):
        repo.remember("   ", now=T)
    with pytest.raises(ValidationError):
        repo.remember("a" * (1024 * 1024 + 1), now=T)
    with pytest.raises(ValidationError, match="exists"):
        repo.remember("other", memory_id="deploy-day", now=T)


def test_pii_is_stripped_and_secrets_refused(repo: MemoryRepo, repo_dir: Path) -> None:
    r = repo.remember("Contact me at dana.lee@gmail.com, I prefer email", now=T)
    assert "dana.lee@gmail.com" not in (repo_dir / r.memory.path).read_text()
    assert "[EMAIL]" in repo.show(r.id).content
    before = head_count(repo_dir)
    with pytest.raises(SecretError) as info:
        repo.remember("the deploy token is ghp_" + "Ab3dE6gH9jK2mN5pQ8rS1tU4vW7xY0zA1b2C", now=T)
    assert "github_token" in str(info.value) and "ghp_" not in str(info.value)
    assert head_count(repo_dir) == before
    events = (repo_dir / ".git/gitmem/events.jsonl").read_text()
    assert "secret.rejected" in events and "ghp_" not in events


def test_forget_archives_in_one_commit(repo: MemoryRepo, repo_dir: Path) -> None:
    r = repo.remember("the build uses make", now=T)
    before = head_count(repo_dir)
    f = repo.forget(r.id, now=T)
    assert head_count(repo_dir) == before + 1
    assert f.path.startswith("archive/") and (repo_dir / f.path).exists()
    assert repo.show(r.id).tier == "archive"
    assert r.id not in {m.id for m in repo.list().memories}
    assert r.id in {m.id for m in repo.list(include_archive=True).memories}
    assert repo.forget(r.id, now=T).commit is None
    with pytest.raises(NotFoundError):
        repo.forget("m-nope", now=T)


def test_malformed_file_is_reported_not_fatal(repo: MemoryRepo, repo_dir: Path) -> None:
    repo.remember("a good memory", now=T)
    from gitmem.writer.plan import Plan

    bad = b"---\nid: broken\ntype: [unclosed\n---\nbody\n"
    repo.writer.write(lambda p: Plan({"memory/user/broken.md": bad}, "hand edit", "test"), T)
    listing = repo.list()
    assert len(listing.memories) == 1
    assert len(listing.problems) == 1 and "memory/user/broken.md:3" in listing.problems[0]
    with pytest.raises(DocumentError):
        repo.show("broken")



def test_hand_edited_scalar_links_do_not_crash_the_listing(repo: MemoryRepo) -> None:
    from gitmem.writer.plan import Plan

    repo.remember("a good memory", now=T)
    odd = b"---\nid: odd\nlinks: 1\n---\nbody\n"
    repo.writer.write(lambda p: Plan({"memory/user/odd.md": odd}, "hand edit", "test"), T)
    listing = repo.list()
    assert len(listing.memories) + len(listing.problems) == 2

def test_yaml_bomb_in_front_matter_is_refused(repo: MemoryRepo) -> None:
    from gitmem.writer.plan import Plan

    bomb = b'---\na: &a ["x","x","x","x","x","x","x","x"]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a]\nc: [*b,*b,*b,*b,*b,*b,*b,*b]\n---\nboom\n'
    repo.writer.write(lambda p: Plan({"memory/user/bomb.md": bomb}, "bomb", "test"), T)
    listing = repo.list()
    assert any("anchors and aliases" in p for p in listing.problems)


def test_import_one_commit_keeps_ids_and_skips_bad_lines(repo: MemoryRepo, repo_dir: Path, tmp_path: Path) -> None:
    src = tmp_path / "rows.jsonl"
    src.write_bytes(b"\n".join([
        json.dumps({"id": "conv-26:D1:3", "content": "Caroline went to a support group", "created": "2023-05-08T13:56:00",
                    "tags": ["s1"]}).encode(),
        json.dumps({"id": "good-id", "content": "Melanie paints sunrises", "type": "fact", "importance": 0.6}).encode(),
        b"{not json",
        json.dumps({"content": ""}).encode(),
        json.dumps({"content": "bad type", "type": "banana"}).encode(),
        b"\xff\xfe",
        json.dumps({"content": "no id here", "domain": "world"}).encode(),
        b"",
    ]))
    before = head_count(repo_dir)
    r = repo.import_file(src, now=T)
    assert head_count(repo_dir) == before + 1
    assert r.created == 3 and [line for line, _ in r.skipped] == [3, 4, 5, 6]
    by_source = {m.source_id: m for m in repo.list().memories}
    m = by_source["conv-26:D1:3"]
    assert m.created == "2023-05-08T13:56:00Z" and m.last_accessed == NOW and m.band != "fading"
    assert repo.show("good-id").importance == 0.6
    again = repo.import_file(src, now=T)
    assert again.commit is None and again.unchanged == 3
    assert head_count(repo_dir) == before + 1


def test_import_markdown_and_learnings(repo: MemoryRepo, tmp_path: Path) -> None:
    md = tmp_path / "MEMORY.md"
    md.write_text("# Preferences\n\n- Prefers dark mode\n- Uses vim keybindings\n\n# Projects\n\nWorks on the billing service.\n")
    r = repo.import_file(md, now=T)
    assert r.created == 3
    learn = tmp_path / ".learnings"
    learn.mkdir()
    (learn / "ERRORS.md").write_text("## [ERR-1] npm ci fails\n\nUse node 20, not 22.\n\n## [ERR-2] flaky test\n\nMock the clock.\n")
    r2 = repo.import_file(learn, now=T)
    assert r2.created == 2
    errors = [m for m in repo.list().memories if m.type == "error"]
    assert len(errors) == 2


def test_import_dedupe_reinforces(repo: MemoryRepo, tmp_path: Path) -> None:
    repo.remember("the staging database runs on port 5432", now=T)
    src = tmp_path / "d.jsonl"
    src.write_text(json.dumps({"content": "The staging database runs on port 5432."}) + "\n"
                   + json.dumps({"content": "Lunch is at noon"}) + "\n")
    r = repo.import_file(src, dedupe=True, now=T)
    assert (r.created, r.reinforced) == (1, 1)


def test_export_round_trips_through_import(repo: MemoryRepo, tmp_path: Path) -> None:
    repo.remember("alpha fact about kafka", now=T)
    repo.remember("beta preference: I prefer kotlin", now=T)
    dump = tmp_path / "dump.jsonl"
    dump.write_text("\n".join(json.dumps(r) for r in repo.export()) + "\n")
    other = MemoryRepo.init(tmp_path / "other", T, install_hooks=False)
    r2 = other.import_file(dump, now=T)
    assert r2.created == 2


def test_cli_remember_list_show_forget_export(repo_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = ["--repo", str(repo_dir), "--now", NOW]
    code, out, _ = run_cli([*base, "remember", "I prefer short commit messages", "--json"], capsys)
    assert code == 0
    rid = json.loads(out)["id"]
    code, out, _ = run_cli([*base, "list", "--json"], capsys)
    assert [m["id"] for m in json.loads(out)] == [rid]
    code, out, _ = run_cli([*base, "show", rid], capsys)
    assert "I prefer short commit messages" in out and "type: preference" in out
    code, out, _ = run_cli([*base, "export"], capsys)
    assert json.loads(out.splitlines()[0])["id"] == rid
    code, out, _ = run_cli([*base, "forget", rid], capsys)
    assert code == 0 and "archived" in out
    code, _, err = run_cli([*base, "show", "no-such-id"], capsys)
    assert code == 1 and "no memory with id" in err and "hint:" in err


def test_cli_import_reports_line_numbers(repo_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "x.jsonl"
    src.write_text('{"content": "fine"}\n{broken\n')
    code, out, err = run_cli(["--repo", str(repo_dir), "import", str(src), "--json"], capsys)
    assert code == 0
    assert json.loads(out)["skipped"] == [{"line": 2, "reason": "not valid JSON (Expecting property name enclosed in double quotes)"}]
    assert f"{src}:2: skipped" in err


def test_remember_returns_what_was_stored(repo: MemoryRepo) -> None:
    r = repo.remember("Write to me at erin.moss@fastmail.com", now=T)
    assert "erin.moss" not in r.memory.content and "[EMAIL]" in r.memory.content


# --------------------------------------------------------------------------- privacy (issue 8 items 1-2)

CARD, PHONE = "4539 1488 0343 6467", "+1 415 867 5309"


def test_remember_derives_nothing_from_text_before_it_is_redacted(repo: MemoryRepo, repo_dir: Path) -> None:
    r = repo.remember(f"Pay with card {CARD}, call {PHONE}, notes in /home/johnsmith/billing/x.py",
                      tags=("jane.roe@corp-mail.com", "/Users/johnsmith/y"), source="mail from jane.roe@corp-mail.com",
                      now=T)
    held = " ".join((*r.memory.keywords, *r.memory.tags, r.memory.source, r.memory.content))
    for part in ("4539", "1488", "0343", "6467", "415", "867", "5309", "johnsmith", "jane"):
        assert part not in held, part
    assert set(r.stripped) >= {"credit_card", "phone", "home_path"}
    stored = (repo_dir / r.memory.path).read_text()
    assert "1488" not in stored and "johnsmith" not in stored
    repo.recall("card billing", now=T)   # the index is derived from what was stored
    index = (repo_dir / ".git" / "gitmem" / "index.sqlite").read_bytes()
    assert b"1488" not in index and b"johnsmith" not in index


def test_import_redacts_rows_and_records_a_hash_of_the_file_name(repo: MemoryRepo, repo_dir: Path,
                                                                 tmp_path: Path) -> None:
    keys = []
    for name in ("jane.roe@corp-mail.com.jsonl", "max.mayer@corp-mail.com.jsonl"):   # they redact alike
        src = tmp_path / name
        src.write_text(json.dumps({"content": f"{name[:4]} pays with card {CARD}", "id": "jane.roe@corp-mail.com",
                                   "tags": [PHONE]}) + "\n")
        imp = repo.import_file(src, now=T)
        assert imp.created == 1
        msg = subprocess.run(["git", "log", "-1", "--format=%B"], cwd=repo_dir, capture_output=True, text=True).stdout
        assert "corp-mail" not in msg and "jane" not in msg and "max.mayer" not in msg
        keys.append(msg.split("Gitmem-Source: import:")[1].split()[0])
    assert keys[0] != keys[1] and all(k.startswith("f-") for k in keys)
    for m in repo.list().memories:
        held = " ".join((*m.keywords, *m.tags, m.source, m.source_id or "", m.content))
        assert "1488" not in held and "867" not in held and "corp-mail" not in held, held


# --- what a person types (issue 9 item 8) -----------------------------------------------

@pytest.mark.parametrize("text", ["\u200b", "\u200b\u200c\u200d\u2060\ufeff", " \u3164 \u115f\u1160 ", "\u2800\t\n",
                                  "\u202e\u202c", "\x1b\x07", "\u00a0\u2003\u3000"])
def test_content_of_only_invisible_characters_is_empty(repo: MemoryRepo, repo_dir: Path, text: str) -> None:
    before = head_count(repo_dir)
    with pytest.raises(ValidationError, match="memory text is empty"):
        repo.remember(text, now=T)
    assert head_count(repo_dir) == before


def test_control_and_bidi_characters_never_reach_tags_sources_or_the_commit_subject(repo: MemoryRepo,
                                                                                    repo_dir: Path) -> None:
    r = repo.remember("the \u202eevil\u202c build flag\x1b[31m", tags=["ab\u202ecd", "\x07", "x\u2066y"],
                      source="tool\u200f\nInjected: trailer", memory_id="m-bidi", now=T)
    assert r.memory.tags == ("abcd", "xy") and r.memory.source == "tool Injected: trailer"
    subject = subprocess.run(["git", "log", "-1", "--format=%B"], cwd=repo_dir, capture_output=True,
                             text=True, check=True).stdout
    assert not any(ch in subject for ch in "\u202e\u202c\u2066\u200f\x07\x1b")
    stored = (repo_dir / r.memory.path).read_text()
    assert not any(ch in stored.split("\n---\n")[0] for ch in "\u202e\u2066\u200f\x07")


@pytest.mark.slow
def test_the_size_limit_is_checked_on_the_given_text_at_the_cap(repo: MemoryRepo, repo_dir: Path) -> None:
    cap = repo.cfg.sediment.max_content_bytes
    under = repo.remember("é" * ((cap - 2) // 2) + "a", now=T)       # one byte under the cap
    assert len(under.memory.content.encode()) == cap - 1
    at = repo.remember("b" + "ü" * ((cap - 2) // 2) + "c", now=T)    # exactly at the cap
    assert len(at.memory.content.encode()) == cap
    before = head_count(repo_dir)
    with pytest.raises(ValidationError, match=f"is {cap + 1} bytes, over the limit of {cap} bytes"):
        repo.remember("d" * (cap + 1), now=T)                          # one byte over
    assert head_count(repo_dir) == before
    code = subprocess.run(["git", "fsck", "--no-progress"], cwd=repo_dir, capture_output=True).returncode
    assert code == 0
