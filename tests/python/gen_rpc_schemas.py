#!/usr/bin/env python3
"""Writes schemas/rpc/: a JSON Schema (2020-12) for the params and result of
every JSON-RPC method of sextant and for every notification.

The TSP methods are the rows of service/src/endpoints.rs (method, HTTP verb,
route); their params are the HTTP body of the route in the TSP OpenAPI
document (../shared/specs/tsp-API.yaml) with the route's identifiers added,
their result the body of its 200 answer. The components they use are
converted from OpenAPI 3.0 to JSON Schema the way protocol/tests/tsp_schema.rs
does (nullable, plain-type oneOf, int32/int64 bounds) and copied into each
file's $defs. What TSP does not define (the LSP life cycle, progress, time
synchronisation, errors) is written here.

    python3 tests/python/gen_rpc_schemas.py   (needs PyYAML)

protocol/tests/rpc_schema.rs checks that every method has its file and
validates a whole stdio session against them.
"""

import copy
import json
import os
import re
import sys

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SPEC = os.path.join(ROOT, "..", "shared", "specs", "tsp-API.yaml")
OUT = os.path.join(ROOT, "schemas", "rpc")
DRAFT = "https://json-schema.org/draft/2020-12/schema"

# Methods whose client may ask for work-done progress.
LONG = {"tsp/traces/open", "tsp/experiments/create", "tsp/outputs/create"}

TOKEN = {"description": "LSP work-done progress token ($/progress); stdio only, not part of the body",
         "type": ["string", "integer"]}

TIME_RANGE = {
    "type": "object",
    "required": ["experimentUUID", "start", "end"],
    "properties": {
        "experimentUUID": {"type": "string", "minLength": 1},
        "start": {"type": "integer", "description": "ns"},
        "end": {"type": "integer", "description": "ns, not before start"},
        "source": {"type": "string", "description": "a label of the client that made the change"},
    },
}


def file_of(method):
    return method.replace("$/", "lsp.").replace("/", ".") + ".json"


def endpoints():
    """(method, verb, route) of each row of the endpoint table."""
    text = open(os.path.join(ROOT, "service", "src", "endpoints.rs")).read()
    return re.findall(r'endpoint!\("([^"]+)",\s*(Get|Post|Delete)\s+"([^"]+)"', text)


def convert(v):
    """OpenAPI 3.0 schema → JSON Schema 2020-12 (as tsp_schema.rs does)."""
    if isinstance(v, list):
        return [convert(x) for x in v]
    if not isinstance(v, dict):
        return v
    o = dict(v)
    if o.get("nullable") is True:
        del o["nullable"]
        if isinstance(o.get("type"), str):
            o["type"] = [o["type"], "null"]
    one = o.get("oneOf")
    if isinstance(one, list) and all("$ref" not in b and b.get("type", "object") != "object" for b in one):
        o["anyOf"] = o.pop("oneOf")
        o.pop("type", None)
    if o.get("format") == "int32":
        o["minimum"], o["maximum"] = -2**31, 2**31 - 1
    elif o.get("format") == "int64":
        o["minimum"], o["maximum"] = -2**63, 2**63 - 1
    o.pop("example", None)
    if isinstance(o.get("$ref"), str):
        o["$ref"] = o["$ref"].replace("#/components/schemas/", "#/$defs/")
    return {k: convert(x) for k, x in o.items()}


def refs(v, out):
    if isinstance(v, dict):
        r = v.get("$ref")
        if isinstance(r, str) and r.startswith("#/$defs/"):
            out.add(r[len("#/$defs/"):])
        for x in v.values():
            refs(x, out)
    elif isinstance(v, list):
        for x in v:
            refs(x, out)


def with_components(defs, components):
    """`defs` plus every component they reach."""
    todo = set()
    refs(defs, todo)
    while todo:
        name = todo.pop()
        if name in defs:
            continue
        defs[name] = convert(components[name])
        refs(defs[name], todo)
    return defs


def write(method, description, defs, components, extra=None):
    doc = {"$schema": DRAFT, "$id": "https://sextant.invalid/schemas/rpc/" + file_of(method),
           "title": method, "description": description}
    doc.update(extra or {})
    doc["$defs"] = with_components(defs, components)
    with open(os.path.join(OUT, file_of(method)), "w") as f:
        json.dump(doc, f, indent=2, sort_keys=True)
        f.write("\n")


