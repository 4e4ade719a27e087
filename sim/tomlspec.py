"""Shipped TOML specs (fault profiles, drift scenarios): found by name in a folder or by path, validated
by a pydantic model, with errors that name the file and every field at fault."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ValidationError

M = TypeVar("M", bound=BaseModel)


def spec_path(name_or_path: str, directory: Path) -> Path:
    path = Path(name_or_path)
    if path.suffix == ".toml" or path.exists():
        return path
    return directory / f"{name_or_path}.toml"


def shipped(directory: Path) -> list[str]:
    return sorted(p.stem for p in directory.glob("*.toml"))


def load_spec(name_or_path: str, directory: Path, model: type[M], error: type[Exception], what: str) -> M:
    """`what` names the kind of spec in messages ("fault profile", "drift scenario")."""
    path = spec_path(name_or_path, directory)
    if not path.exists():
        raise error(f"no {what} {name_or_path!r}; shipped: {', '.join(shipped(directory))}")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise error(f"{path}: not valid TOML: {exc}") from exc
    data.setdefault("name", path.stem)
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        lines = [f"{path}: invalid {what}"]
        for err in exc.errors():
            where = ".".join(str(p) for p in err["loc"]) or f"({what})"
            lines.append(f"  {where}: {err['msg']}")
        raise error("\n".join(lines)) from exc
