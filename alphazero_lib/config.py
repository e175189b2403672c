"""Settings as dataclasses, one docstring per field; saved into every checkpoint."""

from __future__ import annotations

import math
import numbers
from dataclasses import Field, asdict, dataclass, field, fields, replace
from typing import Any

from alphazero_lib.search_policies import POLICIES, PolicySettings, SearchPolicy, SearchSettings
from alphazero_lib.settings import (
    AT_LEAST_ONE,
    FRACTION,
    MAX_SEARCHES,
    NON_NEGATIVE,
    NON_NEGATIVE_INT,
    POSITIVE,
    SEARCHES_CAP,
    SEED_CAP,
    UNIT,
    _check_cap,
    check_fields,
    self_play_defaults,
    setting,
)
from alphazero_lib.settings import FLAG_GROUPS as FLAG_GROUPS  # the command line reads these here
from alphazero_lib.settings import MAX_SEED as MAX_SEED
from alphazero_lib.settings import field_docs as field_docs

#: The most learn iterations a run may have (each writes a checkpoint file; long published runs take thousands).
MAX_ITERATIONS = 100_000

MAX_THREADS = 256
MAX_WORKERS = 256
MAX_PARALLEL_GAMES = 16_384
MAX_RES_BLOCKS = 100
MAX_HIDDEN = 2048
THREADS_CAP = (MAX_THREADS, "more threads than cores only wait on each other")

#: The search policies ``SearchConfig.policy`` names: the names in the registry of ``alphazero_lib.search_policies``
#: (a view of it, so that a policy registered later is offered too).
SEARCH_POLICIES = POLICIES.keys()
SELF_PLAY_KINDS = ("serial", "batched")
MOVE_SELECTIONS = ("visits", "improved_policy")
EXECUTORS = ("local", "ray")
DEVICES = ("auto", "cpu", "cuda")
#: How batched self-play runs the network (``alphazero_lib.inference``): fp32 plays the same games on every CPU.
INFERENCE_MODES = ("fp32", "fp32_cl", "fp32_fused", "bf16", "bf16_cl", "bf16_fused", "compile", "onnx")
#: How the training steps run (``training.train_step``): fp32 takes the same steps on every CPU.
TRAIN_PRECISIONS = ("fp32", "bf16")
#: How the weight decay enters the step (``training.make_optimizer``): Adam's L2 term, or AdamW's decoupled shrink.
OPTIMIZERS = ("adam", "adamw")


