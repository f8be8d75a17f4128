"""Skill sedimentation: reflect -> distill -> promote (DESIGN.md section 5, the sedimentation seed).

Pure rules, values in and values out; ``gitmem.api.sediment`` composes them
with the writer. One concept per module:

    guard      the entry guard every operation passes, and the target sandbox
    entry      a reflection entry of ``bank/reflections.md``: format, parse, trigger pre-check, TTL
    distill    where a reflection's rule goes, and the text that puts it there
    priority   the promotion priority and what it is made of
    threshold  the adaptive threshold, recomputed from an ordered log of decisions
    events     the seven structured event kinds and their fields
"""
