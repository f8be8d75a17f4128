"""The use case of the installation itself: where this gitmem came from (``gitmem --version``) and
the install commands a hint prints (an extra, a reinstall, an upgrade), each naming that source."""

from __future__ import annotations

from gitmem.base.origin import Origin, install_hint, origin, reinstall_hint, upgrade_hint

__all__ = ["Origin", "describe", "install_hint", "origin", "reinstall_hint", "upgrade_hint"]


def describe() -> str:
    """One line saying where this gitmem was installed from."""
    return origin().describe()
