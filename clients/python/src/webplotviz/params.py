"""Job parameters checked against the server's OpenAPI document before anything is uploaded.

The job form (``POST /jobs``, multipart) has a ``type`` field and a ``params`` field (JSON). The
per-type parameter schemas are found wherever the document gives them: form variants
(``oneOf``/``anyOf``) whose ``type`` is a ``const`` (or a one-value ``enum``), each with its
``params``; or one ``params`` field whose ``oneOf``/``anyOf`` members are titled by type. Either
way ``params`` is an object schema or a JSON string whose ``contentSchema`` is one. A document without per-type schemas (servers before per-type job params) lets only the
type be checked; the server still checks the params before queueing the job.
"""
from __future__ import annotations

from typing import Any, Dict, Iterator, List, Mapping, Optional

from .errors import WebPlotVizError

Schema = Dict[str, Any]

# The job types a user submits (``POST /jobs``) and their input, for help texts. What submit checks
# is the server's own list (its OpenAPI document); the tests hold this one to it.
JOB_TYPES: Dict[str, str] = {
    "sequence-clustering": "FASTA",
    "distance-matrix": "SPIDAL int16 N×N",
    "vectors": "CSV",
    "stock-timeseries": "CSV of daily prices",
}


def _resolve(document: Schema, schema: Any) -> Any:
    """Follows local ``$ref``s (``#/components/schemas/X``)."""
    seen = 0
    while isinstance(schema, dict) and "$ref" in schema and seen < 32:
        target: Any = document
        for part in str(schema["$ref"]).lstrip("#/").split("/"):
            target = target.get(part, {}) if isinstance(target, dict) else {}
        schema = target
        seen += 1
    return schema


def _variants(document: Schema, schema: Any) -> Iterator[Schema]:
    """The schema and, recursively, its oneOf/anyOf/allOf members."""
    schema = _resolve(document, schema)
    if not isinstance(schema, dict):
        return
    yield schema
    for key in ("oneOf", "anyOf", "allOf"):
        for member in schema.get(key, []):
            yield from _variants(document, member)


def _constant(schema: Any) -> Optional[str]:
    if not isinstance(schema, dict):
        return None
    if "const" in schema:
        return str(schema["const"])
    enum = schema.get("enum")
    return str(enum[0]) if isinstance(enum, list) and len(enum) == 1 else None


def job_form(document: Schema) -> Schema:
    """The multipart schema of ``POST /jobs``."""
    try:
        content = document["paths"]["/jobs"]["post"]["requestBody"]["content"]
        return dict(_resolve(document, content["multipart/form-data"]["schema"]))
    except (KeyError, TypeError) as err:
        raise WebPlotVizError("no_job_form", "the server's OpenAPI document describes no job submission form (POST /jobs)") from err


def job_types(document: Schema) -> List[str]:
    """The job types the form accepts."""
    types: List[str] = []
    for variant in _variants(document, job_form(document)):
        field = _resolve(document, variant.get("properties", {}).get("type"))
        if isinstance(field, dict):
            for value in field.get("enum", []) + ([field["const"]] if "const" in field else []):
                if str(value) not in types:
                    types.append(str(value))
    return types


def params_schema(document: Schema, job_type: str) -> Optional[Schema]:
    """The object schema of `job_type`'s params, or None when the document gives none."""
    for variant in _variants(document, job_form(document)):
        properties = variant.get("properties", {})
        typed = _constant(_resolve(document, properties.get("type")))
        field = _resolve(document, properties.get("params"))
        if not isinstance(field, dict) or typed not in (None, job_type):
            continue
        for candidate in (field, _resolve(document, field.get("contentSchema"))):
            if not isinstance(candidate, dict):
                continue
            if typed == job_type:
                merged = _object_schema(document, candidate)
                if merged is not None:
                    return merged
                continue
            # One params field for every type: its oneOf/anyOf members are titled by type.
            for member in candidate.get("oneOf", []) + candidate.get("anyOf", []):
                title = member.get("title") if isinstance(member, dict) else None  # kept beside a $ref
                member = _resolve(document, member)
                if isinstance(member, dict) and job_type in (title, member.get("title"), _constant(member.get("properties", {}).get("type"))):
                    return _object_schema(document, member)
    return None


def _object_schema(document: Schema, schema: Any) -> Optional[Schema]:
    """An object schema's properties, required keys and additionalProperties, allOf parts merged."""
    properties: Dict[str, Any] = {}
    required: List[str] = []
    closed = False
    found = False
    for part in _variants(document, schema):
        if part.get("type") == "object" or "properties" in part:
            found = True
            properties.update(part.get("properties", {}))
            required += list(part.get("required", []))
            closed = closed or part.get("additionalProperties") is False
    if not found:
        return None
    return {"properties": properties, "required": required, "additionalProperties": not closed}


def check_job_params(document: Schema, job_type: str, params: Mapping[str, Any]) -> None:
    """Raises WebPlotVizError (field ``type`` or ``params.<key>``) for an unknown type, an unknown
    key or a missing required key, as far as the document describes them."""
    types = job_types(document)
    if types and job_type not in types:
        raise WebPlotVizError("bad_request", f"type: {job_type!r} is not a job type of this server ({', '.join(types)})", field="type")
    schema = params_schema(document, job_type)
    if schema is None:
        return
    known = schema["properties"]
    if not schema["additionalProperties"]:
        for key in params:
            if key not in known:
                raise WebPlotVizError(
                    "bad_request",
                    f"params.{key}: not a parameter of {job_type} jobs (they take: {', '.join(sorted(known))})",
                    field=f"params.{key}",
                )
    for key in schema["required"]:
        if key not in params:
            raise WebPlotVizError("bad_request", f"params.{key}: required for {job_type} jobs", field=f"params.{key}")
