"""deploy/kubernetes and deploy/Dockerfile against the server's real flags, against each other,
and against the Kubernetes API schemas (kubernetes-validate ships them; no cluster needed)."""

from __future__ import annotations

import copy
import re
import tomllib
from pathlib import Path

import pytest
import yaml

import kustomize_lite
from deploy_helpers import (BASE, HEALTHZ, INGRESS_TLS, KUBERNETES, PRODUCTION, REPO, container_env,
                            effective_args, env_names_read, flag_names, one, quantity, server_container)
from quiltsolve.server.__main__ import build_parser, config_from_args
from quiltsolve.web.__main__ import build_web_parser

SERVICE_NAME = "patchwork.v1.PlacementService"
PREFIX = "/opt/quiltsolve"  # the venv the Dockerfile installs into
# the oldest Kubernetes with GA gRPC probes, and the newest schema the validator ships
SCHEMA_VERSIONS = ["1.27.0", "latest"]
OVERLAYS = {"base": BASE, "production": PRODUCTION, "ingress-tls": INGRESS_TLS}
# what the image and the pods run (its flags: python -m quiltsolve.server's plus --http-port / --no-http)
PROGRAM = "quiltsolve-web"
PACKAGE = REPO / "src" / "quiltsolve"
READ_ENV = (PACKAGE / "server" / "__main__.py", PACKAGE / "web" / "__main__.py", REPO / "deploy" / "healthcheck.py")


@pytest.fixture(scope="module", params=sorted(OVERLAYS))
def rendered(request) -> tuple[str, list[dict]]:
    return request.param, kustomize_lite.build(OVERLAYS[request.param])


def _pod_spec(docs: list[dict]) -> dict:
    return one(docs, "Deployment")["spec"]["template"]["spec"]


def _config(container: dict, dockerfile, tmp_path: Path):
    """The ServerConfig the server would build for this container (its checks included)."""
    parser, ns = effective_args(container, dockerfile.env())
    checked = copy.copy(ns)
    if ns.auth_token_file:  # the Secret's file does not exist here: read a stand-in
        stand_in = tmp_path / "tokens"
        stand_in.write_text("token-1\n")
        checked.auth_token_file = str(stand_in)
    return parser, ns, config_from_args(parser, checked)


# ---------------------------------------------------------------- files and schemas

def test_every_yaml_file_parses_and_every_kustomization_renders():
    files = sorted(KUBERNETES.rglob("*.yaml"))
    assert len(files) >= 8
    for path in files:
        docs = kustomize_lite.load_yaml_docs(path)
        assert docs, f"{path} is empty"
    dirs = sorted(p.parent for p in KUBERNETES.rglob("kustomization.yaml"))
    assert set(dirs) == {BASE, PRODUCTION, INGRESS_TLS}
    kinds = {d["kind"] for d in kustomize_lite.build(BASE)}
    assert kinds == {"Deployment", "Service", "HorizontalPodAutoscaler", "PodDisruptionBudget"}


@pytest.mark.parametrize("version", SCHEMA_VERSIONS)
def test_rendered_resources_match_the_kubernetes_schema(rendered, version):
    kubernetes_validate = pytest.importorskip("kubernetes_validate", reason="the dev extra installs it")
    if version == "latest":
        version = kubernetes_validate.latest_version()
    name, docs = rendered
    for doc in docs:
        # strict: unknown fields (a misspelt key) are errors too
        kubernetes_validate.validate(doc, version, strict=True)


def test_the_schema_check_catches_a_misspelt_field():
    kubernetes_validate = pytest.importorskip("kubernetes_validate", reason="the dev extra installs it")
    docs = kustomize_lite.build(BASE)
    dep = one(docs, "Deployment")
    dep["spec"]["template"]["spec"]["containers"][0]["readinessProbes"] = {"grpc": {"port": 50051}}
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(dep, "1.27.0", strict=True)


# ---------------------------------------------------------------- the server's flags

def test_container_flags_and_environment_are_the_servers(rendered, dockerfile, tmp_path):
    name, docs = rendered
    c = server_container(docs)
    parser, ns, config = _config(c, dockerfile, tmp_path)
    known = flag_names(parser)
    for arg in c.get("args", []):
        if arg.startswith("--"):
            assert arg.split("=", 1)[0] in known, f"{name}: {arg} is not a flag of {PROGRAM}"
    read = env_names_read(*READ_ENV)
    for var in container_env(c):
        if var.startswith("QUILTSOLVE_"):
            assert var in read, f"{name}: env {var} is read by neither the server, the web face nor the health check"
    # the container's command is the image's (no command: override of the entry point)
    assert "command" not in c
    assert config.host == "0.0.0.0"


