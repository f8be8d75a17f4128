"""Train the harvest scorer offline and export its weights into the package.

Run by hand from the repository root (scikit-learn and numpy are bench-only
dependencies; the package never imports them):

    PYTHONPATH=. python bench/harvest_train.py --corpus DUMPS [--labels FILE] [--out FILE]
    PYTHONPATH=. python bench/harvest_train.py --dev [FOLDER]     # provisional: bench sessions, weak labels

``--corpus DUMPS``: the candidate dumps of ``bench/harvest-corpus`` (one
``<session id>.jsonl`` per session, each line a candidate with its ``key``
and fields; dump every candidate, ``dump.py --per-speaker 1000000``, since a
sample drawn today is not the sample that was labelled) joined with ``bench/harvest-corpus/labels.jsonl`` (keep or drop
per candidate key) and the manifest (the repository and split of each
session). Only ``split: train`` sessions are read: the hold-out repositories
(``holdout`` and ``fresh``) are never seen here. ``--exclude-repos`` leaves
some training repositories out too, for weights that ``harvest_funnel.py
--weights`` measures on them (an out-of-fold funnel). Candidates that were sampled for labelling carry the
inverse of their sampling rate as weight, so precision is that of every
candidate, not of the sample.

``--dev``: the 25 bench sessions with weak labels (a candidate is kept when
it carries a labelled memory of ``tests/fixtures/harvest_labels.jsonl``).
Weights from it are marked provisional in their header.

Cross-validation groups by repository (GroupKFold). The keep threshold is
the lowest score whose out-of-fold precision (weighted) reaches
``--precision``; the inbox threshold the lowest whose precision reaches
``--inbox-precision``. Prints the figures, writes the weights file.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable, Sequence

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import numpy as np  # noqa: E402
from scipy import sparse  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402
from sklearn.metrics import average_precision_score, roc_auc_score  # noqa: E402
from sklearn.model_selection import GroupKFold  # noqa: E402

from gitmem.engines.harvest import featurize, scorer  # noqa: E402
from harvest_eval import candidate_totals, line_hash, weights_of  # noqa: E402  (beside this script)

CORPUS = ROOT / "bench" / "harvest-corpus"
OUT = ROOT / "gitmem" / "engines" / "harvest" / scorer.FILE
MAX_BYTES = 1 << 20
KIND_ALIASES = {"error": "lesson", "correction": "preference", "rule": "preference"}


@dataclass(frozen=True)
class Row:
    """One candidate as the features read it (``featurize.Scorable``), rebuilt from a dump record."""

    speaker: str
    text: str
    turn: int = 0
    position: float = 0.0
    after_error: bool = False
    then_passed: bool = False
    next_user: str | None = None
    tool_before: str | None = None
    fixed: bool = False

    @classmethod
    def of(cls, rec: dict[str, Any]) -> "Row":
        """A row from a dump record (fields it lacks take their defaults)."""
        return cls(str(rec.get("speaker") or "user"), str(rec.get("text") or ""), int(rec.get("turn") or 0),
                   float(rec.get("position") or 0.0), bool(rec.get("after_error")), bool(rec.get("then_passed")),
                   rec.get("next_user") or None, rec.get("tool_before") or None, bool(rec.get("fixed")))


@dataclass
class Example:
    row: Row
    group: str          # the repository: folds never split one
    session: str
    keep: bool
    kind: str | None
    weight: float = 1.0
    language: str = "?"  # the session's (the manifest's ``language``)


# Candidates the project writes itself, scored at export so a test checks the pure-Python score against them.
CHECKS: tuple[Row, ...] = (
    Row("user", "Always answer me in French, even when I write in English.", 1, 0.1),
    Row("user", "Je préfère que tu écrives les messages de commit en français.", 2, 0.2),
    Row("user", "We deploy from the main branch only; release branches are gone.", 3, 0.3),
    Row("assistant", "The test failed because the fixture built a naive datetime; making it timezone-aware fixed it.",
        4, 0.5, True, True, "great, thanks", "Bash", True),
    Row("assistant", "Let me check the file first.", 5, 0.6, False, False, None, "Read"),
    Row("user", "thanks!", 6, 0.9),
)


# --------------------------------------------------------------------------- reading examples

def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def corpus_examples(dumps: Path, labels_path: Path, manifest_path: Path, split: str) -> list[Example]:
    """Labelled candidates of the sessions of ``split`` (labeller a first; b only where a is missing)."""
    manifest = {m["id"]: m for m in read_jsonl(manifest_path)}
    labels: dict[tuple[str, str], dict[str, Any]] = {}
    for lab in read_jsonl(labels_path):
        key = (lab["session"], line_hash(lab["key"]))
        if key not in labels or lab.get("labeller") == "a":
            labels[key] = lab
    out: list[Example] = []
    totals = candidate_totals(dumps)
    for sid, meta in manifest.items():
        if meta.get("split") != split or not (dumps / f"{sid}.jsonl").is_file():
            continue
        recs = read_jsonl(dumps / f"{sid}.jsonl")
        cands = [r for r in recs if "key" in r]
        rates = weights_of(totals.get(sid, {}),
                           (str(r.get("speaker")) for r in cands if (sid, line_hash(r["key"])) in labels))
        for rec in cands:
            lab = labels.get((sid, line_hash(rec["key"])))
            if lab is None:
                continue
            kind = KIND_ALIASES.get(lab.get("kind") or "", lab.get("kind")) if lab["label"] == "keep" else None
            out.append(Example(Row.of(rec), meta["repo"], sid, lab["label"] == "keep", kind,
                               rates.get(str(rec.get("speaker")), 1.0), str(meta.get("language") or "?")))
    return out


def dev_examples(folder: Path) -> list[Example]:
    """The bench sessions' candidates with weak labels: kept when one carries a labelled memory of its session."""
    from gitmem.engines import similarity
    from gitmem.engines.harvest import reader

    extract = candidate_extractor()
    gists: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for rec in read_jsonl(ROOT / "tests" / "fixtures" / "harvest_labels.jsonl"):
        gists.setdefault(rec["session"], [])
        if rec["gist"]:
            gists[rec["session"]].append(rec)
    out: list[Example] = []
    for path in sorted(folder.rglob("*.jsonl*")):
        if path.name not in gists or "__agent-" in path.name:
            continue
        owner = path.name.split("__")[0]
        for c in extract(reader.read(path)):   # not read_session: its episode needs the weights being made
            hit = next((g for g in gists[path.name]
                        if (g["keys"] and all(re.search(k, c.text, re.I) for k in g["keys"])
                            and similarity.similarity(g["gist"], c.text) >= 0.2)
                        or similarity.similarity(g["gist"], c.text) >= 0.6), None)
            out.append(Example(Row(c.speaker, c.text, c.turn, c.position, c.after_error, c.then_passed, c.next_user,
                                   c.tool_before, c.fixed), owner, path.name, hit is not None, None))
    return out


