"""Tests for the dashboard (gitmem.api.insight, gitmem.faces.dashboard, ``gitmem dashboard``), the page in a
real headless Chromium: no console or page error, no network request, every chart with its data points."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import stat
from datetime import timedelta
from html.parser import HTMLParser
from pathlib import Path
from typing import Any, Iterator

import pytest
from hypothesis import given, strategies as st

from tests import browser
from tests.conftest import run_cli
from gitmem.api import MemoryRepo
from gitmem.base.clock import parse_time
from gitmem.faces import dashboard
from tests.loop_helpers import START, add_sessions, git

T = parse_time("2026-10-01T12:00:00Z")          # patterns and memories come before loop_helpers.START
NOW = parse_time("2026-12-01T12:00:00Z")
CHARTS = ("tier", "band", "domain", "project", "weights", "funnel", "streak", "drift", "atrophy", "reviews",
          "config", "events", "sediment-bank", "sediment-queue", "sediment-threshold")
# Text that must reach the page as text. The unit tests use this corpus; the browser test uses HELD_OUT only.
HOSTILE = ["</script><script>window.__pwned=1</script>", "</SCRIPT ><img src=x>", "<!--<script>", "]]></x>",
           "&lt;/script&gt;", "\u2028\u2029", "'\"`${1}", "<style>*{display:none}</style>", "</scr\x00ipt>",
           "__DATA__ __CSP__", "<\\/script>", "\ud7ff<b>x</b>"]
HELD_OUT = ['</script><img src=x onerror="window.__pwned=1">', "<svg onload=window.__pwned=2>",
            "<iframe src=https://example.invalid/></iframe>"]


# --- the data -------------------------------------------------------------------------------------------------

def build(root: Path) -> MemoryRepo:
    """A memory repository with known content: tiers, domains, projects, patterns whose weights three
    accepted updates moved, a fading pattern, a config change by a person, an open weights review, October's snapshot."""
    repo = MemoryRepo.init(root, T)      # hooks installed: the person's commit below goes through them
    at = [T + timedelta(minutes=n) for n in range(20)]
    repo.remember("The user prefers tabs over spaces", domain="user", importance=0.95, now=at[0])
    repo.remember("The assistant answers in short paragraphs", domain="self", importance=0.6, now=at[1])
    repo.remember("Deploys of alpha go through staging first", domain="project", project="alpha", importance=0.75, now=at[2])
    repo.remember("Alpha's CI caches the lockfile", domain="project", project="alpha", importance=0.5, now=at[3])
    repo.remember("Beta builds with make", domain="project", project="beta", importance=0.3, now=at[4])
    repo.remember(f"Hostile project note {HELD_OUT[1]}", domain="world", project=HELD_OUT[0], importance=0.25,
                  now=at[5])
    gone = repo.remember("An old fact about the office plants", domain="world", now=at[6])
    repo.forget(gone.memory.id, now=at[7])
    repo.note("a working note of this session", now=at[8])
    repo.pattern_add("Retry flaky calls with backoff", ["backoff"], now=at[9])
    repo.pattern_add(f"Pin versions {HELD_OUT[0]}", ["lockfile"], now=at[10])
    repo.pattern_add(f"Rarely used rule {HELD_OUT[2]}", ["zebra"], weight=0.05, now=at[11])
    repo.snapshot(now=at[12])            # October's snapshot: the drift baseline the chart draws against
    for n in range(3):
        add_sessions(repo.root, ["the backoff helped again"], START + timedelta(days=n), first=n)
        repo.apply_weights(now=START + timedelta(days=n, hours=12))
    config = repo.root / "gitmem.yaml"
    text = config.read_text()
    config.write_text(text.replace("forced_review_after: 3", "forced_review_after: 5")
                      .replace("min_cosine: 0.7", "min_cosine: 0.6"))
    git(repo.root, "commit", "-qam", "raise forced_review_after, lower min_cosine")
    repo = MemoryRepo.open(root)          # the new config
    add_sessions(repo.root, ["backoff and the lockfile"], START + timedelta(days=5), first=5)
    assert repo.propose_weights(now=START + timedelta(days=5, hours=12)).branch
    later = START + timedelta(days=6)    # sedimentation: a reflection, a threshold a person set, growth queued
    repo.sediment_reflect(topic=f"Reflection {HELD_OUT[1]}", context="a deploy broke", approach="pinned the tool",
                          result="good", score=4, reusable="pin the deploy tool", kind="error_fix", now=later)
    repo.sediment_set_threshold(18, now=later + timedelta(minutes=1))
    queue = repo.root / ".gitmem" / "pending" / "bank" / "MEMORY.md"
    queue.parent.mkdir(parents=True)
    queue.write_text("- a lesson waiting for the next run\n")
    git(repo.root, "add", "-A", ".gitmem")
    git(repo.root, "commit", "-qm", "queued growth", "--no-verify")
    return MemoryRepo.open(root)


