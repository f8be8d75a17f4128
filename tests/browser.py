"""A headless Chromium driven over the DevTools protocol on a pipe, with the standard library only.

Chromium reads commands on its fd 3 and writes answers and events on fd 4, each
message JSON ended by a NUL byte (``--remote-debugging-pipe``). No port is
opened, no driver process or browser download is involved, and the browser is
the system's own (Debian's ``chromium``), so nothing here depends on a client
library's idea of which browser build it may talk to.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-extensions",
         "--disable-default-apps", "--mute-audio", "--hide-scrollbars", "--no-default-browser-check",
         "--disable-features=Translate,MediaRouter,OptimizationHints", "--remote-debugging-pipe")
TIMEOUT = 90.0    # seconds for one answer: a 2-core machine shared by several test runs is slow


def find() -> str | None:
    """The path of a Chromium-family browser on this machine, or None."""
    for name in NAMES:
        found = shutil.which(name)
        if found:
            return found
    return None


class BrowserError(Exception):
    """The browser died, timed out or answered a command with an error."""


@dataclass
class PageReport:
    """What happened while a page loaded: every request, console message, error and log entry."""

    requests: list[str] = field(default_factory=list)
    console: list[tuple[str, str]] = field(default_factory=list)     # (type, text)
    exceptions: list[str] = field(default_factory=list)
    log: list[tuple[str, str]] = field(default_factory=list)         # (level, text)

    @property
    def errors(self) -> list[str]:
        """Console errors, uncaught exceptions and error-level log entries (a CSP violation is one)."""
        return ([f"console.{t}: {text}" for t, text in self.console if t in ("error", "assert")]
                + [f"exception: {e}" for e in self.exceptions]
                + [f"log.{lvl}: {text}" for lvl, text in self.log if lvl == "error"])


class Browser:
    """One headless browser process; ``open`` loads a page in a fresh tab and reports on it."""

    def __init__(self, executable: str) -> None:
        self.profile = tempfile.mkdtemp(prefix="gitmem-chromium-")
        cmd_r, self._cmd_w = os.pipe()
        self._out_r, out_w = os.pipe()

        def wire() -> None:   # in the child: the protocol's fds are 3 (commands in) and 4 (messages out)
            os.dup2(cmd_r, 3)
            os.dup2(out_w, 4)

        self.proc = subprocess.Popen([executable, *FLAGS, f"--user-data-dir={self.profile}", "about:blank"],
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL, pass_fds=(3, 4), preexec_fn=wire)
        os.close(cmd_r)
        os.close(out_w)
        self._next = 0
        self._answers: dict[int, dict[str, Any]] = {}
        self._events: list[dict[str, Any]] = []
        self._cond = threading.Condition()
        self._closed = False
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        buf = b""
        with os.fdopen(self._out_r, "rb", buffering=0) as pipe:
            while True:
                chunk = pipe.read(65536)
                if not chunk:
                    break
                buf += chunk
                *messages, buf = buf.split(b"\0")
                with self._cond:
                    for raw in messages:
                        msg = json.loads(raw)
                        if "id" in msg:
                            self._answers[msg["id"]] = msg
                        else:
                            self._events.append(msg)
                    self._cond.notify_all()
        with self._cond:
            self._closed = True
            self._cond.notify_all()

    def send(self, method: str, params: dict[str, Any] | None = None, session: str | None = None) -> dict[str, Any]:
        """Send one command and wait for its answer's ``result``."""
        with self._cond:
            self._next += 1
            mid = self._next
        msg: dict[str, Any] = {"id": mid, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self._cmd_w, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + TIMEOUT
        with self._cond:
            while mid not in self._answers:
                if self._closed:
                    raise BrowserError(f"the browser exited during {method}")
                left = deadline - time.monotonic()
                if left <= 0:
                    raise BrowserError(f"no answer to {method} within {TIMEOUT:g} s")
                self._cond.wait(left)
            answer = self._answers.pop(mid)
        if "error" in answer:
            raise BrowserError(f"{method}: {answer['error']}")
        result: dict[str, Any] = answer.get("result", {})
        return result

    def wait_event(self, method: str, session: str) -> dict[str, Any]:
        """Wait for an event of ``method`` in ``session`` (already arrived or to come) and take it."""
        deadline = time.monotonic() + TIMEOUT
        with self._cond:
            while True:
                for n, event in enumerate(self._events):
                    if event.get("method") == method and event.get("sessionId") == session:
                        return self._events.pop(n)
                left = deadline - time.monotonic()
                if self._closed or left <= 0:
                    raise BrowserError(f"no {method} event within {TIMEOUT:g} s")
                self._cond.wait(left)

    def events(self, session: str) -> list[dict[str, Any]]:
        """Every event of ``session`` received so far."""
        with self._cond:
            return [e for e in self._events if e.get("sessionId") == session]

    def open(self, url: str, width: int = 1280, height: int = 900) -> Page:
        """Load ``url`` in a new tab with every domain that reports requests and errors enabled first."""
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.send(f"{domain}.enable", {}, session)
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False}, session)
        with self._cond:   # about:blank's own events are not this page's
            self._events = [e for e in self._events if e.get("sessionId") != session]
        self.send("Page.navigate", {"url": url}, session)
        self.wait_event("Page.loadEventFired", session)
        return Page(self, session, target, width)

    def close(self) -> None:
        """Close the browser (politely, then by force) and remove its profile."""
        try:
            if self.proc.poll() is None:
                try:
                    os.write(self._cmd_w, json.dumps({"id": 0, "method": "Browser.close"}).encode() + b"\0")
                except OSError:
                    pass
                try:
                    self.proc.wait(20)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    self.proc.wait(20)
        finally:
            try:
                os.close(self._cmd_w)
            except OSError:
                pass
            shutil.rmtree(self.profile, ignore_errors=True)


