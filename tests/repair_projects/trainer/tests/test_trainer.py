import pytest
from jax.sharding import AbstractMesh, use_abstract_mesh

from trainer.export import export_double
from trainer.gather import gathered_batch
from trainer.stages import eval_sizes


def test_export():
    assert export_double()


def test_eval_sizes():
    assert eval_sizes() == (8, 4)


def test_gather():
    assert gathered_batch() == (list(range(8)), {"x": 4, "y": 2})


def test_resizing_is_refused():
    with use_abstract_mesh(AbstractMesh((8, 4), ("data", "model"))):
        with pytest.raises(ValueError, match="cannot change the size"):
            with use_abstract_mesh(AbstractMesh((4, 4), ("data", "model"))):
                pass