def test_ports_probes_and_service_agree_with_the_server(rendered, dockerfile, tmp_path):
    name, docs = rendered
    c = server_container(docs)
    _, ns, config = _config(c, dockerfile, tmp_path)
    default_port = build_parser().get_default("port")
    ports = {p["name"]: p["containerPort"] for p in c["ports"]}
    assert ports["grpc"] == config.port == default_port == 50051
    assert config.metrics_port is not None, "metrics must be on in a pod"
    assert ports["metrics"] == config.metrics_port
    # the web app and its API, beside gRPC
    assert not ns.no_http, f"{name}: the pods serve the web app"
    assert ports["http"] == ns.http_port == build_web_parser().get_default("http_port") == 8080
    assert len(set(ports.values())) == len(ports)
    # the image exposes the same three ports
    assert dockerfile.exposed() == {ports["grpc"], ports["http"], ports["metrics"]}
    annotations = one(docs, "Deployment")["spec"]["template"]["metadata"]["annotations"]
    assert int(annotations["prometheus.io/port"]) == config.metrics_port

    probes = {k: c[k] for k in ("startupProbe", "livenessProbe", "readinessProbe")}
    for kind, probe in probes.items():
        assert len({"grpc", "exec", "httpGet", "tcpSocket"} & set(probe)) == 1, f"{name} {kind}: one handler"
        if "grpc" in probe:
            assert probe["grpc"]["port"] == config.port, f"{name} {kind}"
    # readiness: the web face's health endpoint, on the named HTTP port, HTTPS when the server has TLS
    ready = probes["readinessProbe"]["httpGet"]
    assert ready["path"] == HEALTHZ
    assert ready["port"] == "http" or ready["port"] == ports["http"], f"{name}: readiness on the HTTP port"
    assert ready.get("scheme", "HTTP") == ("HTTPS" if config.tls_cert else "HTTP"), name
    # liveness: the whole server's gRPC health (service ""), natively or through the image's check
    live = probes["livenessProbe"]
    if "grpc" in live:
        assert live["grpc"].get("service", "") == ""
    else:
        assert not any(a.startswith("--service") for a in live["exec"]["command"]), name

    svc = one(docs, "Service", "quiltsolve")  # the gRPC one; the ingress-tls overlay adds quiltsolve-web
    by_name = {p["name"]: p for p in svc["spec"]["ports"]}
    assert by_name["grpc"]["port"] == config.port and by_name["grpc"]["targetPort"] in ("grpc", config.port)
    assert by_name["metrics"]["port"] == config.metrics_port
    assert by_name["http"]["port"] == ns.http_port and by_name["http"]["targetPort"] == "http"
    assert by_name["http"].get("appProtocol") == "http"
    for p in svc["spec"]["ports"]:
        assert p["targetPort"] in ports or p["targetPort"] in ports.values(), p


def test_the_readiness_service_name_is_the_servers():
    from quiltsolve.server.app import SERVICE_NAME as served
    assert served == SERVICE_NAME


def test_the_readiness_path_is_the_web_apps_health_endpoint():
    from quiltsolve.web.app import ENDPOINTS
    assert [e.method for e in ENDPOINTS if e.path == HEALTHZ] == ["GET"]


def test_termination_grace_covers_prestop_and_the_servers_drain(rendered, dockerfile, tmp_path):
    name, docs = rendered
    spec = _pod_spec(docs)
    c = server_container(docs)
    _, ns, config = _config(c, dockerfile, tmp_path)
    command = c["lifecycle"]["preStop"]["exec"]["command"]
    assert command[0] == "sleep"
    pre_stop = float(command[1])
    assert pre_stop > 0, "endpoints need a moment to drop the pod before SIGTERM"
    # the grace period runs from the start of preStop; the server ends within grace + 1 s of SIGTERM
    assert spec["terminationGracePeriodSeconds"] > pre_stop + config.grace + 1
    assert dockerfile.last("STOPSIGNAL").args == "SIGTERM"


