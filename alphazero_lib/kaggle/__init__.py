"""Kaggle's ConnectX and Tic-Tac-Toe: the kaggle-environments adapters, the standalone agent and its export.

- ``environment``: kaggle-environments' built-in agents as our players, our players as its agents, episodes and
  the evaluation over both seats (kaggle-environments is an optional extra, imported only when used);
- ``agent``: the standalone ConnectX agent (numpy and the standard library only) whose source a submission copies;
- ``submission``: the export of a trained Connect Four network as that one-file submission.

The names below are importable from ``alphazero_lib.kaggle`` directly.
"""

from alphazero_lib.kaggle.environment import (
    ENVIRONMENTS,
    KagglePlayer,
    as_kaggle_agent,
    board_to_state,
    environment_agent,
    environment_name,
    episode_states,
    evaluate_against_builtin,
    import_kaggle_environments,
    kaggle_agents,
    load_submission,
    plot_evaluation,
    run_episode,
    to_observation,
)
from alphazero_lib.kaggle.submission import encode_weights, export_submission, numpy_params, submission_source

__all__ = [
    "ENVIRONMENTS",
    "KagglePlayer",
    "as_kaggle_agent",
    "board_to_state",
    "encode_weights",
    "environment_agent",
    "environment_name",
    "episode_states",
    "evaluate_against_builtin",
    "export_submission",
    "import_kaggle_environments",
    "kaggle_agents",
    "load_submission",
    "numpy_params",
    "plot_evaluation",
    "run_episode",
    "submission_source",
    "to_observation",
]
