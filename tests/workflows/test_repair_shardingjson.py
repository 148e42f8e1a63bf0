"""`jaxfix repair` on tests/repair_projects/shardingjson, under real JAX on both tiers: the
sharding strategy rides in a JSON file loaded into an engine config's `additional_config`,
read with `.get("sharding", {}).get("sharding_strategy", {})` and
`.get("expert_parallelism", 1)` into a dataclass that a manager holds and exposes through a
`@property` returning `self.sharding_strategy.expert_parallelism`; the runner builds an
("expert", "model") mesh from it inside its ("data", "model") mesh. The expert axis (the one
the enclosing mesh has no name for) is set in `configs/moe.json`; `configs/wide.json`, read
by a working test, is not changed; `configs/dense.json` leaves the entry out (the run took
`.get`'s default, which other configs rely on): named, nothing written."""

from __future__ import annotations

import pytest

from codemods.test_real_jax import JAX_VERSIONS
from workflows.repaired import repaired


@pytest.mark.jax
@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_a_sharding_strategy_entry_is_changed_in_its_json_file(tmp_path, version):
    run = repaired("shardingjson", tmp_path, version)
    before, report = run.before, run.report
    assert run.code == 1, report
    ((path, line, detail),) = [
        (f["path"], f["line"], f["detail"]) for f in report["fixed"]
    ]
    assert (path, line) == ("tpu_inference/runner/tpu_runner.py", 32)
    assert detail.startswith('set "expert_parallelism" (configs/moe.json:4) to 2')
    assert run.changed == {"configs/moe.json"}
    assert run.now("configs/moe.json") == before["configs/moe.json"].replace(
        b'"expert_parallelism": 4', b'"expert_parallelism": 2'
    )
    ((left,),) = [[s["detail"] for s in report["left"]]]
    assert "configs/dense.json" in left and "no entry ['expert_parallelism']" in left
