#!/usr/bin/env python3
"""kernel.py — a wire kernel ABI client in Python, using only the standard library (docs/wire.md).

    kernel.py URL CASE_DIR...

Each CASE_DIR holds a flow script (flow.json, loom-flowscript/1 or /2, docs/goldens.md) and its driver
(driver.json, loom-driver/1). For each, in order: execution.start with the start action's input
(and the driver's budget, if any), then the script is interpreted and each of its calls made as a
syscall; at a park the driver's next action is sent — a resume (execution.resume with attach) or a
resumeAs (execution.resumeAs with attach, the transform applied here to the input getState
shows) re-drives the script from the top (the kernel serves what its log answers), a cancel
(execution.cancel) ends the run, and fireTimers resumes a park, on whatever gate, whose recorded
wakeAt is due at its time with TIMER_FIRED {wakeAt} (this client holds the driver's virtual
clock); deliver (execution.deliver with attach) re-drives after a message answers a receive or
select, and drive attaches to the execution a continueAsNew started (the driver's e1.next: the
one this case's execution names in _continuedTo, whatever id the kernel gave it) and drives the script from the top with the input it was started with (a
script needing Wave 2 features runs only when the handshake advertises them, I-WIRE-21); a
refused action (-32023, -32025) leaves the run as it was. A run
that ends completes (execution.complete) with the script's output, or its failure's message; a
finished execution is then replayed (execution.attach, the same calls, complete), which must
append nothing. Prints one JSON line per case: {flow, executionId, canonical, log, driven}, where
canonical is the folded state the kernel holds and driven lists {executionId, canonical, log} of
each execution a drive action drove.
Execution ids are $LOOM_EXEC_PREFIX-<case dir name> (default prefix "wire"). Exits 1 naming the
case and statement on any unexpected answer, 2 on a script outside the subset below.

A version 2 script is read as version 1 is; a {"$float": ...} marker in an emit, stream or ui
payload (a number JSON cannot hold) has no form in a JSON-RPC body, so such a script is outside
what the wire carries (I-WIRE-22, exit 2).

The loom-flowscript subset interpreted here (docs/wire.md, "Driving a flow script"): every op
(parallel as I-WIRE-11 says: branches opened, driven in branch order, ended and joined; a decide
whose decider fails sends {"error": {"message"}}, I-WIRE-16); bind; "return";
{"$ref": "name/json/pointer"} references; retry (extra attempts
after an untyped, timed-out or cancelled failure); onError "fail" or "continue" (the failure bound
as {"failed": failure}). A syscall's error answer becomes the failure the in-process interpreter
sees (I-WIRE-10): -32021 typed, -32022 quota, -32020 untyped/timeout (data.message),
step-cancelled or decider; any other error ends the drive.
"""
import http.client
import json
import os
import sys
import urllib.parse

FORMATS = ("loom-flowscript/1", "loom-flowscript/2")
CODE_STEP_FAILED, CODE_TYPED, CODE_QUOTA, CODE_REFUSED, CODE_NOT_RUNNABLE = -32020, -32021, -32022, -32023, -32025
DECIDER_THROWS = "fake: decider throws"  # the message of a decide with fails: true (flowscript.DeciderThrows)


class KernelError(Exception):
    pass


class ScriptError(Exception):
    pass


class Parked(Exception):
    """The run parked on a syscall (status suspended) or ended continued (continueAsNew)."""

    def __init__(self, where, status="suspended"):
        super().__init__(where)
        self.status = status


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
            headers = {"Content-Type": "application/json"}
            if os.environ.get("LOOM_CONFORM_TOKEN"):  # a kernel served beyond loopback wants it
                headers["Authorization"] = "Bearer " + os.environ["LOOM_CONFORM_TOKEN"]
            self.conn.request("POST", self.path, body, headers)
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


def failure_of(err):
    """The failure a flow script sees for a syscall's error answer, or None (the drive ends)."""
    code, data = err.get("code"), err.get("data") or {}
    kind = data.get("kind")
    if code == CODE_TYPED:
        f = {"kind": "typed", "channel": data.get("channel")}
        if data.get("payload") is not None:
            f["payload"] = data["payload"]
        f["message"] = err.get("message", "")
        return f
    if code == CODE_QUOTA:
        return {"kind": "quota", "message": err.get("message", "")}
    if code == CODE_STEP_FAILED and kind == "step-failed":
        m = data.get("message", err.get("message", ""))
        return {"kind": "timeout" if data.get("timeout") else "untyped", "message": m}
    if code == CODE_STEP_FAILED and kind == "step-cancelled":
        return {"kind": "cancelled", "message": f"step {data.get('stepId', '')} cancelled"}
    if code == CODE_STEP_FAILED and kind == "decider":
        return {"kind": "decider", "message": err.get("message", "")}
    return None


