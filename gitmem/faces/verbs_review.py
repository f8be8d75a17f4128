"""The verbs of the review loop: pattern, weights, review, analyze, atrophy, status, log --events."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

from gitmem.faces import quickargs
from gitmem.faces.console import command, emit_json, err, json_flag, now_of, out, repo_of, root_of


def _pattern_args(p: Any) -> None:
    actions = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    add = actions.add_parser("add", help="add a pattern (one commit)")
    add.add_argument("text", metavar="TEXT", help="the rule, in your words")
    add.add_argument("--triggers", required=True, metavar="A,B", help="comma-separated words that activate it")
    add.add_argument("--weight", type=float, help="starting weight (default hebbian.initial_weight)")
    json_flag(add)
    lst = actions.add_parser("list", help="patterns with weight and stage, strongest first")
    json_flag(lst)


@command("pattern", "add a pattern, or list patterns with their weight and stage", _pattern_args)
def cmd_pattern(args: Any) -> int:
    repo = repo_of(args)
    if args.action == "list":
        pats = repo.patterns()
        if args.json:
            emit_json([{"slug": p.slug, "title": p.title, "weight": p.weight, "stage": p.stage,
                        "triggers": list(p.triggers)} for p in pats])
        for p in pats if not args.json else ():
            out(f"{p.weight:.6g}\t{p.stage}\t{p.slug}\t{p.title}")
        return 0
    added = repo.pattern_add(args.text, args.triggers.split(","), args.weight, now_of(args))
    if args.json:
        emit_json(added.to_json())
    else:
        out(f"added pattern {added.slug} at weight {added.weight:.6g}"
            + (f" in commit {added.commit[:12]}" if added.commit else ""))
    return 0


def _weights_args(p: Any) -> None:
    how = p.add_mutually_exclusive_group()
    how.add_argument("--propose", action="store_true", help="commit the update on a review branch")
    how.add_argument("--apply", action="store_true", help="commit the update on the branch itself (while allowed)")
    json_flag(p)


def _why_uncounted(why: Any) -> str:
    if why is None:
        return ""
    if not why.harvested:
        return " (no session harvested yet: gitmem harvest)"
    if not why.patterns:
        return f" ({why.harvested} sessions harvested, but no pattern yet: gitmem reflect, or gitmem pattern add)"
    parts = []
    if why.older:
        parts.append(f"{why.older} started before the patterns were created, and a session older than a pattern "
                     "never counts for it")
    if why.counted:
        parts.append(f"{why.counted} counted already")
    return f" (of {why.harvested} harvested sessions: " + "; ".join(parts) + ")" if parts else ""


@command("weights", "the next Hebbian weight update: a dry run, --propose for review, or --apply", _weights_args)
def cmd_weights(args: Any) -> int:
    repo = repo_of(args)
    now = now_of(args)
    report = repo.propose_weights(now) if args.propose else repo.apply_weights(now) if args.apply else repo.weights(now)
    if args.json:
        emit_json(report.to_json())
        return 0
    if not report.rows:
        out("weights: no new sessions to count" + _why_uncounted(report.uncounted))
        return 0
    out("pattern\tweight\tstage\tsessions")
    for r in report.rows:
        stage = f"{r.stage_before} -> {r.stage_after}" if r.stage_before != r.stage_after else r.stage_after
        out(f"{r.slug}\t{r.before:.6g} -> {r.after:.6g}\t{stage}\t{r.counted} ({r.activated} activated)")
    if args.propose:
        for old in report.superseded:
            out(f"superseded {old} (kept under refs/gitmem/rejected/)")
        out(f"proposed on {report.branch} in commit {(report.commit or '')[:12]}: "
            f"gitmem review show {report.branch}")
    elif args.apply:
        out(f"applied in commit {(report.commit or '')[:12]}" if report.commit else "nothing applied")
    else:
        out("")
        out(report.diff.rstrip("\n"))
        out("(dry run: nothing written; --propose for review, --apply to commit)")
    return 0


def _review_args(p: Any) -> None:
    actions = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    json_flag(actions.add_parser("list", help="open review branches (first recording those merged on a remote, "
                                          "as the last fetch saw it, as accepted by the merge's author)"))
    for name, text in (("show", "what a review changes: in words, then the raw diff"),
                       ("accept", "merge a review (a person's decision)"),
                       ("reject", "reject a review, keeping it for audit (a person's decision)")):
        sub = actions.add_parser(name, help=text)
        sub.add_argument("name", metavar="NAME")
        if name == "reject":
            sub.add_argument("--reason", default="", help="why (recorded with the veto)")
        if name == "accept":
            sub.add_argument("--only", metavar="N,M", help="of a harvest inbox: keep these items (numbered as "
                             "`review show` lists them), drop the rest")
            sub.add_argument("--recomputed", metavar="DIGEST", help="of a weights review proposed on an older "
                             "commit: accept the recomputed change accept showed, named by its digest")
        if name in ("accept", "reject"):
            sub.add_argument("--i-am-the-reviewer", dest="reviewer", action="store_true",
                             help="you are the person deciding, from a script without a terminal "
                                  "(refused under an agent)")
        json_flag(sub)
    reopen = actions.add_parser("reopen", help="undo the default rejection of a sedimentation promotion "
                                "(allow this promotion)")
    reopen.add_argument("name", metavar="NAME")
    json_flag(reopen)
    push = actions.add_parser("push", help="push open review branches to a remote (never with force)")
    push.add_argument("remote", nargs="?", default="origin", metavar="REMOTE")
    json_flag(push)


@command("review", "list, show, accept, reject, reopen or push review branches", _review_args)
def cmd_review(args: Any) -> int:
    import sys

    repo = repo_of(args)
    if args.action == "list":
        merged = repo.merged_reviews(now_of(args))
        found = repo.reviews()
        if args.json:
            emit_json([r.to_json() for r in found])
        for m in merged if not args.json else ():
            if m.how == "elsewhere":
                out(f"{m.name}: {m.outcome} in another clone; closed here (kept at {m.kept_at})")
            else:
                out(f"{m.name}: merged on {m.remote_branch} ({m.how}) in {m.merge[:12]} by {m.merged_by}; recorded "
                    f"as accepted (kept at {m.kept_at})")
        for r in found if not args.json else ():
            out(f"{r.name}\t{r.kind}\t{r.commit[:12]}\t{r.subject}" + ("\t(branch moved since)" if r.behind else ""))
        if not found and not args.json:
            out("no open reviews")
        return 0
    if args.action == "show":
        shown = repo.review_show(args.name)
        if args.json:
            emit_json(shown.to_json())
            return 0
        out(f"{shown.info.name} ({shown.info.kind}) {shown.info.commit[:12]}")
        out(f"a {shown.info.kind} review may change: {shown.scope}")
        out("")
        for line in shown.semantic or ("(no pattern or memory changes)",):
            out(f"  {line}")
        for line in shown.on_accept:
            out(f"  on accept: {line}")
        out("")
        out("paths changed:")
        for line in shown.paths or ("(none)",):
            out(f"  {line}")
        if shown.outside:
            out("")
            out(f"accept refuses this review: {len(shown.outside)} change(s) outside its scope")
            for line in shown.outside:
                out(f"  {line}")
        out("")
        out(shown.message.rstrip("\n"))
        out("")
        out(shown.diff.rstrip("\n"))
        return 0
    if args.action == "reopen":
        branch = repo.review_reopen(args.name, now_of(args))
        if args.json:
            emit_json({"name": branch, "action": "reopened"})
        else:
            out(f"reopened {branch}: a person may accept it now (gitmem review accept {branch})")
        return 0
    if args.action == "push":
        pushed = repo.review_push(args.remote)
        if args.json:
            emit_json({"remote": args.remote, "pushed": pushed})
        else:
            out(f"pushed {len(pushed)} review branch(es) to {args.remote}" if pushed else "no open reviews to push")
        return 0
    from gitmem.base.errors import UsageError

    interactive = sys.stdin.isatty()
    try:
        if args.action == "accept":
            done = repo.review_accept(args.name, only=args.only, interactive=interactive,
                                      i_am_the_reviewer=args.reviewer, now=now_of(args), recomputed=args.recomputed)
        else:
            done = repo.review_reject(args.name, args.reason, interactive=interactive,
                                      i_am_the_reviewer=args.reviewer, now=now_of(args))
    except UsageError as exc:   # a bad --only, or no person deciding: a usage error, nothing changed
        err(f"gitmem: error: {exc.message}")
        if exc.hint:
            err(f"hint: {exc.hint}")
        return 2
    if args.json:
        emit_json(done.to_json())
    elif done.action == "accepted":
        out(f"accepted {done.name} in merge commit {(done.commit or '')[:12]}"
            + (f": {done.kept} items kept, {done.dropped} dropped" if done.kept or done.dropped else "")
            + (" (the change computed again from the current branch, as shown)" if done.recomputed else ""))
    else:
        out(f"rejected {done.name}: {done.reason}; kept at {done.kept_at}"
            + (f" ({done.dropped} items dropped)" if done.dropped else ""))
    return 0


def _analyze_args(p: Any) -> None:
    p.add_argument("--merge-threshold", type=float, help="Jaccard at or above which two patterns may merge (default 0.8)")
    json_flag(p)


@command("analyze", "co-activation of patterns: Jaccard pairs, clusters, merge candidates", _analyze_args)
def cmd_analyze(args: Any) -> int:
    found = repo_of(args).analyze(merge_threshold=args.merge_threshold)
    if args.json:
        emit_json(found.to_json())
        return 0
    for a, b, j in found.pairs[:50]:
        out(f"{j:.3f}\t{a}\t{b}")
    for c in found.clusters:
        out("cluster: " + ", ".join(c))
    for a, b, j in found.merge_candidates:
        out(f"merge candidate: {a} + {b} ({j:.3f})")
    if found.pairs and not found.merge_candidates:
        out(f"analyze: no merge candidate (one needs a Jaccard index of at least the merge threshold over "
            f"at least {found.min_sessions} shared sessions, analyze.min_sessions)")
    if not found.pairs:
        out("analyze: no two patterns are activated by the same session")
    return 0


@command("atrophy", "open a branch deleting each pattern long under hebbian.delete_below", json_flag)
def cmd_atrophy(args: Any) -> int:
    opened = repo_of(args).atrophy(now_of(args))
    if args.json:
        emit_json({"opened": opened})
    for b in opened if not args.json else ():
        out(f"opened {b}: gitmem review show {b}")
    if not opened and not args.json:
        out("atrophy: nothing to propose")
    return 0


@command("status", "weights and stages, atrophy candidates, open reviews, forced review, drift, snapshot, errors",
         json_flag)
def cmd_status(args: Any) -> int:
    from gitmem.api import statuscache

    now = now_of(args)
    root = root_of(args)
    data = statuscache.cached(root, now)   # the last full status, while nothing it read has changed
    if data is None:
        data = repo_of(args).status(now).to_json()
    if args.json:
        emit_json(data)
        return 0
    _print_status(data)
    return 0


QUICK = {"status": quickargs.Spec(flags={"--json": "json"}, values={}, positional=None, exclusive=(),
                                  defaults={"json": False})}
"""``status``'s arguments as ``quickargs`` reads them in a status process (``cli.main``), without argparse."""


