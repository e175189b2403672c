"""The recall questions teach (issue 62, item B): the right option is not given away by its length or its letter,
every right answer says why the others are wrong, and every number an option states is computed here with the
library.

The format (``**Qn.**``, options folded in ``<details>``, one ``✅ Right.``) is ``tests/test_course.py``'s, read with
its patterns."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
import torch
from test_course import IDS, NOTEBOOKS, OPTION, QUESTION, end_matter

from alphazero_lib.alpha_mcts import AlphaMCTS
from alphazero_lib.arena import Z_95, expected_score, wilson_interval
from alphazero_lib.config import PRESETS, MCTSConfig, SearchConfig
from alphazero_lib.games import TicTacToe
from alphazero_lib.mcts import MCTS
from alphazero_lib.model import ResBlock, ResNet
from alphazero_lib.search_policies.puct import exploration_weight

WHY_NOT = "Why not the others: "


@dataclass
class Option:
    letter: str
    summary: str
    right: bool
    why: str


@dataclass
class Question:
    number: int
    text: str
    options: list[Option]

    @property
    def right(self) -> Option:
        return next(o for o in self.options if o.right)


def parse(quiz: str) -> list[Question]:
    """The questions of a notebook's 'Check your understanding' cell."""
    texts = QUESTION.findall(quiz)
    blocks = re.split(r"^\*\*Q\d\.\*\* ", quiz, flags=re.MULTILINE)[1:]
    out = []
    for number, block in zip(texts, blocks, strict=True):
        options = [
            Option(letter, summary, verdict.startswith("✅"), why)
            for letter, summary, verdict, why in OPTION.findall(block)
        ]
        out.append(Question(int(number), block.split("\n", 1)[0], options))
    return out


def questions(stem: str) -> list[Question]:
    return parse(end_matter(next(p for p in NOTEBOOKS if p.stem == stem))[0])


def given_away(question: Question, extreme: str) -> bool:
    """The right option is the ``"longest"`` (at least as long as every wrong one) or the ``"shortest"`` (no longer
    than any): a reader could pick it without thinking."""
    right, wrong = len(question.right.summary), [len(o.summary) for o in question.options if not o.right]
    return right >= max(wrong) if extreme == "longest" else right <= min(wrong)


@pytest.mark.parametrize("extreme", ["longest", "shortest"])
@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_the_right_option_is_the_longest_or_the_shortest_in_at_most_a_third_of_the_questions(path: Path, extreme):
    found = parse(end_matter(path)[0])
    numbers = [q.number for q in found if given_away(q, extreme)]
    assert 3 * len(numbers) <= len(found), (
        f"{path.name}: the right option is the {extreme} in Q{numbers}, more than a third of {len(found)}"
    )


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_no_letter_holds_the_right_option_in_more_than_half_of_the_questions(path: Path):
    found = parse(end_matter(path)[0])
    letters = [q.right.letter for q in found]
    common = max(set(letters), key=letters.count, default=None)
    assert 2 * letters.count(common) <= len(found) + 1, (
        f"{path.name}: the right option is {common} in {letters.count(common)} of {len(found)} questions ({letters})"
    )


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_every_right_answer_says_in_one_line_why_the_others_are_wrong(path: Path):
    """The right option's answer ends with one line, 'Why not the others: ...', that names every wrong option by
    its letter (and no other letter)."""
    for question in parse(end_matter(path)[0]):
        lines = [line for line in question.right.why.splitlines() if line.startswith(WHY_NOT)]
        assert len(lines) == 1, f"{path.name} Q{question.number}: one '{WHY_NOT}...' line in the right answer"
        named = set(re.findall(r"\b([A-E])\b", lines[0][len(WHY_NOT) :]))
        wrong = {o.letter for o in question.options if not o.right}
        assert named == wrong, f"{path.name} Q{question.number}: the line names {sorted(named)}, not {sorted(wrong)}"
        assert question.right.why.rstrip().endswith(lines[0].rstrip()), f"{path.name} Q{question.number}: last line"


# ---- numbers: each is computed here; (stem, question number, a phrase of the question) -> what the options say ----
def count_nodes(node) -> int:
    return 1 + sum(count_nodes(child) for child in node.children)


def vanilla_nodes() -> dict:
    game, searches = TicTacToe(), 20
    search = MCTS(game, MCTSConfig(num_searches=searches, seed=0))
    search.search(game.get_initial_state())
    nodes = count_nodes(search.root)
    return {"right": [f"{nodes}: "], "wrong": [f"{searches}: ", f"{1 + game.action_size}: "]}


def resblock_parameters() -> dict:
    block = ResBlock(64)
    parameters = sum(p.numel() for p in block.parameters())
    kernels = sum(m.weight.numel() for m in block.modules() if isinstance(m, torch.nn.Conv2d))
    statistics = sum(b.numel() for name, b in block.named_buffers() if name.endswith(("running_mean", "running_var")))
    one_by_one = parameters - kernels + kernels // 9  # each 3x3 kernel counted as a single weight
    return {
        "right": [f"{parameters:,}: "],
        "wrong": [f"{kernels:,}: ", f"{parameters + statistics:,}: ", f"{one_by_one:,}: "],
    }


