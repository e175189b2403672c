"""Write notebooks/10_capstone.ipynb from the cells below (outputs empty: execute it afterwards).

    python tools/make_capstone_notebook.py
    ALPHAZERO_CAPSTONE_QUICK=1 MY_ALPHAZERO_HOME=$(mktemp -d) jupyter nbconvert --to notebook --execute --inplace \
        notebooks/10_capstone.ipynb

The setup cell is copied from notebook 5, so every notebook starts the same way.
"""

from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VIDEO = "https://www.youtube.com/watch?v=wuSQpLinRB4"

INTRO = f"""# 10. The capstone: your AlphaZero

[![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)](https://colab.research.google.com/github/alphazero-from-scratch/alphazero-from-scratch/blob/main/notebooks/10_capstone.ipynb)

Every piece you wrote and passed in notebooks 3 to 9 was kept. Here they become one AlphaZero: your rules,
network, search, self-play and training loop learn Connect Four from zero, then your agent plays you, Kaggle's
`negamax` and Pons' benchmark positions, and leaves as a submission file.

**You will** train your own agent under a time budget and measure it. Nothing new to write: press Run all.

**Video:** the video trains its Connect Four model from [▶ 3:55:12]({VIDEO}&t=14112s) and closes with an invitation
to experiment on your own at [▶ 4:07:01]({VIDEO}&t=14821s). **Time:** about 40 minutes, 20 of them training."""

SEEDING = """# Seeding: every random number below comes from these seeds, so the outputs repeat exactly.
import os
import random

import matplotlib.pyplot as plt
import numpy as np
import torch

from alphazero_lib import seed_everything

seed_everything(0)
torch.set_num_threads(1)  # the search's small batches: one thread; training sets its own
np.set_printoptions(precision=3, suppress=True)
%matplotlib inline

# The course's tests run this notebook quickly (ALPHAZERO_CAPSTONE_QUICK=1), and so were the stored outputs made:
# 20 seconds of training instead of 20 minutes, a few games, 20 simulations a move. Your Run all does the real thing.
QUICK = os.environ.get("ALPHAZERO_CAPSTONE_QUICK") == "1"
print("quick run (the course's tests)" if QUICK else "full run")"""

KEPT = """## 1. Your code, kept

*About 3 min.*

Each time a check printed ✅, it wrote the code it had checked to a small package beside the notebooks,
`my_alphazero/`, one module per notebook (`my_alphazero/nb05_self_play.py`, ...), with the imports the code needs
and the notebook's own cells it leans on (the `ConnectFour` class around your three methods, for instance).
Open the files: it is your code, as you wrote it. A piece whose check has not passed, or whose file no longer
imports, is replaced by the library's version, and the line below says which and why.

**In Colab** the files live as long as the runtime, and each notebook runs in a runtime of its own. So every
notebook's setup cell, with its box *KEEP_ON_DRIVE* ticked (the default), mounts your Google Drive and keeps
`my_alphazero/` there (`/content/drive/MyDrive/alphazero-course`; `MY_ALPHAZERO_HOME` names the folder): untick it
and your code stays in the runtime only."""

LOAD = """from alphazero_lib.exercises.capstone import load_pieces

yours = load_pieces()  # my_alphazero/ beside this notebook, or in $MY_ALPHAZERO_HOME"""

SPLIT = """Who does what in the run below:

| part | yours (notebook) | the library's |
|---|---|---|
| rules | `ConnectFour` (6), also inside the search | |
| network | `ResBlock`, `ResNet` (3) | the Adam optimizer (PyTorch) |
| search | `select_actions`, `backup` (7) at every step | the array tree that holds the nodes (`BatchedMCTS`) |
| self-play | `apply_temperature`, `game_memory` (5) | games in flight, one network call for all (`BatchedSelfPlay`) |
| training | `learn`, `train`, `minibatches`, `train_step` (5) | the replay window of recent games |
| the agent | `AlphaMCTS` with your `Node` (4), `make_agent`, `evaluate_both_seats` (8), `wilson_interval` (9) | |

Your serial `self_play` of notebook 5 plays one game at a time, a network call per simulation. How long would
the run take on it?"""

SERIAL = """# NBVAL_IGNORE_OUTPUT
# (a timing)
from alphazero_lib.exercises.capstone import serial_game_seconds

seconds = serial_game_seconds(yours, searches=32)
print(f"your serial self_play: {seconds:.2f} s a game with 32 searches a move (a fresh network plays short games);")
print(f"128 games an iteration would take {128 * seconds / 60:.1f} min of the budget on self-play alone, and trained "
      "networks play longer games")"""

