"""What harvest would send to main, out of fold: precision, recall and transient items over the training repositories.

Run by hand from the repository root (scikit-learn as for ``harvest_train.py``):

    PYTHONPATH=. python bench/harvest_oof.py --corpus DUMPS --sessions TRANSCRIPTS [--folds 5] [--show]

The training repositories are cut into folds (GroupKFold by repository, as
``harvest_train`` cuts them). For each fold a scorer is trained on the other
folds, with the keep and inbox thresholds chosen on those folds' own
out-of-fold scores, and the fold's sessions are read as harvest reads them
(redacted, the rule signals found) and passed through ``scorer.find_signals``
and ``planning.pick``: what a harvest would write on main, before the batch's
dedupe. A picked signal is matched to the labelled candidates of its line (one
text holds the other, or they are near duplicates, as ``harvest_eval`` matches
memories). Figures, weighted by the sampling rates:

- recall: the share of keep-labelled candidates a picked signal carries;
- precision: the share of picked signals carrying a labelled candidate whose
  label is keep;
- transient per 20 sessions: picked signals carrying a drop-labelled candidate
  worded as a memory (``signals.classify`` finds a kind in it);
- inbox items per session, and the precision of the inbox.

Each figure is also given by where the signal came from (``rule:<kind>``, the
scorer's ``keep``, a confirmed-fix ``lesson``). ``--show`` prints the transient
items kept, to read on the console (they are other people's words: never copy
them into the repository). The hold-out splits are never read.
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "bench" / "harvest-corpus"))

import numpy as np  # noqa: E402
from sklearn.model_selection import GroupKFold  # noqa: E402

import harvest_train as ht  # noqa: E402
from gitmem.base.config import Config  # noqa: E402
from gitmem.engines.harvest import featurize, planning, scorer, signals  # noqa: E402
from gitmem.engines.harvest.signals import Signal  # noqa: E402
from harvest_eval import candidate_totals, find_transcript, line_hash, read_jsonl, read_labels, weights_of  # noqa: E402
from harvest_funnel import signal_carries  # noqa: E402


def read_sessions(sessions: Path, manifest: Path, wanted: set[str],
                  cache: Path | None = None) -> dict[str, tuple[Any, tuple[Signal, ...]]]:
    """The redacted transcript and rule signals of each wanted session, read once (and kept in ``cache``, a
    pickle outside the repository, when given: reading and redacting is most of the time)."""
    import pickle

    import dump  # beside the corpus manifest: the redaction harvest applies, findings kept aside

    if cache is not None and cache.is_file():
        kept: dict[str, tuple[Any, tuple[Signal, ...]]] = pickle.loads(cache.read_bytes())
        if wanted <= set(kept):   # the rules are found again: their patterns may have changed since
            return {sid: (t, signals.find_signals(list(t.events))) for sid, (t, _) in kept.items()}

    redactor = dump.Redactor(Config())
    out: dict[str, tuple[Any, tuple[Signal, ...]]] = {}
    for meta in read_jsonl(manifest):
        if meta["id"] not in wanted:
            continue
        path = find_transcript(sessions, meta)
        if path is None:
            continue
        session = planning.read_session(path, meta.get("format", "auto"), redactor.allow, redactor)
        t = session.transcript
        if session.secrets:
            t = planning._redacted(t, path, redactor)
        out[meta["id"]] = (t, signals.find_signals(list(t.events)))
    if cache is not None:
        cache.write_bytes(pickle.dumps(out))
    return out


def model_for(ex: list[ht.Example], c: float, folds: int, precision: float, inbox_precision: float) -> scorer.Model:
    """A scorer trained on ``ex`` with thresholds from its own out-of-fold scores, as harvest_train exports it."""
    x = ht.matrix(e.row for e in ex)
    y = np.array([e.keep for e in ex], dtype=int)
    w = np.array([e.weight for e in ex])
    oof = ht.cross_validate(ex, x, c, folds)
    keep_at = ht.threshold(oof, y, w, precision)
    inbox_at = min(keep_at, ht.threshold(oof, y, w, inbox_precision))
    final = ht.fit(x, y, w, c)
    kinds, kind_bias = ht.kind_weights(ex, x)
    keep = {int(i): float(v) for i, v in enumerate(final.coef_[0]) if v != 0.0}
    header = {"version": "oof", "spec": featurize.SPEC, "trained_on": "fold", "provisional": True,
              "bias": float(final.intercept_[0]), "thresholds": {"keep": keep_at, "inbox": inbox_at, "rules": keep_at},
              "kind_bias": kind_bias, "checks": [], "figures": {}}
    return scorer.parse(scorer.dump(header, keep, kinds))


def cached_model(args: argparse.Namespace, fold: int, ex: list[ht.Example]) -> scorer.Model:
    """The fold's model, trained once per setting when ``--cache`` is given."""
    import pickle

    key = (fold, args.folds, args.c, args.precision, args.inbox_precision, featurize.SPEC, len(ex))
    store = args.cache.with_suffix(".models.pkl") if args.cache else None
    models: dict[Any, scorer.Model] = pickle.loads(store.read_bytes()) if store and store.is_file() else {}
    if key not in models:
        models[key] = model_for(ex, args.c, args.folds, args.precision, args.inbox_precision)
        if store:
            store.write_bytes(pickle.dumps(models))
    return models[key]


