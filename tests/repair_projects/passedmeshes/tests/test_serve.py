from decoding import serve
from decoding.meshes import create_mesh


def test_prepare():
    decode_params, decode_mesh = serve.prepare(0)
    assert decode_params["embed"].shape == (8, 8)
    assert dict(decode_mesh.shape) == {"data": 2, "model": 4}


def test_warm_start():
    train = create_mesh("train")
    decode = create_mesh("decode")
    decode_params = serve.warm_start(1, train, decode)
    assert decode_params["proj"].shape == (8, 8)


def test_prepare_and_place():
    assert serve.prepare_and_place(2)["embed"].shape == (8, 8)


def test_prepare_on_decode():
    assert serve.prepare_on_decode(3)["embed"].shape == (8, 8)


def test_server_refresh():
    assert serve.Server().refresh(4)["embed"].shape == (8, 8)


def test_gather_on_decode():
    assert serve.gather_on_decode(5)["proj"].shape == (8, 8)