TRAIN_TEXT = """## 2. Train it

*About 20 min.*

The settings are the library's fast recipe (`connect_four_fast`), driven by your pieces. `FAST = True` searches
with **Gumbel AlphaZero**: 32 simulations, 4 candidate moves sampled at the root and halved as the simulations
come in, and the search's *improved policy* as both the training target and the move distribution; the value
target is half the outcome and half the search's value, and games open with 0 to 2 random moves. It learns
from fewer simulations than PUCT. `FAST = False` is notebook 5's AlphaZero: PUCT (your `select_actions` at every
node), 64 simulations, visit counts as targets. The curve on the right is your network **alone** (no search)
against the library's depth-2 negamax, 20 games after every iteration: it is not counted in the budget.

`MINUTES = 20` fits a free Colab CPU session. `DEVICE = "auto"` trains on a GPU when the runtime has one
(notebook 5, section 8): your network goes there, your `train` builds its batches beside it, the search's network
calls follow it, and a GPU runtime plays 256 games an iteration instead of 128, so that each network call carries
more positions. We have not timed the run on a Colab GPU; `DEVICE = "cpu"` keeps it on the CPU with 128 games.

The run lives in `RUN_DIR` (`capstone_run/` beside your `my_alphazero/`), in the library's run-directory format:
after every iteration it saves the network, the optimizer, the replay window, the history and the random state.
If the kernel dies or you stop it, run the notebook again: the run continues from its last iteration (the games
that were in flight start again) until it has had its `MINUTES` in all, and a finished run trains no more (raise
`MINUTES` to go on). Colab's disk lasts as long as the runtime: `keep_on_drive()` (notebook 1) puts both folders
on your Google Drive. To start afresh, delete the folder or name another; a `RUN_DIR` holding a network of
another size is refused, not overwritten. The checkpoints are the library's own, so
`python -m alphazero_lib strength --player alphazero:capstone_run/latest.pt:100` measures your network too."""

SETTINGS = """import tempfile

from alphazero_lib.exercises.capstone import Capstone, CapstoneSettings, LiveCurves
from alphazero_lib.exercises.mine import home

MINUTES = 20  # the training budget, wall clock (the iteration running when it ends is finished)
FAST = True  # Gumbel AlphaZero and better targets (False: PUCT, as in notebook 5)
GAMES = 128  # self-play games an iteration
DEVICE = "auto"  # a CUDA GPU when the runtime has one, else the CPU ("cpu" to stay there)
SEARCHES = 100  # PUCT simulations a move when your agent plays (sections 3 to 6; the submission twice as many)
if DEVICE != "cpu" and torch.cuda.is_available():
    GAMES = 256  # the larger setting for a GPU runtime: each network call takes twice the games (not timed here)
RUN_DIR = home() / "capstone_run"  # saved after every iteration; run the notebook again to continue
if QUICK:
    MINUTES, GAMES, DEVICE, SEARCHES = 0.3, 16, "cpu", 20
    QUICK_DIR = tempfile.TemporaryDirectory(prefix="capstone-run-")  # a new run each time, removed at the end
    RUN_DIR = QUICK_DIR.name

settings = CapstoneSettings(minutes=MINUTES, fast=FAST, games_per_iteration=GAMES, device=DEVICE, seed=0)
run = Capstone(yours, settings, run_dir=RUN_DIR)
print(f"{settings.num_res_blocks} x {settings.num_hidden} ResNet, {run.config.search.num_searches} "
      f"{run.config.search.policy} simulations a move, {GAMES} games an iteration, {MINUTES} min, on {run.device}")"""

RUN = """# NBVAL_IGNORE_OUTPUT
# (a training run: its games depend on the last bits of the CPU's arithmetic)
print(run.start_note)
curves = LiveCurves(run, games=20 if not QUICK else 4)
history = run.run(on_iteration=curves)
print(yours.counter.report())"""

PLAY_TEXT = """## 3. Play it

*About 5 min.*

Your agent searches with your `AlphaMCTS` of notebook 4, 100 simulations a move (PUCT, no noise): a network
trained with Gumbel's 32 simulations plays well with more. You are red and move first; `human=-1` lets it open."""

PLAY = """from alphazero_lib.exercises import play, search_agent
from alphazero_lib.games import ConnectFour

board_game = ConnectFour()
play(board_game, search_agent(board_game, run.search(SEARCHES)), human=1, title="you (red) against your AlphaZero")"""

KAGGLE_TEXT = """## 4. Against Kaggle's negamax

*About 10 min.*

Your `make_agent` turns the search into a ConnectX agent, and your `evaluate_both_seats` plays Kaggle's built-in
`negamax` (a depth-limited minimax) on both seats. First one game to watch, then the count, with your
`wilson_interval` for the 95% interval."""

