"""Names that moved out of ``quiltsolve.server.app`` (issue 35) still work from there, with a warning."""

from __future__ import annotations

import pytest

from quiltsolve.server import app, config, interceptors, tls

MOVED = {"MAX_RECEIVE_BYTES": config, "CHEAP_THREADS": config, "cgroup_cpu_limit": config,
         "usable_cores": config, "default_workers": config,
         "server_credentials": tls, "server_ssl_context": tls, "OPEN_SERVICES": interceptors}


@pytest.mark.parametrize("name", sorted(MOVED))
def test_a_moved_name_warns_and_is_the_same_object(name):
    with pytest.warns(DeprecationWarning, match=f"server.app.{name} is deprecated: import it from "
                                                f"{MOVED[name].__name__}"):
        old = getattr(app, name)
    assert old is getattr(MOVED[name], name)


def test_the_lifecycle_names_stay_without_a_warning(recwarn):
    from quiltsolve.server.app import SERVICE_NAME, QuiltServer, ServerConfig, build_server, check_port_free

    assert ServerConfig is config.ServerConfig and SERVICE_NAME == "patchwork.v1.PlacementService"
    assert callable(build_server) and callable(check_port_free) and isinstance(QuiltServer, type)
    assert not [w for w in recwarn if issubclass(w.category, DeprecationWarning)]


def test_an_unknown_name_is_still_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'nothing_here'"):
        app.nothing_here  # noqa: B018