def test_resources_follow_the_worker_processes(rendered, dockerfile, tmp_path):
    name, docs = rendered
    c = server_container(docs)
    _, ns, config = _config(c, dockerfile, tmp_path)
    req, lim = c["resources"]["requests"], c["resources"]["limits"]
    # one main worker per requested core (QUILTSOLVE_WORKERS follows requests.cpu)
    assert config.workers == quantity(req["cpu"]) == 2
    # the limit also covers the fast lane's workers (the front only validates and queues)
    assert quantity(lim["cpu"]) >= config.workers + config.fast_workers
    # main workers may grow to --max-worker-rss before the server replaces them; the front,
    # the fork server and the fast worker get 512 MiB beside them
    assert quantity(lim["memory"]) >= config.workers * config.max_worker_rss + 512 * 2**20
    assert quantity(req["memory"]) <= quantity(lim["memory"])
    # measured: the whole pod peaked at 262-267 MiB under load; the request leaves room above that
    assert quantity(req["memory"]) >= 512 * 2**20


def test_security_context(rendered, dockerfile):
    name, docs = rendered
    spec = _pod_spec(docs)
    c = server_container(docs)
    user = dockerfile.last("USER").args.split(":")[0]
    assert user.isdigit() and int(user) != 0, "runAsNonRoot needs a numeric non-root USER in the image"
    assert spec["securityContext"]["runAsNonRoot"] is True
    assert spec["securityContext"]["runAsUser"] == int(user)
    assert spec["securityContext"]["seccompProfile"]["type"] == "RuntimeDefault"
    sc = c["securityContext"]
    assert sc["readOnlyRootFilesystem"] is True
    assert sc["allowPrivilegeEscalation"] is False
    assert sc["capabilities"]["drop"] == ["ALL"] and "add" not in sc["capabilities"]
    # a writable /tmp (the fork server's socket) from an emptyDir
    mounts = {m["mountPath"]: m["name"] for m in c["volumeMounts"]}
    volumes = {v["name"]: v for v in spec["volumes"]}
    assert "emptyDir" in volumes[mounts["/tmp"]]
    assert spec["automountServiceAccountToken"] is False
    # service links would set QUILTSOLVE_PORT=tcp://... for a Service named quiltsolve
    assert spec["enableServiceLinks"] is False


def test_service_is_headless_and_selects_the_pods(rendered):
    name, docs = rendered
    dep = one(docs, "Deployment")
    labels = dep["spec"]["template"]["metadata"]["labels"]
    assert dep["spec"]["selector"]["matchLabels"].items() <= labels.items()
    svc = one(docs, "Service", "quiltsolve")  # the gRPC one; the ingress-tls overlay adds quiltsolve-web
    assert svc["spec"]["clusterIP"] == "None", "per-call balancing needs every pod's address in DNS"
    assert svc["spec"]["selector"].items() <= labels.items()
    pdb = one(docs, "PodDisruptionBudget")
    assert pdb["spec"]["selector"]["matchLabels"].items() <= labels.items()
    hpa = one(docs, "HorizontalPodAutoscaler")
    assert hpa["apiVersion"] == "autoscaling/v2"
    ref = hpa["spec"]["scaleTargetRef"]
    assert (ref["kind"], ref["name"]) == ("Deployment", dep["metadata"]["name"])
    (metric,) = hpa["spec"]["metrics"]
    assert metric["resource"]["name"] == "cpu" and metric["resource"]["target"]["type"] == "Utilization"
    assert 2 <= hpa["spec"]["minReplicas"] <= hpa["spec"]["maxReplicas"]
    # with maxUnavailable 1 of at least 2 pods, a drain never takes the last one
    assert pdb["spec"]["maxUnavailable"] < hpa["spec"]["minReplicas"]
    # the autoscaler owns the replica count: a replicas field would reset it on every apply
    assert "replicas" not in dep["spec"]
    for d in docs:
        if d["kind"] != "Namespace":
            assert d["metadata"]["labels"]["app.kubernetes.io/name"] == "quiltsolve"


# ---------------------------------------------------------------- the image

