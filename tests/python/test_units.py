import pytest

from dccsim import units


@pytest.mark.parametrize(
    "text,ps",
    [
        ("1us", 10**6),
        ("0.5ms", 5 * 10**8),
        ("130ns", 130_000),
        ("2s", 2 * 10**12),
        ("10ps", 10),
        (0, 0),
        (1e-6, 10**6),
    ],
)
def test_parse_time(text, ps):
    assert units.parse_time(text) == ps


@pytest.mark.parametrize("text,b", [("4MiB", 4 * 2**20), ("90KB", 90_000), ("1000B", 1000), (1500, 1500)])
def test_parse_size(text, b):
    assert units.parse_size(text) == b


def test_parse_rate_and_errors_name_field():
    assert units.parse_rate("25Gbps") == 25 * 10**9
    with pytest.raises(units.UnitError, match=r"^topology\.host_rate: must be > 0"):
        units.parse_rate("0Gbps", "topology.host_rate")
    with pytest.raises(units.UnitError, match=r"^x: unknown unit 'furlong'"):
        units.parse_time("3furlong", "x")
    with pytest.raises(units.UnitError, match=r"^x: expected a rate"):
        units.parse_rate(True, "x")


@pytest.mark.parametrize("value", [1, 999, 1000, 48, 90_000, 4 * 2**20, 10**6, 1_024_000, 123_457])
def test_exact_size_round_trip(value):
    assert units.parse_size(units.format_size_exact(value)) == value


@pytest.mark.parametrize("value", [0, 1, 10**6, 5 * 10**8, 1_234_567, 3 * 10**12])
def test_exact_time_round_trip(value):
    assert units.parse_time(units.format_time_exact(value)) == value


@pytest.mark.parametrize("value", [1, 800_000, 25 * 10**9, 10**12, 12_345_678])
def test_exact_rate_round_trip(value):
    assert units.parse_rate(units.format_rate_exact(value)) == value


def test_exact_formats_are_readable():
    assert units.format_size_exact(4 * 2**20) == "4MiB"
    assert units.format_size_exact(1000) == "1000B"
    assert units.format_time_exact(5 * 10**8) == "500us"
    assert units.format_rate_exact(25 * 10**9) == "25Gbps"