def main():
    spec = yaml.safe_load(open(SPEC))
    components = spec["components"]["schemas"]
    os.makedirs(OUT, exist_ok=True)
    for name in os.listdir(OUT):
        if name.endswith(".json"):
            os.remove(os.path.join(OUT, name))
    index = []
    for method, verb, route in endpoints():
        op = spec["paths"].get(route, {}).get(verb.lower())
        if op is None:
            sys.exit("%s: %s %s is not in the TSP spec" % (method, verb.upper(), route))
        body = op.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema")
        result = op["responses"]["200"]["content"]["application/json"]["schema"]
        ids = re.findall(r"\{(\w+)\}", route)
        own = {"type": "object", "required": ids,
               "properties": {i: {"type": "string", "description": "route identifier"} for i in ids}}
        if method in LONG:
            own["properties"]["workDoneToken"] = TOKEN
        params = {"allOf": [convert(body), own]} if body else own
        write(method, "%s /tsp/api%s: params are the HTTP body with the route's identifiers; "
              "the result is the body of the HTTP 200 answer" % (verb.upper(), route),
              {"params": params, "result": convert(result)}, components,
              {"x-http": "%s %s" % (verb.upper(), route)})
        index.append(method)

    write("errors", "The error of any failed request: code -32602 for a bad request (HTTP 400), "
          "-32001 not found (404), -32003 forbidden (403), -32005 the analysis cannot run (405), "
          "-32006 not acceptable (406), -32009 conflict (409), -32013 too large (413), -32603 "
          "internal; -32700 parse error, -32600 invalid request, -32601 unknown method, -32800 "
          "cancelled. `data` is the HTTP error body with its status, when the service answered.",
          {"error": {"type": "object", "required": ["code", "message"], "properties": {
              "code": {"type": "integer"}, "message": {"type": "string"},
              "data": {"anyOf": [
                  {"allOf": [{"$ref": "#/$defs/ErrorResponse"},
                             {"type": "object", "required": ["status"],
                              "properties": {"status": {"type": "integer"}}}]},
                  {"type": "string"}]}}}},
          components)
    write("initialize", "LSP initialize: traceRoots become directories clients may open traces "
          "under, beside the server's working directory",
          {"params": {"type": "object", "required": ["capabilities"], "properties": {
              "processId": {"type": ["integer", "null"]},
              "clientInfo": {"type": "object", "required": ["name"], "properties": {
                  "name": {"type": "string"}, "version": {"type": "string"}}},
              "capabilities": {"type": "object"},
              "initializationOptions": {"type": ["object", "null"], "properties": {
                  "traceRoots": {"type": "array", "items": {"type": "string"}}}}}},
           "result": {"type": "object", "required": ["capabilities", "serverInfo"], "properties": {
               "capabilities": {"type": "object", "required": ["experimental"], "properties": {
                   "experimental": {"type": "object",
                                    "required": ["protocolVersion", "methods", "outputTypes", "configTypes"],
                                    "properties": {
                                        "protocolVersion": {"const": "0.6.0"},
                                        "methods": {"type": "array", "items": {"type": "string"}},
                                        "outputTypes": {"type": "array", "items": {"type": "string"}},
                                        "configTypes": {"type": "array", "items": {
                                            "$ref": "#/$defs/ConfigurationSourceType"}}}}}},
               "serverInfo": {"type": "object", "required": ["name"], "properties": {
                   "name": {"const": "sextant"}, "version": {"type": "string"}}}}}},
          components)
    for method, what in (("sextant/selectionChanged", "the selected time range"),
                         ("sextant/windowChanged", "the visible time window")):
        write(method, "Notification, both directions: %s of an experiment changed; the server "
              "relays it to every other client (stdio, WebSocket, server-sent events)" % what,
              {"params": TIME_RANGE}, components)
    write("sextant/getSelection", "The experiment's current selection and window (null until set)",
          {"params": {"type": "object", "required": ["experimentUUID"],
                      "properties": {"experimentUUID": {"type": "string"}}},
           "result": {"type": "object", "required": ["experimentUUID", "selection", "window"],
                      "properties": {"experimentUUID": {"type": "string"},
                                     "selection": {"anyOf": [TIME_RANGE, {"type": "null"}]},
                                     "window": {"anyOf": [TIME_RANGE, {"type": "null"}]}}}},
          components)
    write("$/progress", "LSP work-done progress of a request that carried a workDoneToken",
          {"params": {"type": "object", "required": ["token", "value"], "properties": {
              "token": TOKEN,
              "value": {"type": "object", "required": ["kind"], "properties": {
                  "kind": {"enum": ["begin", "report", "end"]},
                  "title": {"type": "string"}, "message": {"type": "string"},
                  "cancellable": {"type": "boolean"},
                  "percentage": {"type": "integer", "minimum": 0, "maximum": 100}}}}}},
          components)
    write("sextant/subscribeSync", "WebSocket only: subscribes to the other clients' sync changes; "
          "each arrives as a sextant/sync notification whose result is {method, params}, the "
          "notification stdio would get. sextant/unsubscribeSync ends it.",
          {"params": {"type": ["array", "null"], "maxItems": 0},
           "result": {"type": ["string", "integer"], "description": "subscription id"},
           "notification": {"type": "object", "required": ["subscription", "result"], "properties": {
               "subscription": {"type": ["string", "integer"]},
               "result": {"type": "object", "required": ["method", "params"], "properties": {
                   "method": {"enum": ["sextant/selectionChanged", "sextant/windowChanged"]},
                   "params": TIME_RANGE}}}}},
          components)
    print("wrote %d TSP methods and the rest to %s" % (len(index), OUT))


if __name__ == "__main__":
    main()