def test_entrypoint_healthcheck_and_env_of_the_image(dockerfile):
    assert len(dockerfile.all("FROM")) == 2, "a build stage and a runtime stage"
    entry = dockerfile.last("ENTRYPOINT").exec_form()
    # exec form, tini as PID 1 forwarding SIGTERM straight to the web face's console script
    assert entry == ["/usr/bin/tini", "--", f"{PREFIX}/bin/{PROGRAM}"]
    assert dockerfile.last("CMD").exec_form() == []
    health = dockerfile.last("HEALTHCHECK")
    assert health.exec_form() == [f"{PREFIX}/bin/python", f"{PREFIX}/healthcheck.py"]
    env = dockerfile.env()
    assert env["QUILTSOLVE_HOST"] == "0.0.0.0"
    assert "QUILTSOLVE_WORKERS" not in env, "a fixed worker count would ignore the container's cores"
    read = env_names_read(PACKAGE / "server" / "__main__.py", PACKAGE / "web" / "__main__.py")
    assert {k for k in env if k.startswith("QUILTSOLVE_")} <= read
    # the image's defaults parse as the program's flags: every face on all interfaces
    from deploy_helpers import environment
    with environment(env):
        ns = build_web_parser().parse_args([])
    assert ns.host == "0.0.0.0" and ns.port == 50051 and ns.metrics_port == 9464
    assert ns.http_port == 8080 and not ns.no_http
    assert dockerfile.exposed() == {ns.port, ns.http_port, ns.metrics_port}


def test_the_entry_point_is_the_projects_console_script(dockerfile):
    scripts = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts[PROGRAM] == "quiltsolve.web.__main__:main"
    from quiltsolve import web
    import quiltsolve.web.__main__
    assert callable(web.__main__.main)
    # what the build step checks is installed, and what `make serve` runs
    assert "quiltsolve-web quiltsolve-server" in (REPO / "deploy" / "build-image-steps.sh").read_text()
    serve = [line for line in (REPO / "Makefile").read_text().splitlines() if line.startswith("\t") and
             "--http-port" in line]
    assert len(serve) == 1 and serve[0].split()[0] == f"$(BIN)/{PROGRAM}"


def test_the_dockerfile_runs_the_build_steps_script(dockerfile):
    build_runs = " ".join(i.args for i in dockerfile.all("RUN", 0))
    runtime_runs = " ".join(i.args for i in dockerfile.all("RUN", dockerfile.final_stage))
    assert "deploy/build-image-steps.sh wheels /src /dist" in build_runs
    assert f"build-image-steps.sh install /dist {PREFIX}" in runtime_runs
    assert "from=build" in runtime_runs, "the wheels come from the build stage, bind-mounted"
    # a content record of the build stage's output comes before the install, or a cached
    # install layer could outlive the wheels it was made from
    final = [i for i in dockerfile.instructions if i.stage == dockerfile.final_stage]
    copy_at = next(n for n, i in enumerate(final) if i.keyword == "COPY" and "--from=build /dist/SHA256SUMS" in i.args)
    install_at = next(n for n, i in enumerate(final) if i.keyword == "RUN" and "install /dist" in i.args)
    assert copy_at < install_at
    script = (REPO / "deploy" / "build-image-steps.sh").read_text()
    # wheels pinned by constraints.txt; the runtime installs from them only
    assert '-c "$src/constraints.txt"' in script
    assert "--no-index" in script and '-c "$out/constraints.txt"' in script
    assert set(dockerfile.args) == {"BASE", "BUILD_BASE"}
    assert dockerfile.all("FROM")[0].args.startswith("${BUILD_BASE}")
    assert dockerfile.all("FROM")[1].args.startswith("${BASE}")


def test_the_overlay_exec_probes_run_the_images_health_check(dockerfile):
    health = dockerfile.last("HEALTHCHECK").exec_form()
    c = server_container(kustomize_lite.build(PRODUCTION))
    for kind in ("startupProbe", "livenessProbe"):
        assert c[kind]["exec"]["command"][:2] == health, kind
    # readiness stays the kubelet's own: httpGet speaks HTTPS (gRPC probes speak no TLS)
    assert "exec" not in c["readinessProbe"] and c["readinessProbe"]["httpGet"]["scheme"] == "HTTPS"
    # the health check's own timeout fits in the probe's
    for kind in ("startupProbe", "livenessProbe"):
        flag = [a for a in c[kind]["exec"]["command"] if a.startswith("--timeout=")]
        assert flag and float(flag[0].split("=")[1]) < c[kind]["timeoutSeconds"], kind


# ---------------------------------------------------------------- the production overlay

