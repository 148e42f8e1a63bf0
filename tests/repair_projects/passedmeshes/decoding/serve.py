"""Entry points: train-time parameters prepared for the decoder."""

import jax

from decoding import compat
from decoding.meshes import create_mesh
from decoding.params import (
    gather_for_decoding,
    gather_replicated,
    gather_then_place,
    init_params,
)
from decoding.sampler import Sampler


def prepare(seed):
    train_mesh = create_mesh("train")
    decode_mesh = create_mesh("decode")
    with jax.set_mesh(train_mesh):
        params = init_params(seed)
        decode_params = gather_for_decoding(params, decode_mesh)
    return decode_params, decode_mesh


def warm_start(seed, train, decode):
    with compat.set_mesh(train):
        params = init_params(seed)
        return Sampler(seed).prepare(params, mesh=decode)


def prepare_and_place(seed):
    train_mesh = create_mesh("train")
    decode_mesh = create_mesh("decode")
    with jax.set_mesh(train_mesh):
        params = init_params(seed)
        return gather_then_place(params, decode_mesh)


def prepare_on_decode(seed):
    decode_mesh = create_mesh("decode")
    with jax.set_mesh(decode_mesh):
        params = init_params(seed)
        return gather_for_decoding(params, decode_mesh)


def gather_on_decode(seed):
    train_mesh = create_mesh("train")
    decode_mesh = create_mesh("decode")
    with jax.set_mesh(train_mesh):
        params = init_params(seed)
    with compat.set_mesh(decode_mesh):
        return gather_replicated(params)


class Server:
    def __init__(self):
        self.train_mesh = create_mesh("train")
        self.decode_mesh = create_mesh("decode")

    def refresh(self, seed):
        with compat.set_mesh(self.train_mesh):
            params = init_params(seed)
            return gather_for_decoding(params, self.decode_mesh)