def _print_status(st: dict[str, Any]) -> None:
    """``status`` as text, from its JSON (the full status's or the one kept in the state folder)."""
    c = st.get("counts")
    if c is not None:
        def listed(by: dict[str, int]) -> str:
            return ", ".join(f"{n} {name}" for name, n in by.items()) or "none"

        out(f"memories: {c['memories']} live (tier: {listed(c['tiers'])}; band: {listed(c['bands'])}), "
            f"{c['archived']} archived" + (f", {c['unreadable']} unreadable" if c["unreadable"] else ""))
        out(f"episodes: {c['episodes']}")
    out(f"patterns: {len(st['patterns'])}")
    for p in st["patterns"][:20]:
        out(f"  {p['weight']:.6g}\t{p['stage']}\t{p['slug']}")
    out(f"open reviews: {len(st['reviews'])}")
    for r in st["reviews"]:
        out(f"  {r['name']}\t{r['subject']}")
    out("atrophy candidates: " + (", ".join(st["atrophy_candidates"]) or "none"))
    forced = " (the next weight update must be proposed)" if st["review_forced"] else ""
    out(f"weight updates applied without review: {st['auto_streak']} of {st['forced_review_after']}{forced}")
    drift = st["drift"]
    out("drift: " + ("no baseline yet" if drift["baseline"] is None else
                     f"cosine {drift['cosine']} to {drift['baseline_name']} ({'ok' if drift['ok'] else 'ALERT'})"))
    out(f"last snapshot: {st['last_snapshot'] or 'none'}")
    if st["last_error"]:
        e = st["last_error"]   # a job's failure carries job and summary (run_job, the agent hooks)
        out(f"last background error: {e.get('at')} {e.get('job') or ''}: {e.get('summary') or e.get('message', '')}")
    queued = st["pending"]["files"]
    out(f"growth queued in .gitmem/pending/: {len(queued)}" + (f" ({', '.join(queued)})" if queued else ""))
    out(f"sessions refused for a secret: {len(st['refused_sessions'])}")
    for refusal in st["refused_sessions"]:
        out(f"  {refusal['path'] or 'session ' + refusal['session']} ({refusal['at']})")
        for f in refusal["findings"]:
            out(f"    {f['id']}\t{f['kind']} at line {f['line']}\t" + "  |  ".join(f["commands"]))