def test_production_overlay_renders_tls_tokens_and_replicas(dockerfile, tmp_path):
    base = kustomize_lite.build(BASE)
    docs = kustomize_lite.build(PRODUCTION)
    k = yaml.safe_load((PRODUCTION / "kustomization.yaml").read_text())
    namespace = k["namespace"]
    assert {d["kind"] for d in docs} == {d["kind"] for d in base} | {"Namespace"}
    for d in docs:
        if d["kind"] != "Namespace":
            assert d["metadata"]["namespace"] == namespace
    assert one(docs, "Namespace")["metadata"]["name"] == namespace

    c = server_container(docs)
    assert c["image"] == f"{k['images'][0]['newName']}:{k['images'][0]['newTag']}"
    assert server_container(base)["image"] == "localhost/quiltsolve:0.2.0"  # what deploy/build-image.sh tags
    # the base's args are kept and the TLS flags appended
    base_args = server_container(base)["args"]
    assert c["args"][:len(base_args)] == base_args
    parser, ns, config = _config(c, dockerfile, tmp_path)
    assert config.tls_cert and config.tls_key and config.auth_tokens

    spec = _pod_spec(docs)
    volumes = {v["name"]: v for v in spec["volumes"]}
    mounts = {m["mountPath"]: m for m in c["volumeMounts"]}

    def from_secret(path: str) -> tuple[str, str]:
        """(secret name, key) that the file at ``path`` comes from."""
        d, _, f = path.rpartition("/")
        m = mounts[d]
        secret = volumes[m["name"]]["secret"]
        assert m.get("readOnly") is True
        items = {i["path"]: i["key"] for i in secret.get("items", [])} or {f: f}
        return secret["secretName"], items[f]

    assert from_secret(ns.tls_cert) == ("quiltsolve-tls", "tls.crt")
    assert from_secret(ns.tls_key) == ("quiltsolve-tls", "tls.key")
    assert from_secret(ns.auth_token_file) == ("quiltsolve-auth", "tokens")
    env = container_env(c)
    assert from_secret(env["QUILTSOLVE_HEALTH_CA"]) == ("quiltsolve-tls", "ca.crt")
    assert env["QUILTSOLVE_HEALTH_TLS"] == "1"
    # the probes check the certificate against the name clients use
    svc = one(docs, "Service")["metadata"]["name"]
    assert env["QUILTSOLVE_HEALTH_SERVER_NAME"] == f"{svc}.{namespace}.svc.cluster.local"
    # the kubelet's gRPC probes are plain text: none may be left beside TLS
    for kind in ("startupProbe", "livenessProbe", "readinessProbe"):
        assert "grpc" not in c[kind], kind
    assert "exec" in c["startupProbe"] and "exec" in c["livenessProbe"]
    assert c["readinessProbe"]["httpGet"] == {"path": HEALTHZ, "port": "http", "scheme": "HTTPS"}
    hpa = one(docs, "HorizontalPodAutoscaler")
    patch = yaml.safe_load((PRODUCTION / "hpa-replicas.yaml").read_text())
    assert hpa["spec"]["minReplicas"] == patch["spec"]["minReplicas"] == 3
    assert hpa["spec"]["maxReplicas"] == patch["spec"]["maxReplicas"]
    assert hpa["spec"]["metrics"] == one(base, "HorizontalPodAutoscaler")["spec"]["metrics"]


# ---------------------------------------------------------------- the ingress-tls overlay

def test_ingress_tls_overlay_ends_tls_at_the_ingress_and_routes_to_the_web_port(dockerfile, tmp_path):
    base = kustomize_lite.build(BASE)
    docs = kustomize_lite.build(INGRESS_TLS)
    assert {d["kind"] for d in docs} == {d["kind"] for d in base} | {"Namespace", "Ingress"}
    # the pods are the base's (only the namespace is set): plain HTTP and gRPC inside the cluster
    dep, base_dep = one(docs, "Deployment"), one(base, "Deployment")
    assert dep["spec"] == base_dep["spec"]
    c = server_container(docs)
    _, ns, config = _config(c, dockerfile, tmp_path)
    assert config.tls_cert is None and c["readinessProbe"]["httpGet"].get("scheme", "HTTP") == "HTTP"
    labels = dep["spec"]["template"]["metadata"]["labels"]
    container_ports = {p["name"]: p["containerPort"] for p in c["ports"]}

    ing = one(docs, "Ingress")
    assert ing["apiVersion"] == "networking.k8s.io/v1"
    (tls,) = ing["spec"]["tls"]
    assert tls["secretName"] == "quiltsolve-web-tls"
    hosts = [r["host"] for r in ing["spec"]["rules"]]
    assert hosts == tls["hosts"], "every routed host is covered by the certificate"
    (rule,) = ing["spec"]["rules"]
    (path,) = rule["http"]["paths"]
    assert (path["path"], path["pathType"]) == ("/", "Prefix")  # the app, its static files and /api/...
    backend = path["backend"]["service"]
    svc = one(docs, "Service", backend["name"])
    assert svc["spec"].get("clusterIP") != "None" and svc["spec"]["type"] == "ClusterIP"
    assert svc["spec"]["selector"].items() <= labels.items()
    (port,) = [p for p in svc["spec"]["ports"] if p["name"] == backend["port"]["name"]]
    # the Service's port leads to the container's HTTP port, where the web app listens
    assert port["targetPort"] == "http" and container_ports["http"] == ns.http_port
    assert [p["name"] for p in svc["spec"]["ports"]] == ["http"], "only the web app goes through the Ingress"
    # streamed answers (analyze-game) are passed on as they come
    assert ing["metadata"]["annotations"]["nginx.ingress.kubernetes.io/proxy-buffering"] == "off"
    from quiltsolve.solver.limits import MAX_TIME_LIMIT  # the longest time limit a request may ask for
    assert float(ing["metadata"]["annotations"]["nginx.ingress.kubernetes.io/proxy-read-timeout"]) > MAX_TIME_LIMIT


