"""Settings as dataclasses, one docstring per field; saved into every checkpoint."""

from __future__ import annotations

import math
import numbers
from dataclasses import asdict, dataclass, fields
from typing import Any

import numpy as np


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
        if self.pb_c_init < 0:
            raise ValueError(f"pb_c_init must be non-negative, got {self.pb_c_init}")

    def to_dict(self) -> dict[str, Any]:
        """Plain ``dict`` of the fields (for checkpoints and JSON)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SearchConfig:
        """Rebuild from ``to_dict``'s output; unknown keys are an error that names them."""
        return cls(**_known(cls, data))


@dataclass
class MCTSConfig:
    """Settings of vanilla MCTS (UCB1 selection, random rollouts)."""

    num_searches: int = 1000
    """Simulations per move: select a leaf by UCB1, expand one child, play a random rollout, back it up."""

    C: float = 1.41
    """Exploration constant in UCB1, ``Q + C * sqrt(ln N_parent / n)`` (the course's ``sqrt(2)``)."""

    seed: int | None = None
    """Seed of the search's random generator (expansion order, rollouts); None draws a fresh one."""

    def __post_init__(self) -> None:
        check_fields(self)
        if self.num_searches < 1:
            raise ValueError(f"num_searches must be at least 1, got {self.num_searches}")
        if self.C < 0:
            raise ValueError(f"C must be non-negative, got {self.C}")

    def to_dict(self) -> dict[str, Any]:
        """Plain ``dict`` of the fields (for JSON)."""
        return asdict(self)


def check_fields(obj: Any) -> None:
    """Check every field's type against its annotation, with a message that names the field.

    ``int`` fields take integers only (not ``True``, not ``3.0``); ``float`` fields take finite real numbers
    (not NaN or infinity, not booleans); ``bool`` fields take ``True`` or ``False`` only (``"no"`` is not
    false); ``str`` fields take strings; ``... | None`` also takes ``None``. Raises ``ValueError``.
    """
    for f in fields(obj):
        value = getattr(obj, f.name)
        annotation = f.type if isinstance(f.type, str) else getattr(f.type, "__name__", str(f.type))
        kinds = [part.strip() for part in annotation.split("|")]
        if value is None and "None" in kinds:
            continue
        where = f"{type(obj).__name__}.{f.name}"
        if "bool" in kinds:
            if not isinstance(value, (bool, np.bool_)):
                raise ValueError(f"{where} must be true or false, got {value!r} ({type(value).__name__})")
            setattr(obj, f.name, bool(value))
        elif "int" in kinds:
            if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
                raise ValueError(f"{where} must be an integer, got {value!r} ({type(value).__name__})")
            setattr(obj, f.name, int(value))
        elif "float" in kinds:
            if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
                raise ValueError(f"{where} must be a number, got {value!r} ({type(value).__name__})")
            if not math.isfinite(value):
                raise ValueError(f"{where} must be a finite number, got {value!r}")
        elif "str" in kinds and not isinstance(value, str):
            raise ValueError(f"{where} must be a string, got {value!r} ({type(value).__name__})")
    if "seed" in {f.name for f in fields(obj)} and obj.seed is not None and obj.seed < 0:
        raise ValueError(f"{type(obj).__name__}.seed must be a non-negative integer, got {obj.seed}")


def _known(cls: type, data: dict[str, Any]) -> dict[str, Any]:
    names = {f.name for f in fields(cls)}
    unknown = sorted(set(data) - names)
    if unknown:
        raise ValueError(f"unknown {cls.__name__} settings {unknown}; known: {sorted(names)}")
    return dict(data)


