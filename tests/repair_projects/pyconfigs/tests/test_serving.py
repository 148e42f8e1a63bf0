from maxcfg import serving


def test_prefill_cache(config, mesh):
    assert serving.prefill_cache_spec(config)[0] == "fsdp"


def test_decode_cache(config, mesh):
    assert serving.decode_cache_spec(config)[2] == "tensor"
