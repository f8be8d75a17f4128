"""The seven structured event kinds of sedimentation and their fields (the seed's JSON example):
``promotion``, ``guard``, ``performance`` and ``audit`` beside the type, time, session and skill."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Kind = Literal["reflect", "distill", "promote", "guard_triggered", "veto", "threshold_update", "experience_cleared"]
KINDS: tuple[Kind, ...] = ("reflect", "distill", "promote", "guard_triggered", "veto", "threshold_update",
                           "experience_cleared")
PREFIX = "sedimentation."
SKILL = "skill-sedimentation"


@dataclass(frozen=True)
class Guard:
    """What the write path's checks said."""

    path_check_passed: bool = True
    amplitude_check_passed: bool = True
    human_veto: bool = False
    sandbox_path: str = ""


@dataclass(frozen=True)
class Event:
    """One event, as the event log records it (``fields``: what the kind adds, such as ``promotion``)."""

    kind: Kind
    timestamp: str
    session_id: str
    operator: str                       # agent | user
    guard: Guard = field(default_factory=Guard)
    bytes_written: int = 0
    duration_ms: int = 0
    fields: tuple[tuple[str, object], ...] = ()

    @property
    def event_type(self) -> str:
        """``sedimentation.<kind>``."""
        return PREFIX + self.kind

    def to_json(self) -> dict[str, object]:
        """The seed's JSON shape."""
        g = self.guard
        return {"event_type": self.event_type, "timestamp": self.timestamp, "session_id": self.session_id,
                "skill_name": SKILL, **dict(self.fields),
                "guard": {"path_check_passed": g.path_check_passed, "amplitude_check_passed": g.amplitude_check_passed,
                          "human_veto": g.human_veto, "sandbox_path": g.sandbox_path},
                "performance": {"duration_ms": self.duration_ms, "bytes_written": self.bytes_written},
                "audit": {"operator": self.operator, "operator_id": self.operator}}
