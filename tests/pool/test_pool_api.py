"""``ClientPool`` speaks like ``Client`` and ``ClientGroup`` (§3, §5.10): ``stop``/``astop`` (``close``/``aclose``
deprecated), its first parameter named ``source`` (``config=`` deprecated), its client options typed and
checked by name; ``establish_connection`` is ``with ClientGroup(...)`` (kept: the reference design's entry point)."""

from __future__ import annotations

import warnings

import pytest

import mcp_litellm as ml
from tests.servers.fixture_server import build_server


def _config() -> dict[str, object]:
    return {"mcpServers": {"fixture": {"server": build_server(), "per_user": False}}}


def test_a_pool_stops_as_clients_and_groups_do_and_close_is_a_deprecated_alias():
    pool = ml.ClientPool(_config())
    with pool.borrow("alice") as group:
        assert group.tools()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pool.stop()  # no warning
    with pytest.raises(ml.ConfigError, match="closed"):
        pool.for_user("alice")
    old = ml.ClientPool(_config())
    with pytest.warns(DeprecationWarning, match=r"close\(\) is deprecated; use stop\(\)"):
        old.close()


async def test_astop_and_the_deprecated_aclose():
    pool = ml.ClientPool(_config())
    async with pool.aborrow("alice") as group:
        assert await group.atools()
    await pool.astop()
    with pytest.warns(DeprecationWarning, match=r"aclose\(\) is deprecated; use astop\(\)"):
        await ml.ClientPool(_config()).aclose()


def test_the_first_parameter_is_source_and_config_is_its_deprecated_name():
    with ml.ClientPool(source=_config()) as pool:
        assert pool.shared == ["fixture"]
    with pytest.warns(DeprecationWarning, match="named source"):
        old = ml.ClientPool(config=_config())  # type: ignore[call-arg]
    assert old.shared == ["fixture"]
    old.stop()
    with pytest.raises(ml.ConfigError, match="once"):
        ml.ClientPool(_config(), config=_config())  # type: ignore[call-arg]


@pytest.mark.parametrize("make", [ml.ClientGroup, ml.ClientPool])
def test_a_misspelt_client_option_names_the_closest_one(make):
    with pytest.raises(ml.ConfigError, match=r"unknown option\(s\) for Client(Group|Pool): request_timout "
                                             r"\(did you mean request_timeout\?\)"):
        make(_config(), request_timout=5)


def test_establish_connection_is_a_with_client_group_and_strict_is_keyword_only():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with ml.establish_connection(_config()) as group:
            assert isinstance(group, ml.ClientGroup) and group.tools()
    with pytest.warns(DeprecationWarning, match="pass it by name"), \
            ml.establish_connection(_config(), False) as group:  # type: ignore[misc]
        assert group.strict is False


async def test_aestablish_connection_is_an_async_with_client_group():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        async with ml.aestablish_connection(_config(), strict=False) as group:
            assert isinstance(group, ml.ClientGroup) and await group.atools()