def resolve(v, env):
    """v with every {"$ref": "name[/pointer]"} replaced by the bound value (RFC 6901 pointer)."""
    if isinstance(v, list):
        return [resolve(e, env) for e in v]
    if not isinstance(v, dict):
        return v
    if set(v) == {"$ref"} and isinstance(v["$ref"], str):
        ref = v["$ref"]
        name, _, ptr = ref.partition("/")
        if name not in env:
            raise ScriptError(f"reference to unbound name {name!r}")
        x = env[name]
        if ptr == "" and "/" not in ref:
            return x
        for tok in ptr.split("/"):
            tok = tok.replace("~1", "/").replace("~0", "~")
            if isinstance(x, dict) and tok in x:
                x = x[tok]
            elif isinstance(x, list) and tok.isdigit() and str(int(tok)) == tok and int(tok) < len(x):
                x = x[int(tok)]
            else:
                raise ScriptError(f"reference {ref!r}: no member {tok!r}")
        return x
    return {k: resolve(e, env) for k, e in v.items()}


def call_args(st, env):
    """The syscall's arguments for a statement (flowscript.callArgs), references resolved."""
    op, a = st["op"], {}
    if op == "execute":
        task = {"id": st["id"]}
        for k, w in (("kind", "kind"), ("tool", "toolId")):
            if st.get(k):
                task[w] = st[k]
        for k in ("timeoutMs", "atMostOnce"):
            if st.get(k):
                task[k] = st[k]
        if st.get("errors") is not None:  # declared, even empty (I-KERNEL-12)
            task["errors"] = st["errors"]
        a["task"] = task
        if "input" in st:
            a["input"] = resolve(st["input"], env)
    elif op == "run":
        a = {"stepId": st["id"], "toolId": st["tool"]}
        if "input" in st:
            a["input"] = resolve(st["input"], env)
    elif op == "decide":
        a["id"] = st["id"]
        if st.get("fails"):  # the script's decider throws: say so (I-WIRE-16)
            a["error"] = {"message": DECIDER_THROWS}
        for k in ("choice", "context", "policy"):
            if k in st:
                a[k] = resolve(st[k], env)
    elif op == "suspend":
        a["on"] = st["on"]
        for k in ("timeoutMs", "wakeAt", "correlationKey"):
            if st.get(k):
                a[k] = st[k]
    elif op == "sleep":
        a["ms"] = st["ms"]
    elif op == "sleepUntil":
        a["wakeAt"] = st["wakeAt"]
    elif op in ("emit", "stream", "ui"):
        a = {"eventType": st["eventType"], "payload": resolve(st.get("payload"), env)}
    elif op == "continueAsNew":
        a["input"] = resolve(st.get("input"), env)
    elif op == "receive":
        a["topic"] = st["topic"]
    elif op == "select":
        a["topics"] = st["topics"]
    else:
        raise ScriptError(f"op {op!r} is outside this client's subset")
    return a


def syscall(c, exe, tok, branch, op, args):
    p = {"executionId": exe, "driver": tok, "args": args}
    if branch:
        p["branch"] = branch
    return c.rpc("syscall." + op, p)


