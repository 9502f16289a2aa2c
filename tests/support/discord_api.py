"""Discord's published API description, as a check of what the bot sends: a request's URL resolved to the
operation of its path template, and its JSON body (or a multipart request's ``payload_json``) validated
against that operation's request-body schema with ``fastjsonschema``, which compiles each schema to Python
once (``jsonschema`` took about ten times as long a request, too slow for every request of the suite). The
description's schemas use only keywords draft 7 reads the same as OpenAPI 3.1's JSON Schema 2020-12, and
formats stay annotations, as in 2020-12.

A body that does not match is what Discord refuses with 400 50035 "Invalid Form Body"; ``check`` returns
the reasons, naming the route and the place in the body of each. A request whose path the description
does not know is refused too: the bot must not call what Discord does not publish.

The description is not in the repository: ``PYRAMIDE_DISCORD_SPEC`` names the file, else it is looked for
at ``../shared/discord-api-spec/openapi.json`` beside the clone. Without it the check is left out
(``tests/support/outside.py`` says so, and requires it under ``CI``).
"""

from __future__ import annotations

import functools
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import fastjsonschema

VARIABLE = "PYRAMIDE_DISCORD_SPEC"
BESIDE = Path(__file__).resolve().parents[3] / "shared" / "discord-api-spec" / "openapi.json"
PUBLISHED = "https://github.com/discord/discord-api-spec (specs/openapi.json)"
API_PREFIX = re.compile(r"^/api(/v[0-9]+)?")


@dataclass(frozen=True)
class Operation:
    method: str
    template: str  # the description's path template, e.g. /channels/{channel_id}/messages
    pattern: re.Pattern[str]
    literal: int  # how many of its segments are literal (the most specific template wins)
    body: str | None  # the JSON pointer of its JSON request body's schema, if the operation takes one


def _pointer(*parts: str) -> str:
    return "".join("/" + part.replace("~", "~0").replace("/", "~1") for part in parts)


def sought() -> Path:
    """Where the description should be: the path ``PYRAMIDE_DISCORD_SPEC`` gives, when set (a path given on
    purpose is never swapped for another file), else ``../shared/discord-api-spec/openapi.json``."""
    given = os.environ.get(VARIABLE, "").strip()
    return Path(given).expanduser() if given else BESIDE


def found() -> bool:
    """Whether the description is there, so that request bodies are checked against it."""
    return sought().is_file()


def described(spec: Path | None = None) -> dict[str, Any]:
    """The description as published, but for where Discord's docs say otherwise (the description's README
    says that the docs win): the docs' file upload sends ``"attachments": [{"id": 0, ...}]``, a snowflake as
    a JSON integer (as discord.py does), where the description types every snowflake as a string of digits;
    both are accepted."""
    spec = spec or sought()
    if not spec.is_file():
        raise FileNotFoundError(f"Discord's API description is not at {spec}: set {VARIABLE} ({PUBLISHED})")
    document = _annotations_kept(json.loads(spec.read_text(encoding="utf-8")))
    schemas = document["components"]["schemas"]
    schemas["SnowflakeType"] = {"anyOf": [schemas["SnowflakeType"], {"type": "integer", "minimum": 0}]}
    return dict(document)


def _annotations_kept(node: Any) -> Any:
    """Without ``contentEncoding`` and ``contentMediaType``: in JSON Schema 2020-12 they only annotate (an
    emoji's ``image`` is a data URI, which the docs ask for, not bare base64), where draft 7 would check them."""
    if isinstance(node, list):
        return [_annotations_kept(item) for item in node]
    if not isinstance(node, dict):
        return node
    return {
        key: _annotations_kept(value)
        for key, value in node.items()
        if not (key in ("contentEncoding", "contentMediaType") and isinstance(value, str))
    }


@functools.cache
def document() -> dict[str, Any]:
    """The description as the validators read it (its unions told apart by ``type``), once per process."""
    published = described()
    return dict(discriminated(published, published["components"]["schemas"]))


@functools.cache
def operations() -> tuple[Operation, ...]:
    """Every operation of the description."""
    found = []
    for template, item in document()["paths"].items():
        segments = template.strip("/").split("/")
        pattern = re.compile("^/" + "/".join("[^/]+" if s.startswith("{") else re.escape(s) for s in segments) + "/?$")
        literal = sum(not s.startswith("{") for s in segments)
        for method, operation in item.items():
            if method == "parameters":
                continue
            content = (operation.get("requestBody") or {}).get("content", {})
            body = None
            if "application/json" in content:
                body = _pointer("paths", template, method, "requestBody", "content", "application/json", "schema")
            found.append(Operation(method.upper(), template, pattern, literal, body))
    return tuple(found)


@functools.cache
def validator(pointer: str) -> Any:
    """The compiled validator of the schema at ``pointer`` (compiled on first use: the bot uses a dozen)."""
    return compiled(document(), pointer)


