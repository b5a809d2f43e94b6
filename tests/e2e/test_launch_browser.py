"""Launch day through `fairval serve --workers 2` (HAProxy in front), in real Chromium: 20 browsers open
the Prolific link at the same moment, each fetching every page and static file; every one reaches
consent and answers its items. Once each has answered one item and holds a second on screen, one
worker is killed by its PID: its raters go on at the same item on the other worker, none reloading (a
rater still on "Saving…" after 90 s would reload and be counted).
The database holds exactly what the raters saw acknowledged: 0 lost, 0 doubled, none over its cap."""
import asyncio

import pytest

from bench.launch import kill, launch
from fairval.annotate.material.importers import import_items
from fairval.annotate.material.studies import create_study
from fairval.store import open_db
from tests.conftest import write_jsonl
from tests.e2e.conftest import Server

# 20 Chromium contexts and the server share the machine's cores: the first page alone takes about a minute
pytestmark = [pytest.mark.e2e, pytest.mark.timeout(900)]
BROWSERS = 20
PER_ITEM = 3
PER_RATER = 3
# more slots than the crowd needs (as a real study has), so no rater is left only with items they rated
ITEMS = {f"q{i:02d}": f"Launch question {i}: should the application be approved?" for i in range(BROWSERS + 5)}


def test_twenty_browsers_arriving_together_through_two_workers(tmp_path):
    location = tmp_path / "fairval.db"
    db = open_db(location)
    create_study(db, "launch", "template_quality", raters_per_item=PER_ITEM, max_items_per_rater=PER_RATER,
                 completion_code="LAUNCH-OK", seed=4)
    import_items(db, "launch", write_jsonl(tmp_path / "i.jsonl", [{"id": k, "filled_template": t}
                                                                 for k, t in ITEMS.items()]))
    db.close()
    server = Server(location, workers=2)
    try:
        ids = {text: item for item, text in ITEMS.items()}
        result = asyncio.run(launch(server.url, BROWSERS, ids, kill_worker=lambda: kill(server.process.pid, "w0")))
    finally:
        server.stop()

    assert len(result.first_page) == BROWSERS                       # every browser reached consent
    assert result.judgments == BROWSERS * PER_RATER
    moved = {r: after for r, (before, after) in result.moved.items() if before == "w0"}
    assert moved, "no rater was on the killed worker"
    assert all(after == "w1" for after in moved.values()), moved   # carried on on the other worker
    assert result.reloads == 0, f"{result.reloads} of {len(moved)} moved raters were stuck on Saving… and reloaded"

    db = open_db(location)
    stored = db.execute("SELECT rater_id, item_id, COUNT(*) FROM ratings GROUP BY rater_id, item_id").fetchall()
    per_item = dict(db.execute("SELECT item_id, COUNT(DISTINCT rater_id) FROM ratings GROUP BY item_id").fetchall())
    db.close()
    acknowledged = sorted((r, i) for r, items in result.acknowledged.items() for i in items)
    assert sorted((r, i) for r, i, _ in stored) == acknowledged          # 0 lost, none unacknowledged
    assert {n for _, _, n in stored} == {2}                              # each judgment once (two questions)
    assert max(per_item.values()) <= PER_ITEM                            # none over its cap
