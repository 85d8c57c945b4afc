#!/usr/bin/env python3
"""loom_bridge.py -- a starter store bridge for loom-conform, Python standard library only.

It serves every seam of the store bridge protocol (docs/bridge.md) from memory: the EventStore with
every optional method, the SnapshotStore, ArchiveStore and BranchRegistry, the plugin-tier
ContentStore, DurableStateStore and ReadModelStore, and the ExecutionDispatcher. Run it as it is:

    loom-conform certify all --exec 'python3 starters/python/loom_bridge.py'
    loom-conform certify dispatcher --exec 'python3 starters/python/loom_bridge.py'

Started with no arguments it listens on a free loopback port and prints its URL as the first line of
standard output ("listening http://127.0.0.1:PORT/"), which is what `certify --exec` reads.
`--listen HOST:PORT` (or LOOM_BRIDGE_LISTEN, which `certify --image` sets) chooses the address; an
address beyond loopback needs a bearer token in LOOM_CONFORM_TOKEN.

Copy it as the start of a real adapter (docs/adapting.md walks through it). The file is in layers:

  1. JSON that keeps every value exact (numbers are never parsed into floats).
  2. The error codes and the parameter shapes of every wire method (the JSON Schemas in
     wire/bridge/schema/, written as data).
  3. One class per seam. Their dicts are where your database goes: each comment marked
     "real store" says what changes.
  4. The JSON-RPC frame and the HTTP server.

Layers 1, 2 and 4 stay as they are; layer 3 is yours to replace, one seam at a time (declare in
HANDSHAKE only the methods you serve).
"""
import base64
import binascii
import decimal
import hashlib
import hmac
import ipaddress
import json
import os
import re
import secrets
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

IMPLEMENTATION = {"name": "loom-starter-python", "version": "0.1.0"}

# ---------------------------------------------------------------------------------------------
# 1. JSON, value for value (docs/bridge.md, "Values"; I-STORE-3)
# ---------------------------------------------------------------------------------------------
# Payloads, metadata, snapshot states, durable values and documents must come back as the same JSON
# value: 12345678901234567890 stays that integer and 0.1 stays 0.1. Python's ints are exact; the
# fractions are read as Decimal, never float, and written back as they were read.


class RepeatedKey(ValueError):
    pass


def _object(pairs):
    obj = {}
    for key, value in pairs:
        if key in obj:
            raise RepeatedKey("the key %s appears twice in one object" % json.dumps(key))
        obj[key] = value
    return obj


def _refuse_constant(name):
    raise ValueError("%s is not JSON" % name)


def loads(text):
    """Strict JSON: no repeated key, no NaN or Infinity, fractions as Decimal."""
    return json.loads(text, parse_float=decimal.Decimal, object_pairs_hook=_object,
                      parse_constant=_refuse_constant)