def rule_keeps(row: Row, strong: bool = False) -> bool:
    """Whether the hand-written rules alone make a memory of a user candidate (its sentences read on their own);
    ``strong``: one that says outright it is a lasting rule ("always", "from now on", 以后, "remember")."""
    from gitmem.engines.harvest import scorer
    from gitmem.engines.harvest.signals import find_signals
    from gitmem.engines.harvest.sources import Event

    found = [s for s in find_signals([Event(1, "user", row.text, None)]) if s.durable] if row.speaker == "user" else []
    return any(scorer.outright(s) for s in found) if strong else bool(found)


def candidate_extractor() -> Any:
    from gitmem.engines.harvest import candidates

    return candidates.extract


# --------------------------------------------------------------------------- training

def matrix(rows: Iterable[Row]) -> sparse.csr_matrix:
    indptr, indices, data = [0], [], []
    for row in rows:
        vec = featurize.features(row)
        indices += vec.keys()
        data += vec.values()
        indptr.append(len(indices))
    return sparse.csr_matrix((np.array(data), np.array(indices), np.array(indptr)),
                             shape=(len(indptr) - 1, featurize.BUCKETS))


def fit(x: sparse.csr_matrix, y: np.ndarray, w: np.ndarray, c: float) -> LogisticRegression:
    model = LogisticRegression(C=c, max_iter=2000, class_weight="balanced", solver="liblinear")
    model.fit(x, y, sample_weight=w)
    return model


def threshold(p: np.ndarray, y: np.ndarray, w: np.ndarray, target: float, floor: float = 0.05,
              support: int = 5) -> float:
    """The lowest score at which weighted precision of everything scored at or above it (at least ``support``
    candidates) reaches ``target``."""
    order = np.argsort(-p)
    tp = np.cumsum(w[order] * y[order])
    allw = np.cumsum(w[order])
    prec = tp / allw
    best = 1.0
    for n in range(len(order)):
        # the threshold is p at position n; the precision of the set above it must reach target
        if prec[n] >= target and p[order[n]] >= floor and n + 1 >= support \
                and (n + 1 == len(order) or p[order[n + 1]] < p[order[n]]):
            best = float(p[order[n]])
    return best