EPISODE = """# NBVAL_IGNORE_OUTPUT
# (a game of a network trained on this CPU)
from alphazero_lib.kaggle import episode_states, import_kaggle_environments

make = import_kaggle_environments().make  # quietly: kaggle_environments talks about environments it cannot load

agent = run.agent(SEARCHES)
random.seed(0)  # the built-in agents draw from Python's random
env = make("connectx", debug=True)
env.run([agent, "negamax"])
states = episode_states(board_game, env)
print(f"{len(states) - 1} moves; rewards {[step['reward'] for step in env.steps[-1]]} (yours first)")"""

ANIMATION = """# NBVAL_IGNORE_OUTPUT
# (an animation: press play)
import warnings

from IPython.display import HTML

from alphazero_lib.animation import playoff_html

warnings.filterwarnings("ignore", message="Consider using IPython.display.IFrame")
page = playoff_html(board_game, states, title="your AlphaZero vs Kaggle negamax", names=("yours", "negamax"))
HTML(f'<iframe srcdoc="{page.replace(chr(34), "&quot;")}" width="510" height="604" style="border:none"></iframe>')"""

EVALUATE = """# NBVAL_IGNORE_OUTPUT
# (games of a network trained on this CPU)
from alphazero_lib.kaggle import plot_evaluation

EPISODES = 2 if QUICK else 50  # per seat
evaluate_both_seats, wilson_interval = yours["evaluate_both_seats"], yours["wilson_interval"]
evaluation = []
for opponent, episodes in (("negamax", EPISODES), ("random", 2 if QUICK else 10)):
    random.seed(1)
    results = evaluate_both_seats(agent, opponent, episodes)
    evaluation.append({"opponent": opponent, **results})
    for seat, counts in results.items():
        score = (counts["wins"] + 0.5 * counts["draws"]) / episodes
        low, high = wilson_interval(score, episodes)
        print(f"vs {opponent:<8} {seat:<6} seat: {counts}, score {score:.2f} (95%: {low:.2f}-{high:.2f})")
plot_evaluation(evaluation)
plt.show()"""

PONS_TEXT = """## 5. On Pons' positions

*About 5 min.*

Kaggle's score says who won; Pascal Pons' test positions say how often a move is a mistake. Every legal move of
each position is labelled win, draw or loss by an exact solver, and a move is an error when another one has a
better label. The table puts your network (alone, and with 100 simulations) beside the library's shipped
`connect_four_fast` network and the published figures: AlphaZero.jl after 15-30 GPU hours, and a depth-5
minimax."""

PONS = """# NBVAL_IGNORE_OUTPUT
# (the error rates of a network trained on this CPU)
from alphazero_lib.config import SearchConfig
from alphazero_lib.players import AlphaZeroPlayer, PolicyPlayer
from alphazero_lib.pretrained import load_pretrained
from alphazero_lib.strength import evaluate_player, format_table

LIMIT = 20 if QUICK else 200  # positions a set (each set holds 1,000)
SETS = ("end_easy", "middle_easy", "middle_medium")
network = run.library_network()
players = [PolicyPlayer(board_game, network),
           AlphaZeroPlayer(board_game, network, SearchConfig(num_searches=SEARCHES))]
players[0].name, players[1].name = "yours alone", f"yours, {SEARCHES} searches"
shipped = PolicyPlayer(board_game, load_pretrained("connect_four_fast"))
shipped.name = "shipped fast, alone"
results = []
for player in (*players, shipped):
    results += evaluate_player(player, SETS, limit=LIMIT, progress=False)
print(format_table(results))"""

SUBMIT_TEXT = """## 6. Your submission

*About 3 min.*

Kaggle runs one file, without your package, so the submission carries your trained weights into the library's
standalone agent (numpy only, its own search; BatchNorm folded into the convolutions). It is loaded back and
played like any Kaggle agent."""

SUBMIT = """# NBVAL_IGNORE_OUTPUT
# (games of a network trained on this CPU)
from alphazero_lib.kaggle import load_submission

path = run.export("my_submission.py", searches=2 * SEARCHES)
submission = load_submission(str(path))
print(f"wrote {path} ({path.stat().st_size // 1024} kB)")
for opponent in ("negamax", "random"):
    random.seed(2)
    print(f"submission vs {opponent}:", evaluate_both_seats(submission, opponent, 1 if QUICK else 10))"""

THINK = """**Think!** Your agent trained with 32 Gumbel simulations a move, yet it plays with 100 PUCT simulations. Why
can a search it never trained with make it stronger?

<details><summary>Answer</summary>

Training taught the network two things: a policy (which moves look good) and a value (who is winning). Any search
that asks those questions works with them: PUCT follows the policy's priors and backs up the values, and with
more simulations it looks deeper and corrects the network where it is wrong. Gumbel's few simulations mattered
during training, where they had to produce a *better target* cheaply, game after game. At play time there is
no target to produce, only a move to choose, and more search is simply more lookahead.
</details>

**Think!** The live curve's score sometimes drops from one iteration to the next. Is the network getting worse?

<details><summary>Answer</summary>

Not necessarily: 20 games have a wide interval (a score of 0.5 on 20 games is compatible with 0.3 to 0.7), and
the network alone plays deterministically, so one changed opening decision can flip several games at once. A
trend over many iterations, or a larger match at the end (section 4), is the measure to trust.
</details>"""