def exploration_schedule() -> dict:
    budget = PRESETS["connect_four"]["search"]["num_searches"]  # the most the course's presets search
    assert budget == max(p["search"]["num_searches"] for p in PRESETS.values() if "search" in p)
    config = SearchConfig(pb_c_base=19652, pb_c_init=1.25)
    low, high = exploration_weight(config, 0), exploration_weight(config, budget)
    return {"right": [f"Up to {budget} simulations", f"between {low:.2f} and {high:.2f}"]}


def alphazero_nodes() -> dict:
    game = TicTacToe()
    torch.manual_seed(0)
    search = AlphaMCTS(game, ResNet(game, 1, 8), SearchConfig(num_searches=1))
    search.search(game.get_initial_state())
    vanilla = MCTS(game, MCTSConfig(num_searches=1, seed=0))
    vanilla.search(game.get_initial_state())
    legal = int(game.get_valid_moves(game.get_initial_state()).sum())
    return {"right": [f"{count_nodes(search.root)}: "], "wrong": [f"{count_nodes(vanilla.root)}: ", f"{1 + legal}: "]}


def elo_200() -> dict:
    base_e, scale_200, turned = 1 / (1 + math.exp(-200 / 400)), 1 / (1 + 10 ** (-200 / 200)), expected_score(0, 200)
    return {
        "right": [f"About {expected_score(200, 0):.2f} a game"],
        "wrong": [f"About {x:.2f} a game" for x in (base_e, scale_200, turned)],
        "why": [f"1 / (1 + {10 ** (-200 / 400):.3f}) = {expected_score(200, 0):.2f}"],
    }


def fixed_z() -> dict:
    return {"wrong": [f"z = {Z_95:.2f}"]}


def perfect_ten() -> dict:
    n, z = 10, Z_95
    low, high = wilson_interval(1.0, n)
    simple = [1.0 + s * z * math.sqrt(1.0 * 0.0 / n) for s in (-1, 1)]
    centre, half = (1 + z**2 / (2 * n)) / (1 + z**2 / n), z / (1 + z**2 / n) * math.sqrt(z**2 / (4 * n**2))
    assert np.isclose(low, centre - half) and high == 1.0
    return {
        "right": [f"[{low:.2f}, {high:.2f}]"],
        "wrong": [f"[{simple[0]:.2f}, {simple[1]:.2f}]", f"[{1 - half:.2f}, {min(1.0, 1 + half):.2f}]"],
        "why": [
            f"(1 + {z**2 / 2:.2f}/{n}) / (1 + {z**2:.2f}/{n}) = {centre:.2f}",
            f"half width {half:.2f}",
            f"above {low:.2f}",
        ],
    }


NUMERIC = {
    ("02_vanilla_mcts", 5, "how many nodes"): vanilla_nodes,
    ("03_model", 5, "How many parameters"): resblock_parameters,
    ("04_alphazero_search", 4, "C(s)"): exploration_schedule,
    ("04_alphazero_search", 5, "how many nodes"): alphazero_nodes,
    ("09_evaluation", 1, "200 Elo points"): elo_200,
    ("09_evaluation", 2, "Wilson interval"): fixed_z,
    ("09_evaluation", 4, "Wilson interval"): perfect_ten,
}
NUMBER = re.compile(r"\d[\d,]*\.\d+|\d{2,}|\d,\d{3}")  # a decimal, or two digits or more: a figure, not a label


@pytest.mark.parametrize("key", NUMERIC, ids=[f"{stem}-Q{n}" for stem, n, _ in NUMERIC])
def test_each_number_an_option_states_is_computed(key):
    """The option marked right says the number the library computes; each wrong option's number is a mistake's,
    computed the same way; the right answer's working shows the computed steps."""
    stem, number, phrase = key
    question = next(q for q in questions(stem) if q.number == number)
    assert phrase in question.text, f"{stem} Q{number} is no longer the question about {phrase!r}"
    claims = NUMERIC[key]()
    for text in claims.get("right", []):
        assert text in question.right.summary, f"{stem} Q{number}: the right option does not say {text!r}"
    for text in claims.get("wrong", []):
        saying = [o.letter for o in question.options if text in o.summary]
        assert len(saying) == 1 and not question.right.summary.count(text), (
            f"{stem} Q{number}: {text!r} should be in exactly one wrong option, found in {saying}"
        )
    for text in claims.get("why", []):
        assert text in question.right.why, f"{stem} Q{number}: the right answer's working lacks {text!r}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_every_question_whose_options_state_a_number_has_it_computed(path: Path):
    """A new question with a figure in its options (an Elo score, an interval, a count) needs an entry in NUMERIC."""
    for question in parse(end_matter(path)[0]):
        figures = [o.summary for o in question.options if NUMBER.search(o.summary)]
        registered = [k for k in NUMERIC if k[:2] == (path.stem, question.number)]
        assert registered or not figures, f"{path.name} Q{question.number}: {figures[0]!r} is not computed here"
