"""What harvest keeps on main, against labels: recall, precision, transient items kept, sessions refused, inbox.

Run by hand from the repository root:

    PYTHONPATH=. python bench/harvest_eval.py --corpus DUMPS --sessions TRANSCRIPTS [--split holdout|fresh|train]
    PYTHONPATH=. python bench/harvest_eval.py --bench [FOLDER]

Every session is harvested for real, each into a fresh memory repository
(``MemoryRepo.harvest`` with the default encoder), and the memories that land
on main are matched to the labels.

``--corpus``: the labelled candidates of ``bench/harvest-corpus`` (dumps +
``labels.jsonl`` + ``manifest.jsonl``; transcripts rebuilt by
``rebuild.py`` into TRANSCRIPTS). A memory carries a candidate when it comes
from the candidate's line and one text holds the other (or they are near
duplicates). Recall: the share of keep-labelled candidates a memory carries;
precision: the share of memories carrying a labelled candidate whose label is
keep; both weighted by the candidates' sampling rates. A transient item is a
drop-labelled candidate worded as a rule, decision, fact or request (the rule
markers find it) that a memory carries. Measure the hold-out split once.

``--bench``: the 25 sessions of the shared bench with the labelled memories of
``tests/fixtures/harvest_labels.jsonl`` (matched as bench/harvest_quality.py
does).

Figures are given in total, by kind and by format, with 95 % intervals from a
bootstrap over repositories (1,000 resamples, fixed seed); inbox items per
session are the signals the scorer is unsure of.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import tempfile
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from gitmem.api import MemoryRepo  # noqa: E402
from gitmem.base.model import Memory  # noqa: E402
from gitmem.engines import similarity  # noqa: E402
from gitmem.engines.harvest import planning, scorer, signals  # noqa: E402

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=timezone.utc)
CORPUS = ROOT / "bench" / "harvest-corpus"
BENCH_LABELS = ROOT / "tests" / "fixtures" / "harvest_labels.jsonl"


@dataclass
class Tally:
    """Weighted counts of one group of sessions (a repository), for ratios and the bootstrap."""

    labels: float = 0.0       # keep-labelled items
    recalled: float = 0.0     # of them, carried by a memory on main
    judged: float = 0.0       # memories carrying a labelled item
    right: float = 0.0        # of them, carrying a keep
    transient: float = 0.0    # memories carrying a drop worded as a memory
    created: int = 0
    sessions: int = 0
    refused: int = 0
    inbox: int = 0

    def add(self, other: "Tally") -> None:
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))


@dataclass
class Result:
    by: dict[str, dict[str, Tally]] = field(default_factory=lambda: defaultdict(lambda: defaultdict(Tally)))

    def tally(self, view: str, group: str) -> Tally:
        return self.by[view][group]


def folded(text: str) -> str:
    return " ".join(text.casefold().split()).rstrip(".!。！…")


def carries(mem: Memory, line: int, text: str) -> bool:
    """Whether memory ``mem`` comes from the candidate at ``line`` with ``text``."""
    if not mem.source.endswith(f"#L{line}"):
        return False
    a, b = folded(mem.content), folded(text)
    return bool(a) and (a in b or b in a or similarity.similarity(mem.content, text) >= 0.5)


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def harvest_one(path: Path) -> tuple[list[Memory], str, int]:
    """Memories on main after harvesting ``path`` into a fresh repository, its status, and its inbox signals."""
    with tempfile.TemporaryDirectory(prefix="gitmem-he-") as tmp:
        root = Path(tmp) / "mem"
        MemoryRepo.init(root, now=NOW, install_hooks=False)
        repo = MemoryRepo.open(root)
        [r, *_] = repo.harvest([path], now=NOW)
        mems = [m for m in repo.list().memories if m.source.startswith("session:")]
    inbox = 0
    if r.status in ("harvested", "updated"):
        session = planning.read_session(path, "auto", None)
        inbox = min(sum(1 for s in session.episode.signals if s.inbox), planning.DEFAULT_SIGNALS)
    return mems, r.status, inbox


def kind_of(mem: Memory) -> str:
    return next((t for t in mem.tags if t != "harvest"), "?")


# --------------------------------------------------------------------------- the corpus

def line_hash(key: str) -> str:
    """A candidate key without its part: labels match by line and text (the part may shift)."""
    line, _, digest = key.split(":")
    return f"{line}:{digest}"


def read_labels(path: Path) -> dict[str, dict[str, dict[str, Any]]]:
    """The labels of ``path`` by session and line hash; where both labellers labelled a candidate, the
    first labeller's label."""
    labels: dict[str, dict[str, dict[str, Any]]] = defaultdict(dict)
    for lab in read_jsonl(path):
        key = line_hash(lab["key"])
        if key not in labels[lab["session"]] or lab.get("labeller") == "a":
            labels[lab["session"]][key] = lab
    return labels