def run_parallel(c, exe, tok, st, env, where, branch):
    """A parallel over the wire (I-WIRE-11): open, each branch in order then its end, join.
    Returns the answer message of the join; raises Parked."""
    n = len(st["branches"])
    msg = syscall(c, exe, tok, branch, "parallel", {"branches": n})
    if (msg.get("result") or {}).get("parked"):
        raise Parked(where)
    if "error" in msg:
        raise KernelError(f"{where} syscall.parallel open = {json.dumps(msg['error'])}")
    fails = []
    for j, body in enumerate(st["branches"]):
        bp = branch + [j]
        kind, v = run_scope(c, exe, tok, body, None, env, f"{where}.branches[{j}]", bp)
        fails.append(v if kind == "fail" else None)
        end = {"error": {"message": v["message"]}} if kind == "fail" else {"output": v}
        m = syscall(c, exe, tok, bp, "parallel", {"end": end})
        if (m.get("result") or {}).get("parked"):
            raise Parked(where)
        if "error" in m:
            raise KernelError(f"{where}.branches[{j}] syscall.parallel end = {json.dumps(m['error'])}")
    msg = syscall(c, exe, tok, branch, "parallel", {"join": True})
    err = msg.get("error")
    if err and err.get("code") == CODE_STEP_FAILED and (err.get("data") or {}).get("kind") == "branch":
        b = err["data"].get("branch")
        cause = fails[b] if isinstance(b, int) and 0 <= b < len(fails) and fails[b] else {"kind": "syscall", "message": err.get("message", "")}
        return {"failure": {"kind": "branch", "message": err.get("message", ""), "branch": b, "cause": cause}}
    return msg


def run_scope(c, exe, tok, body, ret, env, path, branch=()):
    """Interprets a scope; returns ("done", output) or ("fail", failure); raises Parked."""
    env, last, branch = dict(env), None, list(branch)
    for i, st in enumerate(body):
        where = f"{path}[{i}]"
        attempt = 1
        while True:
            if st["op"] == "parallel":
                msg = run_parallel(c, exe, tok, st, env, where, branch)
                if "failure" in msg:
                    if st.get("onError", "fail") != "continue":
                        return "fail", msg["failure"]
                    value = {"failed": msg["failure"]}
                    break
            else:
                try:
                    args = call_args(st, env)
                except ScriptError as e:
                    raise ScriptError(f"{where}: {e}") from e
                msg = syscall(c, exe, tok, branch, st["op"], args)
            if "error" in msg:
                f = failure_of(msg["error"])
                if f is None:
                    raise KernelError(f"{where} syscall.{st['op']} = {json.dumps(msg['error'])}")
                retryable = f["kind"] in ("untyped", "timeout", "cancelled")
                if st["op"] in ("execute", "run") and retryable and attempt <= st.get("retry", 0):
                    attempt += 1
                    continue
                if st.get("onError", "fail") != "continue":
                    return "fail", f
                value = {"failed": f}
            else:
                res = msg["result"]
                if res.get("parked"):
                    raise Parked(where, res.get("status", "suspended"))
                value = res.get("value")
            break
        if st.get("bind"):
            env[st["bind"]] = value
        last = value
    if ret is not None:
        try:
            return "done", resolve(ret, env)
        except ScriptError as e:
            raise ScriptError(f"{path} return: {e}") from e
    return "done", last


def complete(c, exe, tok, outcome):
    kind, v = outcome
    p = {"executionId": exe, "driver": tok}
    if kind == "fail":
        p["error"], want = {"message": v["message"]}, "failed"
    else:
        p["output"], want = v, "completed"
    st = c.ok("execution.complete", p)["status"]
    if st != want:
        raise KernelError(f"execution.complete {exe}: status {st}, want {want}")


def load(case_dir):
    with open(os.path.join(case_dir, "flow.json"), encoding="utf-8") as f:
        script = json.load(f)
    with open(os.path.join(case_dir, "driver.json"), encoding="utf-8") as f:
        driver = json.load(f)
    if script.get("format") not in FORMATS:
        raise ScriptError(f"{case_dir}/flow.json: format {script.get('format')!r}, want one of {FORMATS}")
    where = float_payload(script.get("body") or [], "body")
    for i, a in enumerate(driver.get("actions") or []):
        where = where or float_payload((a.get("flow") or {}).get("body") or [], f"actions[{i}].flow.body")
    if where:
        raise ScriptError(f'{case_dir}/flow.json: {where}: a {{"$float": ...}} payload has no form in a JSON-RPC body (I-WIRE-22)')
    for k in ("profile", "snapshots"):
        if driver.get(k):
            raise ScriptError(f"{case_dir}/driver.json: {k} is outside what the wire expresses")
    acts = driver.get("actions") or []
    if not acts or acts[0].get("do") != "start" or any(a.get("do") not in ACTIONS for a in acts[1:]):
        raise ScriptError(f"{case_dir}/driver.json: this client drives a start, then {', '.join(ACTIONS)} only")
    return script, driver, acts


ACTIONS = ("resume", "cancel", "resumeAs", "fireTimers", "deliver", "drive")


