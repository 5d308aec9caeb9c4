"""Dataclasses made without compiling code: what every command imports starts sooner.

``@record`` makes the same dataclass as ``@dataclasses.dataclass`` with the same
``frozen``, ``eq`` and ``repr`` (its fields, defaults, ``dataclasses.replace``,
``fields``, equality, hash, repr and frozenness alike), but gives it methods written
once here instead of methods whose source the dataclasses module writes and compiles
for every class. Compiling them took some 75 million instructions (15 ms) of each
``smarteval evaluate``'s start for the classes it imports, more than any other part
of its start but numpy's. Type checkers see ``dataclasses.dataclass`` itself.

As there, a method the class writes itself is kept. A class without a docstring (whose
``__doc__`` the dataclasses module writes from its signature), a frozen one with
``__setattr__`` or ``__delattr__`` of its own (which it refuses), and one deriving
from a dataclass are left to ``dataclasses.dataclass``.
"""

from __future__ import annotations

import dataclasses
import reprlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from dataclasses import dataclass as record
else:
    def record(cls=None, /, *, frozen: bool = False, eq: bool = True, repr: bool = True):
        """``@dataclasses.dataclass(frozen=..., eq=..., repr=...)``, without compiling."""
        def wrap(cls):
            return _record(cls, frozen=frozen, eq=eq, repr=repr)
        return wrap if cls is None else wrap(cls)


def _record(cls: Any, *, frozen: bool, eq: bool, repr: bool) -> type:
    if not cls.__doc__ or frozen and ("__setattr__" in cls.__dict__
                                      or "__delattr__" in cls.__dict__) \
            or any(dataclasses.is_dataclass(base) for base in cls.__mro__[1:]):
        return dataclasses.dataclass(cls, frozen=frozen, eq=eq, repr=repr)
    explicit_hash = cls.__dict__.get("__hash__", dataclasses.MISSING)
    has_explicit_hash = not (explicit_hash is dataclasses.MISSING
                             or (explicit_hash is None and "__eq__" in cls.__dict__))
    # the fields, their defaults as class attributes, __match_args__: no method compiled
    dataclasses.dataclass(cls, init=False, repr=False, eq=False)
    fields = dataclasses.fields(cls)
    own = set(cls.__dict__)             # kept, as the dataclasses module keeps them
    if "__init__" not in own:
        cls.__init__ = _init(cls, fields, frozen)
    if repr and "__repr__" not in own:
        cls.__repr__ = _repr(fields)
    if eq and "__eq__" not in own:
        cls.__eq__ = _eq(fields)
    if frozen:
        cls.__setattr__, cls.__delattr__ = _frozen(cls, fields)
    if eq and not has_explicit_hash:                    # dataclasses' rule for __hash__
        cls.__hash__ = _hash(fields) if frozen else None
    params = cls.__dict__["__dataclass_params__"]
    params.repr, params.eq, params.frozen = repr, eq, frozen
    params.init = True
    return cls


