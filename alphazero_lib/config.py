"""Settings as dataclasses, one docstring per field; saved into every checkpoint."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any


@dataclass
class SearchConfig:
    """Settings of the AlphaZero search (PUCT guided by a network), serial and batched alike."""

    num_searches: int = 100
    """Simulations per move: each one walks the tree to a leaf, evaluates it and backs the value up."""

    C: float = 2.0
    """Exploration constant in PUCT, ``Q + C * prior * sqrt(N_parent) / (1 + n)``."""

    dirichlet_epsilon: float = 0.0
    """Share of Dirichlet noise mixed into the root priors (0 = none; 0.25 in self-play as in the paper)."""

    dirichlet_alpha: float = 0.3
    """Concentration of the root noise; smaller means spikier noise. Drawn over legal moves only."""

    pb_c_base: float | None = None
    """If set, the exploration weight follows AlphaZero's schedule ``log((1 + N + pb_c_base) / pb_c_base) +
    pb_c_init`` instead of the constant ``C`` (the paper uses 19652)."""

    pb_c_init: float = 1.25
    """The schedule's constant part (used only with ``pb_c_base``)."""

    seed: int | None = None
    """Seed of the search's random generator (root noise, tie-breaks); None draws a fresh one."""

    def __post_init__(self) -> None:
        check_fields(self)
        if self.num_searches < 1:
            raise ValueError(f"num_searches must be at least 1, got {self.num_searches}")
        if not 0.0 <= self.dirichlet_epsilon <= 1.0:
            raise ValueError(f"dirichlet_epsilon must be in [0, 1], got {self.dirichlet_epsilon}")
        if self.dirichlet_alpha <= 0:
            raise ValueError(f"dirichlet_alpha must be positive, got {self.dirichlet_alpha}")
        if self.C < 0:
            raise ValueError(f"C must be non-negative, got {self.C}")
        if self.pb_c_base is not None and self.pb_c_base <= 0:
            raise ValueError(f"pb_c_base must be positive or None, got {self.pb_c_base}")

    def to_dict(self) -> dict[str, Any]:
        """Plain ``dict`` of the fields (for checkpoints and JSON)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SearchConfig:
        """Rebuild from ``to_dict``'s output; unknown keys are an error that names them."""
        return cls(**_known(cls, data))


def check_fields(obj: Any) -> None:
    """Reject a bool where a number is expected (``num_searches=True`` is a typo, not a setting)."""
    for f in fields(obj):
        value = getattr(obj, f.name)
        if isinstance(value, bool) and f.type not in ("bool", bool):
            raise ValueError(f"{type(obj).__name__}.{f.name} must be a number, got {value!r}")


def _known(cls: type, data: dict[str, Any]) -> dict[str, Any]:
    names = {f.name for f in fields(cls)}
    unknown = sorted(set(data) - names)
    if unknown:
        raise ValueError(f"unknown {cls.__name__} settings {unknown}; known: {sorted(names)}")
    return dict(data)
