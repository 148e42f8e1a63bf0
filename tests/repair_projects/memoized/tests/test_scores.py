import jax.numpy as jnp

from scoring.config import ScoringConfig
from scoring.meshes import scoring_mesh
from scoring.scores import make_scorer, score_shapes


def test_mesh_is_memoized():
    config = ScoringConfig()
    assert scoring_mesh(config) is scoring_mesh(config)


def test_score_shapes(global_mesh):
    out = score_shapes(ScoringConfig(), jnp.zeros((16, 4)), 8)
    assert out.shape == (8,)


def test_probe_scorer(global_mesh):
    scorer = make_scorer(ScoringConfig(name="probe"))
    assert scorer(jnp.zeros((16, 4)))["probe/shape"] == (8,)


def test_wide_scorer(global_mesh):
    scorer = make_scorer(ScoringConfig(batch_size=2, model_size=4, name="wide"))
    assert scorer(jnp.zeros((16, 4)))["wide/shape"] == (8,)