@dataclass
class SearchConfig(SearchSettings):
    """Settings of the AlphaZero search, serial and batched alike: what every search shares (``SearchSettings``:
    ``num_searches``, ``C``, the root's Dirichlet noise, the pb_c schedule, ``seed``), the policy, and the policy's
    own settings."""

    policy: str = setting("puct", choices=SEARCH_POLICIES, flag="--search-policy", group="schedule")
    """The search policy, a name in ``alphazero_lib.search_policies.POLICIES``: ``"puct"`` (AlphaZero: PUCT
    everywhere, Dirichlet noise at the root, the visit shares as the policy), ``"gumbel"`` (Gumbel AlphaZero:
    Gumbel-Top-k candidates and sequential halving at the root, the improved policy as the policy; fewer simulations
    suffice) or ``"forced_playouts"`` (PUCT with KataGo's forced playouts and a pruned policy target)."""

    policy_settings: PolicySettings | dict[str, Any] = field(default_factory=dict)
    """The policy's own settings: its ``SearchPolicy.settings`` dataclass (``GumbelSettings`` for ``"gumbel"``), given
    as one or as a dict of its fields (empty: its defaults). A config dict may also give them flat, by their names
    (``gumbel_considered=4``), as the command line's flags do (``from_dict``)."""

    def __post_init__(self) -> None:
        super().__post_init__()  # each field's type, and what its declaration allows
        policy = POLICIES[self.policy]
        if isinstance(self.policy_settings, dict):
            self.policy_settings = policy.settings(**_known(policy.settings, self.policy_settings))
        elif type(self.policy_settings) is not policy.settings:
            raise ValueError(
                f"SearchConfig.policy_settings must be the {policy.name} policy's {policy.settings.__name__} or a "
                f"dict of its settings, got {self.policy_settings!r}"
            )
        policy.check(self)  # what the policy itself cannot run with

    def search_policy(self) -> SearchPolicy:
        """The policy that ``policy`` names, built with its own settings (``SearchPolicy.bound``)."""
        return POLICIES[self.policy].bound(self.policy_settings)

    def to_dict(self) -> dict[str, Any]:
        """Plain ``dict`` of the fields, the policy's settings as a nested ``dict`` (for checkpoints and JSON)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SearchConfig:
        """Rebuild from ``to_dict``'s output, or from a config dict that gives the policy's settings flat, by name
        (``gumbel_considered``: the command line's flags, and older configs); the flat form overrides
        ``policy_settings``. Settings of other policies than ``policy`` are dropped: they do not change this search
        (older configs recorded the Gumbel settings whatever the policy). Unknown keys are an error that names them."""
        data = dict(data)
        given = data.pop("policy_settings", None) or {}
        given = asdict(given) if isinstance(given, PolicySettings) else dict(given)
        given.update({name: data.pop(name) for name in policy_setting_fields() if name in data})
        chosen = data.get("policy", next(f.default for f in fields(cls) if f.name == "policy"))
        owners = policy_setting_fields()
        own = {name: value for name, value in given.items() if owners.get(name, (chosen,))[0] == chosen}
        return cls(policy_settings=own, **_known(cls, data))


@dataclass
class MCTSConfig:
    """Settings of vanilla MCTS (UCB1 selection, random rollouts)."""

    num_searches: int = setting(1000, allowed=AT_LEAST_ONE, cap=SEARCHES_CAP)
    """Simulations per move: select a leaf by UCB1, expand one child, play a random rollout, back it up."""

    C: float = setting(1.41, allowed=NON_NEGATIVE)
    """Exploration constant in UCB1, ``Q + C * sqrt(ln N_parent / n)`` (the course's ``sqrt(2)``)."""

    seed: int | None = setting(None, allowed=NON_NEGATIVE_INT, cap=SEED_CAP)
    """Seed of the search's random generator (expansion order, rollouts); None draws a fresh one."""

    def __post_init__(self) -> None:
        check_fields(self)

    def to_dict(self) -> dict[str, Any]:
        """Plain ``dict`` of the fields (for JSON)."""
        return asdict(self)


def policy_setting_fields() -> dict[str, tuple[str, Field]]:
    """Every registered policy's own settings by name: ``name -> (policy, field)``."""
    return {f.name: (policy.name, f) for policy in POLICIES.values() for f in fields(policy.settings)}


def setting_owners() -> tuple[type, ...]:
    """The dataclasses that declare settings: ``SearchConfig``, each registered policy's settings, ``TrainConfig``."""
    return tuple(dict.fromkeys((SearchConfig, *(policy.settings for policy in POLICIES.values()), TrainConfig)))


def declared(name: str) -> Field | None:
    """The setting called ``name``, a field of one of ``setting_owners()`` (None: no such setting)."""
    for owner in setting_owners():
        for f in fields(owner):
            if f.name == name:
                return f
    return None


class SettingError(ValueError):
    """A run's settings refused. The message writes each setting it names as ``{name}``, by its name in ``open_run``
    or ``TrainConfig``: ``str()`` gives those names, ``naming(words)`` a caller's own words for some of them (the
    command line's flags)."""

    def __init__(self, template: str) -> None:
        self.template = template
        super().__init__(worded(template))

    def naming(self, words: dict[str, str]) -> str:
        """The message with ``words[name]`` for each setting ``{name}`` that ``words`` has, else the name."""
        return worded(self.template, words)


def worded(template: str, words: dict[str, str] | None = None) -> str:
    """``template`` with ``words[name]`` (else the name) for each setting written ``{name}`` in it."""
    import re

    return re.sub(r"\{(\w+)\}", lambda found: (words or {}).get(found[1], found[1]), template)


def cap_of(name: str) -> tuple[int, str] | None:
    """The cap of the setting called ``name`` and its reason (None: no cap), e.g. ``cap_of("num_searches")``."""
    f = declared(name)
    return None if f is None else f.metadata.get("cap")


def choices_of(name: str) -> tuple[str, ...] | None:
    """The strings the setting called ``name`` takes (None: not a choice)."""
    f = declared(name)
    choices = None if f is None else f.metadata.get("choices")
    return None if choices is None else tuple(choices)


def check_limit(where: str, name: str, value: Any) -> None:
    """Raise ``ValueError`` naming ``where`` when ``value`` passes the cap of the setting called ``name``."""
    _check_cap(where, cap_of(name), value)


def check_exported_search(num_searches: Any, C: Any) -> None:
    """The search an exported agent plays with (export-kaggle's file, export-web's page): ``num_searches`` a
    positive integer, ``C`` a finite non-negative number; ``ValueError`` saying what is allowed."""
    if isinstance(num_searches, bool) or not isinstance(num_searches, numbers.Integral) or num_searches < 1:
        raise ValueError(f"num_searches must be a positive integer, got {num_searches!r}")
    if isinstance(C, bool) or not isinstance(C, numbers.Real) or not math.isfinite(C) or C < 0:
        raise ValueError(f"the PUCT constant C must be a finite non-negative number, got {C!r}")


def _known(cls: type, data: dict[str, Any]) -> dict[str, Any]:
    names = {f.name for f in fields(cls)}
    unknown = sorted(set(data) - names)
    if unknown:
        raise ValueError(f"unknown {cls.__name__} settings {unknown}; known: {sorted(names)}")
    return dict(data)


#: ``SearchConfig`` fields, which ``TrainConfig.from_dict`` also takes at the top level (older run configs and
#: checkpoints were flat, and the command line's flags are), as it takes the policies' own settings.
SEARCH_FIELDS = tuple(f.name for f in fields(SearchConfig) if f.name not in ("seed", "policy_settings"))

#: Settings renamed since runs were first recorded: old name -> present name (``TrainConfig.from_dict`` reads both):
#: the name runs recorded until the rename, and the course's ``args`` key.
RENAMED = {"num_self_play_iterations": "games_per_iteration", "num_selfPlay_iterations": "games_per_iteration"}


def with_present_names(settings: dict[str, Any]) -> dict[str, Any]:
    """``settings`` with every older name (``RENAMED``) replaced by its present one. An old name and its present
    name are one setting: given together with the same value they are read once; with different values it is a
    ``ValueError`` (which one was meant?)."""
    data = dict(settings)
    for old, new in RENAMED.items():  # a config written before a setting got its present name
        if old in data:
            value = data.pop(old)
            if new in data and data[new] != value:
                raise ValueError(
                    f"a TrainConfig gives both {old!r} and its present name {new!r}, with different values "
                    f"({value!r} and {data[new]!r}): keep {new!r}"
                )
            data[new] = value
    return data


def self_play_search(**changes: Any) -> SearchConfig:
    """The self-play search settings: ``SearchConfig``'s, with the self-play values that its settings declare (the
    course's 60 searches, root noise as in the paper; ``settings.self_play_defaults``) and ``changes`` over them."""
    return SearchConfig(**{**self_play_defaults(SearchConfig), **changes})


@dataclass
class TrainConfig:
    """Settings of an AlphaZero training run (the course's ``args`` dict, with a few additions).

    Everything that decides a run's games is here, so a run's ``config.json`` replays it: the search, the
    temperature, the seed, and how self-play runs (serial or batched, games in flight, workers, inference mode,
    tree reuse). ``from_dict`` reads every older form (flat search fields, no ``self_play``).
    """

    # ---- the course's settings ----------------------------------------------------------------
    search: SearchConfig = field(default_factory=self_play_search)
    """The self-play search (``num_searches``, ``C``, root noise, the optional pb_c schedule); its ``seed`` stays
    None: each iteration derives one from ``seed``. Build it with ``self_play_search(...)`` to keep root noise."""

    num_iterations: int = setting(
        3,
        allowed=POSITIVE,
        cap=(MAX_ITERATIONS, "each iteration writes a checkpoint file; long published runs take thousands"),
        flag="--iterations",
    )
    """Total learn iterations (self-play, then training); a resumed run continues up to this number."""

    games_per_iteration: int = setting(
        500,
        allowed=POSITIVE,
        cap=(1_000_000, "a million self-play games already make one iteration days long"),
        flag=True,
    )
    """Self-play games per iteration."""

    num_epochs: int = setting(
        4, allowed=POSITIVE, cap=(1_000, "each epoch passes over the whole replay memory"), flag="--epochs"
    )
    """Passes over the replay memory per iteration."""

    batch_size: int = setting(
        64,
        allowed=(lambda v: v >= 2, "an integer of at least 2 (no one-sample steps)"),
        cap=(65_536, "a minibatch's activations must fit in memory"),
        flag=True,
    )
    """Samples per gradient step (a last batch of one is merged into the one before: a one-sample step is noisy)."""

    temperature: float = setting(1.25, allowed=NON_NEGATIVE, flag=True, group="schedule")
    """Move-selection temperature in self-play: visit probabilities ``** (1 / temperature)``; 0 plays the best."""

    lr: float = setting(
        0.001, allowed=(lambda v: 0 < v <= 1, "positive and at most 1 (Adam diverges far below that)"), flag=True
    )
    """Adam learning rate (a resumed run takes the value given here, and says so when it changes)."""

    weight_decay: float = setting(0.0001, allowed=NON_NEGATIVE, flag=True, group="schedule")
    """L2 penalty on the weights, applied by the optimizer (see ``optimizer`` for how)."""

    optimizer: str = setting("adam", choices=OPTIMIZERS, flag=True, group="schedule")
    """"adam": Adam with ``weight_decay`` added to the gradient (an L2 term; the course's optimizer), or "adamw": the
    weights shrink by ``lr * weight_decay`` each step, apart from Adam's scaling (Loshchilov and Hutter, decoupled
    weight decay). Adam divides the L2 term by the gradient's running size, so a weight whose loss gradient is
    near zero is pushed to zero at about ``lr`` a step: in the 5 x 128 run of 2026-11-25, 230 of the 640 channels of
    the blocks' first convolutions died that way from iteration 42 on (weights below 1e-6, most of them
    subnormal). AdamW's shrink is ``lr * weight_decay`` relative, so its decay is set a hundred times larger
    (0.01)."""

    lr_decay_iterations: int = setting(
        0,
        allowed=(lambda v: v >= 0, "0 (a constant lr) or a positive number of iterations"),
        cap=(1_000_000, "a decay longer than any run"),
        flag=True,
        group="schedule",
    )
    """Cosine learning-rate decay (``lr_at``): the first iteration trains with ``lr``, the ``lr_decay_iterations``-th
    and every later one with ``lr * lr_final_fraction``, half a cosine in between; 0 = a constant ``lr``. Set it to
    the iterations a time-budgeted run fits (about 20 in 30 minutes on 2 cores for 64 Gumbel simulations)."""

    lr_final_fraction: float = setting(0.1, allowed=FRACTION, flag=True, group="schedule")
    """The learning rate at the end of the decay, as a fraction of ``lr``; unused while ``lr_decay_iterations``
    is 0."""

    # ---- additions --------------------------------------------------------------------------------
    replay_window: int = setting(
        1,
        allowed=POSITIVE,
        cap=(10_000, "the replay memory keeps every game of that many iterations in memory"),
        flag=True,
        group="schedule",
    )
    """Train on the games of the last this-many iterations (1 = only the newest, as in the course)."""

    train_samples: int = setting(
        0,
        allowed=(lambda v: v >= 0, "0 (every position in the replay memory) or a positive number of positions"),
        cap=(100_000_000, "each pass draws that many positions from the replay memory"),
        flag=True,
        group="schedule",
    )
    """Positions drawn at random, without repeats, from the replay memory for each training pass; 0 (the course's
    way) passes over every position in it. With a wide ``replay_window``, a few times the positions one iteration
    adds keeps each position's reuse low: a network that sees its positions again and again learns them by heart
    (its loss on them falls far below its loss on the next iteration's games)."""

    train_reuse: float = setting(
        0.0,
        allowed=(lambda v: v >= 0, "0 (train_samples decides) or a positive multiple of the new positions"),
        cap=(1000, "each pass draws that many times the iteration's new positions"),
        flag=True,
        group="schedule",
    )
    """Positions drawn for each training pass as a multiple of the positions this iteration's self-play added
    (KataGo's reuse ratio: once the window is full, each position is drawn about this many times an epoch over its
    stay), at most the whole replay memory; 0 leaves the count to ``train_samples``. Training time per iteration
    then follows self-play's instead of growing with the window."""

    reanalyse: float = setting(
        0.0,
        allowed=(lambda v: v >= 0, "0 (no reanalysis) or a positive multiple of the new positions"),
        cap=(100, "each iteration searches that many times its new positions again"),
        flag=True,
        group="schedule",
    )
    """Reanalyse (MuZero Reanalyze): after each iteration's self-play, this multiple of its new positions is drawn
    from the older iterations of the replay memory and searched again with the newest network, self-play's search
    and budget; their policy targets become the new search's (their value targets stay). Each position searched
    costs about what a self-play move does; 0 = none. On this machine (this process or its self-play workers), not
    on Ray."""

    position_averaging: bool = setting(False, flag=True, group="schedule")
    """Train on each distinct position of the replay memory once, its policy and value targets the means over its
    occurrences (``training.average_positions``; AlphaZero.jl's ``use_position_averaging``): a position met in many
    games gets one averaged target, not many noisy ones that the network learns by heart (AlphaZero.jl also
    weighs it by ``1 + log2(count)`` in the loss; here each position counts once). ``train_samples`` then draws
    from the distinct positions."""

    measure_new_games: bool = setting(False, flag=True, group="schedule")
    """Before each iteration's training, measure the network's losses on that iteration's new games
    (``training.sample_losses``) and record them in the history as ``new_games_loss``: positions it has not trained
    on, so far above the training losses means it learns its positions by heart. Off by default: a trainer whose
    ``train`` or ``self_play_iteration`` is its own may keep samples the measure cannot read."""

    augment_symmetries: bool = True
    """Store every self-play position under each board symmetry (``game.get_symmetries``): 8x for square boards."""

    temperature_moves: int | None = setting(
        None, allowed=(lambda v: v >= 0, "None or a non-negative integer"), flag=True, group="schedule"
    )
    """Use ``temperature`` for this many moves of each game, then play the most-visited move; None = every move."""

    seed: int = setting(0, allowed=NON_NEGATIVE_INT, cap=SEED_CAP, flag=True)
    """Seed of the network's initial weights, self-play and minibatch shuffling (each iteration derives its own)."""

    device: str = setting(
        "auto",
        allowed=(lambda v: v == "auto" or str(v).startswith(("cpu", "cuda", "mps")), "'auto', 'cpu' or 'cuda'"),
        flag=True,
    )
    """``"auto"`` (CUDA when present, else CPU), ``"cpu"`` or ``"cuda"``."""

    num_res_blocks: int = setting(
        4,
        allowed=POSITIVE,
        cap=(MAX_RES_BLOCKS, "deeper networks do not fit the memory or the time of these machines"),
        network="residual blocks",
        flag="--res-blocks",
    )
    """Residual blocks in the ResNet."""

    num_hidden: int = setting(
        64,
        allowed=POSITIVE,
        cap=(MAX_HIDDEN, "wider networks do not fit the memory or the time of these machines"),
        network="channels",
        flag="--channels",
    )
    """Channels of each convolution in the ResNet's body."""

    gating_games: int = setting(
        0, allowed=NON_NEGATIVE_INT, cap=(100_000, "gating plays that many games every iteration")
    )
    """AlphaGo Zero-style gating: after training, the candidate plays the best network this many games
    (alternating seats) and replaces it only at ``gating_threshold``; 0 = AlphaZero's continuous update."""

    gating_threshold: float = setting(0.55, allowed=UNIT)
    """Score the candidate needs against the best network to replace it (wins 1, draws 1/2, losses 0)."""

    num_threads: int | None = setting(
        None, allowed=(lambda v: v >= 1, "None or a positive integer"), cap=THREADS_CAP, flag="--threads"
    )
    """Torch CPU threads for the training steps (None = torch's default); serial self-play always uses one."""

    train_precision: str = setting("fp32", choices=("auto", *TRAIN_PRECISIONS), flag=True)
    """The training steps' arithmetic, one of ``TRAIN_PRECISIONS``: ``"fp32"`` (the default, the same steps on
    every CPU); ``"bf16"``: bfloat16 autocast with channels-last activations, about 2x faster where the CPU has
    bfloat16 units (AMX or AVX512-BF16) and much slower where it emulates them, the weights and the optimizer
    staying float32; ``"auto"``: bf16 where it runs fast here, else fp32, the trainer recording its choice in
    the run's config so a resume keeps it."""

    # ---- targets and schedule (each defaults to the course's AlphaZero) ------------------------------
    value_target_q_weight: float = setting(0.0, allowed=UNIT, flag=True, group="schedule")
    """The value target: ``(1 - w) * z + w * q`` with ``z`` the game's outcome for the mover and ``q`` the root's
    search value (``SearchOutput.root_value``); 0 = the outcome alone (AlphaZero), 1 = the search value alone."""

    full_search_fraction: float = setting(1.0, allowed=FRACTION, flag=True, group="schedule")
    """Playout cap randomisation (KataGo): the share of moves searched with ``num_searches`` simulations and
    recorded as training samples; the other moves get ``cheap_searches`` and are played but not recorded."""

    cheap_searches: int = setting(16, cap=(MAX_SEARCHES, "as num_searches"), flag=True, group="schedule")
    """Playout cap randomisation: the simulations of a cheap (unrecorded) move; at most the search's
    ``num_searches``. Unused while ``full_search_fraction`` is 1."""

    searches_growth_iterations: int = setting(
        0,
        allowed=(lambda v: v >= 0, "0 (no growth) or a positive number of iterations"),
        cap=(1_000_000, "a growth longer than any run"),
        flag=True,
        group="schedule",
    )
    """A simulation budget that grows during training (MiniZero's progressive simulation, ``searches_at``): the
    first iteration searches with ``searches_start`` simulations, the ``searches_growth_iterations``-th and every
    later one with the search's ``num_searches``, growing by the same factor each iteration in between; 0 = the
    search's ``num_searches`` from the first iteration. Early networks learn about as much from a cheap search,
    so the first iterations play more games a minute."""

    searches_start: int = setting(
        16, allowed=AT_LEAST_ONE, cap=(MAX_SEARCHES, "as num_searches"), flag=True, group="schedule"
    )
    """The first iteration's simulations while the budget grows; at most the search's ``num_searches``. Unused while
    ``searches_growth_iterations`` is 0."""

    opening_moves: int = setting(
        0, allowed=NON_NEGATIVE_INT, cap=(1_000, "no game here lasts that long"), flag=True, group="schedule"
    )
    """Random openings: each self-play game starts with a uniformly drawn ``0..opening_moves`` random legal moves
    (never a move that ends the game), not recorded; 0 = every game from the empty board."""

    move_selection: str = setting("visits", choices=MOVE_SELECTIONS, flag=True, group="schedule")
    """How self-play picks its moves (with ``temperature``): from the root's visit shares (``"visits"``,
    AlphaZero) or from the search's improved policy ``softmax(logits + sigma(q))`` (``"improved_policy"``, as
    Gumbel AlphaZero's training targets)."""

    # ---- how self-play runs (recorded, so that a resume plays on the same way) ----------------------
    self_play: str = setting("serial", choices=SELF_PLAY_KINDS, flag=True, group="self_play")
    """``"serial"``: one game at a time, one state per network call (``AlphaMCTS``), as the course writes it;
    ``"batched"``: ``num_parallel_games`` games in flight, one network call per simulation (``BatchedMCTS``)."""

    num_parallel_games: int = setting(
        64,
        allowed=POSITIVE,
        cap=(MAX_PARALLEL_GAMES, "every game in flight holds a search tree in memory"),
        flag="--parallel-games",
        group="self_play",
    )
    """Batched self-play: games in flight (shared among the workers)."""

    num_workers: int = setting(
        1,
        allowed=POSITIVE,
        cap=(MAX_WORKERS, "each worker is a process with its own copy of the network"),
        flag="--workers",
        group="self_play",
    )
    """Batched self-play: processes on the CPU, each playing its share of the games with
    ``num_parallel_games / num_workers`` in flight and one torch thread per core it gets. On the 2-core machine
    2 workers beat one two-threaded process (``benchmarks/selfplay.py --workers``). One process on a GPU."""

    inference_mode: str = setting("fp32", choices=("auto", *INFERENCE_MODES), flag=True, group="self_play")
    """Batched self-play: how the network runs, one of ``INFERENCE_MODES``. ``"fp32"`` (the default) plays the
    same games on every CPU; ``"bf16_fused"`` and the other fast modes are 2-4x faster on CPUs with bfloat16
    units but round differently; ``"auto"`` measures the modes once, and the trainer records the mode it
    chose in the run's config, so a resume keeps it."""

    reuse_tree: bool = setting(False, flag=True, group="self_play")
    """Batched self-play: keep the subtree of the move played for the next search (fewer network calls). The kept
    root is topped up to ``num_searches + 1`` visits (``BatchedMCTS.advance``), gets fresh root noise, and its
    visit counts, the policy target, include the visits it had as a child. PUCT only."""

    executor: str = setting("local", choices=EXECUTORS)
    """Batched self-play: where the workers run, ``"local"`` (processes on this machine) or ``"ray"`` (one Ray
    actor per worker, ``num_workers`` of them; ``pip install -e ".[distributed]"``). The same seed and number of
    workers play the same games either way."""

    ray_address: str | None = None
    """With ``executor="ray"``: the cluster to join (``"auto"``, ``"HOST:6379"``); None starts a local instance."""

    ray_cpus_per_actor: int = setting(
        1, allowed=(lambda v: v >= 1, "positive"), cap=THREADS_CAP, flag="--ray-cpus", group="self_play"
    )
    """With ``executor="ray"``: the CPUs each actor reserves on the cluster, and its torch threads."""

    def __post_init__(self) -> None:
        if not isinstance(self.search, SearchConfig):
            raise ValueError(f"TrainConfig.search must be a SearchConfig, got {self.search!r}")
        if self.search.seed is not None:
            raise ValueError(
                f"TrainConfig.search.seed must be None (each iteration derives the search's seed from "
                f"TrainConfig.seed), got {self.search.seed}"
            )
        check_fields(self)  # each field's type, and what its declaration allows
        if self.train_reuse and self.train_samples:
            raise ValueError(
                f"TrainConfig.train_samples ({self.train_samples}) and train_reuse ({self.train_reuse}) both set the "
                "positions a training pass draws: give one of them, the other 0"
            )
        if self.reanalyse and self.executor == "ray":
            raise ValueError(
                f"TrainConfig.reanalyse ({self.reanalyse}) searches old positions on this machine's workers, not on "
                "Ray: set it to 0 with executor 'ray'"
            )
        if self.executor == "ray" and self.self_play != "batched":
            raise ValueError("TrainConfig.executor 'ray' runs batched self-play: set self_play='batched' too")
        if self.full_search_fraction < 1 and not 1 <= self.cheap_searches <= self.search.num_searches:
            raise ValueError(
                f"TrainConfig.cheap_searches must be between 1 and the search's num_searches "
                f"({self.search.num_searches}), got {self.cheap_searches}"
            )
        if self.searches_growth_iterations and self.searches_start > self.search.num_searches:
            raise ValueError(
                f"TrainConfig.searches_start must be at most the search's num_searches ({self.search.num_searches}), "
                f"got {self.searches_start}"
            )
        fresh_root = POLICIES[self.search.policy].fresh_root
        if self.reuse_tree and fresh_root:
            raise ValueError(
                f"TrainConfig.reuse_tree must be off with the {self.search.policy.capitalize()} search policy "
                f"({fresh_root})"
            )

    def lr_at(self, iteration: int) -> float:
        """The learning rate of iteration ``iteration`` (0 for the first): ``lr``, or with ``lr_decay_iterations``
        half a cosine from ``lr`` down to ``lr * lr_final_fraction`` at iteration ``lr_decay_iterations - 1``."""
        if self.lr_decay_iterations == 0:
            return self.lr
        done = min(iteration / max(self.lr_decay_iterations - 1, 1), 1.0)
        floor = self.lr * self.lr_final_fraction
        return floor + (self.lr - floor) * 0.5 * (1.0 + math.cos(math.pi * done))

    def searches_at(self, iteration: int) -> int:
        """The self-play simulations of iteration ``iteration`` (0 for the first): the search's ``num_searches``, or
        with ``searches_growth_iterations`` a geometric growth from ``searches_start`` that reaches it at iteration
        ``searches_growth_iterations - 1``."""
        full = self.search.num_searches
        if not self.searches_growth_iterations or iteration >= self.searches_growth_iterations - 1:
            return full
        done = iteration / (self.searches_growth_iterations - 1)
        return round(self.searches_start * (full / self.searches_start) ** done)

    def at_iteration(self, iteration: int) -> TrainConfig:
        """The settings self-play of iteration ``iteration`` plays with: this config with ``searches_at``'s budget
        (playout cap randomisation's cheap moves at most that); the config itself while the budget does not grow."""
        searches = self.searches_at(iteration)
        if searches == self.search.num_searches:
            return self
        search = replace(self.search, num_searches=searches)
        return replace(self, search=search, cheap_searches=min(self.cheap_searches, searches))

    def search_config(self, seed: int | None = None) -> SearchConfig:
        """The self-play search settings with ``seed`` (an iteration's derived seed)."""
        return replace(self.search, seed=seed)

    def to_dict(self) -> dict[str, Any]:
        """Plain ``dict`` of the fields, the search as a nested ``dict`` (for checkpoints and JSON)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TrainConfig:
        """Rebuild from ``to_dict``'s output, or from any older form: the one place old configs are converted.

        Search fields may also sit at the top level (older configs and checkpoints were flat; the command line's
        flags are): they override the nested ``search``. Search fields a config leaves out take the self-play
        defaults (``self_play_search``), not ``SearchConfig``'s. A config without ``self_play`` predates it and
        ran serial self-play unless ``--parallel-games`` was on its command line, which it did not record; a setting
        under an older name (``RENAMED``: ``num_self_play_iterations``, the course's ``num_selfPlay_iterations``) is
        read under its present one.
        Unknown keys are an error that names them.
        """
        if not isinstance(data, dict):
            raise ValueError(f"a TrainConfig needs a dict of settings, got {type(data).__name__}")
        data = with_present_names(data)
        search = data.pop("search", None)
        if isinstance(search, SearchConfig):
            search = search.to_dict()
        if search is not None and not isinstance(search, dict):
            raise ValueError(f"TrainConfig.search must be a dict of SearchConfig settings, got {search!r}")
        search = {**self_play_defaults(SearchConfig), **(search or {})}
        search.update({name: data.pop(name) for name in (*SEARCH_FIELDS, *policy_setting_fields()) if name in data})
        search.pop("seed", None)
        return cls(search=SearchConfig.from_dict(search), **_known(cls, data))

    def resumed_with(self, given: dict[str, Any], asked_by: str | None, where: Any) -> TrainConfig:
        """This recorded run's settings with the settings ``given`` put over them, search fields (flat or nested)
        and older names included: a resume's changes. A change of the network's shape is refused, because a resume
        continues its weights (``SettingError`` naming who asks, ``asked_by``, e.g. "{preset} X sets"; None:
        the settings given, each written ``{name}``, which the command line words as its flag; ``where``: the run)."""
        merged = {**self.to_dict(), "search": dict(self.search.to_dict())}
        for key, value in with_present_names(given).items():  # an old name changes the setting it names now
            if key == "search" and isinstance(value, dict):
                merged["search"].update(value)
            elif key in SEARCH_FIELDS:
                merged["search"][key] = value
            else:
                merged[key] = value
        changed = TrainConfig.from_dict(merged)
        for f in fields(self):
            name, what = f.name, f.metadata.get("network")
            old, new = getattr(self, name), getattr(changed, name)
            if what is not None and old != new:
                named = name if asked_by is not None else f"{{{name}}}"  # given alone: the command line's flag
                raise SettingError(
                    f"{asked_by or 'the settings given set'} {named} to {new}, but the network of {where} has {old} "
                    f"{what}: a resume continues its weights, so its shape cannot change; set {named} back to {old}, "
                    "or start a new run with these settings in another directory"
                )
        return changed

    @classmethod
    def from_preset(cls, name: str, **overrides: Any) -> TrainConfig:
        """A preset from ``PRESETS`` with some fields changed (search fields may be given flat)."""
        if name not in PRESETS:
            raise ValueError(f"unknown preset {name!r}; presets: {sorted(PRESETS)}")
        return cls.from_dict({**PRESETS[name], **overrides})

    def changes_from(self, other: TrainConfig) -> dict[str, tuple[Any, Any]]:
        """``{field: (other's value, this value)}`` for every setting that differs, search fields included."""
        mine, theirs = _flat(self.to_dict()), _flat(other.to_dict())
        return {key: (theirs.get(key), value) for key, value in mine.items() if theirs.get(key) != value}


def _flat(data: dict[str, Any]) -> dict[str, Any]:
    search = data.pop("search")
    search.update(search.pop("policy_settings"))  # the policy's own settings under their names
    return {**data, **{f"search.{k}": v for k, v in search.items()}}


def setting_flags() -> list[tuple[str, type, str, str]]:
    """``train``'s flags for settings, one for each field declared with a ``flag`` (``setting``): ``(flag,
    dataclass, field name, group)``, the search's fields first, then the policies', each in its order of
    declaration."""
    return [
        (f.metadata["flag"] or "--" + f.name.replace("_", "-"), owner, f.name, f.metadata["group"])
        for owner in setting_owners()
        for f in fields(owner)
        if "flag" in f.metadata
    ]


#: Training presets, name -> ``TrainConfig.from_dict`` settings (the rest keep their defaults). The one source:
#: ``train --preset NAME`` and the shipped weights' model cards name these.
PRESETS: dict[str, dict[str, Any]] = {
    # the course's Tic-Tac-Toe network (4 x 64); 450 games instead of the course's 1500, thanks to the 8
    # symmetries and a two-iteration replay window; one thread suits its tiny 3x3 convolutions
    "tictactoe": dict(
        search=dict(num_searches=60),
        num_res_blocks=4,
        num_hidden=64,
        num_iterations=3,
        games_per_iteration=150,
        num_epochs=4,
        batch_size=64,
        temperature=1.25,
        replay_window=2,
        num_threads=1,
    ),
    # the course's Connect Four settings (9 x 128, 100 parallel games): a GPU run
    "connect_four": dict(
        search=dict(num_searches=600, dirichlet_alpha=0.3),
        num_res_blocks=9,
        num_hidden=128,
        num_iterations=8,
        games_per_iteration=500,
        num_epochs=4,
        batch_size=128,
        temperature=1.25,
        self_play="batched",
        num_parallel_games=100,
    ),
    # a CPU-friendly Connect Four run: smaller network, fewer searches
    "connect_four_small": dict(
        search=dict(num_searches=100),
        num_res_blocks=4,
        num_hidden=64,
        num_iterations=10,
        games_per_iteration=200,
        num_epochs=4,
        batch_size=128,
        temperature=1.25,
        temperature_moves=12,
        replay_window=3,
    ),
    # the shipped Connect Four run (weights/README.md): 4 x 64, batched self-play of 128 games at a time
    "connect_four_cpu": dict(
        search=dict(num_searches=80, C=2.0, dirichlet_epsilon=0.25, dirichlet_alpha=1.0),
        num_res_blocks=4,
        num_hidden=64,
        num_iterations=60,
        games_per_iteration=256,
        num_epochs=2,
        batch_size=256,
        temperature=1.0,
        temperature_moves=10,
        lr=0.001,
        weight_decay=0.0001,
        replay_window=5,
        augment_symmetries=True,
        seed=0,
        self_play="batched",
        num_parallel_games=128,
    ),
    # Connect Four learned in minutes on a 2-core CPU (README, "How fast it learns"): Gumbel AlphaZero with 32
    # simulations and 4 root candidates, the improved policy as the target and the move distribution, the value
    # target half outcome and half search value, random 0-2 move openings, small iterations on two workers
    "connect_four_fast": dict(
        search=dict(num_searches=32, policy="gumbel", gumbel_considered=4, gumbel_scale=1.0, dirichlet_epsilon=0.0),
        num_res_blocks=4,
        num_hidden=64,
        num_iterations=200,
        games_per_iteration=128,
        num_epochs=1,
        batch_size=256,
        temperature=1.0,
        temperature_moves=12,
        lr=0.001,
        weight_decay=0.0001,
        replay_window=6,
        augment_symmetries=True,
        seed=0,
        self_play="batched",
        num_parallel_games=128,
        num_workers=2,
        value_target_q_weight=0.5,
        opening_moves=2,
        move_selection="improved_policy",
    ),
    "othello6": dict(
        search=dict(num_searches=100, dirichlet_alpha=0.5),
        num_res_blocks=5,
        num_hidden=64,
        num_iterations=10,
        games_per_iteration=200,
        num_epochs=4,
        batch_size=128,
        temperature=1.0,
        temperature_moves=10,
        replay_window=3,
    ),
    # the shipped Othello 6x6 run (weights/README.md)
    "othello6_cpu": dict(
        search=dict(num_searches=64, C=2.0, dirichlet_epsilon=0.25, dirichlet_alpha=0.5),
        num_res_blocks=4,
        num_hidden=64,
        num_iterations=40,
        games_per_iteration=128,
        num_epochs=2,
        batch_size=256,
        temperature=1.0,
        temperature_moves=8,
        lr=0.001,
        weight_decay=0.0001,
        replay_window=5,
        augment_symmetries=True,
        seed=0,
        self_play="batched",
        num_parallel_games=128,
    ),
}

# The fast recipe on AlphaZero.jl's network size, for CPUs with bfloat16 units (AMX, AVX512-BF16): 5 x 128, 64
# simulations and 8 root candidates, bf16 self-play and bf16 training where they run fast ("auto": float32
# elsewhere, about five times the 4 x 64 arithmetic). README, "How fast it learns": 17 minutes on a 2-core Xeon with AMX
# (benchmarks/results/learning_curve_2026-11-25-xeon/)
PRESETS["connect_four_fast_5x128"] = {
    **PRESETS["connect_four_fast"],
    "search": {**PRESETS["connect_four_fast"]["search"], "num_searches": 64, "gumbel_considered": 8},
    "num_res_blocks": 5,
    "num_hidden": 128,
    "inference_mode": "auto",
    "train_precision": "auto",
}


# Kaggle's negamax beaten in three minutes on a 2-core CPU (docs/speed_strength.md, "Three minutes"): the fast recipe
# on a 4 x 32 network, whose self-play costs half of 4 x 64's, each new position learned from four times (a reuse
# ratio of 4) at a learning rate of 0.003, training on two threads; 0.955-0.975 against negamax in 100 games on
# seeds 0-2 (benchmarks/results/fast_recipe_2026-12-07/)
PRESETS["connect_four_3min"] = {
    **PRESETS["connect_four_fast"],
    "num_hidden": 32,
    "train_reuse": 4.0,
    "lr": 0.003,
    "num_threads": 2,
}
