"""`jaxfix repair` on tests/repair_projects/serverargs, under real JAX on both tiers: server
arguments are a dataclass whose field defaults the command line's options reuse
(`add_argument("--ep-size", default=ServerArgs.ep_size)`), parsed into the dataclass by
`cls(**{attr: getattr(args, attr) for attr in attrs})`, stored on a model config
(`model_config.ep_size = server_args.ep_size`), read back with `getattr(config, "ep_size", 1)`
and passed to a layer whose `__init__` relabels the model's mesh
(`mesh.abstract_mesh.update(axis_sizes=(self.ep_size, self.tp_size), axis_names=("expert",
"tensor"))`). The new axis ("expert", the one the enclosing mesh has no name for) is followed
to the field default, changed there because the class is built only from the parsed options
and no other code reads `ServerArgs.ep_size`. The draft size's default is also the default of
an instance a working test builds: only the option's read of it is replaced. An option whose
default is computed from the host is named with its line, and one whose value a working mesh
also reads (`WideAttentionRunner`) is named and left as it is."""

from __future__ import annotations

import pytest

from codemods.test_real_jax import JAX_VERSIONS
from workflows.repaired import repaired


@pytest.mark.jax
@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_a_server_argument_is_changed_where_its_default_is_written(tmp_path, version):
    run = repaired("serverargs", tmp_path, version)
    before, report = run.before, run.report
    assert run.code == 1, report
    ((path, line, detail),) = [
        (f["path"], f["line"], f["detail"]) for f in report["fixed"]
    ]
    assert (path, line) == ("srt/layers/moe.py", 18)
    assert detail.startswith(
        "set axis 'expert' to 2 where its size is written "
        "(ServerArgs.ep_size, srt/server_args.py:13)"
    )
    assert run.changed == {"srt/server_args.py"}
    assert run.now("srt/server_args.py") == before["srt/server_args.py"].replace(
        b"    ep_size: int = 4\n", b"    ep_size: int = 2\n"
    ).replace(
        b'"--draft-ep-size", type=int, default=ServerArgs.draft_ep_size',
        b'"--draft-ep-size", type=int, default=2',
    )
    # the context-parallel size is computed from the host: named, never written; the
    # attention option's default makes a working mesh too: named, never written
    ((left,),) = [[s["detail"] for s in report["left"]]]
    assert "`jax.local_device_count() // 2`, written at srt/server_args.py:28" in left
    assert (
        "the option --attn-dp-size (server_args.py:30) is read on another path" in left
    )
    assert sorted(t["test"] for t in report["rounds"][-1]["raised"]) == [
        "tests/test_runner.py::test_attention_warmup",
        "tests/test_runner.py::test_context_parallel_warmup",
    ]