BUILT = """> ## What you built
>
> - one AlphaZero made of your own pieces, kept from the notebooks where their checks passed;
> - a Connect Four agent trained from zero on your code, with live curves of its losses and strength;
> - its record against Kaggle's `negamax` and `random` on both seats, and its error rates on Pons' positions;
> - a Kaggle submission file carrying your network.

Measured on the course's 2-core machine (AMD EPYC), every solution kept by
`python tools/solve_notebooks.py notebooks/0[3-8]_*.ipynb --home runs/capstone_home`: MEASURED_LINE"""

DEPART = """<details><summary><b>Where we depart from the video, and why</b></summary>

- *The search during training*: the video's Connect Four run searches with PUCT and learns the visit counts; the
  default here is Gumbel AlphaZero with the improved policy as the target (`FAST = False` gives the video's).
- *Many games at once*: the video plays its games in its parallel object trees; here your `select_actions` and
  `backup` run inside the library's array trees, so one network call serves 128 games.
- *A budget in minutes* instead of a number of iterations, with the strength measured as it trains, and Pons'
  positions as a second yardstick beside the games.
- *Beyond the video*: it ends with its own model against itself; here your agent also leaves as a Kaggle
  submission and is measured against `negamax` and `random`.

</details>"""


IDS = iter(range(1000))


MEASURED = ROOT / "benchmarks" / "results" / "capstone_2026-11-24" / "capstone.json"


def measured_line() -> str:
    """The full default run's figures, from the benchmark's record."""
    d = json.loads(MEASURED.read_text())
    games = sum(r["games"] for r in d["history"])
    first, second = d["against_negamax"]["first"], d["against_negamax"]["second"]
    sub_first, sub_second = d["submission_against_negamax"]["first"], d["submission_against_negamax"]["second"]
    calls, whom = d["training_calls"], d["training_calls_by_whom"]
    yours = sum(n for p, n in calls.items() if whom[p] == "yours")
    library = sum(n for p, n in calls.items() if whom[p] == "library")

    def record(c: dict) -> str:
        return f"{c['wins']}-{c['draws']}-{c['losses']}"

    return (
        f"`{d['command'].replace('/work/runs/', 'runs/')}` trained {len(d['history'])} iterations ({games:,} games) "
        f"in {d['train_seconds'] / 60:.1f} minutes; your agent, 100 searches a move, then beat Kaggle's `negamax` "
        f"**{record(first)} moving first and {record(second)} moving second** (wins-draws-losses of "
        f"{sum(first.values())} each), and `random` in all {2 * sum(d['against_random']['first'].values())} games; "
        f"its submission file went {record(sub_first)} and {record(sub_second)} against `negamax`. During training "
        f"your code answered {yours:,} calls (rules, network, selection, backup, memory, training) and the library's "
        f"{library:,} (the array tree's searches and its batched network calls, the self-play loop's steps). "
        f"Record: `benchmarks/results/capstone_2026-11-24/`."
    )


def markdown(text: str) -> dict:
    return {"cell_type": "markdown", "id": f"capstone-{next(IDS)}", "metadata": {}, "source": text.splitlines(True)}


def code(text: str, **metadata: object) -> dict:
    return {"cell_type": "code", "execution_count": None, "id": f"capstone-{next(IDS)}", "metadata": dict(metadata),
            "outputs": [], "source": text.splitlines(True)}  # fmt: skip


def main() -> None:
    setup = json.loads((ROOT / "notebooks" / "05_self_play_training.ipynb").read_text())["cells"][1]
    built = BUILT.replace("MEASURED_LINE", measured_line())
    cells = [
        markdown(INTRO), code("".join(setup["source"]), cellView="form"), code(SEEDING),
        markdown(KEPT), code(LOAD), markdown(SPLIT), code(SERIAL),
        markdown(TRAIN_TEXT), code(SETTINGS), code(RUN),
        markdown(PLAY_TEXT), code(PLAY),
        markdown(KAGGLE_TEXT), code(EPISODE), code(ANIMATION), code(EVALUATE),
        markdown(PONS_TEXT), code(PONS),
        markdown(SUBMIT_TEXT), code(SUBMIT),
        markdown(THINK), markdown(built), markdown(DEPART),
    ]  # fmt: skip
    nb = {
        "cells": cells,
        "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
                     "language_info": {"name": "python"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }  # fmt: skip
    (ROOT / "notebooks" / "10_capstone.ipynb").write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