@dataclass
class TrainConfig:
    """Settings of an AlphaZero training run (the course's ``args`` dict, with a few additions)."""

    # ---- the course's settings ----------------------------------------------------------------
    C: float = 2.0
    """Exploration constant of the search during self-play (see ``SearchConfig.C``)."""

    num_searches: int = 60
    """Search simulations per self-play move."""

    num_iterations: int = 3
    """Total learn iterations (self-play, then training); a resumed run continues up to this number."""

    num_self_play_iterations: int = 500
    """Self-play games per iteration."""

    num_epochs: int = 4
    """Passes over the replay memory per iteration."""

    batch_size: int = 64
    """Samples per gradient step (a last batch of one is merged into the one before: BatchNorm needs two)."""

    temperature: float = 1.25
    """Move-selection temperature in self-play: visit probabilities ``** (1 / temperature)``; 0 plays the best."""

    dirichlet_epsilon: float = 0.25
    """Share of Dirichlet noise mixed into the root priors during self-play."""

    dirichlet_alpha: float = 0.3
    """Concentration of the root noise (smaller = spikier)."""

    lr: float = 0.001
    """Adam learning rate."""

    weight_decay: float = 0.0001
    """L2 penalty on the weights, applied by the optimizer."""

    # ---- additions --------------------------------------------------------------------------------
    replay_window: int = 1
    """Train on the games of the last this-many iterations (1 = only the newest, as in the course)."""

    augment_symmetries: bool = True
    """Store every self-play position under each board symmetry (``game.get_symmetries``): 8x for square boards."""

    temperature_moves: int | None = None
    """Use ``temperature`` for this many moves of each game, then play the most-visited move; None = every move."""

    seed: int = 0
    """Seed of the network's initial weights, self-play and minibatch shuffling (each iteration derives its own)."""

    device: str = "auto"
    """``"auto"`` (CUDA when present, else CPU), ``"cpu"`` or ``"cuda"``."""

    num_res_blocks: int = 4
    """Residual blocks in the ResNet."""

    num_hidden: int = 64
    """Channels of each convolution in the ResNet's body."""

    gating_games: int = 0
    """AlphaGo Zero-style gating: after training, the candidate plays the best network this many games
    (alternating seats) and replaces it only at ``gating_threshold``; 0 = AlphaZero's continuous update."""

    gating_threshold: float = 0.55
    """Score the candidate needs against the best network to replace it (wins 1, draws 1/2, losses 0)."""

    num_parallel_games: int = 64
    """Games played at once by the batched self-play (``AlphaZeroParallel``); the serial trainer ignores it."""

    num_threads: int | None = None
    """Torch CPU threads for the training steps (None = torch's default); serial self-play always uses one."""

    num_workers: int = 1
    """Self-play processes of ``AlphaZeroParallel`` on the CPU, each playing its share of the games with
    ``num_parallel_games / num_workers`` in flight and one torch thread per core it gets. On the 2-core machine
    2 workers beat one two-threaded process (``benchmarks/selfplay.py --workers``). Ignored on a GPU."""

    inference_mode: str = "auto"
    """How ``AlphaZeroParallel`` runs the network in self-play: one of ``inference.MODES`` (``"fp32"``,
    ``"bf16"``, ...) or ``"auto"``: measured once per machine and network shape, cached."""

    def __post_init__(self) -> None:
        check_fields(self)
        positive = ("num_searches", "num_iterations", "num_self_play_iterations", "num_epochs", "replay_window")
        positive += ("num_res_blocks", "num_hidden", "num_parallel_games")
        for name in positive:
            value = getattr(self, name)
            if not isinstance(value, int) or value < 1:
                raise ValueError(f"TrainConfig.{name} must be a positive integer, got {value!r}")
        if not isinstance(self.batch_size, int) or self.batch_size < 2:
            raise ValueError(
                f"TrainConfig.batch_size must be an integer of at least 2 (BatchNorm), got {self.batch_size!r}"
            )
        if self.temperature < 0:
            raise ValueError(f"TrainConfig.temperature must be non-negative, got {self.temperature}")
        if self.temperature_moves is not None and (
            not isinstance(self.temperature_moves, int) or self.temperature_moves < 0
        ):
            raise ValueError(
                f"TrainConfig.temperature_moves must be None or a non-negative integer, got {self.temperature_moves!r}"
            )
        if not 0.0 <= self.dirichlet_epsilon <= 1.0:
            raise ValueError(f"TrainConfig.dirichlet_epsilon must be in [0, 1], got {self.dirichlet_epsilon}")
        for name in ("dirichlet_alpha", "lr"):
            if getattr(self, name) <= 0:
                raise ValueError(f"TrainConfig.{name} must be positive, got {getattr(self, name)}")
        if self.C < 0 or self.weight_decay < 0:
            raise ValueError(f"TrainConfig.C and weight_decay must be non-negative, got {self.C}, {self.weight_decay}")
        if self.num_threads is not None and (not isinstance(self.num_threads, int) or self.num_threads < 1):
            raise ValueError(f"TrainConfig.num_threads must be None or a positive integer, got {self.num_threads!r}")
        if not isinstance(self.num_workers, int) or self.num_workers < 1:
            raise ValueError(f"TrainConfig.num_workers must be a positive integer, got {self.num_workers!r}")
        from alphazero_lib.inference import MODES

        if self.inference_mode != "auto" and self.inference_mode not in MODES:
            raise ValueError(
                f"TrainConfig.inference_mode must be 'auto' or one of {list(MODES)}, got {self.inference_mode!r}"
            )
        if not isinstance(self.gating_games, int) or self.gating_games < 0:
            raise ValueError(f"TrainConfig.gating_games must be a non-negative integer, got {self.gating_games!r}")
        if not 0.0 <= self.gating_threshold <= 1.0:
            raise ValueError(f"TrainConfig.gating_threshold must be in [0, 1], got {self.gating_threshold}")
        if not isinstance(self.seed, int):
            raise ValueError(f"TrainConfig.seed must be an integer, got {self.seed!r}")
        if self.device != "auto" and not str(self.device).startswith(("cpu", "cuda", "mps")):
            raise ValueError(f"TrainConfig.device must be 'auto', 'cpu' or 'cuda', got {self.device!r}")

    def search_config(self, seed: int | None = None) -> SearchConfig:
        """The self-play search settings (with root noise) as a ``SearchConfig``."""
        return SearchConfig(
            num_searches=self.num_searches,
            C=self.C,
            dirichlet_epsilon=self.dirichlet_epsilon,
            dirichlet_alpha=self.dirichlet_alpha,
            seed=seed,
        )

    def to_dict(self) -> dict[str, Any]:
        """Plain ``dict`` of the fields (for checkpoints and JSON)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TrainConfig:
        """Rebuild from ``to_dict``'s output; unknown keys are an error that names them."""
        return cls(**_known(cls, data))

    @classmethod
    def from_preset(cls, name: str, **overrides: Any) -> TrainConfig:
        """A preset from ``PRESETS`` with some fields changed."""
        if name not in PRESETS:
            raise ValueError(f"unknown preset {name!r}; presets: {sorted(PRESETS)}")
        return cls.from_dict({**PRESETS[name], **overrides})


