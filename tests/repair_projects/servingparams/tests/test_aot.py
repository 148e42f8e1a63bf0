import pytest

from serving.aot import aot_lower


@pytest.mark.parametrize("name", ["SmallLm", "CpuLm"])
def test_lowered(name):
    assert "stablehlo" in aot_lower(name).as_text()
