"""The one redaction a caller's text passes before anything is derived from it.

Keywords, titles, summaries, working notes and tags are derived from the
redacted text, never from the raw one (DESIGN.md section 4). A secret refuses
the text as it refuses a write: ``secret.rejected`` is logged and
``SecretError`` raised, nothing kept. The writer's PII guard still runs on
every file it commits; this is the earlier pass the use cases owe their input.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from gitmem.base import state
from gitmem.base.config import Config

if TYPE_CHECKING:
    from gitmem.guards import pii
    from gitmem.guards import redact as redact_mod


class Redactor:
    """Redaction for one repository, with the user names its clone has learned (read once, then kept)."""

    def __init__(self, root: Path, cfg: Config) -> None:
        self.root = root
        self.cfg = cfg
        self._names: pii.Names | None = None

    def redact(self, text: str, what: str, event: str, now: datetime, session: str | None = None,
               names: Sequence[str] = (), found: Sequence[pii.Finding] | None = None) -> redact_mod.Redacted:
        """``text`` with PII replaced by placeholders, and the kinds replaced.

        ``names`` are user names learned from the same source (a session's own
        home paths), replaced where they stand alone and remembered by the clone.
        ``found``: the scan of ``text`` under this configuration's allowlist, when
        the caller already has it (harvest's screen), so it is not scanned twice.
        A secret raises ``SecretError`` (``what`` says where it was) after
        logging ``secret.rejected`` for ``event``.
        """
        from gitmem.guards import pii, redact
        from gitmem.writer.chain import secret_error
        from gitmem.writer.commit import log_rejected

        known = self._names or pii.Names(state.salt(self.root), state.known_names(self.root))
        learned = self._names = known.plus(names)
        if learned.hashes != known.hashes:
            state.add_known_names(self.root, learned.hashes - known.hashes)
        result = redact.redact_text(text, self.cfg, names=learned, found=found)
        if result.secrets:
            error = secret_error([(what, where) for where in result.secrets])
            log_rejected(self.root, error, event, session, now)
            raise error
        return result

    def redact_text(self, text: str, what: str, event: str, now: datetime, session: str | None = None) -> str:
        """:meth:`redact` for a value kept as it is (a working note, a tag): the text alone."""
        clean: str = self.redact(text, what, event, now, session).text
        return clean