def has_float(v):
    """Whether v holds a {"$float": ...} marker (flowscript.FloatKey)."""
    if isinstance(v, list):
        return any(has_float(e) for e in v)
    if isinstance(v, dict):
        return (len(v) == 1 and "$float" in v) or any(has_float(e) for e in v.values())
    return False


def float_payload(body, path):
    """The path of the first emit, stream or ui whose payload holds a $float marker, or None."""
    for i, st in enumerate(body):
        if st.get("op") in ("emit", "stream", "ui") and has_float(st.get("payload")):
            return f"{path}[{i}]"
        for j, b in enumerate(st.get("branches") or []):
            w = float_payload(b, f"{path}[{i}].branches[{j}]")
            if w:
                return w
    return None


def features_of(script, acts):
    """The Wave 2 features a case needs: its script's and every resumeAs target's."""
    out = set(script.get("features") or [])
    for a in acts:
        out |= set((a.get("flow") or {}).get("features") or [])
    return out


def transform(t, cur):
    """A resumeAs transform (loom-driver/1: merge, set or fail) applied to the current input:
    (True, migrated), or (False, None) when it fails. A transform is code, so it runs here, on the
    client's side of the wire."""
    if t.get("fail"):
        return False, None
    if "set" in t:
        return True, t["set"]
    if "merge" in t:
        base = dict(cur) if isinstance(cur, dict) else {}
        base.update(t["merge"])
        return True, base
    return True, cur


class Run:
    """One execution driven over the wire: the script re-driven (the last resumeAs's target), the
    flow's input, the driver's token and the run's status after the last drive or action."""

    def __init__(self, c, exe, script, inp):
        self.c, self.exe, self.script, self.inp, self.tok, self.status = c, exe, script, inp, None, None
        self.driven, self.exec_of = [], lambda x: x

    def redrive(self):
        """Drives the script from the top: to a park, or to its end (execution.complete)."""
        try:
            outcome = run_scope(self.c, self.exe, self.tok, self.script["body"], self.script.get("return"),
                                {"input": self.inp}, "body")
        except Parked as p:
            self.status = p.status
            return
        complete(self.c, self.exe, self.tok, outcome)
        self.status = "failed" if outcome[0] == "fail" else "completed"

    def act(self, a, where):
        """One driver action after start; a refusal (-32023, -32025) leaves the run as it was."""
        do, c, exe = a["do"], self.c, self.exe
        if do == "fireTimers":  # the client holds the virtual clock: a due timer park is resumed
            st = c.ok("execution.getState", {"executionId": exe})
            on = json.loads(st["canonical"])["variables"].get("_suspendedOn") or {}
            w = on.get("wakeAt") if isinstance(on, dict) else None
            if st["status"] != "suspended" or not isinstance(w, int) or w <= 0 or w > a["at"]:
                return
            do, a = "resume", {"do": "resume", "eventType": "TIMER_FIRED", "payload": {"wakeAt": w}}
        if do == "resume":
            msg = c.rpc("execution.resume", {"executionId": exe, "eventType": human_gate(c, exe, a["eventType"]),
                                             "payload": a.get("payload"), "attach": True})
        elif do == "cancel":
            msg = c.rpc("execution.cancel", {"executionId": exe, "reason": a.get("reason", "")})
        elif do == "deliver":
            msg = c.rpc("execution.deliver", {"executionId": exe, "topic": a["topic"], "messageId": a["messageId"],
                                              "message": a.get("message"), "attach": True})
        elif do == "drive":  # the execution a continueAsNew started: attach, drive it with its input
            nxt = self.exec_of(a.get("execution"))
            tok = c.ok("execution.attach", {"executionId": nxt})["driver"]
            st = json.loads(c.ok("execution.getState", {"executionId": nxt})["canonical"])
            run = Run(c, nxt, self.script, st["variables"].get("_input"))
            run.tok, run.exec_of = tok, self.exec_of
            run.redrive()
            self.driven.append(nxt)
            return
        else:  # resumeAs
            p = {"executionId": exe, "flowId": a["flow"]["id"], "attach": True}
            if a.get("eventType"):
                p["eventType"], p["payload"] = a["eventType"], a.get("payload")
            inp = self.inp
            if "transform" in a:
                cur = json.loads(c.ok("execution.getState", {"executionId": exe})["canonical"])
                ok, inp = transform(a["transform"], cur["variables"].get("_input"))
                if not ok:
                    return  # the transform failed: nothing is sent, nothing appended
                p["input"] = inp
            msg = c.rpc("execution.resumeAs", p)
        err = msg.get("error")
        if err and err.get("code") in (CODE_REFUSED, CODE_NOT_RUNNABLE):
            return
        if err:
            raise KernelError(f"{where} {do} = {json.dumps(err)}")
        res = msg["result"]
        if do == "cancel":
            self.status = res["status"]
            return
        if do == "resumeAs":
            self.script, self.inp = a["flow"], inp
        self.tok = res["driver"]
        self.redrive()


