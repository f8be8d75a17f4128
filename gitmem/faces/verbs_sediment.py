"""The verbs of skill sedimentation: ``gitmem sediment reflect | distill | promote | like | threshold | clear | status``."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

from gitmem.faces.console import command, emit_json, json_flag, now_of, out, repo_of

def _operator() -> str:
    """Who runs this command, for the audit: an agent's shell, or a person."""
    import os

    from gitmem.api.experience import operator_of

    return operator_of(os.environ)


KINDS = ("error_fix", "process", "preference", "routine")
RESULTS = ("good", "bad", "neutral")


def _args(p: Any) -> None:
    actions = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    r = actions.add_parser("reflect", help="append one reflection to bank/reflections.md (at most one per loop)")
    r.add_argument("--topic", default="", help="what the reflection is about, in a few words")
    r.add_argument("--context", default="", help="the situation that started the task, one sentence")
    r.add_argument("--approach", default="", help="what was actually done")
    r.add_argument("--result", choices=RESULTS, help="outcome against intent")
    r.add_argument("--score", type=int, metavar="1-5",
                   help="effectiveness, 5 = will surely use it again")
    r.add_argument("--reusable", default="", help="the reusable point: one principle, pattern or checklist")
    r.add_argument("--kind", choices=KINDS, help="error fix, process, preference or routine")
    r.add_argument("--tag", action="append", default=[], metavar="TAG", help="a domain tag (repeatable)")
    r.add_argument("--skill", default="", help="the skill a process improvement belongs to")
    r.add_argument("--role", default="", help="the role or project a specific reflection belongs to")
    r.add_argument("--repeat", action="store_true", help="the same error class failed twice in a row")
    r.add_argument("--deviation", action="store_true", help="a drift-from-the-goal entry (not written twice in ttl)")
    r.add_argument("--loop", default="", help="the loop (session) this closes: at most one reflection each")
    r.add_argument("--output", help="the task's output for the trigger pre-check (empty: nothing is written)")
    r.add_argument("--session", default="", help="the session id, for the event")
    r.add_argument("--from-session", nargs="+", metavar="TRANSCRIPT", help="harvest these transcripts and propose "
                   "one reflection per session that fixed a failure or made a decision")
    json_flag(r)
    d = actions.add_parser("distill", help="route reflections into TABOOS.md, a skill, a role or day file, MEMORY.md")
    d.add_argument("id", nargs="?", metavar="ID", help="only this reflection")
    json_flag(d)
    pr = actions.add_parser("promote", help="propose for review the reflections whose priority reaches the threshold")
    pr.add_argument("id", nargs="?", metavar="ID", help="promote this reflection whatever its priority (you ask)")
    json_flag(pr)
    lk = actions.add_parser("like", help="count your explicit 'keep this for later' (+10 priority)")
    lk.add_argument("id", metavar="ID")
    json_flag(lk)
    t = actions.add_parser("threshold", help="the promotion threshold; --set N overrides it (audited)")
    t.add_argument("--set", type=float, dest="value", metavar="N", help="a value in [10, 30]")
    json_flag(t)
    c = actions.add_parser("clear", help="clear reflections (one commit, revertible); needs --confirm")
    c.add_argument("--skill", help="only this skill's reflections")
    c.add_argument("--cascade", action="store_true", help="their promotion entries too")
    c.add_argument("--confirm", action="store_true", help="yes, clear them")
    json_flag(c)
    json_flag(actions.add_parser("status", help="threshold, reflections with priority, reviews, queue, disk"))


@command("sediment", "skill sedimentation: reflect, distill, promote, like, threshold, clear, status", _args)
def cmd_sediment(args: Any) -> int:
    repo = repo_of(args)
    now = now_of(args)
    handler = _ACTIONS[args.action]
    return handler(repo, args, now)


def _reflect(repo: Any, args: Any, now: Any) -> int:
    if args.from_session:
        found = repo.sediment_reflect_sessions(args.from_session, now)
        if args.json:
            emit_json([f.to_json() for f in found])
        for f in found if not args.json else ():
            r = f.reflected
            out(f"{f.session}\t" + (f"{r.outcome} {r.reflection.id if r.reflection else ''}"
                                    + (f": {r.reason}" if r.reason else "") if r else "nothing to reflect on"))
        return 0
    done = repo.sediment_reflect(topic=args.topic, context=args.context, approach=args.approach, result=args.result or "",
                                 score=args.score, reusable=args.reusable, kind=args.kind or "", tags=tuple(args.tag),
                                 skill=args.skill, role=args.role, repeat=args.repeat, deviation=args.deviation,
                                 loop=args.loop, output=args.output, operator=_operator(), session=args.session, now=now)
    if args.json:
        emit_json(done.to_json())
        return 0
    rid = done.reflection.id if done.reflection else ""
    out(f"{done.outcome} {rid}" + (f": {done.reason}" if done.reason else "")
        + (f" (commit {done.commit[:12]})" if done.commit else ""))
    return 0