def test_docs_show_the_commands_for_this_layout():
    text = (REPO / "docs" / "deploy.md").read_text()
    assert "kubectl apply -k deploy/kubernetes/overlays/production" in text
    assert "dns:///quiltsolve.quiltsolve.svc.cluster.local:50051" in text
    # every --flag the docs pass to the program (after `python -m quiltsolve.server`, `quiltsolve-web` or
    # the image's name) exists
    known = flag_names(build_parser())
    known_web = flag_names(build_web_parser())
    seen = 0
    for line in text.splitlines():
        for marker in ("python -m quiltsolve.server", "quiltsolve-web ", "localhost/quiltsolve:0.2.0 "):
            flags = known if marker == "python -m quiltsolve.server" else known_web
            if marker in line:
                # up to a shell comment, or the end of the inline code span
                tail = line.split(marker, 1)[1].split(" #", 1)[0].split("`", 1)[0]
                for flag in re.findall(r"(?<![\\w-])--[a-z][a-z-]*", tail):
                    seen += 1
                    assert flag in flags, f"docs/deploy.md: {flag} is not a flag after {marker!r}: {line!r}"
    assert seen >= 3
    # both ways to TLS for the web app are shown
    assert "kubectl apply -k deploy/kubernetes/overlays/ingress-tls" in text
    assert HEALTHZ in text


# ---------------------------------------------------------------- the renderer itself

def test_renderer_merges_like_kustomize():
    base = {"spec": {"containers": [{"name": "a", "args": ["--x"], "env": [{"name": "A", "value": "1"}],
                                     "livenessProbe": {"grpc": {"port": 1}, "periodSeconds": 5}}]}}
    patch = {"spec": {"containers": [{"name": "a", "args": ["--y"], "env": [{"name": "B", "value": "2"}],
                                      "livenessProbe": {"grpc": None, "exec": {"command": ["x"]}}},
                                     {"name": "b", "image": "i"}]}}
    out = kustomize_lite.strategic_merge(base, patch)
    a, b = out["spec"]["containers"]
    assert a["args"] == ["--y"]  # lists of scalars are replaced
    assert a["env"] == [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}]  # merged by name
    assert a["livenessProbe"] == {"exec": {"command": ["x"]}, "periodSeconds": 5}  # null deletes
    assert b == {"name": "b", "image": "i"}
    ops = [{"op": "add", "path": "/spec/containers/0/args/-", "value": "--z"},
           {"op": "replace", "path": "/spec/containers/1/image", "value": "j"}]
    out2 = kustomize_lite.json6902(out, ops)
    assert out2["spec"]["containers"][0]["args"] == ["--y", "--z"]
    assert out2["spec"]["containers"][1]["image"] == "j"
    assert out["spec"]["containers"][0]["args"] == ["--y"]  # inputs untouched
    assert kustomize_lite._image_name("registry:5000/q:1.0") == ("registry:5000/q", ":1.0")
    assert kustomize_lite._image_name("registry:5000/q") == ("registry:5000/q", "")


def test_renderer_refuses_what_it_does_not_implement(tmp_path):
    (tmp_path / "kustomization.yaml").write_text("resources: []\ncommonLabels: {a: b}\n")
    with pytest.raises(NotImplementedError):
        kustomize_lite.build(tmp_path)