def tally(by: dict[str, dict[str, float]], shown: list[tuple[str, str, str]], sid: str, sigs: tuple[Signal, ...],
          labels: dict[str, dict[str, Any]], corpus: Path, totals: dict[str, dict[str, int]]) -> None:
    """Add one session's picked and inbox signals, matched to its labels, to ``by``."""
    picked = planning.pick(sigs, planning.DEFAULT_SIGNALS)
    inbox = [s for s in sigs if s.inbox][:planning.DEFAULT_SIGNALS]
    cands = {line_hash(r["key"]): r for r in read_jsonl(corpus / f"{sid}.jsonl") if "key" in r}
    labelled = {k: (lab, cands[k]) for k, lab in labels.items() if k in cands}
    rates = weights_of(totals.get(sid, {}), (str(rec.get("speaker")) for _, rec in labelled.values()))
    for k, (lab, rec) in labelled.items():
        if lab["label"] != "keep":
            continue
        w = rates.get(str(rec.get("speaker")), 1.0)
        line = int(k.split(":")[0])
        by["all"]["labels"] += w
        by[f"speaker:{rec.get('speaker')}"]["labels"] += w
        hit = any(signal_carries(rec["text"], line, s.text, s.line) for s in picked)
        by["all"]["recalled"] += w * hit
        by[f"speaker:{rec.get('speaker')}"]["recalled"] += w * hit
        by["all"]["inbox_recalled"] += w * any(signal_carries(rec["text"], line, s.text, s.line) for s in inbox)
    for where, chosen in (("main", picked), ("inbox", inbox)):
        for s in chosen:
            hit = next(((lab, rec) for k, (lab, rec) in labelled.items()
                        if signal_carries(rec["text"], int(k.split(":")[0]), s.text, s.line)), None)
            name = origin(s)
            for view in ((f"{where}", f"{where}:{name}")):
                by[view]["signals"] += 1
                if hit is None:
                    continue
                lab, rec = hit
                w = rates.get(str(rec.get("speaker")), 1.0)
                by[view]["judged"] += w
                by[view]["right"] += w * (lab["label"] == "keep")
                transient = lab["label"] == "drop" and bool(signals.classify(rec["text"]))
                by[view]["transient"] += w * transient
                if transient and where == "main" and view == where:
                    shown.append((name, sid, s.text))


def origin(s: Signal) -> str:
    if not s.key:
        return f"rule:{s.kind}"
    return "lesson" if s.kind == "error" else f"scorer:{s.kind}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, required=True)
    parser.add_argument("--sessions", type=Path, required=True)
    parser.add_argument("--labels", type=Path, default=ht.CORPUS / "labels.jsonl")
    parser.add_argument("--manifest", type=Path, default=ht.CORPUS / "manifest.jsonl")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--c", type=float, default=1.0)
    parser.add_argument("--precision", type=float, default=0.6)
    parser.add_argument("--inbox-precision", type=float, default=0.3)
    parser.add_argument("--rules", choices=("scored", "inbox", "kept", "transient"), nargs="+",
                        default=[scorer.RULE_SIGNALS], help="what the rule signals become (several: one table each)")
    parser.add_argument("--show", action="store_true", help="print the transient items kept (console only)")
    parser.add_argument("--cache", type=Path, help="a pickle of the read sessions (outside the repository)")
    args = parser.parse_args(argv)
    ex = ht.corpus_examples(args.corpus, args.labels, args.manifest, "train")
    sessions = {e.session for e in ex}
    read = read_sessions(args.sessions, args.manifest, sessions, args.cache)
    labels = read_labels(args.labels)
    totals = candidate_totals(args.corpus)
    groups = np.array([e.group for e in ex])
    by: dict[str, dict[str, dict[str, float]]] = {mode: defaultdict(lambda: defaultdict(float)) for mode in args.rules}
    shown: dict[str, list[tuple[str, str, str]]] = {mode: [] for mode in args.rules}
    n_sessions = 0
    for fold, (train, test) in enumerate(GroupKFold(n_splits=args.folds).split(groups, groups, groups)):
        model = cached_model(args, fold, [ex[i] for i in train])
        test_sessions = sorted({ex[i].session for i in test})
        for sid in test_sessions:
            if sid not in read:
                continue
            n_sessions += 1
            t, rules = read[sid]
            for mode in args.rules:
                tally(by[mode], shown[mode], sid, scorer.find_signals(t, rules, model, mode), labels[sid],
                      args.corpus, totals)
    print(f"out of fold over {n_sessions} training sessions ({args.folds} folds by repository; rule signals {args.rules})")
    for mode in args.rules:
        print(f"rule signals {mode}:")
        a = by[mode]["all"]
        print(f"recall on main {a['recalled'] / max(a['labels'], 1e-9):.3f} (user "
              f"{by[mode]['speaker:user']['recalled'] / max(by[mode]['speaker:user']['labels'], 1e-9):.3f}, assistant "
              f"{by[mode]['speaker:assistant']['recalled'] / max(by[mode]['speaker:assistant']['labels'], 1e-9):.3f}); "
              f"recall in the inbox {a['inbox_recalled'] / max(a['labels'], 1e-9):.3f}")
        print(f"{'where':28s} {'signals':>7} {'judged':>8} {'precision':>9} {'transient/20s':>13}")
        for view in sorted(v for v in by[mode] if v.startswith(("main", "inbox"))):
            b = by[mode][view]
            print(f"{view:28s} {int(b['signals']):7d} {b['judged']:8.1f} {b['right'] / max(b['judged'], 1e-9):9.3f} "
                  f"{b['transient'] * 20 / max(n_sessions, 1):13.2f}")
        print(f"inbox items per session {by[mode]['inbox']['signals'] / max(n_sessions, 1):.2f}")
        if args.show:
            for name, sid, text in shown[mode]:
                print(f"  transient kept [{name}] {sid}: {text[:160]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