def _distill(repo: Any, args: Any, now: Any) -> int:
    done = repo.sediment_distill(args.id, operator=_operator(), now=now)
    if args.json:
        emit_json([d.to_json() for d in done])
        return 0
    for d in done:
        out(f"{d.id}\t{d.target or 'skipped'}" + (f"\t{d.reason}" if d.reason else ""))
    if not done:
        out("nothing to distill")
    return 0


def _promote(repo: Any, args: Any, now: Any) -> int:
    done = repo.sediment_promote(args.id, operator=_operator(), now=now)
    if args.json:
        emit_json([p.to_json() for p in done])
        return 0
    for p in done:
        where = f"proposed on {p.branch}: gitmem review show {p.branch}" if p.branch else f"not proposed: {p.reason}"
        marks = f" [human veto: {', '.join(p.flags)}]" if p.flags else ""
        out(f"{p.id}\tpriority {p.priority:g} (threshold {p.threshold:g})\t{where}{marks}")
    if not done:
        out("no reflection reaches the threshold")
    return 0


def _like(repo: Any, args: Any, now: Any) -> int:
    r = repo.sediment_like(args.id, operator=_operator(), now=now)
    if args.json:
        emit_json(r.to_json())
    else:
        out(f"{r.id}: {r.likes} like(s)")
    return 0


def _threshold(repo: Any, args: Any, now: Any) -> int:
    if args.value is not None:
        done = repo.sediment_set_threshold(args.value, operator=_operator(), now=now)
        if args.json:
            emit_json(done.to_json())
        else:
            out(f"threshold {done.old:g} -> {done.new:g} (automatic changes locked for a while)")
        return 0
    t = repo.sediment_status(now).threshold
    if args.json:
        emit_json(t.to_json())
        return 0
    out(f"threshold {t.value:g} (permanent {t.base:g})" + (f", raised until {t.burst_until}" if t.burst_until else "")
        + (f", locked until {t.locked_until}" if t.locked_until else ""))
    for c in t.history:
        out(f"{c.at}\t{c.old:g} -> {c.new:g}\t{c.reason}")
    return 0


def _clear(repo: Any, args: Any, now: Any) -> int:
    done = repo.sediment_clear(args.skill, args.cascade, args.confirm, operator=_operator(), now=now)
    if args.json:
        emit_json(done.to_json())
    else:
        out(f"cleared {done.reflections} reflection(s) and {done.promotions} promotion(s) ({done.cleared})"
            + (f" in commit {done.commit[:12]}: git revert {done.commit[:12]} undoes it" if done.commit else ""))
    return 0


def _status(repo: Any, args: Any, now: Any) -> int:
    s = repo.sediment_status(now)
    if args.json:
        emit_json(s.to_json())
        return 0
    t = s.threshold
    out(f"threshold: {t.value:g} (permanent {t.base:g}; veto streak {t.veto_streak}, approval streak "
        f"{t.approve_streak}; {t.recent_promotions} proposed in the last hour)")
    out(f"reflections: {len(s.reflections)}; promotions logged: {s.promotions}")
    for r, value, _ in s.reflections:
        state = "promoted" if r.promoted else "distilled" if r.distilled else "new"
        out(f"  {r.id}\t{value:g}\t{state}\t{r.topic}")
    for rv in s.reviews:
        out(f"review: {rv.branch}" + (f" [human veto: {', '.join(rv.flags)}; expires {rv.expires}]" if rv.flags else ""))
    out(f"queue: {len(s.queue)} file(s) waiting" + (": " + ", ".join(s.queue) if s.queue else ""))
    if s.degraded:
        out(f"disk: {s.free_mb} MB free, under sediment.min_free_mb: sedimentation records only (no new file)")
    return 0


_ACTIONS = {"reflect": _reflect, "distill": _distill, "promote": _promote, "like": _like, "threshold": _threshold,
            "clear": _clear, "status": _status}
