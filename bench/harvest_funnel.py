"""Where harvest loses the durable items of the corpus: a funnel, stage by stage, over the training repositories.

Run by hand from the repository root:

    PYTHONPATH=. python bench/harvest_funnel.py --corpus DUMPS --sessions TRANSCRIPTS [--split train] [--repos A,B]

For every keep-labelled candidate of the split (weighted by its sampling rate,
as ``harvest_eval`` weighs it) the stages it passes, in order:

1. ``candidate``: the current extraction of the redacted transcript still
   yields it (same line and text hash: the cut has not moved);
2. ``scored keep`` / ``scored inbox``: the scorer's probability reaches the
   keep (or the inbox) threshold; ``rule``: a durable rule signal of its line
   holds its text;
3. ``signal``: the episode holds a durable, sure signal carrying it;
4. ``picked``: it is among the signals ``planning.pick`` sends to the batch;
5. ``on main``: a memory on main after a real harvest carries it (refused
   sessions lose everything here).

Drop-labelled candidates are counted at the same stages (the false positives
each stage lets through), so the precision after each stage is printed too.
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

from gitmem.base.config import Config  # noqa: E402
from gitmem.engines import similarity  # noqa: E402
from gitmem.engines.harvest import candidates, featurize, planning, scorer  # noqa: E402
from harvest_eval import (candidate_totals, carries, find_transcript, folded, harvest_one, line_hash,  # noqa: E402
                          read_jsonl, read_labels, weights_of)

STAGES = ("labelled", "candidate", "scored inbox", "scored keep", "rule", "signal", "picked", "on main")


def signal_carries(text: str, line: int, sig_text: str, sig_line: int) -> bool:
    if sig_line != line:
        return False
    a, b = folded(sig_text), folded(text)
    return bool(a) and (a in b or b in a or similarity.similarity(sig_text, text) >= 0.5)


def session_stages(path: Path, fmt: str, cfg: Config, harvest: bool) -> dict[str, Any]:
    """What each stage holds for one session: candidate keys and scores, signals, picked signals, memories."""
    import dump  # beside the corpus manifest: the redaction harvest applies, findings kept aside

    redactor = dump.Redactor(cfg)
    session = planning.read_session(path, fmt, redactor.allow, redactor)
    t = session.transcript
    if session.secrets:
        t = planning._redacted(t, path, redactor)
    m = scorer.load()
    scores = {line_hash(c.key()): m.probability(featurize.features(c)) for c in candidates.extract(t)}
    sigs = session.episode.signals
    picked = planning.pick(sigs, planning.DEFAULT_SIGNALS)
    mems, status, _ = harvest_one(path) if harvest else ([], "skipped", 0)
    return {"scores": scores, "signals": sigs, "picked": picked, "mems": mems, "status": status,
            "refused": bool(session.secrets)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, required=True)
    parser.add_argument("--sessions", type=Path, required=True)
    parser.add_argument("--labels", type=Path, default=ROOT / "bench" / "harvest-corpus" / "labels.jsonl")
    parser.add_argument("--manifest", type=Path, default=ROOT / "bench" / "harvest-corpus" / "manifest.jsonl")
    parser.add_argument("--split", default="train")
    parser.add_argument("--repos", default="", help="only these repositories (comma-separated)")
    parser.add_argument("--exclude", default="", help="leave these repositories out (comma-separated)")
    parser.add_argument("--weights", type=Path, help="score with this weights file instead of the shipped one "
                        "(one trained without the repositories measured: an out-of-fold funnel)")
    parser.add_argument("--rules", choices=("scored", "inbox", "kept", "transient"), default=scorer.RULE_SIGNALS,
                        help="what the rule signals become beside the scorer's (to compare; the default is shipped)")
    parser.add_argument("--no-harvest", action="store_true", help="skip the real harvest (the last stage)")
    args = parser.parse_args(argv)
    scorer.RULE_SIGNALS = args.rules
    if args.weights:
        model = scorer.parse(args.weights.read_bytes())
        scorer.load = lambda: model   # find_signals and the harvest read the model through it
    only = {r for r in args.repos.split(",") if r}
    skip = {r for r in args.exclude.split(",") if r}
    labels = read_labels(args.labels)
    totals = candidate_totals(args.corpus)
    cfg = Config()
    m = scorer.load()
    keep = {s: 0.0 for s in STAGES}
    drop = {s: 0.0 for s in STAGES}
    by_speaker: dict[str, dict[str, float]] = defaultdict(lambda: {s: 0.0 for s in STAGES})
    refused = 0
    for meta in read_jsonl(args.manifest):
        if meta.get("split") != args.split or (only and meta["repo"] not in only) or meta["repo"] in skip:
            continue
        sid = meta["id"]
        path, dumpfile = find_transcript(args.sessions, meta), args.corpus / f"{sid}.jsonl"
        if path is None or not dumpfile.is_file() or not labels.get(sid):
            continue
        cands = {line_hash(r["key"]): r for r in read_jsonl(dumpfile) if "key" in r}
        rates = weights_of(totals.get(sid, {}), (str(cands[k].get("speaker")) for k in labels[sid] if k in cands))
        got = session_stages(path, meta.get("format", "auto"), cfg, not args.no_harvest)
        refused += got["status"] == "rejected"
        for key, lab in labels[sid].items():
            rec = cands.get(key)
            if rec is None:
                continue
            w = rates.get(str(rec.get("speaker")), 1.0)
            line, text = int(key.split(":")[0]), rec["text"]
            p = got["scores"].get(key)
            passed = {"labelled": True, "candidate": p is not None,
                      "scored inbox": p is not None and p >= m.inbox_at,
                      "scored keep": p is not None and p >= m.keep_at,
                      "rule": any(s.durable and not s.key and signal_carries(text, line, s.text, s.line)
                                  for s in got["signals"]),
                      "signal": any(s.durable and not s.inbox and signal_carries(text, line, s.text, s.line)
                                    for s in got["signals"]),
                      "picked": any(signal_carries(text, line, s.text, s.line) for s in got["picked"]),
                      "on main": any(carries(mem, line, text) for mem in got["mems"])}
            tally = keep if lab["label"] == "keep" else drop
            for stage, ok in passed.items():
                tally[stage] += w * ok
                if lab["label"] == "keep":
                    by_speaker[str(rec.get("speaker"))][stage] += w * ok
    print(f"funnel, split {args.split}{' (' + ', '.join(sorted(only)) + ')' if only else ''}; "
          f"keep >= {m.keep_at:.3f}, inbox >= {m.inbox_at:.3f}; {refused} sessions refused")
    print(f"{'stage':14s} {'keep (weighted)':>16s} {'recall':>7s} {'drop passed':>12s} {'precision':>9s}   "
          + "  ".join(f"{sp:>10s}" for sp in sorted(by_speaker)))
    for stage in STAGES:
        prec = keep[stage] / (keep[stage] + drop[stage]) if keep[stage] + drop[stage] else float("nan")
        print(f"{stage:14s} {keep[stage]:16.1f} {keep[stage] / max(keep['labelled'], 1e-9):7.3f} {drop[stage]:12.1f} "
              f"{prec:9.3f}   " + "  ".join(f"{by_speaker[sp][stage] / max(by_speaker[sp]['labelled'], 1e-9):10.3f}"
                                        for sp in sorted(by_speaker)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
