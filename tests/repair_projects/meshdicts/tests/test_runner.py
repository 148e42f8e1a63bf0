import jax.numpy as jnp

from serve import contexts
from serve.runner import Runner


def test_total():
    assert Runner().total(jnp.ones(8)) == 8


def test_train_total():
    assert Runner().train_total(jnp.ones(8)) == 8


def test_eval_in_context():
    assert contexts.eval_total(Runner(), jnp.ones(8)) == 8


def test_train_in_context():
    assert contexts.train_total(Runner(), jnp.ones(8)) == 8
