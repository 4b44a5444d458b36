"""Render a kustomization the way ``kubectl kustomize`` would, for the features deploy/kubernetes uses.

No kustomize binary is on PyPI, so the tests render the overlays with this:
``resources`` (files and directories), ``namespace``, ``images`` and
``patches`` (strategic merge for the Kubernetes kinds and fields used here,
and JSON 6902). Any other kustomization field raises ``NotImplementedError``
rather than being ignored, so the rendering never silently differs from
kustomize's by a feature it lacks.

    python tests/deploy/kustomize_lite.py deploy/kubernetes/overlays/production   # prints the YAML
"""

from __future__ import annotations

import copy
import sys
from pathlib import Path
from typing import Any

import yaml

SUPPORTED = {"apiVersion", "kind", "resources", "namespace", "images", "patches"}
CLUSTER_SCOPED = {"Namespace", "ClusterRole", "ClusterRoleBinding", "CustomResourceDefinition",
                  "PersistentVolume", "StorageClass", "PriorityClass"}
# strategic-merge keys of the list fields used here (k8s.io/api "patchMergeKey")
MERGE_KEYS = {"containers": "name", "initContainers": "name", "env": "name", "volumes": "name",
              "volumeMounts": "mountPath", "imagePullSecrets": "name", "envFrom": None}
POD_TEMPLATE_KINDS = {"Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job"}


def load_yaml_docs(path: Path) -> list[dict]:
    return [d for d in yaml.safe_load_all(path.read_text(encoding="utf-8")) if d is not None]


# ---------------------------------------------------------------- strategic merge

def _list_merge_key(field: str, base: list, patch: list) -> str | None:
    if field == "ports":  # container ports merge on containerPort, Service ports on port
        items = [i for i in base + patch if isinstance(i, dict)]
        return "containerPort" if any("containerPort" in i for i in items) else "port"
    return MERGE_KEYS.get(field)


def strategic_merge(base: Any, patch: Any, field: str = "") -> Any:
    """``patch`` merged into ``base`` (a new object); ``None`` in a map deletes the key."""
    if isinstance(base, dict) and isinstance(patch, dict):
        if patch.get("$patch") == "replace":
            return {k: copy.deepcopy(v) for k, v in patch.items() if k != "$patch"}
        out = copy.deepcopy(base)
        for key, value in patch.items():
            if key.startswith("$"):
                raise NotImplementedError(f"strategic-merge directive {key!r}")
            if value is None:
                out.pop(key, None)
            elif key in out:
                out[key] = strategic_merge(out[key], value, key)
            else:
                out[key] = copy.deepcopy(value)
        return out
    if isinstance(base, list) and isinstance(patch, list):
        key = _list_merge_key(field, base, patch)
        if key is None or not all(isinstance(i, dict) for i in base + patch):
            return copy.deepcopy(patch)  # atomic list (args, command, ...): replaced
        out = copy.deepcopy(base)
        for item in patch:
            if key not in item:
                raise ValueError(f"{field}: patch item without its merge key {key!r}: {item}")
            at = next((i for i, b in enumerate(out) if b.get(key) == item[key]), None)
            if item.get("$patch") == "delete":
                if at is not None:
                    del out[at]
            elif at is None:
                out.append(copy.deepcopy(item))
            else:
                out[at] = strategic_merge(out[at], item, field)
        return out
    return copy.deepcopy(patch)


# ---------------------------------------------------------------- JSON 6902

def _pointer(path: str) -> list[str]:
    if not path.startswith("/"):
        raise ValueError(f"JSON pointer {path!r} must start with /")
    return [p.replace("~1", "/").replace("~0", "~") for p in path[1:].split("/")]