def expected_points(data: dict[str, Any]) -> dict[str, int]:
    """How many data points each chart must draw (0: its empty state)."""
    counts = {k: len(rows) if sum(r["count"] for r in rows) else 0 for k, rows in data["memories"].items()}
    counts["weights"] = sum(len(s["points"]) for s in data["weights"])
    counts["funnel"] = len(data["funnel"]) if sum(r["count"] for r in data["funnel"]) else 0
    counts["streak"] = len(data["thresholds"]["streak"])
    counts["drift"] = 1 if data["drift"]["baseline"] else 0
    counts["config"] = len(data["thresholds"]["config_changes"])
    for key in ("atrophy", "reviews", "events"):
        counts[key] = len(data[key])
    for key, rows in (("bank", "reflections"), ("queue", "queue"), ("threshold", "history")):
        counts[f"sediment-{key}"] = len(data["sediment"][rows])
    return counts


def test_dashboard_data_reads_counts_and_history(tmp_path: Path) -> None:
    repo = build(tmp_path / "mem")
    data = repo.dashboard_data(NOW)
    json.dumps(data, allow_nan=False)                     # plain JSON values only
    mem = {k: {r["key"]: r["count"] for r in rows} for k, rows in data["memories"].items()}
    assert mem["band"] == {"core": 0, "active": 0, "background": 1, "fading": 5}   # two months unaccessed
    fresh = {r["key"]: r["count"] for r in repo.dashboard_data(T + timedelta(days=1))["memories"]["band"]}
    assert fresh == {"core": 2, "active": 2, "background": 2, "fading": 0}
    assert mem["tier"] == {"working": 1, "short": 6, "long": 0, "archive": 1}
    assert mem["domain"] == {"user": 1, "self": 1, "relationship": 0, "world": 1, "project": 3}
    assert mem["project"] == {"alpha": 2, "(global)": 2, "beta": 1, HELD_OUT[0]: 1}
    backoff = next(s for s in data["weights"] if s["slug"] == "retry-flaky-calls-with-backoff")
    assert [p["weight"] for p in backoff["points"]] == [0.3, 0.35, 0.4, 0.45]   # main's history; the review is apart
    assert backoff["title"] == "Retry flaky calls with backoff" and backoff["current"]
    assert [p["value"] for p in data["thresholds"]["streak"]] == [0, 1, 2, 3]
    assert data["thresholds"]["forced_review_after"] == 5
    changes = {c["field"]: (c["before"], c["after"]) for c in data["thresholds"]["config_changes"]}
    assert changes == {"hebbian.forced_review_after": (3, 5), "drift.min_cosine": (0.7, 0.6)}
    assert [r["kind"] for r in data["reviews"]] == ["weights"]
    assert [a["slug"] for a in data["atrophy"]] == ["rarely-used-rule-iframe-src-https-example"]
    assert [f["count"] for f in data["funnel"]] == [3, 0, 0, 0, 0]
    assert data["events"] and data["events"][0]["time"] <= data["events"][-1]["time"]
    sed = data["sediment"]
    assert sed["threshold"] == 18 and [(h["from"], h["to"]) for h in sed["history"]] == [(15, 18)]
    assert [r["priority"] for r in sed["reflections"]] == [8] and sed["queue"] == ["bank/MEMORY.md"]
    assert data["drift"]["min_cosine"] == 0.6


