#!/usr/bin/env python3
"""kernel.py — a wire kernel ABI client in Python, using only the standard library (docs/wire.md).

    kernel.py URL [FLOWS_JSON]

Drives every flow of FLOWS_JSON (default: flows.json beside this script) against the kernel at
URL: execution.start, the flow's syscalls in order; on a park, execution.resume with attach and a
re-drive from the top (the kernel serves what its log answers); execution.complete; then a replay
(execution.attach on the finished execution, the same calls, complete) that must append nothing.
Prints one JSON line per flow: {flow, executionId, canonical, log}, where canonical is the folded
state as the kernel holds it. Execution ids are $LOOM_EXEC_PREFIX-<flow id> (default "wire").
Exits 1 naming the flow and call on any unexpected answer.
"""
import http.client
import json
import os
import sys
import urllib.parse


class KernelError(Exception):
    pass


class Client:
    """One keep-alive HTTP connection to the kernel; one JSON-RPC 2.0 request per POST."""

    def __init__(self, url):
        u = urllib.parse.urlsplit(url)
        if u.scheme != "http" or not u.hostname:
            raise KernelError(f"{url}: want an http:// URL")
        self.host, self.port, self.path = u.hostname, u.port or 80, u.path or "/"
        self.conn = http.client.HTTPConnection(self.host, self.port, timeout=60)
        self.next_id = 0

    def rpc(self, method, params):
        self.next_id += 1
        body = json.dumps({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        try:
            self.conn.request("POST", self.path, body, {"Content-Type": "application/json"})
            resp = self.conn.getresponse()
            data = resp.read()
        except (OSError, http.client.HTTPException) as e:
            raise KernelError(f"{method}: the kernel did not answer: {e}") from e
        if resp.status != 200:
            raise KernelError(f"{method}: HTTP {resp.status}: {data[:200]!r}")
        msg = json.loads(data)
        if msg.get("jsonrpc") != "2.0" or msg.get("id") != self.next_id:
            raise KernelError(f"{method}: not the response to request {self.next_id}: {msg}")
        return msg

    def ok(self, method, params):
        msg = self.rpc(method, params)
        if "error" in msg:
            raise KernelError(f"{method} {json.dumps(params)} = {json.dumps(msg['error'])}")
        return msg["result"]


def expect(fid, k, call, msg):
    want = call.get("expect") or {}
    err = msg.get("error") or {}
    if want.get("code") != err.get("code"):
        raise KernelError(f"flow {fid} call {k}: error code {err.get('code')}, want {want.get('code')}: {json.dumps(msg)}")
    if want.get("channel") != (err.get("data") or {}).get("channel"):
        raise KernelError(f"flow {fid} call {k}: channel {(err.get('data') or {}).get('channel')}, want {want.get('channel')}")


def complete(c, flow, exe, tok):
    p = {"executionId": exe, "driver": tok}
    if "error" in flow:
        p["error"], want = flow["error"], "failed"
    else:
        p["output"], want = flow.get("output"), "completed"
    st = c.ok("execution.complete", p)["status"]
    if st != want:
        raise KernelError(f"execution.complete {exe}: status {st}, want {want}")


def syscall(c, exe, tok, call):
    return c.rpc("syscall." + call["syscall"], {"executionId": exe, "driver": tok, "args": call.get("args")})


def drive(c, flow, prefix):
    fid = flow["id"]
    exe = f"{prefix}-{fid}"
    calls = flow["calls"]
    tok = c.ok("execution.start", {"flowId": fid, "executionId": exe, "input": flow.get("input")})["driver"]
    resumed, k = False, 0
    while k < len(calls):
        msg = syscall(c, exe, tok, calls[k])
        expect(fid, k, calls[k], msg)
        if (msg.get("result") or {}).get("parked"):
            if resumed:
                raise KernelError(f"flow {fid} call {k} parked a second time")
            resumed = True
            r = flow["resume"]
            tok = c.ok("execution.resume", {"executionId": exe, "eventType": r["eventType"],
                                            "payload": r.get("payload"), "attach": True})["driver"]
            k = 0  # re-drive from the top
            continue
        k += 1
    complete(c, flow, exe, tok)
    before = c.ok("execution.getState", {"executionId": exe, "includeLog": True})

    tok = c.ok("execution.attach", {"executionId": exe})["driver"]  # replay
    for k, call in enumerate(calls):
        msg = syscall(c, exe, tok, call)
        expect(fid, f"replay {k}", call, msg)
        if (msg.get("result") or {}).get("parked"):
            raise KernelError(f"flow {fid} replay call {k} parked")
    complete(c, flow, exe, tok)
    after = c.ok("execution.getState", {"executionId": exe, "includeLog": True})
    if len(after["log"]) != len(before["log"]):
        raise KernelError(f"flow {fid}: the replay appended")
    return {"flow": fid, "executionId": after["executionId"], "canonical": after["canonical"], "log": after["log"]}


def main(argv):
    if len(argv) < 2:
        print("usage: kernel.py URL [FLOWS_JSON]", file=sys.stderr)
        return 2
    path = argv[2] if len(argv) > 2 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "flows.json")
    with open(path, encoding="utf-8") as f:
        flows = json.load(f)["flows"]
    c = Client(argv[1])
    try:
        for flow in flows:
            print(json.dumps(drive(c, flow, os.environ.get("LOOM_EXEC_PREFIX", "wire")), separators=(",", ":")))
    except KernelError as e:
        print(f"kernel.py: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