def figures(p: np.ndarray, y: np.ndarray, w: np.ndarray, at: float) -> dict[str, float]:
    kept = p >= at
    tp = float((w * (kept & (y == 1))).sum())
    return {"threshold": round(at, 4), "precision": round(tp / max(1e-9, float((w * kept).sum())), 3),
            "recall": round(tp / max(1e-9, float((w * (y == 1)).sum())), 3), "kept": int(kept.sum())}


def cross_validate(ex: list[Example], x: sparse.csr_matrix, c: float, folds: int) -> np.ndarray:
    y = np.array([e.keep for e in ex], dtype=int)
    w = np.array([e.weight for e in ex])
    groups = np.array([e.group for e in ex])
    oof = np.zeros(len(ex))
    for train, test in GroupKFold(n_splits=min(folds, len(set(groups)))).split(x, y, groups):
        if len(set(y[train])) < 2:
            continue
        oof[test] = fit(x[train], y[train], w[train], c).predict_proba(x[test])[:, 1]
    return oof


def kind_weights(ex: list[Example], x: sparse.csr_matrix) -> tuple[dict[str, dict[int, float]], dict[str, float]]:
    """One-vs-rest L1 models of the kind of a kept candidate (sparse, so the file stays small)."""
    keep = [n for n, e in enumerate(ex) if e.keep and e.kind in scorer.KINDS]
    kinds = Counter(ex[n].kind for n in keep)
    weights: dict[str, dict[int, float]] = {}
    biases: dict[str, float] = {}
    if len(kinds) < 2:
        return weights, biases
    xs = x[keep]
    for kind in scorer.KINDS:
        y = np.array([ex[n].kind == kind for n in keep], dtype=int)
        if y.sum() == 0:
            continue
        m = LogisticRegression(C=3.0, l1_ratio=1.0, solver="liblinear", class_weight="balanced", max_iter=2000)
        m.fit(xs, y)
        coef = m.coef_[0]
        weights[kind] = {int(i): float(coef[i]) for i in np.nonzero(coef)[0]}
        biases[kind] = float(m.intercept_[0])
    return weights, biases


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, help="folder of candidate dumps, one <session id>.jsonl each")
    parser.add_argument("--labels", type=Path, default=CORPUS / "labels.jsonl")
    parser.add_argument("--manifest", type=Path, default=CORPUS / "manifest.jsonl")
    parser.add_argument("--dev", nargs="?", const=ROOT.parent / "shared" / "bench" / "sessions", type=Path)
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--precision", type=float, default=0.6, help="out-of-fold precision the keep threshold needs")
    parser.add_argument("--inbox-precision", type=float, default=0.3)
    parser.add_argument("--c", type=float, nargs="+", default=[0.3, 1.0],
                        help="inverse regularisation strengths to try (the best out-of-fold average precision wins)")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--prune", type=float, default=1e-3, help="keep weights of at least this magnitude")
    parser.add_argument("--exclude-repos", default="",
                        help="leave these training repositories out (comma-separated): weights for an out-of-fold funnel")
    args = parser.parse_args(argv)
    if args.corpus:
        ex = corpus_examples(args.corpus, args.labels, args.manifest, "train")
        left_out = {r for r in args.exclude_repos.split(",") if r}
        ex = [e for e in ex if e.group not in left_out]
        source, provisional = f"corpus train split ({args.labels.name})", bool(left_out)
        if left_out:
            source += f" without {len(left_out)} repositories"
    elif args.dev:
        ex = dev_examples(args.dev)
        source, provisional = "provisional: the 25 bench sessions with weak labels (not the corpus)", True
    else:
        parser.error("give --corpus DUMPS or --dev")
    if not ex or len({e.keep for e in ex}) < 2:
        print("no labelled examples of both classes: nothing trained")
        return 1
    x = matrix(e.row for e in ex)
    y = np.array([e.keep for e in ex], dtype=int)
    w = np.array([e.weight for e in ex])
    print(f"{len(ex)} candidates ({int(y.sum())} keep) from {len({e.session for e in ex})} sessions, "
          f"{len({e.group for e in ex})} repositories; speakers {dict(Counter(e.row.speaker for e in ex))}")
    best: tuple[float, float, np.ndarray] | None = None
    for c in args.c:
        trial = cross_validate(ex, x, c, args.folds)
        ap = float(average_precision_score(y, trial, sample_weight=w))
        print(f"  C={c:g}: out-of-fold average precision {ap:.3f}")
        if best is None or ap > best[0]:
            best = (ap, c, trial)
    assert best is not None
    _, c_best, oof = best
    auc = roc_auc_score(y, oof, sample_weight=w) if len(set(y)) > 1 else float("nan")
    keep_at = threshold(oof, y, w, args.precision)
    inbox_at = min(keep_at, threshold(oof, y, w, args.inbox_precision))
    cv = {"auc": round(float(auc), 3), "C": c_best, "keep": figures(oof, y, w, keep_at), "inbox": figures(oof, y, w, inbox_at)}
    for sp in sorted({e.row.speaker for e in ex}):
        mask = np.array([e.row.speaker == sp for e in ex])
        cv[f"keep:{sp}"] = figures(oof[mask], y[mask], w[mask], keep_at)
    languages = Counter(e.language for e in ex)
    for lang in [name for name, _ in languages.most_common(3)] + ["others"]:
        mask = np.array([e.language == lang if lang != "others" else e.language not in dict(languages.most_common(3))
                         for e in ex])
        if len(set(y[mask])) > 1:
            cv[f"language:{lang}"] = {"auc": round(float(roc_auc_score(y[mask], oof[mask], sample_weight=w[mask])), 3),
                                      "inbox": figures(oof[mask], y[mask], w[mask], inbox_at)}
    rules = np.array([rule_keeps(e.row) for e in ex])
    strong = np.array([rule_keeps(e.row, strong=True) for e in ex])
    rules_at = threshold(np.where(rules & ~strong, oof, 0.0), y, w, args.precision)
    scored = oof >= keep_at
    for name, kept in (("rules kept", rules), ("rules scored", rules & (oof >= rules_at)), ("scorer alone", scored),
                       ("strong rules", strong), ("scorer + rules kept", scored | rules),
                       ("scorer + rules scored", scored | (rules & (oof >= rules_at))),
                       ("scorer + rules scored + strong rules kept (shipped)", scored | strong | (rules & (oof >= rules_at)))):
        tp = float((w * (kept & (y == 1))).sum())
        cv[name] = {"precision": round(tp / max(1e-9, float((w * kept).sum())), 3),
                    "recall": round(tp / max(1e-9, float((w * (y == 1)).sum())), 3), "kept": int(kept.sum())}
    cv["rules threshold"] = round(rules_at, 4)
    print("cross-validated by repository:")
    for name, value in cv.items():
        print(f"  {name}: {value}")
    final = fit(x, y, w, c_best)
    coef = final.coef_[0].copy()
    kinds, kind_bias = kind_weights(ex, x)
    prune = args.prune
    while True:   # the smallest weights go until the file fits; the checks are scored by the model as exported
        coef[np.abs(coef) < prune] = 0.0
        final.coef_[0] = coef
        keep = {int(i): float(coef[i]) for i in np.nonzero(coef)[0]}
        checks = [{"candidate": row.__dict__, "score": float(final.predict_proba(matrix([row]))[0, 1])}
                  for row in CHECKS]
        header = {"version": datetime.now(timezone.utc).strftime("%Y%m%d%H%M"), "spec": featurize.SPEC,
                  "trained_on": source, "provisional": provisional, "bias": float(final.intercept_[0]),
                  "thresholds": {"keep": keep_at, "inbox": inbox_at, "rules": rules_at}, "kind_bias": kind_bias, "checks": checks,
                  "figures": {"examples": len(ex), "keep": int(y.sum()), "cv": cv, "prune": prune}}
        data = scorer.dump(header, keep, kinds)
        if len(data) <= MAX_BYTES:
            break
        prune *= 1.5
    model = scorer.parse(data)
    worst = max(abs(model.probability(featurize.features(Row(**c["candidate"]))) - c["score"]) for c in checks)
    args.out.write_bytes(data)
    print(f"wrote {args.out.relative_to(ROOT) if args.out.is_relative_to(ROOT) else args.out}: {len(data)} bytes, "
          f"{len(keep)} keep weights, kinds {[(k, len(v)) for k, v in kinds.items()]}; "
          f"thresholds keep {keep_at:.3f} inbox {inbox_at:.3f} rules {rules_at:.3f}; largest check drift {worst:.2e}")
    for c in checks:
        print(f"  check {c['score']:.3f}  {c['candidate']['speaker']:9s} {c['candidate']['text'][:70]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