#: Training presets, name -> ``TrainConfig`` fields (the rest keep their defaults).
PRESETS: dict[str, dict[str, Any]] = {
    # the course's Tic-Tac-Toe network (4 x 64); 450 games instead of the course's 1500, thanks to the 8
    # symmetries and a two-iteration replay window; one thread suits its tiny 3x3 convolutions
    "tictactoe": dict(
        num_res_blocks=4,
        num_hidden=64,
        num_iterations=3,
        num_self_play_iterations=150,
        num_searches=60,
        num_epochs=4,
        batch_size=64,
        temperature=1.25,
        replay_window=2,
        num_threads=1,
    ),
    # the course's Connect Four settings (9 x 128, 100 parallel games): a GPU run
    "connect_four": dict(
        num_res_blocks=9,
        num_hidden=128,
        num_iterations=8,
        num_self_play_iterations=500,
        num_searches=600,
        num_epochs=4,
        batch_size=128,
        temperature=1.25,
        dirichlet_alpha=0.3,
        num_parallel_games=100,
    ),
    # a CPU-friendly Connect Four run: smaller network, fewer searches
    "connect_four_small": dict(
        num_res_blocks=4,
        num_hidden=64,
        num_iterations=10,
        num_self_play_iterations=200,
        num_searches=100,
        num_epochs=4,
        batch_size=128,
        temperature=1.25,
        temperature_moves=12,
        replay_window=3,
    ),
    "othello6": dict(
        num_res_blocks=5,
        num_hidden=64,
        num_iterations=10,
        num_self_play_iterations=200,
        num_searches=100,
        num_epochs=4,
        batch_size=128,
        temperature=1.0,
        temperature_moves=10,
        dirichlet_alpha=0.5,
        replay_window=3,
    ),
}