def test_dashboard_data_carries_texts_and_review_diffs(tmp_path: Path) -> None:
    repo = build(tmp_path / "mem")
    data = repo.dashboard_data(NOW)
    mems = data["memory_list"]
    assert mems["total"] == len(mems["items"]) == 7            # the archived one too; working notes are not memories
    hostile = next(m for m in mems["items"] if m["project"] == HELD_OUT[0])
    assert hostile["text"] == f"Hostile project note {HELD_OUT[1]}" and hostile["cut"] == 0
    assert (hostile["type"], hostile["domain"], hostile["tier"], hostile["band"]) == ("fact", "world", "short", "fading")
    assert mems["items"][-1]["tier"] == "archive" and mems["items"][-1]["band"] == "archived"
    live = [m["effective"] for m in mems["items"][:-1]]
    assert live == sorted(live, reverse=True)                  # the most important first
    eps = data["episodes"]
    assert eps["total"] == len(eps["items"]) == 4
    assert [e["date"][:10] for e in eps["items"]] == ["2026-11-06", "2026-11-03", "2026-11-02", "2026-11-01"]
    assert "session 5" in eps["items"][0]["text"]
    (review,) = data["reviews"]                                # each open review: what review show says of it
    shown = repo.review_show(review["name"])
    assert review["semantic"] == list(shown.semantic) and review["semantic"]
    assert review["paths"] == list(shown.paths) and review["scope"] == shown.scope
    assert "diff" not in review and review["commit"] == shown.info.commit


def test_dashboard_data_cuts_a_long_text_and_says_by_how_much(tmp_path: Path) -> None:
    from gitmem.api import insight

    repo = MemoryRepo.init(tmp_path / "mem", T, install_hooks=False)
    text = "a long memory " + "word " * insight.TEXT_SHOWN + "end"
    repo.remember(text, now=T)
    (item,) = repo.dashboard_data(NOW)["memory_list"]["items"]
    assert item["text"] == text[:insight.TEXT_SHOWN] and item["cut"] == len(text) - insight.TEXT_SHOWN


def test_dashboard_data_of_an_empty_repository(repo: MemoryRepo) -> None:
    data = repo.dashboard_data(NOW)
    points = expected_points(data)
    assert all(points[k] == 0 for k in ("tier", "band", "domain", "project", "weights", "funnel", "atrophy",
                                        "reviews", "config"))
    assert [e["type"] for e in data["events"]] == ["repo.init"]


def test_a_pattern_deleted_keeps_its_history_and_says_so(tmp_path: Path) -> None:
    repo = MemoryRepo.init(tmp_path / "mem", T, install_hooks=False)
    repo.pattern_add("Short lived rule", ["gone"], now=T)
    (repo.root / "patterns" / "short-lived-rule.md").unlink()
    git(repo.root, "commit", "-qam", "drop a pattern by hand")
    (series,) = repo.dashboard_data(NOW)["weights"]
    assert series["slug"] == "short-lived-rule" and not series["current"] and len(series["points"]) == 1


@pytest.mark.parametrize("front", ["weight: abc", "weight: .inf", "weight: .nan", "weight: true", "weight: [0.5]",
                                   "weight: 0.5\nweight: 0.6", ": : :", "weight: 1e999", "weight:"])
def test_a_pattern_a_person_broke_is_left_out_of_the_history(tmp_path: Path, front: str) -> None:
    repo = MemoryRepo.init(tmp_path / "mem", T, install_hooks=False)
    repo.pattern_add("Good rule", ["good"], now=T)
    (repo.root / "patterns" / "broken.md").write_text(f"---\n{front}\n---\n# Broken\n")
    (repo.root / "patterns" / "nested").mkdir()
    (repo.root / "patterns" / "nested" / "deep.md").write_text("---\nweight: 0.5\n---\n")
    (repo.root / "patterns" / "notes.txt").write_text("weight: 0.5\n")
    git(repo.root, "add", "-A")
    git(repo.root, "commit", "-qm", "a person's hand edits")
    data = repo.dashboard_data(NOW)
    assert [s["slug"] for s in data["weights"]] == ["good-rule"]
    json.dumps(data, allow_nan=False)
    dashboard.render(data)


