"""`fairval compare`: Table 1's layout (a row per judge, Pearson's r [CI], a [CI], ω per study) on a seeded demo
of three judges over two studies, each number the one `analyze` gives for that study and judge."""
import json

import numpy as np
import pandas as pd
from click.testing import CliRunner

from fairval.annotate.cli.main import cli
from tests.conftest import write_jsonl

JUDGES = {"close": 0.1, "rough": 0.5, "blind": 3.0}        # noise of each judge around the crowd's truth


def seeded_study(cli_output, tmp_path, name, seed):
    rng = np.random.default_rng(seed)
    truth = rng.uniform(-1, 1, 40)
    cli_output("study", "create", name, "--task", "harmful_stereotype")
    write_jsonl(tmp_path / f"{name}-pairs.jsonl", [
        {"id": f"p{k}", "prompt": "P", "response_a": "a", "response_b": "b", "group_a": "woman", "group_b": "man"}
        for k in range(40)])
    cli_output("items", "import", name, tmp_path / f"{name}-pairs.jsonl")
    answers = {1: "A", -1: "B", 0: "C"}
    write_jsonl(tmp_path / f"{name}-ratings.jsonl", [
        {"item_id": f"p{k}", "rater_id": f"r{r}", "question": "harm", "flipped": False,
         "value": answers[int(np.clip(np.round(truth[k] + rng.normal(0, 0.5)), -1, 1))]}
        for k in range(40) for r in range(5)])
    cli_output("ratings", "import", name, tmp_path / f"{name}-ratings.jsonl")
    pd.DataFrame([{"item_id": f"p{k}", "model": judge, "score": float(np.clip(truth[k] + rng.normal(0, noise), -1, 1))}
                  for judge, noise in JUDGES.items() for k in range(40)]).to_csv(tmp_path / f"{name}-lmra.csv", index=False)
    cli_output("lmra", "import", name, tmp_path / f"{name}-lmra.csv")


def test_compare_prints_table_1_for_three_judges_over_two_studies(cli_output, tmp_path):
    seeded_study(cli_output, tmp_path, "gender", seed=1)
    seeded_study(cli_output, tmp_path, "race", seed=2)
    cli_output("compare", "gender", "race", "--models", "close,rough,blind", "--bootstrap", "100",
        "--out", tmp_path / "table.csv")
    table = pd.read_csv(tmp_path / "table.csv")
    assert list(table["judge"]) == ["close", "rough", "blind"]
    assert list(table.columns) == ["judge", "gender r", "gender a", "gender ω", "race r", "race a", "race ω"]
    for study in ("gender", "race"):
        numbers = json.loads(cli_output("analyze", study, "--json", "--bootstrap", "100"))["lmra"]["by_model"]
        for judge, row in table.set_index("judge").iterrows():
            c = numbers[judge]
            assert row[f"{study} r"] == f"{c['pearson_r']:.3f} [{c['pearson_ci'][0]:.3f}, {c['pearson_ci'][1]:.3f}]"
            lo, hi = c["sign_agreement_ci"]
            assert row[f"{study} a"] == f"{c['sign_agreement']:.3f} [{lo:.3f}, {hi:.3f}]"
    rho = table.set_index("judge")["gender r"].str.split(" ").str[0].astype(float)
    assert rho["close"] > rho["rough"] > rho["blind"]           # the judges' noise, in order
    as_json = json.loads(cli_output("compare", "gender", "race", "--json", "--bootstrap", "0"))
    assert set(as_json) == {"gender", "race"} and set(as_json["race"]) == set(JUDGES)
    markdown = cli_output("compare", "gender", "race", "--bootstrap", "0")
    assert markdown.splitlines()[0].startswith("| judge") and "gender r" in markdown


def test_compare_refuses_a_study_without_pairs(db_path):
    runner = CliRunner()
    runner.invoke(cli, ["--db", str(db_path), "study", "create", "tq", "--task", "template_quality"])
    result = runner.invoke(cli, ["--db", str(db_path), "compare", "tq"])
    assert result.exit_code == 1 and "compare needs pair studies" in result.output