def json6902(doc: dict, ops: list[dict]) -> dict:
    out = copy.deepcopy(doc)
    for op in ops:
        *parents, last = _pointer(op["path"])
        node: Any = out
        for part in parents:
            node = node[int(part)] if isinstance(node, list) else node[part]
        kind = op["op"]
        if isinstance(node, list):
            index = len(node) if last == "-" else int(last)
            if kind == "add":
                node.insert(index, copy.deepcopy(op["value"]))
            elif kind == "replace":
                node[index] = copy.deepcopy(op["value"])
            elif kind == "remove":
                del node[index]
            elif kind == "test":
                assert node[index] == op["value"], op
            else:
                raise NotImplementedError(f"JSON 6902 op {kind!r}")
        else:
            if kind in ("add", "replace"):
                if kind == "replace" and last not in node:
                    raise KeyError(f"replace of missing {op['path']}")
                node[last] = copy.deepcopy(op["value"])
            elif kind == "remove":
                del node[last]
            elif kind == "test":
                assert node[last] == op["value"], op
            else:
                raise NotImplementedError(f"JSON 6902 op {kind!r}")
    return out


# ---------------------------------------------------------------- the kustomization

def _matches(doc: dict, target: dict) -> bool:
    group, _, version = doc["apiVersion"].rpartition("/")
    checks = {"group": group, "version": version, "kind": doc["kind"], "name": doc["metadata"]["name"],
              "namespace": doc["metadata"].get("namespace")}
    for field, want in target.items():
        if field not in checks:
            raise NotImplementedError(f"patch target field {field!r}")
        if checks[field] != want:
            return False
    return True


def _pod_specs(doc: dict) -> list[dict]:
    if doc["kind"] in POD_TEMPLATE_KINDS:
        return [doc["spec"]["template"]["spec"]]
    if doc["kind"] == "CronJob":
        return [doc["spec"]["jobTemplate"]["spec"]["template"]["spec"]]
    if doc["kind"] == "Pod":
        return [doc["spec"]]
    return []


def _image_name(image: str) -> tuple[str, str]:
    """(name, tag-or-digest suffix) of an image reference; a registry port is not a tag."""
    if "@" in image:
        name, digest = image.split("@", 1)
        return name, "@" + digest
    slash = image.rfind("/")
    colon = image.rfind(":")
    if colon > slash:
        return image[:colon], image[colon:]
    return image, ""


def _set_images(docs: list[dict], images: list[dict]) -> None:
    for doc in docs:
        for spec in _pod_specs(doc):
            for c in spec.get("initContainers", []) + spec.get("containers", []):
                name, suffix = _image_name(c["image"])
                for rule in images:
                    if rule["name"] == name:
                        new = rule.get("newName", name)
                        if "digest" in rule:
                            suffix = "@" + rule["digest"]
                        elif "newTag" in rule:
                            suffix = ":" + str(rule["newTag"])
                        c["image"] = new + suffix


def build(directory: str | Path) -> list[dict]:
    """The resources that ``kubectl kustomize DIRECTORY`` prints, as dicts."""
    directory = Path(directory)
    k = yaml.safe_load((directory / "kustomization.yaml").read_text(encoding="utf-8"))
    unknown = set(k) - SUPPORTED
    if unknown:
        raise NotImplementedError(f"{directory}/kustomization.yaml: fields {sorted(unknown)} are not rendered here")
    docs: list[dict] = []
    for res in k.get("resources", []):
        path = directory / res
        docs.extend(build(path) if path.is_dir() else load_yaml_docs(path))
    if k.get("namespace"):
        for doc in docs:
            if doc["kind"] not in CLUSTER_SCOPED:
                doc["metadata"]["namespace"] = k["namespace"]
    for patch in k.get("patches", []):
        body = yaml.safe_load((directory / patch["path"]).read_text(encoding="utf-8")
                              if "path" in patch else patch["patch"])
        target = patch.get("target")
        if isinstance(body, list):  # JSON 6902
            if not target:
                raise ValueError(f"JSON 6902 patch {patch} needs a target")
            hits = [i for i, d in enumerate(docs) if _matches(d, target)]
            for i in hits:
                docs[i] = json6902(docs[i], body)
        else:
            target = target or {"kind": body["kind"], "name": body["metadata"]["name"]}
            hits = [i for i, d in enumerate(docs) if _matches(d, target)]
            for i in hits:
                docs[i] = strategic_merge(docs[i], body)
        if not hits:
            raise ValueError(f"patch {patch} matches no resource")
    _set_images(docs, k.get("images", []))
    return docs


if __name__ == "__main__":
    print(yaml.safe_dump_all(build(sys.argv[1] if len(sys.argv) > 1 else "."), sort_keys=False), end="")
