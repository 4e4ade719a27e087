"""A backend string parsed once: its layers, outermost first (`faults:realistic,seed=3@record:runs/rec@sim`).

Code outside `kopa.backends` asks a `BackendSpec` what it needs — is a layer recording, which fault seed,
the same backend without its recording — instead of taking the string apart by hand. The string stays
what users write and what run folders store; `str(spec)` gives it back in canonical form.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

from kopa.backends.base import KINDS, SIM_OPTIONS, fail, parse_options, unknown_kind

Kind = Literal["sim", "live", "record", "replay", "snapshot", "faults"]
# Layers that wrap an inner backend (after "@"); the others are a leaf, whose text runs to the end (a
# live base URL or a path may hold any character).
WRAPPERS = ("faults", "record")
# Each kind's options; the target is the part before them (a profile, a folder, a URL); sim has none.
OPTIONS: dict[str, tuple[str, ...]] = {"sim": SIM_OPTIONS, "live": (),
                                       "record": ("format",), "replay": (), "snapshot": (), "faults": ("seed",)}


class Layer(BaseModel):
    model_config = ConfigDict(frozen=True)

    kind: Kind
    target: str = ""  # faults: the profile; record, replay, snapshot: the path; live: the base URL
    options: tuple[tuple[str, str], ...] = ()  # as written, in order

    def option(self, name: str) -> str | None:
        return dict(self.options).get(name)

    def text(self) -> str:
        body = ",".join([*([self.target] if self.target else []), *(f"{k}={v}" for k, v in self.options)])
        return f"{self.kind}:{body}" if body else self.kind


class BackendSpec(BaseModel):
    model_config = ConfigDict(frozen=True)

    layers: tuple[Layer, ...]  # outermost first; every layer but the last is a wrapper

    @classmethod
    def parse(cls, text: str) -> BackendSpec:
        """The layers of `text`; an unknown kind or option, or a wrapper without what it wraps where one is
        required, is a BackendError naming it (values are checked when the backend is opened)."""
        layers: list[Layer] = []
        rest = text
        while True:
            name, _, body = rest.partition(":")
            if name not in KINDS:
                raise unknown_kind(name, text)
            inner = ""
            if name in WRAPPERS:
                body, at, inner = body.partition("@")
                if name == "record" and not (at and inner.strip()):
                    where = body.partition(",")[0].strip() or "DIR"
                    raise fail(text, f"record needs the backend to record from after @, e.g. record:{where}@live "
                                     f"(the real hosts) or record:{where}@sim (the simulator)")
            if name == "live":
                target, option_text = body, ""
            elif name == "sim":
                target, option_text = "", body
            else:
                target, _, option_text = body.partition(",")
            options = parse_options(text, name, option_text, OPTIONS[name])
            layers.append(Layer(kind=name, target=target.strip(), options=tuple(options.items())))
            if not inner:
                return cls(layers=tuple(layers))
            rest = inner

    def __str__(self) -> str:
        return "@".join(layer.text() for layer in self.layers)

    @property
    def kind(self) -> Kind:
        return self.layers[0].kind

    def layer(self, kind: Kind) -> Layer | None:
        return next((layer for layer in self.layers if layer.kind == kind), None)

    @property
    def records(self) -> bool:
        """Whether a layer records (one process writes a recording)."""
        return self.layer("record") is not None

    def _with(self, i: int, *layers: Layer) -> BackendSpec:
        return BackendSpec(layers=(*self.layers[:i], *layers, *self.layers[i + 1:]))

    def recorded_backends(self) -> tuple[BackendSpec, BackendSpec | None]:
        """(this backend without its recording layer, the recording's replay in its place), or (self, None)
        without one: a synthesis on `…@record:DIR@INNER` re-solves on `…@INNER` and on `…@replay:DIR`."""
        at = next((i for i, layer in enumerate(self.layers) if layer.kind == "record"), None)
        if at is None:
            return self, None
        replay = BackendSpec(layers=(*self.layers[:at], Layer(kind="replay", target=self.layers[at].target)))
        return self._with(at), replay

    def with_absolute_recording(self) -> BackendSpec:
        """The recording folder as an absolute path, so a stored string works from any folder."""
        return BackendSpec(layers=tuple(
            layer.model_copy(update={"target": str(Path(layer.target).resolve())}) if layer.kind == "record"
            else layer for layer in self.layers))

    @property
    def fault_seed(self) -> int | None:
        """The outermost faults layer's seed (0 when it names none); None without faults."""
        if self.kind != "faults":
            return None
        seed = self.layers[0].option("seed")
        return 0 if seed is None else int(seed)

    def with_fault_seed(self, seed: int) -> BackendSpec:
        """The outermost faults layer with `seed` (an error without one)."""
        if self.kind != "faults":
            raise ValueError(f"{self} has no faults layer")
        head = self.layers[0]
        options = (*((k, v) for k, v in head.options if k != "seed"), ("seed", str(seed)))
        return self._with(0, head.model_copy(update={"options": options}))


def parse_backend(text: str | BackendSpec) -> BackendSpec:
    return text if isinstance(text, BackendSpec) else BackendSpec.parse(text)


def names_a_backend(text: str) -> bool:
    """Whether `text` starts as a backend string does (a kind, then `:` or nothing) — to tell one from a
    mistyped path; whether the rest is right is parse's to say."""
    return text.partition(":")[0] in KINDS


def backend_kind(text: str) -> str:
    """The kind a backend string names (sim, live, …), its layers checked without opening it — for a command
    that only writes the string down for later (`kopa rl verl-config`)."""
    return BackendSpec.parse(text).kind
