"""Write a deterministic synthetic tree of JAX-style Python files for benchmarking jaxfix.

Most files are ordinary model/training/sharding code that no rule applies to; a chosen fraction
embed the body of a fixture (a positive one for a violation, a must-not-change one for a file
that passes the prefilter but is clean), so the tree has candidates and violations in known
proportions. The same arguments always give the same bytes.

    python bench/make_corpus.py OUT --files 1000 --lines 300 --candidates 0.05 --violations 0.03
"""

from __future__ import annotations

import argparse
import random
import shutil
from pathlib import Path

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"

HEADER_IMPORTS = [
    "import functools",
    "import math",
    "from typing import Any, NamedTuple",
    "import dataclasses",
    "import numpy as np",
    "import jax",
    "import jax.numpy as jnp",
    "from jax import lax",
    "from jax.sharding import Mesh, NamedSharding, PartitionSpec as P",
    "import collections",  # often unused: ruff's F401 has something to find
    "import os",
]


def _name(rng: random.Random, stem: str) -> str:
    return f"{stem}_{rng.randrange(10_000):04d}"


def _dense(rng: random.Random) -> str:
    name, width = _name(rng, "dense"), rng.choice([128, 256, 512, 1024])
    return f'''
def {name}_init(key, in_features: int, out_features: int = {width}):
    """Initialise a dense layer with LeCun-normal weights."""
    w_key, b_key = jax.random.split(key)
    scale = 1.0 / math.sqrt(in_features)
    weight = jax.random.normal(w_key, (in_features, out_features), jnp.float32) * scale
    bias = jnp.zeros((out_features,), jnp.float32)
    return {{"w": weight, "b": bias}}


def {name}_apply(params, x, *, activation=jax.nn.gelu):
    # x: [batch, in_features] -> [batch, out_features]
    y = jnp.dot(x, params["w"]) + params["b"]
    return activation(y)
'''


def _attention(rng: random.Random) -> str:
    name, heads = _name(rng, "attention"), rng.choice([4, 8, 16])
    return f'''
def {name}(q, k, v, mask=None, num_heads: int = {heads}):
    """Multi-head dot-product attention over [batch, seq, features] inputs."""
    batch, seq, features = q.shape
    head_dim = features // num_heads

    def split(t):
        return t.reshape(batch, seq, num_heads, head_dim).transpose(0, 2, 1, 3)

    q, k, v = split(q), split(k), split(v)
    logits = jnp.einsum("bhqd,bhkd->bhqk", q, k) / jnp.sqrt(head_dim).astype(q.dtype)
    if mask is not None:
        logits = jnp.where(mask[:, None, :, :], logits, jnp.finfo(logits.dtype).min)
    weights = jax.nn.softmax(logits, axis=-1)
    out = jnp.einsum("bhqk,bhkd->bhqd", weights, v)
    return out.transpose(0, 2, 1, 3).reshape(batch, seq, features)
'''


def _layer_norm(rng: random.Random) -> str:
    name, eps = _name(rng, "layer_norm"), rng.choice(["1e-5", "1e-6"])
    return f"""
def {name}(x, scale, offset, eps: float = {eps}):
    mean = jnp.mean(x, axis=-1, keepdims=True)
    var = jnp.var(x, axis=-1, keepdims=True)
    normed = (x - mean) * lax.rsqrt(var + eps)
    return normed * scale + offset
"""


def _loss_and_step(rng: random.Random) -> str:
    name, lr = _name(rng, "train"), rng.choice(["1e-3", "3e-4", "1e-4"])
    return f"""
def {name}_loss(params, batch):
    logits = batch["inputs"] @ params["w"] + params["b"]
    labels = jax.nn.one_hot(batch["labels"], logits.shape[-1])
    return -jnp.mean(jnp.sum(labels * jax.nn.log_softmax(logits), axis=-1))


@functools.partial(jax.jit, donate_argnums=(0,))
def {name}_step(params, batch, learning_rate: float = {lr}):
    loss, grads = jax.value_and_grad({name}_loss)(params, batch)
    params = jax.tree_util.tree_map(lambda p, g: p - learning_rate * g, params, grads)
    return params, {{"loss": loss, "grad_norm": optax_free_global_norm(grads)}}
"""