def _log_args(p: Any) -> None:
    p.add_argument("--events", action="store_true",
                   help="the structured event stream, from commit trailers and the local event log "
                        "(default: the commit history, each commit with its event)")
    p.add_argument("-n", dest="limit", type=int, metavar="N", help="only the last N commits")
    json_flag(p)


@command("log", "the commit history with each commit's event; --events: the structured event stream", _log_args)
def cmd_log(args: Any) -> int:
    import json

    from gitmem.base.errors import ArgumentError

    if args.limit is not None and args.limit < 1:
        raise ArgumentError(f"-n {args.limit}: give a positive number of commits", hint="gitmem log --events -n 20")
    if not args.events:
        commits = repo_of(args).history(args.limit)
        if args.json:
            emit_json(commits)
            return 0
        for c in commits:
            event = str(c["event_type"] or ("merge" if c["merge"] else "(a person's commit)"))
            out(f"{str(c['commit'])[:12]}  {c['timestamp']}  {event:<24} {c['subject']}")
        return 0
    events = repo_of(args).events(args.limit)
    if args.json:
        emit_json(events)
        return 0
    for e in events:
        rest = {k: v for k, v in e.items() if k not in ("event_type", "timestamp")}
        out(f"{e.get('timestamp')}\t{e.get('event_type')}\t{json.dumps(rest, ensure_ascii=False, sort_keys=True)}")
    return 0