def human_gate(c, exe, event_type):
    """The gate a resume addressed to event_type goes to: a human step's own id names its gate in the
    reference (I-KERNEL-22), so a park whose condition.stepId is event_type is answered on its gate."""
    on = json.loads(c.ok("execution.getState", {"executionId": exe})["canonical"])["variables"].get("_suspendedOn")
    if isinstance(on, dict) and isinstance(on.get("condition"), dict) and on["condition"].get("stepId") == event_type and on.get("on"):
        return on["on"]
    return event_type


def continued(c, exe, suffix):
    """The execution the k-th continueAsNew from exe started, for the driver's suffix ".next" * k:
    followed through _continuedTo, since the id is the kernel's own."""
    k = suffix.count(".next")
    if suffix != ".next" * k:
        return exe + suffix
    for _ in range(k):
        st = json.loads(c.ok("execution.getState", {"executionId": exe})["canonical"])
        nxt = st["variables"].get("_continuedTo")
        if not isinstance(nxt, str) or not nxt:
            raise KernelError(f"execution {exe} names no execution it continued to (_continuedTo = {nxt!r})")
        exe = nxt
    return exe


def drive(c, case_dir, prefix):
    script, driver, acts = load(case_dir)
    name = os.path.basename(os.path.normpath(case_dir))
    exe = f"{prefix}-{name}"
    need = features_of(script, acts)
    if need:
        have = {s.get("feature") for s in c.ok("wire.handshake", {})["syscalls"]}
        if not need <= have:
            raise ScriptError(f"{name}: needs Wave 2 features {sorted(need - have)} the kernel's handshake does not advertise")
    start_id = driver.get("execution") or "e1"
    run = Run(c, exe, script, acts[0].get("input"))
    run.exec_of = lambda x: continued(c, exe, x[len(start_id):]) if x and x.startswith(start_id) else (x or exe)
    p = {"flowId": script["id"], "executionId": exe, "input": run.inp}
    if driver.get("budget") is not None:
        p["budget"] = driver["budget"]
    run.tok = c.ok("execution.start", p)["driver"]
    run.redrive()
    for i, a in enumerate(acts[1:], 1):
        run.act(a, f"{name}: actions[{i}]")
    if run.status == "suspended":
        raise KernelError(f"{name}: the run parked and the driver has no action left")
    state = c.ok("execution.getState", {"executionId": exe, "includeLog": True})
    if run.status in ("completed", "failed"):  # replay the finished execution: nothing appended
        run.tok = c.ok("execution.attach", {"executionId": exe})["driver"]
        run.redrive()
        if run.status == "suspended":
            raise KernelError(f"{name}: replay: a syscall parked a finished execution")
        after = c.ok("execution.getState", {"executionId": exe, "includeLog": True})
        if len(after["log"]) != len(state["log"]) or after["canonical"] != state["canonical"]:
            raise KernelError(f"{name}: the replay appended")
        state = after
    driven = []
    for d in run.driven:
        st = c.ok("execution.getState", {"executionId": d, "includeLog": True})
        driven.append({"executionId": d, "canonical": st["canonical"], "log": st["log"]})
    return {"flow": name, "executionId": state["executionId"], "canonical": state["canonical"], "log": state["log"], "driven": driven}


def main(argv):
    if len(argv) < 3:
        print("usage: kernel.py URL CASE_DIR...", file=sys.stderr)
        return 2
    c = Client(argv[1])
    prefix = os.environ.get("LOOM_EXEC_PREFIX", "wire")
    try:
        for case_dir in argv[2:]:
            print(json.dumps(drive(c, case_dir, prefix), separators=(",", ":")), flush=True)
    except ScriptError as e:
        print(f"kernel.py: {e}", file=sys.stderr)
        return 2
    except (KernelError, OSError, ValueError) as e:
        print(f"kernel.py: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
