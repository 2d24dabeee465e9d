"""Scripted models for the Inspect tests, and a task file for `inspect eval` on the command line.

The model under test replies to a conversation of n messages with "... after n turns",
except to the 5-message conversation (the fixture's task with 3 user turns), where it
replies with blank space (an empty reply). The judge answers the k-th criterion of a task
(the fixture's criterion text ends in "point k+1") with the votes JUDGE_VOTES[k % 4], in
order, one per call on the same prompt; None is an answer without a verdict. Every output
carries usage, so Inspect never counts tokens with a downloaded tokenizer.

`scripted/reply` and `scripted/judge` are the same scripts as a model provider, and
`scripted_crisis_support` the task run with them, for
`inspect eval tests/python/inspect_mocks.py -T release=...` (the task names its model: the
provider is registered only once this file is loaded, after `--model` would be resolved).
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from inspect_ai import Task, task, task_with
from inspect_ai.model import ChatMessage, GenerateConfig, ModelAPI, ModelOutput, ModelUsage, modelapi
from inspect_ai.model._providers.mockllm import MockLLM

from distressbench.evals.crisis_support import crisis_support

EMPTY_AFTER_MESSAGES = 5
JUDGE_VOTES: tuple[tuple[str | None, ...], ...] = (
    ("MET", "MET", "MET"),  # met
    ("MET", "NOT MET", "NOT MET"),  # not met
    ("MET", "NOT MET", None),  # two parsed votes, a tie: not met under the 'unmet' rule
    ("NOT MET", "MET", "MET"),  # met
)
_POINT = re.compile(r'"point (\d+)"')


def expected_met(k: int) -> bool:
    """The verdict on the k-th criterion, worked out by hand from JUDGE_VOTES."""
    return k % 4 in (0, 3)


def output(text: str) -> ModelOutput:
    scripted = ModelOutput.from_content(model="mockllm", content=text)
    scripted.usage = ModelUsage(input_tokens=10, output_tokens=10, total_tokens=20)
    return scripted


def reply_text(n_messages: int) -> str:
    return "   " if n_messages == EMPTY_AFTER_MESSAGES else f"I'm here with you (a reply after {n_messages} turns)."


def reply(messages: list[ChatMessage], *_: Any) -> ModelOutput:
    return output(reply_text(len(messages)))


class Judge:
    """The scripted judge: the n-th call with one prompt gives vote n of its criterion."""

    def __init__(self) -> None:
        self.calls: Counter[str] = Counter()

    def __call__(self, messages: list[ChatMessage], *_: Any) -> ModelOutput:
        prompt = messages[-1].text
        found = _POINT.search(prompt)
        assert found is not None, prompt
        k = int(found.group(1)) - 1
        vote = JUDGE_VOTES[k % 4][self.calls[prompt]]
        self.calls[prompt] += 1
        return output("The reply was read against the criterion." + (f"\nVERDICT: {vote}" if vote else ""))


class Scripted(MockLLM):
    def __init__(self, model_name: str, base_url: str | None = None, api_key: str | None = None,
                 config: GenerateConfig | None = None, **model_args: Any) -> None:
        outputs = reply if model_name == "reply" else Judge()
        super().__init__(model_name, base_url, api_key, config or GenerateConfig(), custom_outputs=outputs)


@modelapi(name="scripted")
def scripted() -> type[ModelAPI]:
    return Scripted


@task
def scripted_crisis_support(release: str, limit: int | None = None) -> Task:
    """crisis_support of scripted/reply judged by scripted/judge, three votes per criterion."""
    return task_with(crisis_support(release=release, judge="scripted/judge", judge_samples=3, limit=limit),
                     model="scripted/reply")