def _global_norm(rng: random.Random) -> str:
    return """
def optax_free_global_norm(tree):
    leaves = jax.tree_util.tree_leaves(tree)
    return jnp.sqrt(sum(jnp.sum(jnp.square(leaf)) for leaf in leaves))
"""


def _adam(rng: random.Random) -> str:
    name = _name(rng, "AdamState")
    return f'''
class {name}(NamedTuple):
    count: jnp.ndarray
    mu: Any
    nu: Any


def {name.lower()}_update(grads, state, b1=0.9, b2=0.999, eps=1e-8, lr=1e-3):
    """One Adam step; returns the updates and the new state."""
    mu = jax.tree_util.tree_map(lambda m, g: b1 * m + (1 - b1) * g, state.mu, grads)
    nu = jax.tree_util.tree_map(lambda v, g: b2 * v + (1 - b2) * g * g, state.nu, grads)
    count = state.count + 1
    mu_hat = jax.tree_util.tree_map(lambda m: m / (1 - b1**count), mu)
    nu_hat = jax.tree_util.tree_map(lambda v: v / (1 - b2**count), nu)
    updates = jax.tree_util.tree_map(lambda m, v: -lr * m / (jnp.sqrt(v) + eps), mu_hat, nu_hat)
    return updates, {name}(count=count, mu=mu, nu=nu)
'''


def _config(rng: random.Random) -> str:
    name = _name(rng, "Config").replace("_", "")
    fields = rng.sample(
        ["hidden", "depth", "heads", "vocab", "seq_len", "dropout", "batch", "warmup"],
        5,
    )
    body = "\n".join(
        f"    {f}: int = {rng.choice([2, 8, 64, 512, 4096])}" for f in fields
    )
    return f'''
@dataclasses.dataclass(frozen=True)
class {name}:
    """Hyper-parameters; frozen so it can be a static jit argument."""

{body}

    def replace(self, **changes):
        return dataclasses.replace(self, **changes)
'''


def _sharding(rng: random.Random) -> str:
    name, data = _name(rng, "shard_batch"), rng.choice([2, 4, 8])
    return f'''
def {name}(batch, devices=None):
    """Put a host batch on a (data, model) device mesh, split along the batch axis."""
    devices = np.asarray(devices if devices is not None else jax.devices())
    mesh = Mesh(devices.reshape({data}, -1), ("data", "model"))
    sharding = NamedSharding(mesh, P("data", None))
    return jax.tree_util.tree_map(lambda x: jax.device_put(x, sharding), batch)
'''


def _scan(rng: random.Random) -> str:
    name = _name(rng, "rnn")
    return f'''
def {name}(params, xs, h0):
    """An Elman RNN over the leading axis with lax.scan."""

    def cell(h, x):
        h = jnp.tanh(x @ params["wx"] + h @ params["wh"] + params["b"])
        return h, h

    h_last, hs = lax.scan(cell, h0, xs)
    return h_last, hs


{name}_batched = jax.vmap({name}, in_axes=(None, 1, 0), out_axes=(0, 1))
'''


def _data(rng: random.Random) -> str:
    name, size = _name(rng, "batches"), rng.choice([32, 64, 128])
    return f'''
def {name}(rng_seed: int, num_examples: int, batch_size: int = {size}):
    """Yield shuffled numpy batches forever (host side, no jax)."""
    rng = np.random.default_rng(rng_seed)
    inputs = rng.standard_normal((num_examples, 784)).astype(np.float32)
    labels = rng.integers(0, 10, size=(num_examples,))
    while True:
        order = rng.permutation(num_examples)
        for start in range(0, num_examples - batch_size + 1, batch_size):
            index = order[start : start + batch_size]
            yield {{"inputs": inputs[index], "labels": labels[index]}}
'''


def _jaxpr_text(rng: random.Random) -> str:
    name = _name(rng, "jaxpr_text")
    return f'''
def {name}(fn, *example_args):
    """The jaxpr of a function, for debugging dumps."""
    closed = jax.make_jaxpr(fn)(*example_args)
    return str(closed.jaxpr)
'''


