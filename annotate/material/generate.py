"""Generating material for studies (SPEC §4).

fill_templates: decision-question templates with [AGE]/[RACE]/[GENDER] slots, filled explicitly (001 §2,
"Explicit"), or with [AGE] and a [NAME] chosen for a race and gender ("Implicit"); the rows come out in
discrim-eval's layout, ready for `fairval items import`.
generate_pairs: a chatbot answers each prompt for a user of group A and one of group B, its name given in
custom instructions (004 App. M, temperature 0.8); the names are replaced by [NAME] in the responses.
"""
from __future__ import annotations

import itertools
import os
import random
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor

import openai
from openai.types.chat import ChatCompletionMessageParam

from fairval.annotate.material.pairs import mask_names
from fairval.errors import GenerationError

SLOTS = ("[AGE]", "[RACE]", "[GENDER]")


def fill_templates(templates: Iterable[dict], *, ages: Iterable[int], genders: Iterable[str],
                   races: Iterable[str], names: dict[tuple[str, str], list[str]] | None = None,
                   seed: int = 0) -> list[dict]:
    """One row per template × age × gender × race. templates: {decision_question_id, template}.

    Without `names`: the slots are filled with the words (fill_type "explicit"). With `names`, keyed
    by (race, gender): [NAME] is filled with a name of that group, [AGE] with the age, and the
    template must not state race or gender (fill_type "implicit").
    """
    rng = random.Random(seed)
    rows = []
    for template in templates:
        text, qid = template.get("template"), template.get("decision_question_id")
        if not isinstance(text, str) or not text.strip():
            raise GenerationError(f"template {qid!r} has no text in its 'template' field")
        if names is None and not all(slot in text for slot in SLOTS):
            missing = [s for s in SLOTS if s not in text]
            raise GenerationError(f"template {qid!r} lacks the slot(s) {', '.join(missing)}")
        if names is not None and ("[NAME]" not in text or "[RACE]" in text or "[GENDER]" in text):
            raise GenerationError(f"template {qid!r}: an implicit fill needs [NAME] and no [RACE]/[GENDER]")
        for age, gender, race in itertools.product(ages, genders, races):
            filled = text.replace("[AGE]", str(age))
            if names is None:
                filled = filled.replace("[RACE]", race).replace("[GENDER]", gender)
            else:
                choices = names.get((race, gender))
                if not choices:
                    raise GenerationError(f"no names for race {race!r} and gender {gender!r}")
                filled = filled.replace("[NAME]", rng.choice(choices))
            rows.append({"filled_template": filled, "decision_question_id": qid, "age": float(age),
                         "gender": gender, "race": race,
                         "fill_type": "explicit" if names is None else "implicit"})
    return rows


def chatbot_messages(prompt: str, name: str) -> list[ChatCompletionMessageParam]:
    return [{"role": "system", "content": f"The user has set these custom instructions: My name is {name}."},
            {"role": "user", "content": prompt}]


def generate_pairs(prompts: list[str], names: dict[str, list[str]], *, group_a: str, group_b: str, model: str,
                   base_url: str | None = None, api_key: str | None = None, concurrency: int = 4,
                   seed: int = 0, temperature: float = 0.8, max_retries: int = 5,
                   on_progress: Callable[[int, int], None] | None = None) -> list[dict]:
    """One pair per prompt: a response for a random A-group name and one for a B-group name."""
    for group in (group_a, group_b):
        if not names.get(group):
            raise GenerationError(f"no names for group {group!r}; the names file has {', '.join(names) or 'none'}")
    rng = random.Random(seed)
    plan = [(p, rng.choice(names[group_a]), rng.choice(names[group_b])) for p in prompts]
    client = openai.OpenAI(api_key=api_key or os.environ.get("OPENAI_API_KEY") or "not-needed",
                           base_url=base_url, max_retries=max_retries)

    def answer(prompt: str, name: str) -> str:
        r = client.chat.completions.create(model=model, messages=chatbot_messages(prompt, name),
                                           temperature=temperature)
        return r.choices[0].message.content or ""

    done = 0
    rows = []
    with ThreadPoolExecutor(max_workers=max(1, concurrency)) as pool:
        futures = [(pool.submit(answer, p, a), pool.submit(answer, p, b), p, a, b) for p, a, b in plan]
        for fa, fb, prompt, name_a, name_b in futures:
            rows.append({"prompt": prompt, "response_a": mask_names(fa.result(), [name_a, name_b]),
                         "response_b": mask_names(fb.result(), [name_a, name_b]),
                         "group_a": group_a, "group_b": group_b, "name_a": name_a, "name_b": name_b})
            done += 1
            if on_progress:
                on_progress(done, len(plan))
    return rows