def candidate_totals(dumps: Path) -> dict[str, dict[str, int]]:
    """Per session and speaker, how many candidates it had before sampling (the dumps' ``index.jsonl``)."""
    index = dumps / "index.jsonl"
    if not index.is_file():
        print(f"  note: no {index.name} beside the dumps: every labelled candidate weighs 1")
        return {}
    return {rec["session"]: dict(rec.get("candidates") or {}) for rec in read_jsonl(index)}


def weights_of(totals: dict[str, int], labelled: Iterable[str]) -> dict[str, float]:
    """Per speaker, how many candidates of the session each labelled one stands for."""
    counts: dict[str, int] = defaultdict(int)
    for speaker in labelled:
        counts[speaker] += 1
    return {sp: max(1.0, totals.get(sp, 0) / n) for sp, n in counts.items()}


def find_transcript(folder: Path, meta: dict[str, Any]) -> Path | None:
    """The rebuilt transcript of a manifest entry, in the layouts rebuild.py may write."""
    repo, path, sid = meta["repo"], meta["path"], meta["id"]
    for candidate in (folder / sid, folder / f"{sid}.jsonl", folder / repo / path, folder / repo.replace("/", "__") / path,
                      folder / f"{repo.replace('/', '__')}__{Path(path).name}"):
        if candidate.is_file():
            return candidate
    found = sorted(folder.rglob(f"{sid}*"))
    return found[0] if found else None


def corpus(dumps: Path, sessions: Path, labels_path: Path, manifest_path: Path, split: str, result: Result) -> None:
    manifest = [m for m in read_jsonl(manifest_path) if m.get("split") == split and not m.get("parent")]
    labels = read_labels(labels_path)
    totals = candidate_totals(dumps)
    for meta in manifest:
        sid = meta["id"]
        path, dump = find_transcript(sessions, meta), dumps / f"{sid}.jsonl"
        if path is None or not dump.is_file() or not labels.get(sid):
            print(f"  skipped {sid}: {'no transcript' if path is None else 'no dump' if not dump.is_file() else 'no labels'}")
            continue
        recs = read_jsonl(dump)
        cands = {line_hash(r["key"]): r for r in recs if "key" in r}
        rates = weights_of(totals.get(sid, {}), (str(cands[k].get("speaker")) for k in labels[sid] if k in cands))
        mems, status, inbox = harvest_one(path)
        views = [("total", "all"), ("format", meta.get("format", "?")), ("language", meta.get("language", "?"))]
        for view, name in views:
            t = Tally(sessions=1, refused=status == "rejected", inbox=inbox, created=len(mems))
            for key, lab in labels[sid].items():
                rec = cands.get(key)
                if rec is None:
                    continue
                w = rates.get(str(rec.get("speaker")), 1.0)
                line = int(key.split(":")[0])
                hit = any(carries(m, line, rec["text"]) for m in mems)
                if lab["label"] == "keep":
                    t.labels += w
                    t.recalled += w * hit
                    if view == "total":
                        kt = result.tally("kind", str(lab.get("kind") or "?") + "@" + meta["repo"])
                        kt.labels += w
                        kt.recalled += w * hit
            for m in mems:
                lab_rec = next(((lab, cands[k]) for k, lab in labels[sid].items() if k in cands
                                and carries(m, int(k.split(":")[0]), cands[k]["text"])), None)
                if lab_rec is None:
                    continue
                lab, rec = lab_rec
                w = rates.get(str(rec.get("speaker")), 1.0)
                t.judged += w
                t.right += w * (lab["label"] == "keep")
                t.transient += w * (lab["label"] == "drop" and bool(signals.classify(rec["text"])))
                if view == "total":
                    kt = result.tally("kind", f"memory:{kind_of(m)}@{meta['repo']}")
                    kt.judged += w
                    kt.right += w * (lab["label"] == "keep")
            result.tally(view, f"{name}@{meta['repo']}").add(t)


# --------------------------------------------------------------------------- the 25 bench sessions