def test_only_the_strongest_patterns_are_charted(tmp_path: Path) -> None:
    from gitmem.api import insight

    repo = MemoryRepo.init(tmp_path / "mem", T, install_hooks=False)
    for n in range(insight.CHARTED_PATTERNS + 3):
        repo.pattern_add(f"Rule number {n}", [f"t{n}"], weight=round(0.01 * (n + 1), 2), now=T)
    data = repo.dashboard_data(NOW)
    assert len(data["patterns"]) == insight.CHARTED_PATTERNS + 3
    assert {s["slug"] for s in data["weights"]} == {p["slug"] for p in data["patterns"][:insight.CHARTED_PATTERNS]}


# --- the page, without a browser ------------------------------------------------------------------------------

class Scripts(HTMLParser):
    """The script elements of a page as a browser's tokenizer splits them."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.scripts: list[tuple[dict[str, str | None], str]] = []
        self.tags: list[str] = []
        self._open: dict[str, str | None] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        if tag == "script":
            self._open = dict(attrs)
            self.scripts.append((self._open, ""))

    def handle_data(self, data: str) -> None:
        if self._open is not None:
            attrs, text = self.scripts[-1]
            self.scripts[-1] = (attrs, text + data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._open = None


def parse(page: str) -> Scripts:
    parser = Scripts()
    parser.feed(page)
    parser.close()
    return parser


def sample(text: str) -> dict[str, Any]:
    return {"repository": text, "patterns": [{"title": text}], "events": [{"detail": text, "type": text}]}


@pytest.mark.parametrize("text", HOSTILE)
def test_memory_text_cannot_close_the_data_element(text: str) -> None:
    page = dashboard.render(sample(text))
    found = parse(page)
    assert [a.get("type") for a, _ in found.scripts] == ["application/json", None]
    assert json.loads(found.scripts[0][1]) == sample(text)
    assert found.tags.count("img") == 0 and found.tags.count("style") == 1


@given(st.text(max_size=60))
def test_any_text_round_trips_through_the_data_element(text: str) -> None:
    found = parse(dashboard.render(sample(text)))
    assert len(found.scripts) == 2 and json.loads(found.scripts[0][1]) == sample(text)


def test_the_policy_allows_exactly_the_inline_style_and_script() -> None:
    page = dashboard.render(sample("x"))
    csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', page)
    assert csp is not None
    rules = dict(part.strip().split(" ", 1) for part in csp.group(1).split(";"))
    assert rules["default-src"] == "'none'" and "unsafe" not in csp.group(1)

    def digest(text: str) -> str:
        return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"

    assert rules["style-src"] == digest(re.findall(r"<style>(.*?)</style>", page, re.S)[0])
    script = [t for a, t in parse(page).scripts if a.get("type") is None]
    assert rules["script-src"] == digest(script[0])


def test_the_page_names_no_address_to_load() -> None:
    page = dashboard.template()
    assert not re.search(r"\b(src|href|action|srcset|poster)\s*=", page, re.I)
    assert set(re.findall(r"[a-z]+://[^\s\"')]+", page)) == {"http://www.w3.org/2000/svg"}   # a namespace name
    assert "@import" not in page and "url(" not in page


# --- the verb -------------------------------------------------------------------------------------------------

def test_verb_writes_the_page_and_prints_its_path(repo: MemoryRepo, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "out" / "dash.html"
    target.parent.mkdir()
    code, out, err = run_cli(["--repo", str(repo.root), "--now", "2026-12-01T12:00:00Z", "dashboard", "-o",
                              str(target)], capsys)
    assert code == 0, err
    assert out.startswith(f"wrote {target} (") and "gitmem-data" in target.read_text()
    assert not list(target.parent.glob(".*.tmp"))


def test_verb_json_prints_the_figures_and_writes_no_page(repo: MemoryRepo, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli(["--repo", str(repo.root), "--now", "2026-12-01T12:00:00Z", "dashboard", "--json"],
                             capsys)
    assert code == 0, err
    assert json.loads(out) == repo.dashboard_data(NOW)
    written = [p for p in (repo.root / ".git" / "gitmem").iterdir() if p.suffix == ".html"]
    assert written == [] and list(tmp_path.glob("*.html")) == []


def test_verb_json_with_output_writes_the_figures_there(repo: MemoryRepo, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "dash.json"
    code, out, err = run_cli(["--repo", str(repo.root), "--now", "2026-12-01T12:00:00Z", "dashboard", "-o",
                              str(target), "--json"], capsys)
    assert code == 0, err
    assert json.loads(out) == {"path": str(target), "bytes": len(target.read_bytes())}
    assert json.loads(target.read_text()) == repo.dashboard_data(NOW)
    assert "<html" not in target.read_text()


def test_verb_default_file_is_in_the_clones_state_folder(repo: MemoryRepo, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(repo.root)                  # run inside the clone: nothing lands in its work tree
    code, out, err = run_cli(["dashboard"], capsys)
    assert code == 0, err
    target = repo.root / ".git" / "gitmem" / "gitmem-dashboard.html"
    assert target.is_file() and "gitmem-data" in target.read_text()
    assert str(target) in out
    assert git(repo.root, "status", "--porcelain", "--untracked-files=all") == ""


@pytest.mark.parametrize("where", ["folder", "missing", "pipe"])
def test_verb_refuses_an_output_it_cannot_write(repo: MemoryRepo, tmp_path: Path, where: str,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """A pipe stands for a device such as /dev/full: the page was renamed over it and "wrote" printed."""
    target = {"folder": tmp_path, "missing": tmp_path / "no" / "such" / "dash.html", "pipe": tmp_path / "pipe"}[where]
    if where == "pipe":
        os.mkfifo(target)
    for extra in ([], ["--json"]):
        code, out, err = run_cli(["--repo", str(repo.root), "dashboard", *extra, "-o", str(target)], capsys)
        assert code == 1 and "gitmem: error:" in err and "hint:" in err and "wrote" not in out
    if where == "pipe":
        assert stat.S_ISFIFO(target.lstat().st_mode) and "not a regular file" in err


# --- the page in a real browser -------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def chromium() -> Iterator[browser.Browser]:
    found = browser.find()
    if found is None:
        message = "no Chromium on PATH (apt-get install chromium)"
        if os.environ.get("CI"):
            pytest.fail(f"{message}: under CI the browser test must run")
        pytest.skip(message)
    b = browser.Browser(found)
    try:
        yield b
    finally:
        b.close()


MEASURE = """(() => {
  const out = {};
  for (const name of %s) {
    const node = document.getElementById("chart-" + name);
    if (!node) { out[name] = null; continue; }
    const box = node.getBoundingClientRect();
    out[name] = {tag: node.tagName.toLowerCase(), cls: node.getAttribute("class"), width: box.width,
                 height: box.height, points: node.querySelectorAll(".point").length,
                 declared: Number(node.getAttribute("data-points")), text: node.textContent};
  }
  return out;
})()"""


def load(chromium: browser.Browser, path: Path) -> tuple[browser.Page, dict[str, Any]]:
    page = chromium.open(path.as_uri())
    assert page.evaluate("document.body.getAttribute('data-ready')") == "1", page.report().errors
    return page, page.evaluate(MEASURE % json.dumps(list(CHARTS)))


def check_page(page: browser.Page, path: Path, measured: dict[str, Any], data: dict[str, Any]) -> None:
    report = page.report()
    assert report.errors == []
    assert report.requests == [path.as_uri()]                # the page itself, nothing else
    for name, points in expected_points(data).items():
        got = measured[name]
        assert got is not None, f"chart-{name} is missing"
        assert got["width"] > 0 and got["height"] > 0, f"chart-{name} has no size: {got}"
        if points == 0:
            assert got["cls"] == "empty" and got["text"] == "nothing yet", name
        else:
            assert (got["points"], got["declared"]) == (points, points), name


SHOWN = """(() => [...document.querySelectorAll("#list-%s .item .text")].map(n => n.textContent))()"""
SCRIPTED = "<script>window.__pwned=3</script> the deploy key rotates monthly"


def search(page: browser.Page, words: str) -> None:
    """Type ``words`` into the search box as a person would (focus, then the keystrokes' text)."""
    page.evaluate("document.getElementById('q').focus(); document.getElementById('q').select()")
    page.browser.send("Input.insertText", {"text": words}, page.session)


def choose(page: browser.Page, which: str, value: str) -> None:
    page.evaluate(f"(() => {{ const s = document.getElementById('f-{which}'); s.value = {json.dumps(value)};"
                  " s.dispatchEvent(new Event('change')); })()")


def check_browsing(page: browser.Page, data: dict[str, Any]) -> None:
    """The search box and the filters narrow the memories and episodes the page lists, from its own data."""
    every = [m["text"] for m in data["memory_list"]["items"]]
    assert page.evaluate(SHOWN % "memories") == every and len(every) == 8
    search(page, "deploy")
    assert sorted(page.evaluate(SHOWN % "memories")) == sorted(t for t in every if "deploy" in t.lower())
    assert page.evaluate(SHOWN % "episodes") == []
    search(page, "SESSION 2")                                  # words in any case, in any order
    assert [t.split("\n")[0] for t in page.evaluate(SHOWN % "episodes")] == [
        e["title"] for e in data["episodes"]["items"] if "session 2" in e["text"]]
    search(page, "")
    choose(page, "domain", "project")
    assert sorted(page.evaluate(SHOWN % "memories")) == sorted(
        m["text"] for m in data["memory_list"]["items"] if m["domain"] == "project")
    choose(page, "band", "archived")
    assert page.evaluate(SHOWN % "memories") == []
    assert page.evaluate("document.getElementById('count-memories').textContent").startswith("0 memories match")
    choose(page, "domain", "")
    assert page.evaluate(SHOWN % "memories") == ["An old fact about the office plants"]
    choose(page, "band", "")
    assert len(page.evaluate(SHOWN % "memories")) == 8


def check_reviews(page: browser.Page, data: dict[str, Any]) -> None:
    """Each open review is listed with review show's semantic lines, as text."""
    (review,) = data["reviews"]
    shown = page.evaluate("""[...document.querySelectorAll("#chart-reviews .review")].map(r =>
        ({name: r.getAttribute("data-review"), lines: [...r.querySelectorAll("ul.diff li")].map(l => l.textContent)}))""")
    assert shown == [{"name": review["name"], "lines": review["semantic"]}]
    assert "retry-flaky-calls-with-backoff: weight 0.45 -> 0.5" in review["semantic"]   # the pending update


def check_explained(page: browser.Page) -> None:
    """Every tile and every section carries its explanation; the drift tile says what drifting is."""
    untitled = page.evaluate("[...document.querySelectorAll('.kpi, section')].filter(n => !n.title).length")
    assert untitled == 0
    drift = page.evaluate("document.querySelector('.kpi[data-kpi^=\"drift\"]').title")
    assert "baseline" in drift and "min_cosine" in drift


def test_dashboard_in_a_real_browser(chromium: browser.Browser, tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    repo = build(tmp_path / "mem")
    repo.remember(SCRIPTED, domain="world", now=T + timedelta(days=1))
    data = repo.dashboard_data(NOW)
    path = tmp_path / "dashboard.html"
    code, _, err = run_cli(["--repo", str(repo.root), "--now", "2026-12-01T12:00:00Z", "dashboard", "-o",
                            str(path)], capsys)
    assert code == 0, err
    page, measured = load(chromium, path)
    try:
        check_page(page, path, measured, data)
        assert all(expected_points(data)[k] > 0 for k in CHARTS)   # this repository fills every chart
        assert page.evaluate("typeof window.__pwned") == "undefined"
        assert page.evaluate("document.querySelectorAll('img, iframe, script:not([id]) ~ script').length") == 0
        text = page.evaluate("document.body.innerText")
        assert HELD_OUT[0] in text and "Pin versions " + HELD_OUT[0] in text and HELD_OUT[2] in text
        assert SCRIPTED in text                                   # a memory's <script> is text, and never ran
        check_explained(page)
        check_reviews(page, data)
        check_browsing(page, data)
        assert page.evaluate("typeof window.__pwned") == "undefined" and page.report().errors == []
        shot = page.screenshot(tmp_path / "gitmem-dashboard.png")
        with capsys.disabled():
            print(f"\nscreenshot of the dashboard: {shot}")
        assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    finally:
        page.close()


def test_empty_dashboard_in_a_real_browser(chromium: browser.Browser, repo: MemoryRepo, tmp_path: Path) -> None:
    data = repo.dashboard_data(NOW)
    path = tmp_path / "empty.html"
    path.write_text(dashboard.render(data), "utf-8")
    page, measured = load(chromium, path)
    try:
        check_page(page, path, measured, data)
        assert measured["weights"]["cls"] == "empty" and measured["tier"]["cls"] == "empty"
    finally:
        page.close()