def compiled(document: dict[str, Any], pointer: str) -> Any:
    """A validator of the schema at ``pointer`` in ``document``: a function that raises
    ``fastjsonschema.JsonSchemaValueException`` for a value the schema does not allow."""
    formats = {name: _annotation for name in _formats(document)}
    return fastjsonschema.compile(
        {**document, "$schema": "http://json-schema.org/draft-07/schema#", "$ref": f"#{pointer}"}, formats=formats
    )


def _annotation(value: Any) -> bool:
    return True  # a format is an annotation, not a check (JSON Schema 2020-12's default)


def _formats(node: Any) -> set[str]:
    if isinstance(node, list):
        return {name for item in node for name in _formats(item)}
    if not isinstance(node, dict):
        return set()
    found = {node["format"]} if isinstance(node.get("format"), str) else set()
    return found | {name for value in node.values() for name in _formats(value)}


def discriminated(node: Any, schemas: dict[str, Any]) -> Any:
    """The description with each union of objects told apart by their ``type`` (components, interaction
    callbacks) validated as the one branch that ``type`` names, instead of trying every branch: the same
    verdicts, as each branch requires its own ``type`` values, in a small part of the time."""
    if isinstance(node, list):
        return [discriminated(item, schemas) for item in node]
    if not isinstance(node, dict):
        return node
    node = {key: discriminated(value, schemas) for key, value in node.items()}
    for union in ("oneOf", "anyOf"):
        branches = node.get(union)
        if isinstance(branches, list) and len(branches) == 2 and {"type": "null"} in branches:
            # "null, or this": null is let through at once, anything else goes to the other branch alone.
            other = branches[1] if branches[0] == {"type": "null"} else branches[0]
            rest = {key: value for key, value in node.items() if key not in (union, "x-discord-union")}
            return {**rest, "if": {"not": {"type": "null"}}, "then": other}
        branches = node.get(union)
        if not isinstance(branches, list) or len(branches) < 2:
            continue
        cases = [_case(branch, schemas) for branch in branches if branch != {"type": "null"}]
        values = [value for case in cases if case is not None for value in case[0]]
        if None in cases or len(values) != len(set(values)):
            continue  # not a union told apart by its members' own ``type``
        rest = {key: value for key, value in node.items() if key not in (union, "x-discord-union")}
        return {
            **rest,
            "if": {"type": "object", "required": ["type"]},
            "then": {
                "properties": {"type": {"enum": values}},
                "allOf": [
                    {"if": {"properties": {"type": {"enum": list(allowed)}}}, "then": branch}
                    for allowed, branch in (case for case in cases if case is not None)
                ],
            },
            "else": {union: branches},
        }
    return node


def _case(branch: Any, schemas: dict[str, Any]) -> tuple[list[Any], Any] | None:
    """The ``type`` values a union's branch (a reference to an object schema) requires, with the branch."""
    reference = branch.get("$ref", "") if isinstance(branch, dict) else ""
    if not reference.startswith("#/components/schemas/") or len(branch) != 1:
        return None
    schema = schemas.get(reference.rpartition("/")[2], {})
    allowed = schema.get("properties", {}).get("type", {}).get("enum")
    if schema.get("type") != "object" or "type" not in schema.get("required", ()) or not allowed:
        return None
    return list(allowed), branch


def resolve(method: str, url: str) -> Operation | None:
    """The operation a request's URL names (its path after ``/api/v10``), or None if none does."""
    return _resolve(method, API_PREFIX.sub("", urlsplit(url).path))


@functools.lru_cache(maxsize=4096)
def _resolve(method: str, path: str) -> Operation | None:
    matches = [op for op in operations() if op.method == method and op.pattern.match(path)]
    return max(matches, key=lambda op: op.literal) if matches else None


def body_of(data: Any, multipart: Any) -> Any:
    """The JSON a request carries: its ``json``, or a multipart form's ``payload_json`` part."""
    for part in multipart or []:
        if part.get("name") == "payload_json":
            return json.loads(part["value"])
    return data


def check(method: str, url: str, body: Any) -> list[str]:
    """Why Discord would refuse this request's body (nothing: it is valid)."""
    operation = resolve(method, url)
    if operation is None:
        return [f"{method} {urlsplit(url).path}: no such route in Discord's API description"]
    if operation.body is None or body is None:
        return []
    return list(_refusals(method, operation, json.dumps(body, sort_keys=True)))


# Many tests send the same bodies (every bot start pushes the same commands): each is checked once.
@functools.lru_cache(maxsize=4096)
def _refusals(method: str, operation: Operation, body: str) -> tuple[str, ...]:
    try:
        validator(operation.body)(json.loads(body))
    except fastjsonschema.JsonSchemaValueException as error:
        where = "/".join(str(part) for part in error.path[1:]) or "(body)"
        return (f"{method} {operation.template}: {where}: {error.message[:300]}",)
    return ()