@dataclass
class Page:
    """One loaded tab."""

    browser: Browser
    session: str
    target: str
    width: int

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression (awaited if it is a promise), as JSON."""
        found = self.browser.send("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                                       "awaitPromise": True}, self.session)
        if "exceptionDetails" in found:
            raise BrowserError(f"evaluate failed: {found['exceptionDetails']}")
        return found["result"].get("value")

    def report(self) -> PageReport:
        """Requests, console messages, exceptions and log entries of this page so far."""
        out = PageReport()
        for event in self.browser.events(self.session):
            method, params = event.get("method"), event.get("params", {})
            if method == "Network.requestWillBeSent":
                out.requests.append(params["request"]["url"])
            elif method == "Runtime.consoleAPICalled":
                text = " ".join(str(a.get("value", a.get("description", ""))) for a in params.get("args", []))
                out.console.append((params.get("type", ""), text))
            elif method == "Runtime.exceptionThrown":
                details = params.get("exceptionDetails", {})
                out.exceptions.append(str(details.get("exception", {}).get("description") or details.get("text")))
            elif method == "Log.entryAdded":
                entry = params.get("entry", {})
                out.log.append((entry.get("level", ""), f"{entry.get('source')}: {entry.get('text')}"))
        return out

    def screenshot(self, path: Path) -> Path:
        """A PNG of the whole page (its full height) written to ``path``."""
        height = int(self.evaluate("Math.ceil(document.documentElement.scrollHeight)") or 900)
        self.browser.send("Emulation.setDeviceMetricsOverride",
                          {"width": self.width, "height": min(height, 16000), "deviceScaleFactor": 1,
                           "mobile": False}, self.session)
        shot = self.browser.send("Page.captureScreenshot", {"format": "png"}, self.session)
        path.write_bytes(base64.b64decode(shot["data"]))
        return path

    def close(self) -> None:
        """Close the tab."""
        self.browser.send("Target.closeTarget", {"targetId": self.target})
