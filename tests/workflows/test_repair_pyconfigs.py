"""`jaxfix repair` on tests/repair_projects/pyconfigs, under real JAX on both tiers: maxtext's
pyconfig idiom, a YAML file merged with `key=value` overrides and read as attributes
(`config.decode_ici_fsdp_parallelism` through `__getattr__`), loaded by a pytest fixture from a
path conftest.py builds, the mesh factory filling a `-1` (`_fill([...], jax.device_count())`).
The decode mesh's fsdp size is set in the YAML entry the config key names (its comment kept);
the prefill and training entries, which working meshes read, are never changed."""

from __future__ import annotations

import pytest

from codemods.test_real_jax import JAX_VERSIONS
from workflows.repaired import repaired


@pytest.mark.jax
@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_the_config_key_s_yaml_entry_is_set(tmp_path, version):
    run = repaired("pyconfigs", tmp_path, version)
    assert run.code == 0, run.report
    assert run.changed == {"maxcfg/configs/base.yml"}
    assert run.now("maxcfg/configs/base.yml") == run.replaced(
        "maxcfg/configs/base.yml",
        (
            b"decode_ici_fsdp_parallelism: 2  # per decode replica",
            b"decode_ici_fsdp_parallelism: 4  # per decode replica",
        ),
    )