def bench(folder: Path, result: Result) -> None:
    gists: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for rec in read_jsonl(BENCH_LABELS):
        gists.setdefault(rec["session"], [])
        if rec["gist"]:
            gists[rec["session"]].append(rec)

    def matches(label: dict[str, Any], text: str) -> bool:
        keys = label.get("keys") or []
        if keys and all(re.search(str(k), text, re.I) for k in keys):
            return True
        return similarity.similarity(str(label["gist"]), text) >= 0.5

    for path in sorted(p for p in folder.rglob("*.jsonl*") if p.name in gists and "__agent-" not in p.name):
        fmt = path.parent.name
        owner = path.name.split("__")[0]
        mems, status, inbox = harvest_one(path)
        for view, name in (("total", "all"), ("format", fmt)):
            t = Tally(sessions=1, refused=status == "rejected", inbox=inbox, created=len(mems))
            for lab in gists[path.name]:
                t.labels += 1
                t.recalled += any(matches(lab, m.content) for m in mems)
            t.judged += len(mems)
            t.right += sum(any(matches(lab, m.content) for lab in gists[path.name]) for m in mems)
            result.tally(view, f"{name}@{owner}").add(t)
        for m in mems:
            kt = result.tally("kind", f"memory:{kind_of(m)}@{owner}")
            kt.judged += 1
            kt.right += any(matches(lab, m.content) for lab in gists[path.name])


# --------------------------------------------------------------------------- figures

def ratio(groups: Sequence[Tally], num: Callable[[Tally], float], den: Callable[[Tally], float]) -> float | None:
    d = sum(den(g) for g in groups)
    return sum(num(g) for g in groups) / d if d else None


def interval(groups: Sequence[Tally], num: Callable[[Tally], float], den: Callable[[Tally], float],
             rounds: int = 1000) -> str:
    point = ratio(groups, num, den)
    if point is None:
        return "   -                "
    rng = random.Random(19)
    draws = sorted(v for _ in range(rounds)
                   if (v := ratio([rng.choice(groups) for _ in groups], num, den)) is not None)
    lo, hi = draws[int(0.025 * len(draws))], draws[min(len(draws) - 1, int(0.975 * len(draws)))]
    return f"{point:5.2f} [{lo:4.2f}, {hi:4.2f}]"


def report(result: Result) -> None:
    def rows(view: str) -> Iterable[tuple[str, list[Tally]]]:
        names: dict[str, list[Tally]] = defaultdict(list)
        for key, t in result.by[view].items():
            names[key.split("@")[0]].append(t)
        return sorted(names.items())

    print(f"{'':26s} {'repos':>5} {'sessions':>8} {'recall [95%]':>20} {'precision [95%]':>20} {'created':>7} "
          f"{'transient/20s':>13} {'refused':>7} {'inbox/s':>7}")
    for view in ("total", "format", "language", "kind"):
        for name, groups in rows(view):
            sessions = sum(g.sessions for g in groups)
            transient = sum(g.transient for g in groups) * 20 / sessions if sessions else 0.0
            inbox = sum(g.inbox for g in groups) / sessions if sessions else 0.0
            print(f"{view + ':' + name:26s} {len(groups):5d} {sessions:8d} "
                  f"{interval(groups, lambda g: g.recalled, lambda g: g.labels):>20} "
                  f"{interval(groups, lambda g: g.right, lambda g: g.judged):>20} {sum(g.created for g in groups):7d} "
                  f"{transient if sessions else float('nan'):13.2f} {sum(g.refused for g in groups):7d} "
                  f"{inbox if sessions else float('nan'):7.2f}")
    m = scorer.load()
    print(f"(weights {m.header['version']}, trained on {m.header['trained_on']}; keep >= {m.keep_at:.3f}, "
          f"inbox >= {m.inbox_at:.3f}, rules >= {m.rules_at:.3f}; rule signals {scorer.RULE_SIGNALS}; bootstrap over repositories)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, help="folder of candidate dumps")
    parser.add_argument("--sessions", type=Path, help="folder of the rebuilt transcripts")
    parser.add_argument("--labels", type=Path, default=CORPUS / "labels.jsonl")
    parser.add_argument("--manifest", type=Path, default=CORPUS / "manifest.jsonl")
    parser.add_argument("--split", default="holdout", choices=("holdout", "fresh", "train"))
    parser.add_argument("--bench", nargs="?", const=ROOT.parent / "shared" / "bench" / "sessions", type=Path)
    parser.add_argument("--rules", choices=("scored", "inbox", "kept", "transient"), default=scorer.RULE_SIGNALS,
                        help="what the rule signals become beside the scorer's (to compare; the default is shipped)")
    args = parser.parse_args(argv)
    scorer.RULE_SIGNALS = args.rules
    result = Result()
    if args.corpus:
        if not args.sessions:
            parser.error("--corpus needs --sessions (the rebuilt transcripts)")
        corpus(args.corpus, args.sessions, args.labels, args.manifest, args.split, result)
        print(f"corpus, split {args.split}:")
    elif args.bench:
        bench(args.bench, result)
        print("the 25 bench sessions (tests/fixtures/harvest_labels.jsonl):")
    else:
        parser.error("give --corpus DUMPS --sessions TRANSCRIPTS, or --bench")
    report(result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