def dumps(value, ascii_only=True):
    """Compact JSON of what loads read (ASCII by default, so the answer is always valid UTF-8)."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, (int, decimal.Decimal)):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=ascii_only)
    if isinstance(value, list):
        return "[" + ",".join(dumps(v, ascii_only) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ",".join(json.dumps(k, ensure_ascii=ascii_only) + ":" + dumps(v, ascii_only)
                              for k, v in value.items()) + "}"
    raise TypeError("not a JSON value: %r" % (value,))


def same_json(a, b):
    """Equal as JSON values (I-STORE-29): key order and number spelling aside (1 == 1.0 == 10e-1),
    but true is not 1 and a string is not a number."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, decimal.Decimal)) and isinstance(b, (int, decimal.Decimal)):
        return decimal.Decimal(a) == decimal.Decimal(b)  # exact, whatever the context precision
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_json(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same_json(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def utf8_order(s):
    """The sort key of ids: Python compares str by code point, which is UTF-8 byte order (I-STORE-28)."""
    return s


# ---------------------------------------------------------------------------------------------
# 2. Errors and parameter shapes (docs/bridge.md, "Errors" and "Methods")
# ---------------------------------------------------------------------------------------------

PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS, INTERNAL = -32700, -32600, -32601, -32602, -32603
CONFLICT, FENCED, NOT_FOUND, ALREADY_EXISTS, INVALID_ARGUMENT = -32001, -32002, -32003, -32004, -32005
TOO_LARGE, UNKNOWN_TARGET, LEASE_LOST = -32008, -32009, -32010


class RpcError(Exception):
    def __init__(self, code, message, data=None):
        super().__init__(message)
        self.code, self.message, self.data = code, message, data

    def to_json(self):
        err = {"code": self.code, "message": self.message}
        if self.data is not None:
            err["data"] = self.data
        return err


def invalid(op, argument, reason):
    """-32005: the call is malformed and nothing changed."""
    return RpcError(INVALID_ARGUMENT, "%s: invalid %s: %s" % (op, argument, reason),
                    {"op": op, "argument": argument, "reason": reason})


def conflict(execution_id, expected, actual, reason):
    """-32001: an optimistic write lost. expected and actual are sequences (or versions)."""
    return RpcError(CONFLICT, "conflict on %s: %s" % (json.dumps(execution_id), reason),
                    {"executionId": execution_id, "expected": expected, "actual": actual, "reason": reason})


def not_found(what):
    return RpcError(NOT_FOUND, "not found: " + what)


# The parameter shapes. A dict is an object with exactly these members ("name?" = optional, absent
# rather than null); str, int, bool, dict and list are JSON types; [shape] is an array of that
# shape; ANY is any JSON value; a function is a check of its own.
ANY = object()
BASE64 = re.compile(r"[A-Za-z0-9+/]*={0,2}")


def base64_text(v):
    return isinstance(v, str) and BASE64.fullmatch(v) is not None


def an_integer_from_1_to_600000(v):  # a lease's TTL in milliseconds
    return isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= 600000


ENVELOPE = {"id": str, "workflowId": str, "executionId": str, "eventType": str,
            "sequence": int, "timestamp": int, "payload": ANY, "metadata?": dict}
SNAPSHOT = {"executionId": str, "sequence": int, "state": ANY, "sealed?": bool}
BRANCH = {"id": str, "parentId": str, "forkSequence": int, "metadata?": dict}
PACKAGE = {"executionId": str, "flowId": str, "target?": str, "hints?": dict}
LEASE = {"token": str, "package": PACKAGE, "worker": str, "delivery": int, "expiresAt": int}


def check_shape(value, shape, path):
    """Raise -32602 naming the first member of value that does not have shape."""
    def fail(want):
        raise RpcError(INVALID_PARAMS, "invalid params at %s: want %s" % (path, want), {"argument": path, "reason": "want " + want})
    if shape is ANY:
        return
    if isinstance(shape, dict):
        if not isinstance(value, dict):
            fail("an object")
        members = {k.rstrip("?"): (k.endswith("?"), s) for k, s in shape.items()}
        for name in value:
            if name not in members:
                fail("no member %s" % json.dumps(name))
        for name, (optional, member) in members.items():
            if name in value:
                check_shape(value[name], member, path + "." + name)
            elif not optional:
                fail("the member %s" % json.dumps(name))
    elif isinstance(shape, list):
        if not isinstance(value, list):
            fail("an array")
        for i, item in enumerate(value):
            check_shape(item, shape[0], "%s[%d]" % (path, i))
    elif shape is int:
        if not isinstance(value, int) or isinstance(value, bool):
            fail("an integer")
    elif isinstance(shape, type):
        if not isinstance(value, shape):
            fail({str: "a string", bool: "a boolean", dict: "an object"}[shape])
    elif not shape(value):
        fail(shape.__name__.replace("_", " "))


# NAMES are the members that name something (docs/bridge.md, "Names"): compared as bytes, and never
# holding a lone surrogate, which a store would otherwise decode to U+FFFD and merge with another name.
NAMES = {"executionId", "source", "target", "parentId", "key", "owner", "model", "worker", "targets"}


def check_names(value, path):
    """Raise -32602 for a name (a NAMES member, at any depth but inside payloads) with a lone surrogate."""
    if isinstance(value, dict):
        for name, member in value.items():
            if name in ("payload", "metadata", "state", "value", "doc", "hints", "data"):
                continue  # values keep lone surrogates like any other string
            sub = path + "." + name
            if name in NAMES:
                for s in (member if isinstance(member, list) else [member]):
                    if isinstance(s, str) and any(0xD800 <= ord(c) <= 0xDFFF for c in s):
                        raise RpcError(INVALID_PARAMS, "invalid params at %s: a name holds a lone surrogate" % sub,
                                       {"argument": sub, "reason": "a name with a lone surrogate"})
            check_names(member, sub)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            check_names(item, "%s[%d]" % (path, i))


def check_batch(op, execution_id, events, dense=True):
    """The rules of a batch of envelopes (docs/spi.md, "Errors"): one execution, a non-negative first
    sequence, then dense (the event log) or strictly increasing (the archive)."""
    if execution_id == "":
        raise invalid(op, "executionId", "empty")
    for i, e in enumerate(events):
        if e["executionId"] != execution_id:
            raise invalid(op, "events", "envelope %d has executionId %s, want %s" % (i, json.dumps(e["executionId"]), json.dumps(execution_id)))
        if i == 0 and e["sequence"] < 0:
            raise invalid(op, "events", "envelope 0 has sequence %d, want >= 0" % e["sequence"])
        if i > 0 and dense and e["sequence"] != events[i - 1]["sequence"] + 1:
            raise invalid(op, "events", "envelope %d has sequence %d, want %d (dense)" % (i, e["sequence"], events[i - 1]["sequence"] + 1))
        if i > 0 and not dense and e["sequence"] <= events[i - 1]["sequence"]:
            raise invalid(op, "events", "envelope %d has sequence %d, not after %d" % (i, e["sequence"], events[i - 1]["sequence"]))


# ---------------------------------------------------------------------------------------------
# 3. The seams. Each class names its wire prefix (WIRE), its handshake seam and SPI version, the
# manifest methods it declares (DECLARES) and one parameter shape per wire method (PARAMS); a
# method of the same name (the wire's, hence camelCase) takes the checked params and returns the
# result or raises RpcError. Every call runs under one lock (section 4), so each is atomic and
# they are linearizable, which is what the kits' concurrent checks hold a store to. A real store
# gets the same from its database: one transaction per call, the checks and the write in it.
# ---------------------------------------------------------------------------------------------


class EventStore:
    """The event log (docs/spi.md section 2). Real store: a table of envelopes keyed by
    (execution id, sequence) and a table of one row per execution id holding next, incarnation and
    fence, which outlives deleteExecution."""
    WIRE, SEAM, SPI = "eventStore", "EventStore", "2.6.0"
    DECLARES = ["append", "read", "readRange", "acquireFence", "acquireFenceIf", "appendIfUnchanged",
                "storeNow", "deleteThrough", "sealingCapability", "copyPrefix", "deleteExecution",
                "listExecutionsPage"]
    PARAMS = {
        "append": {"executionId": str, "events": [ENVELOPE], "fence?": int},
        "read": {"executionId": str},
        "readRange": {"executionId": str, "from": int, "to": int},
        "acquireFence": {"executionId": str},
        "acquireFenceIf": {"executionId": str, "expected": int},
        "observe": {"executionId": str},
        "appendIfUnchanged": {"executionId": str, "anchor": str, "events": [ENVELOPE], "fence?": int},
        "storeNow": {},
        "deleteThrough": {"executionId": str, "through": int},
        "sealingCapability": {},
        "copyPrefix": {"source": str, "target": str, "through": int},
        "deleteExecution": {"executionId": str},
        "listExecutionsPage": {"cursor": str, "limit": int},
    }

    class Log:
        def __init__(self):
            self.events = []      # ascending; after deleteThrough the first is not sequence 0
            self.next = 0         # the next free sequence; never reused within an incarnation
            self.incarnation = 0  # raised by deleteExecution (the SPI 2.3.0 anchor rule)
            self.fence = 0        # the current fence token; 0 = never fenced

        def anchor(self):
            return "%d:%d" % (self.incarnation, self.next)

    def __init__(self):
        self.logs = {}
        self.last_now = 0

    def _log(self, execution_id):
        return self.logs.setdefault(execution_id, EventStore.Log())

    def append(self, p, op="append", anchor=None):
        execution_id, events = p["executionId"], p["events"]
        check_batch(op, execution_id, events)  # refusal order: invalid, fenced, conflict (I-STORE-50)
        log = self._log(execution_id)
        fence = p.get("fence", 0)
        if fence != 0 and fence != log.fence:  # an unfenced write is not fence-checked (I-STORE-67)
            raise RpcError(FENCED, "execution %s is fenced: token %d presented, current token is %d" % (json.dumps(execution_id), fence, log.fence),
                           {"executionId": execution_id, "held": fence, "current": log.fence})
        if anchor is not None and anchor != log.anchor():
            raise conflict(execution_id, -1, log.next, "log changed since the observation anchor")
        if not events:
            return None
        if events[0]["sequence"] != log.next:
            raise conflict(execution_id, events[0]["sequence"], log.next,
                           "append at sequence %d, next free is %d" % (events[0]["sequence"], log.next))
        log.events.extend(events)
        log.next += len(events)
        return None

    def read(self, p):
        return self.readRange({"executionId": p["executionId"], "from": 0, "to": -1})

    def readRange(self, p):
        if p["from"] < 0:
            raise invalid("readRange", "from", "%d is negative" % p["from"])
        log = self.logs.get(p["executionId"])
        if log is None:
            return []
        return [e for e in log.events if e["sequence"] >= p["from"] and (p["to"] < 0 or e["sequence"] < p["to"])]

    def acquireFence(self, p):
        if p["executionId"] == "":
            raise invalid("acquireFence", "executionId", "empty")
        log = self._log(p["executionId"])
        log.fence += 1
        return {"executionId": p["executionId"], "token": log.fence}

    def acquireFenceIf(self, p):
        if p["executionId"] == "":
            raise invalid("acquireFenceIf", "executionId", "empty")
        log = self._log(p["executionId"])
        if log.fence != p["expected"]:
            raise RpcError(FENCED, "execution %s: fence %d expected, current token is %d" % (json.dumps(p["executionId"]), p["expected"], log.fence),
                           {"executionId": p["executionId"], "held": p["expected"], "current": log.fence})
        log.fence += 1
        return {"executionId": p["executionId"], "token": log.fence}

    def observe(self, p):
        log = self.logs.get(p["executionId"])
        return {"anchor": log.anchor() if log else "0:0"}

    def appendIfUnchanged(self, p):
        return self.append(p, "appendIfUnchanged", p["anchor"])

    def storeNow(self, p):
        # Real store: the database's clock (PostgreSQL: clock_timestamp()), in epoch milliseconds.
        self.last_now = max(self.last_now, int(time.time() * 1000))
        return {"now": self.last_now}

    def deleteThrough(self, p):
        if p["through"] < 0:
            raise invalid("deleteThrough", "through", "%d is negative" % p["through"])
        log = self.logs.get(p["executionId"])
        if log is not None:
            log.events = [e for e in log.events if e["sequence"] > p["through"]]
        return None

    def sealingCapability(self, p):
        return None  # this store seals nothing

    def copyPrefix(self, p):
        source, target, through = p["source"], p["target"], p["through"]
        if source == "" or target == "" or source == target:
            raise invalid("copyPrefix", "source/target", "must be two different non-empty ids")
        src = self.logs.get(source)
        if src is None or through < 0 or through >= src.next:
            raise invalid("copyPrefix", "through", "%d is outside the source log" % through)
        if not src.events or src.events[0]["sequence"] != 0:
            raise invalid("copyPrefix", "source", "the prefix of %s is no longer stored" % json.dumps(source))
        dst = self._log(target)
        if dst.next != 0:  # written once, even if deleteThrough emptied it since (I-STORE-52)
            raise RpcError(ALREADY_EXISTS, "copyPrefix: target %s is not empty" % json.dumps(target))
        dst.events = [dict(e, executionId=target) for e in src.events if e["sequence"] <= through]
        dst.next = through + 1
        return None

    def deleteExecution(self, p):
        log = self.logs.get(p["executionId"])
        if log is not None:
            log.events, log.next = [], 0
            log.incarnation += 1  # an anchor observed before never matches again
            log.fence += 1        # every token issued before is stale (I-STORE-51)
        return None

    def listExecutionsPage(self, p):
        if p["limit"] < 1:
            raise invalid("listExecutionsPage", "limit", "%d is below 1" % p["limit"])
        ids = sorted((i for i, log in self.logs.items() if log.events and i > p["cursor"]), key=utf8_order)
        if len(ids) > p["limit"]:
            return {"executionIds": ids[:p["limit"]], "next": ids[p["limit"] - 1]}
        return {"executionIds": ids, "next": ""}


class SnapshotStore:
    """Snapshots (docs/spi.md section 3). Real store: a table keyed by (execution id, sequence)."""
    WIRE, SEAM, SPI = "snapshotStore", "SnapshotStore", "1.3.0"
    DECLARES = ["save", "loadLatest", "deleteExecution", "loadLatestSealed", "pruneSnapshots", "listSequences"]
    PARAMS = {
        "save": {"snapshot": SNAPSHOT},
        "loadLatest": {"executionId": str},
        "loadLatestSealed": {"executionId": str},
        "deleteExecution": {"executionId": str},
        "pruneSnapshots": {"executionId": str, "from": int, "through": int},
        "listSequences": {"executionId": str},
    }

    def __init__(self):
        self.snapshots = {}  # execution id -> {sequence: snapshot}

    def save(self, p):
        s = p["snapshot"]
        if s["executionId"] == "":
            raise invalid("save", "executionId", "empty")
        if s["sequence"] < 0:
            raise invalid("save", "sequence", "%d is negative" % s["sequence"])
        if not isinstance(s["state"], dict):
            raise invalid("save", "state", "not a JSON object (a folded state)")
        stored = {"executionId": s["executionId"], "sequence": s["sequence"], "state": s["state"]}
        if s.get("sealed", False):
            stored["sealed"] = True  # absent when false, never "sealed": false
        self.snapshots.setdefault(s["executionId"], {})[s["sequence"]] = stored  # replaces the whole record
        return None

    def _latest(self, execution_id, sealed_only):
        found = [s for s in self.snapshots.get(execution_id, {}).values() if s.get("sealed") or not sealed_only]
        if not found:
            raise not_found("no snapshot of %s" % json.dumps(execution_id))
        return max(found, key=lambda s: s["sequence"])

    def loadLatest(self, p):
        return self._latest(p["executionId"], False)

    def loadLatestSealed(self, p):
        return self._latest(p["executionId"], True)

    def deleteExecution(self, p):
        self.snapshots.pop(p["executionId"], None)
        return None

    def pruneSnapshots(self, p):
        if p["from"] > p["through"]:
            raise invalid("pruneSnapshots", "range", "from %d is after through %d" % (p["from"], p["through"]))
        snaps = self.snapshots.get(p["executionId"], {})
        gone = sorted(seq for seq in snaps if p["from"] <= seq <= p["through"])
        for seq in gone:
            del snaps[seq]
        return gone

    def listSequences(self, p):
        return sorted(self.snapshots.get(p["executionId"], {}))


class ArchiveStore:
    """The compaction archive (docs/spi.md section 4). Real store: a table keyed by (execution id,
    sequence); an insert that finds a different row is a conflict and rolls the call back."""
    WIRE, SEAM, SPI = "archiveStore", "ArchiveStore", "1.1.0"
    DECLARES = ["append", "read", "deleteExecution", "replaceSegments"]
    PARAMS = {
        "append": {"executionId": str, "events": [ENVELOPE]},
        "read": {"executionId": str},
        "deleteExecution": {"executionId": str},
        "replaceSegments": {"executionId": str, "from": int, "through": int, "events": [ENVELOPE]},
    }

    def __init__(self):
        self.archives = {}  # execution id -> {sequence: envelope}

    def append(self, p):
        execution_id, events = p["executionId"], p["events"]
        check_batch("append", execution_id, events, dense=False)  # gaps are fine (I-STORE-53)
        archive = self.archives.get(execution_id, {})
        for e in events:  # check the whole call before writing any of it
            old = archive.get(e["sequence"])
            if old is not None and not same_json(old, e):
                raise RpcError(CONFLICT, "archive of %s: a different envelope is archived at sequence %d" % (json.dumps(execution_id), e["sequence"]))
        archive = self.archives.setdefault(execution_id, archive)
        for e in events:
            archive.setdefault(e["sequence"], e)  # an equal envelope re-sent is kept once (I-STORE-70)
        return None

    def read(self, p):
        archive = self.archives.get(p["executionId"], {})
        return [archive[seq] for seq in sorted(archive)]

    def deleteExecution(self, p):
        self.archives.pop(p["executionId"], None)
        return None

    def replaceSegments(self, p):
        execution_id, first, last, events = p["executionId"], p["from"], p["through"], p["events"]
        if first < 0 or first > last:
            raise invalid("replaceSegments", "range", "[%d, %d] is empty or negative" % (first, last))
        check_batch("replaceSegments", execution_id, events, dense=False)
        for i, e in enumerate(events):
            if not first <= e["sequence"] <= last:
                raise invalid("replaceSegments", "events", "envelope %d has sequence %d outside [%d, %d]" % (i, e["sequence"], first, last))
        archive = self.archives.setdefault(execution_id, {})
        for seq in [s for s in archive if first <= s <= last]:
            del archive[seq]
        for e in events:
            archive[e["sequence"]] = e
        return None


class BranchRegistry:
    """Branches (docs/spi.md section 5). Real store: a table keyed by branch id, indexed by parent."""
    WIRE, SEAM, SPI = "branchRegistry", "BranchRegistry", "1.0.0"
    DECLARES = ["register", "get", "listChildren"]
    PARAMS = {"register": {"branch": BRANCH}, "get": {"id": str}, "listChildren": {"parentId": str}}

    def __init__(self):
        self.branches = {}

    def register(self, p):
        b = p["branch"]
        if b["id"] == "" or b["parentId"] == "":
            raise invalid("register", "id" if b["id"] == "" else "parentId", "empty")
        if b["parentId"] == b["id"]:
            raise invalid("register", "parentId", "%s is the branch itself" % json.dumps(b["id"]))
        if b["forkSequence"] < 0:
            raise invalid("register", "forkSequence", "%d is negative" % b["forkSequence"])
        old = self.branches.get(b["id"])
        if old is not None:
            if same_json(old, b):
                return None  # the same branch again (I-STORE-72)
            raise RpcError(ALREADY_EXISTS, "branch %s is registered with other values" % json.dumps(b["id"]))
        parent, steps = b["parentId"], 0
        while parent in self.branches and steps <= len(self.branches):
            parent, steps = self.branches[parent]["parentId"], steps + 1
            if parent == b["id"]:
                raise invalid("register", "parentId", "%s would make a cycle" % json.dumps(b["parentId"]))
        self.branches[b["id"]] = b
        return None

    def get(self, p):
        b = self.branches.get(p["id"])
        if b is None:
            raise not_found("branch %s" % json.dumps(p["id"]))
        return b

    def listChildren(self, p):
        return sorted((b for b in self.branches.values() if b["parentId"] == p["parentId"]), key=lambda b: utf8_order(b["id"]))


def digest_of(data):
    return "sha256:" + hashlib.sha256(data).hexdigest()


class ContentStore:
    """Content by digest, partitioned by owner (docs/spi.md section 9; streams: docs/bridge.md,
    "Streams"). Real store: a blob table or an object store keyed by (owner, digest); a stream is
    written to a temporary object and made visible by one insert or rename at commit."""
    WIRE, SEAM, SPI = "contentStore", "ContentStore", "1.5.0"
    DECLARES = ["put", "get", "putStream", "owner", "sealsContent"]
    PARAMS = {
        "put": {"data": base64_text, "owner?": str},
        "get": {"digest": str, "owner?": str},
        "streamOpen": {"owner?": str},
        "streamWrite": {"streamId": str, "offset": int, "data": base64_text},
        "streamCommit": {"streamId": str, "size": int},
        "streamAbort": {"streamId": str},
        "sealsContent": {},
    }
    MAX_STREAM_BYTES, STREAM_IDLE_SECONDS = 256 << 20, 120

    def __init__(self):
        self.content = {}  # (owner, digest) -> bytes; "" is no owner
        self.streams = {}  # stream id -> {"owner", "data", "touched"}

    @staticmethod
    def _bytes(op, text):
        try:
            return base64.b64decode(text, validate=True)
        except (binascii.Error, ValueError):
            raise invalid(op, "data", "not standard base64 with padding")

    def _put(self, owner, data):
        digest = digest_of(data)
        self.content.setdefault((owner, digest), data)
        return {"digest": digest, "size": len(data)}

    def put(self, p):
        return self._put(p.get("owner", ""), self._bytes("put", p["data"]))

    def get(self, p):
        if not re.fullmatch(r"sha256:[0-9a-f]{64}", p["digest"]):
            raise invalid("get", "digest", "%s is not sha256:<64 lower-case hex digits>" % json.dumps(p["digest"]))
        data = self.content.get((p.get("owner", ""), p["digest"]))
        if data is None:  # another owner's content is not found either, never "forbidden"
            raise not_found("content %s" % p["digest"])
        return {"data": base64.b64encode(data).decode("ascii")}

    def streamOpen(self, p):
        now = time.monotonic()
        for sid in [s for s, st in self.streams.items() if now - st["touched"] > self.STREAM_IDLE_SECONDS]:
            del self.streams[sid]  # abandoned: neither committed nor aborted
        sid = secrets.token_hex(16)
        self.streams[sid] = {"owner": p.get("owner", ""), "data": bytearray(), "touched": now}
        return {"streamId": sid}

    def _stream(self, op, sid):
        st = self.streams.get(sid)
        if st is None:
            raise invalid(op, "streamId", "%s is not an open stream" % json.dumps(sid))
        st["touched"] = time.monotonic()
        return st

    def streamWrite(self, p):
        st = self._stream("streamWrite", p["streamId"])
        if p["offset"] != len(st["data"]):  # a retried chunk must not be written twice
            raise invalid("streamWrite", "offset", "%d, but %d bytes were written" % (p["offset"], len(st["data"])))
        chunk = self._bytes("streamWrite", p["data"])
        if len(st["data"]) + len(chunk) > self.MAX_STREAM_BYTES:
            del self.streams[p["streamId"]]
            raise RpcError(TOO_LARGE, "stream exceeds %d bytes: aborted" % self.MAX_STREAM_BYTES)
        st["data"] += chunk
        return None

    def streamCommit(self, p):
        st = self._stream("streamCommit", p["streamId"])
        del self.streams[p["streamId"]]  # committed or aborted: finished either way
        if p["size"] != len(st["data"]):
            raise invalid("streamCommit", "size", "%d, but %d bytes were written: stream aborted" % (p["size"], len(st["data"])))
        return self._put(st["owner"], bytes(st["data"]))

    def streamAbort(self, p):
        self.streams.pop(p["streamId"], None)  # an unknown or finished stream: a no-op
        return None

    def sealsContent(self, p):
        return {"seals": False}


class DurableStateStore:
    """Versioned key/value state (docs/spi.md section 10). Real store: a table of (key, value,
    version) plus the highest version each key ever had, so versions never repeat across a delete."""
    WIRE, SEAM, SPI = "durableStateStore", "DurableStateStore", "1.0.0"
    DECLARES = ["get", "set", "delete"]
    PARAMS = {"get": {"key": str}, "set": {"key": str, "value": ANY, "ifVersion?": int}, "delete": {"key": str, "ifVersion?": int}}

    def __init__(self):
        self.entries = {}  # key -> {"key", "value", "version"}
        self.last = {}     # key -> highest version ever given

    def _check(self, op, p):
        if p["key"] == "":
            raise invalid(op, "key", "empty")
        if p.get("ifVersion", 0) < 0:
            raise invalid(op, "ifVersion", "%d is negative" % p["ifVersion"])
        current = self.entries[p["key"]]["version"] if p["key"] in self.entries else 0
        if "ifVersion" in p and p["ifVersion"] != current:  # ifVersion 0: the key must be absent
            reason = "key version is %d, the write expected %d" % (current, p["ifVersion"])
            raise conflict(p["key"], p["ifVersion"], current, reason)

    def get(self, p):
        entry = self.entries.get(p["key"])
        if entry is None:
            raise not_found("key %s" % json.dumps(p["key"]))
        return entry

    def set(self, p):
        self._check("set", p)
        version = self.last.get(p["key"], 0) + 1
        self.last[p["key"]] = version
        self.entries[p["key"]] = {"key": p["key"], "value": p["value"], "version": version}
        return {"version": version}

    def delete(self, p):
        self._check("delete", p)
        self.entries.pop(p["key"], None)
        return None


class ReadModelStore:
    """Projections paged by id (docs/spi.md section 11). Real store: a table keyed by (model, id);
    a page is `WHERE model = $1 AND id > $2 ORDER BY id LIMIT $3` with a byte-order collation."""
    WIRE, SEAM, SPI = "readModelStore", "ReadModelStore", "1.0.0"
    DECLARES = ["upsert", "query"]
    PARAMS = {"upsert": {"model": str, "id": str, "doc": ANY}, "query": {"model": str, "limit": int, "cursor?": str}}
    MAX_LIMIT = 1000

    def __init__(self):
        self.models = {}  # model -> {id: doc}
        self.key = secrets.token_bytes(32)  # signs cursors; a real store keeps one secret for good

    def _sign(self, body):
        return hmac.new(self.key, body, hashlib.sha256).hexdigest()[:24]

    def _cursor(self, model, last_id):
        body = dumps([model, last_id]).encode("ascii")
        return base64.urlsafe_b64encode(body).decode("ascii").rstrip("=") + "." + self._sign(body)

    def _after(self, model, cursor):
        """The last id of the page a cursor ends, if this store issued it for this model."""
        try:
            text, sig = cursor.split(".")
            body = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
            if hmac.compare_digest(sig, self._sign(body)):
                issued_for, last_id = loads(body.decode("ascii"))
                if issued_for == model:
                    return last_id
        except (ValueError, TypeError, binascii.Error):
            pass
        raise invalid("query", "cursor", "not a cursor this store issued for this model")

    def upsert(self, p):
        if p["model"] == "" or p["id"] == "":
            raise invalid("upsert", "model" if p["model"] == "" else "id", "empty")
        self.models.setdefault(p["model"], {})[p["id"]] = p["doc"]  # replaces the whole document
        return None

    def query(self, p):
        model, limit = p["model"], p["limit"]
        if model == "":
            raise invalid("query", "model", "empty")
        if not 1 <= limit <= self.MAX_LIMIT:  # never clamped (I-PLUGIN-8, I-PLUGIN-19)
            raise invalid("query", "limit", "%d is outside 1..%d" % (limit, self.MAX_LIMIT))
        after = self._after(model, p["cursor"]) if p.get("cursor") else None
        docs = self.models.get(model, {})
        ids = sorted((i for i in docs if after is None or i > after), key=utf8_order)
        page = [{"id": i, "doc": docs[i]} for i in ids[:limit]]
        return {"docs": page, "nextCursor": self._cursor(model, ids[limit - 1]) if len(ids) > limit else ""}


class ExecutionDispatcher:
    """Packages leased to workers (docs/spi.md section 8). Real store: a queue table claimed with
    `SELECT ... FOR UPDATE SKIP LOCKED`, leases timed on the database's clock."""
    WIRE, SEAM, SPI = "dispatcher", "ExecutionDispatcher", "1.0.0"
    DECLARES = ["dispatch", "targets", "claim", "heartbeat", "ack"]
    PARAMS = {
        "dispatch": {"package": PACKAGE},
        "targets": {},
        "claim": {"worker": str, "targets": [str], "ttlMs": an_integer_from_1_to_600000},
        "heartbeat": {"lease": LEASE, "ttlMs": an_integer_from_1_to_600000},
        "ack": {"lease": LEASE},
    }
    TARGETS = ["default"]  # the compute targets this deployment registers, ascending
    MAX_HINTS_BYTES = 4096

    def __init__(self):
        self.queue = []  # entries in dispatch order: {"n", "package", "token", "worker", "until", "delivery"}
        self.count = 0

    @staticmethod
    def _now():
        return int(time.time() * 1000)

    def dispatch(self, p):
        pkg = p["package"]
        for name in ("executionId", "flowId"):
            if pkg[name] == "":
                raise invalid("dispatch", name, "empty")
        if "hints" in pkg and len(dumps(pkg["hints"], ascii_only=False).encode("utf-8", "surrogatepass")) > self.MAX_HINTS_BYTES:
            raise invalid("dispatch", "hints", "more than %d bytes: a package carries coordinates, not state" % self.MAX_HINTS_BYTES)
        if pkg.get("target", "") != "" and pkg["target"] not in self.TARGETS:
            raise RpcError(UNKNOWN_TARGET, "unknown compute target %s" % json.dumps(pkg["target"]),
                           {"target": pkg["target"], "known": self.TARGETS})
        self.count += 1
        self.queue.append({"n": self.count, "package": pkg, "token": "", "worker": "", "until": 0, "delivery": 0})
        return None

    def targets(self, p):
        return self.TARGETS

    def claim(self, p):
        if not p["worker"] or not p["targets"] or "" in p["targets"]:
            raise invalid("claim", "worker/targets", "a worker names itself and at least one target")
        now, heads = self._now(), set()
        for entry in self.queue:  # the oldest deliverable package (I-DISPATCH-12)
            pkg = entry["package"]
            head = pkg["executionId"] not in heads  # only an execution's oldest package (I-DISPATCH-6)
            heads.add(pkg["executionId"])
            leased = entry["token"] and entry["until"] > now
            routed = pkg.get("target", "") in ("", *p["targets"])
            if head and not leased and routed:
                entry["delivery"] += 1
                entry.update(token="%d-%d-%s" % (entry["n"], entry["delivery"], secrets.token_hex(4)),
                             worker=p["worker"], until=now + p["ttlMs"])
                return {"lease": self._lease(entry)}
        return {"lease": None}

    @staticmethod
    def _lease(entry):
        return {"token": entry["token"], "package": entry["package"], "worker": entry["worker"],
                "delivery": entry["delivery"], "expiresAt": entry["until"]}

    def _live(self, lease):
        for entry in self.queue:
            if entry["token"] == lease["token"] and entry["until"] > self._now():  # dead at expiresAt
                return entry
        raise RpcError(LEASE_LOST, "lease %s is lost: it expired" % json.dumps(lease["token"]),
                       {"executionId": lease["package"]["executionId"], "token": lease["token"]})

    def heartbeat(self, p):
        entry = self._live(p["lease"])
        entry["until"] = self._now() + p["ttlMs"]
        return self._lease(entry)

    def ack(self, p):
        self.queue.remove(self._live(p["lease"]))
        return None


SEAMS = [EventStore(), SnapshotStore(), ArchiveStore(), BranchRegistry(),
         ContentStore(), DurableStateStore(), ReadModelStore(), ExecutionDispatcher()]

HANDSHAKE = {
    "protocol": "1.0.0",
    "implementation": IMPLEMENTATION,
    "seams": {s.SEAM: {"spiVersion": s.SPI, "methods": s.DECLARES} for s in SEAMS},
}

# wire method -> (handler, parameter shape)
ROUTES = {"bridge.handshake": (lambda p: HANDSHAKE, {"client?": str, "protocol?": str})}
for _seam in SEAMS:
    for _name, _shape in _seam.PARAMS.items():
        ROUTES[_seam.WIRE + "." + _name] = (getattr(_seam, _name), _shape)

# ---------------------------------------------------------------------------------------------
# 4. JSON-RPC 2.0 over HTTP (docs/bridge.md, "Transport" and "Running it safely")
# ---------------------------------------------------------------------------------------------

LOCK = threading.Lock()
MAX_REQUEST_BYTES = 16 << 20
TOKEN = os.environ.get("LOOM_CONFORM_TOKEN", "")


def answer(body):
    """The JSON-RPC response to one request body (bytes), as a dict."""
    try:
        req = loads(body.decode("utf-8"))
    except UnicodeDecodeError:
        return {"jsonrpc": "2.0", "id": None, "error": {"code": INVALID_REQUEST, "message": "the request is not valid UTF-8"}}
    except RepeatedKey as e:
        return {"jsonrpc": "2.0", "id": None, "error": {"code": INVALID_REQUEST, "message": str(e)}}
    except RecursionError:
        return {"jsonrpc": "2.0", "id": None, "error": {"code": TOO_LARGE, "message": "the request is nested too deeply"}}
    except ValueError as e:
        return {"jsonrpc": "2.0", "id": None, "error": {"code": PARSE_ERROR, "message": "the request is not JSON: %s" % e}}
    if not isinstance(req, dict) or "id" not in req or req.get("jsonrpc") != "2.0" or not isinstance(req.get("method"), str) \
            or isinstance(req["id"], (bool, dict, list)) or req["id"] is None:
        # A batch, a notification (no id: never executed, I-BRIDGE-10) or not a request at all.
        return {"jsonrpc": "2.0", "id": None, "error": {"code": INVALID_REQUEST, "message": "not a JSON-RPC 2.0 request with an id"}}
    try:
        route = ROUTES.get(req["method"])
        if route is None:
            raise RpcError(METHOD_NOT_FOUND, "method not found: %s" % req["method"])
        handler, shape = route
        params = req.get("params", {})
        check_shape(params, shape, "params")
        check_names(params, "params")
        with LOCK:
            return {"jsonrpc": "2.0", "id": req["id"], "result": handler(params)}
    except RpcError as e:
        return {"jsonrpc": "2.0", "id": req["id"], "error": e.to_json()}
    except Exception as e:  # a bug in the store: say so, keep serving
        return {"jsonrpc": "2.0", "id": req["id"], "error": {"code": INTERNAL, "message": "%s: %s" % (type(e).__name__, e)}}


def host_allowed(host):
    """DNS rebinding guard: the Host header names an IP address or localhost, never another name."""
    name = host.rsplit("]", 1)[0].lstrip("[") if host.startswith("[") else host.rsplit(":", 1)[0]
    if name == "localhost" or name.endswith(".localhost"):
        return True
    try:
        ipaddress.ip_address(name)
        return True
    except ValueError:
        return False


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: certify reuses its connections
    timeout = 30                   # a client that sends nothing for 30 s is cut off

    def setup(self):
        super().setup()
        # Nagle's algorithm with delayed ACKs makes every small answer wait about 40 ms; with it off
        # (and the answer written in one send, below) a call takes a fraction of a millisecond.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def reply(self, status, body, content_type="application/json", extra=()):
        head = ["HTTP/1.1 %d %s" % (status, self.responses.get(status, ("",))[0]),
                "Content-Type: " + content_type, "Content-Length: %d" % len(body), *extra]
        if self.close_connection:
            head.append("Connection: close")
        self.wfile.write(("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + body)  # one send

    def refuse(self, status, reason, extra=()):
        self.close_connection = True
        self.reply(status, (reason + "\n").encode(), "text/plain; charset=utf-8", extra)

    def do_POST(self):
        ctype = self.headers.get("Content-Type", "").replace(" ", "").lower()
        if ctype not in ("application/json", "application/json;charset=utf-8"):
            return self.refuse(415, "POST application/json only")
        if not host_allowed(self.headers.get("Host", "")) or self.headers.get("Origin"):
            return self.refuse(403, "refused: the Host must be an IP address or localhost, and no Origin")
        if TOKEN and not hmac.compare_digest(self.headers.get("Authorization", ""), "Bearer " + TOKEN):
            return self.refuse(401, "a bearer token is required", ["WWW-Authenticate: Bearer"])
        length = self.headers.get("Content-Length")
        if length is None or not length.isdigit():
            return self.refuse(411, "Content-Length required")
        if int(length) > MAX_REQUEST_BYTES:
            self.close_connection = True  # the body is not read: the connection cannot be reused
            out = {"jsonrpc": "2.0", "id": None, "error": {"code": TOO_LARGE, "message": "request larger than %d bytes" % MAX_REQUEST_BYTES}}
            return self.reply(200, dumps(out).encode("ascii"))
        self.reply(200, dumps(answer(self.rfile.read(int(length)))).encode("ascii"))

    def not_allowed(self):
        self.refuse(405, "POST only", ["Allow: POST"])

    do_GET = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = do_HEAD = not_allowed

    def log_message(self, fmt, *args):
        pass  # one line per call would flood certify's logs; log your store's own errors instead


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128  # the kits open many connections at once


def fatal(message):
    print(message, file=sys.stderr)
    sys.exit(2)


def main(argv):
    listen = os.environ.get("LOOM_BRIDGE_LISTEN", "127.0.0.1:0")
    if len(argv) == 2 and argv[0] == "--listen":
        listen = argv[1]
    elif argv:
        fatal("usage: loom_bridge.py [--listen HOST:PORT]  (default 127.0.0.1:0, a free loopback port)")
    host, _, port = listen.rpartition(":")
    host = host.strip("[]") or "127.0.0.1"
    if not port.isdigit():
        fatal("loom_bridge.py: --listen %r: want HOST:PORT" % listen)
    if host not in ("127.0.0.1", "::1", "localhost") and len(TOKEN) < 16:
        fatal("loom_bridge.py: listening on %s reaches beyond this machine: set LOOM_CONFORM_TOKEN (16 characters or more)" % host)
    Server.address_family = socket.AF_INET6 if ":" in host else socket.AF_INET
    server = Server((host, int(port)), Handler)
    shown = "127.0.0.1" if host == "0.0.0.0" else ("[%s]" % host if ":" in host else host)
    print("listening http://%s:%d/" % (shown, server.server_address[1]), flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main(sys.argv[1:])
