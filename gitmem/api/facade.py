"""One method of ``MemoryRepo``, declared as the use case it delegates to: ``recall = UseCase(recall.recall)``.

A use case is a function taking a ``Context`` first. Read on a repository,
``UseCase`` gives that function with the repository's context already passed:
the same parameters after the context, the same defaults, return type and
docstring, so ``help()``, ``inspect.signature`` and mypy see the method as if
it had been written out by hand. One line per method, and nothing to keep in
step with the function by hand.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import TYPE_CHECKING, Concatenate, Generic, ParamSpec, Protocol, TypeVar, overload

if TYPE_CHECKING:
    from gitmem.api.context import Context

P = ParamSpec("P")
R = TypeVar("R")


class HasContext(Protocol):
    """What a ``UseCase`` is read on: an object holding an opened ``Context``."""

    @property
    def _ctx(self) -> Context: ...


class UseCase(Generic[P, R]):
    """A method that calls ``function`` with the object's ``_ctx`` as its first argument."""

    def __init__(self, function: Callable[Concatenate[Context, P], R]) -> None:
        self.function = function
        functools.update_wrapper(self, function)
        signature = inspect.signature(function)
        after = list(signature.parameters.values())[1:]
        self.__signature__ = signature.replace(parameters=[
            inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD), *after])
        self._bound_signature = signature.replace(parameters=after)

    def __set_name__(self, owner: type, name: str) -> None:
        self.__name__ = name
        self.__qualname__ = f"{owner.__qualname__}.{name}"

    @overload
    def __get__(self, obj: None, owner: type | None = None) -> UseCase[P, R]: ...

    @overload
    def __get__(self, obj: HasContext, owner: type | None = None) -> Callable[P, R]: ...

    def __get__(self, obj: HasContext | None, owner: type | None = None) -> UseCase[P, R] | Callable[P, R]:
        if obj is None:
            return self
        ctx, function = obj._ctx, self.function

        def method(*args: P.args, **kwargs: P.kwargs) -> R:
            return function(ctx, *args, **kwargs)

        functools.update_wrapper(method, function)
        method.__name__, method.__qualname__ = self.__name__, self.__qualname__
        setattr(method, "__signature__", self._bound_signature)
        return method

    def __call__(self, obj: HasContext, /, *args: P.args, **kwargs: P.kwargs) -> R:
        """Called on the class (``MemoryRepo.recall(repo, ...)``), like a plain method."""
        return self.function(obj._ctx, *args, **kwargs)