def _test_class(rng: random.Random) -> str:
    name = _name(rng, "ShapeTest").replace("_", "")
    dim = rng.choice([3, 7, 16])
    return f'''
class {name}:
    """Shape checks in the style of a unittest.TestCase, kept dependency-free."""

    def setUp(self):
        self.key = jax.random.PRNGKey({rng.randrange(100)})
        self.x = jax.random.normal(self.key, (4, {dim}))

    def test_softmax_sums_to_one(self):
        y = jax.nn.softmax(self.x, axis=-1)
        np.testing.assert_allclose(np.asarray(y.sum(-1)), np.ones(4), rtol=1e-5)

    def test_vmap_matches_loop(self):
        f = lambda row: jnp.sum(row**2)
        expected = np.array([f(row) for row in self.x])
        np.testing.assert_allclose(np.asarray(jax.vmap(f)(self.x)), expected, rtol=1e-5)
'''


BLOCKS = [
    _dense,
    _attention,
    _layer_norm,
    _loss_and_step,
    _adam,
    _config,
    _sharding,
    _scan,
    _data,
    _jaxpr_text,
    _test_class,
]


def filler(rng: random.Random, target_lines: int) -> str:
    """Ordinary JAX code of about `target_lines` lines that no rule applies to."""
    parts = [
        f'"""Synthetic module {rng.randrange(10**6)}: models, training and sharding helpers."""\n'
    ]
    parts.append(
        "\n".join(rng.sample(HEADER_IMPORTS, k=rng.randint(6, len(HEADER_IMPORTS))))
        + "\n"
    )
    parts.append(_global_norm(rng))
    lines = sum(p.count("\n") for p in parts)
    while lines < target_lines:
        block = rng.choice(BLOCKS)(rng)
        parts.append(block)
        lines += block.count("\n")
    return "\n".join(parts)


def fixture_bodies() -> tuple[list[str], list[str]]:
    """(positive, must-not-change) fixture bodies without their header comments."""
    positive, negative = [], []
    for before in sorted(FIXTURES.glob("*/*.py")):
        if before.name.endswith(".fixed.py"):
            continue
        lines = before.read_text(encoding="utf-8").splitlines(keepends=True)
        while lines and lines[0].startswith("#"):
            lines.pop(0)
        body = "".join(lines)
        fixed = before.with_name(before.stem + ".fixed.py")
        (positive if fixed.exists() else negative).append(body)
    return positive, negative


def write_corpus(
    out: Path, files: int, lines: int, candidates: float, violations: float, seed: int
) -> dict[str, int]:
    if violations > candidates:
        raise ValueError("--violations cannot exceed --candidates")
    rng = random.Random(seed)
    positive, negative = fixture_bodies()
    n_violations = round(files * violations)
    n_candidates = round(files * candidates)
    kinds = ["violation"] * n_violations + ["candidate"] * (n_candidates - n_violations)
    kinds += ["plain"] * (files - len(kinds))
    rng.shuffle(kinds)
    if out.exists():
        shutil.rmtree(out)
    for index, kind in enumerate(kinds):
        size = max(30, int(rng.lognormvariate(0, 0.6) * lines / 1.2))
        text = filler(rng, size)
        if kind != "plain":
            pool = positive if kind == "violation" else negative
            text = rng.choice(pool) + "\n\n" + text
        path = out / f"pkg_{index // 50:03d}" / f"module_{index:05d}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return {kind: kinds.count(kind) for kind in ("plain", "candidate", "violation")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="directory to (re)create")
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--lines", type=int, default=300, help="mean lines per file")
    parser.add_argument(
        "--candidates",
        type=float,
        default=0.05,
        help="fraction of files that embed a fixture",
    )
    parser.add_argument(
        "--violations",
        type=float,
        default=0.03,
        help="fraction of files that embed a positive fixture",
    )
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    counts = write_corpus(
        args.out, args.files, args.lines, args.candidates, args.violations, args.seed
    )
    print(f"wrote {args.files} files to {args.out}: {counts}")


if __name__ == "__main__":
    main()
