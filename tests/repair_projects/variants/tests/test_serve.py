import math

from serve import meshes, settings
from serve.accel import mesh_shape


def test_eval_copy():
    assert math.prod(meshes.config_sizes(settings.EVAL)) == 8


def test_base():
    assert meshes.config_sizes(settings.BASE) == (8, 1)


def test_probe_copy():
    assert math.prod(meshes.config_sizes(settings.PROBE)) == 8


def test_skinny():
    assert meshes.config_sizes(settings.SKINNY) == (2, 2)


def test_serve_layout():
    assert math.prod(meshes.config_sizes(settings.SERVE)) == 8


def test_layout():
    assert meshes.config_sizes(settings.LAYOUT) == (8, 1)


def test_v5e_4():
    assert math.prod(meshes.accel_sizes(mesh_shape("v5e-4"))) == 8


def test_v5e_8():
    assert meshes.accel_sizes(mesh_shape("v5e-8")) == (2, 4)


def test_cpu():
    assert meshes.accel_sizes(mesh_shape("cpu")) == (1, 8)


def test_small_partial():
    assert math.prod(meshes.stage_sizes(meshes.SMALL)) == 8


def test_wide_partial():
    assert meshes.stage_sizes(meshes.WIDE) == (4, 2)


def test_pod():
    assert math.prod(meshes.accel_sizes(mesh_shape("pod"))) == 8


def test_stage_partial():
    assert math.prod(meshes.Stage().sizes()) == 8