def _init(cls: Any, fields: tuple[dataclasses.Field, ...], frozen: bool):
    """``__init__`` taking the fields that are ``init`` by position or keyword, in order,
    defaults (and factories) for those not given, then ``__post_init__``."""
    given = [f for f in fields if f.init]
    names = tuple(f.name for f in given)
    where = {name: i for i, name in enumerate(names)}
    defaults = tuple(f.default if f.default is not dataclasses.MISSING else
                     (_Factory(f.default_factory)
                      if f.default_factory is not dataclasses.MISSING else _REQUIRED)
                     for f in given)
    others: tuple[tuple[str, Any, Any], ...] = tuple(
        (f.name, f.default_factory if f.default is dataclasses.MISSING else None, f.default)
        for f in fields if not f.init
                   and (f.default is not dataclasses.MISSING
                        or f.default_factory is not dataclasses.MISSING))
    factories = tuple(i for i, d in enumerate(defaults) if d.__class__ is _Factory)
    post_init = getattr(cls, "__post_init__", None) is not None
    qualname = f"{cls.__qualname__}.__init__()"
    store = object.__setattr__ if frozen else setattr
    # the instance's dict written at once where assigning each field would only do that
    direct = "__slots__" not in cls.__dict__ and (frozen or cls.__setattr__ is object.__setattr__)
    required = sum(d is _REQUIRED for d in defaults)
    # what Python says of a call to such a compiled __init__ that does not fit it
    takes = f"{required + 1}" if required == len(names) else \
        f"from {required + 1} to {len(names) + 1}"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if len(args) > len(names):
            raise TypeError(f"{qualname} takes {takes} positional argument"
                            f"{'s' if takes != '1' else ''} but {len(args) + 1} "
                            f"{'was' if not args else 'were'} given")
        values = list(args)
        values.extend(defaults[len(args):])
        for key, value in kwargs.items():
            i = where.get(key)
            if i is None:
                raise TypeError(f"{qualname} got an unexpected keyword argument {key!r}")
            if i < len(args):
                raise TypeError(f"{qualname} got multiple values for argument {key!r}")
            values[i] = value
        if len(args) + len(kwargs) < required:
            _missing(qualname, names, values)
        for i in factories:
            if values[i].__class__ is _Factory:
                values[i] = values[i].make()
        if direct and (frozen or self.__class__ is cls):   # (a subclass may have its own)
            self.__dict__.update(zip(names, values))
        else:
            for name, value in zip(names, values):
                store(self, name, value)
        for name, factory, default in others:
            store(self, name, default if factory is None else factory())
        if post_init:
            self.__post_init__()
    __init__.__qualname__ = f"{cls.__qualname__}.__init__"
    return __init__


def _missing(qualname: str, names: tuple[str, ...], values: list) -> None:
    """Python's refusal of a call that leaves required arguments out."""
    missing = [repr(n) for n, v in zip(names, values) if v is _REQUIRED]
    if not missing:
        return
    listed = missing[0] if len(missing) == 1 else " and ".join(missing) if len(missing) == 2 \
        else ", ".join(missing[:-1]) + ", and " + missing[-1]
    raise TypeError(f"{qualname} missing {len(missing)} required positional argument"
                    f"{'s' if len(missing) > 1 else ''}: {listed}")


class _Factory:
    """A field's ``default_factory``, told apart from a default value."""

    __slots__ = ("make",)

    def __init__(self, make):
        self.make = make


_REQUIRED = object()


def _repr(fields: tuple[dataclasses.Field, ...]):
    shown = tuple(f.name for f in fields if f.repr)

    @reprlib.recursive_repr()
    def __repr__(self) -> str:
        return self.__class__.__qualname__ + "(" + ", ".join(
            f"{name}={getattr(self, name)!r}" for name in shown) + ")"
    return __repr__


def _eq(fields: tuple[dataclasses.Field, ...]):
    compared = tuple(f.name for f in fields if f.compare)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is self.__class__:
            return tuple(getattr(self, n) for n in compared) == \
                tuple(getattr(other, n) for n in compared)
        return NotImplemented
    return __eq__


def _hash(fields: tuple[dataclasses.Field, ...]):
    hashed = tuple(f.name for f in fields if (f.compare if f.hash is None else f.hash))

    def __hash__(self) -> int:
        return hash(tuple(getattr(self, n) for n in hashed))
    return __hash__


def _frozen(cls: Any, fields: tuple[dataclasses.Field, ...]):
    names = frozenset(f.name for f in fields)

    def __setattr__(self, name: str, value: Any) -> None:
        if type(self) is cls or name in names:
            raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")
        super(cls, self).__setattr__(name, value)

    def __delattr__(self, name: str) -> None:
        if type(self) is cls or name in names:
            raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")
        super(cls, self).__delattr__(name)
    return __setattr__, __delattr__
