"""A predecessor-style script: a small LocalApiClient written from the predecessor's documented
behaviour (docs/compatibility.md: JSON lines over TCP, ids "1", "2", ..., replies matched by
id, ok:false raised with the error text, pushed frames queued whole), and the calls its users'
scripts made. Exits 0 and prints "ok" when every check holds; usage: legacy_script.py PORT."""

import json
import socket
import sys


class LocalApiClient:
    def __init__(self, host="127.0.0.1", port=8765, timeout=30.0):
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.reader = self.sock.makefile("r", encoding="utf-8")
        self.next_id = 0
        self.events = []

    def call(self, method, params=None):
        self.next_id += 1
        request_id = str(self.next_id)
        line = json.dumps({"id": request_id, "method": method, "params": params or {}})
        self.sock.sendall((line + "\n").encode("utf-8"))
        while True:
            frame = self._read()
            if frame.get("type") == "event":
                self.events.append(frame)
            elif frame.get("id") == request_id:
                if not frame.get("ok"):
                    raise RuntimeError(frame.get("error") or "bridge error")
                return frame.get("result")

    def next_event(self):
        while not self.events:
            frame = self._read()
            if frame.get("type") == "event":
                self.events.append(frame)
        return self.events.pop(0)

    def _read(self):
        line = self.reader.readline()
        if not line:
            raise RuntimeError("the daemon closed the connection")
        return json.loads(line)


def check(condition, what):
    if not condition:
        print("FAILED: " + what)
        sys.exit(1)


def main(port):
    client = LocalApiClient(port=port)

    status = client.call("status")
    check(status["connected"] is True, "status.connected")
    check(isinstance(status["events"]["streamId"], str), "status.events.streamId")

    caps = client.call("capabilities")
    surface = caps["surface"]
    check("state" in surface["supported"], "surface.supported names state")
    check(all(isinstance(name, str) for name in surface["unsupported"]), "surface.unsupported are names")
    ops = {op["name"]: op for op in surface["operations"]}
    check(ops["player"]["dependency"].endswith("/issues/1"), "player dependency is the issue URL")
    check(ops["context"]["dependencyLabel"].startswith("mc-agent-interface-mod#2"), "context dependencyLabel")

    subscribed = client.call("subscribe", {"events": ["mark", "lan"]})
    check(subscribed["subscribed"] == ["mark"], "subscribe keeps the known category")
    check("lan" in subscribed.get("warning", ""), "subscribe warns about the unknown one")

    start = client.call("events", {"since": None, "limit": 1})["next"]
    for i in range(5):
        client.call("mark", {"text": "py-%d" % i})
    pushed = [client.next_event() for _ in range(5)]
    check([f["data"]["text"] for f in pushed] == ["py-%d" % i for i in range(5)], "pushed mark frames in order")
    check(all(f["event"] == "mark" for f in pushed), "pushed frames name the category")

    seen, since = [], start
    while True:
        page = client.call("events", {"since": since, "limit": "2", "category": "mark"})
        if not page["events"]:
            break
        seen.extend(e["text"] for e in page["events"])
        since = page["next"]
    check(seen == ["py-%d" % i for i in range(5)], "paging with next gives each event once: %r" % seen)

    client.call("wait", {})
    check(client.call("entities", {"radius": "16"})["type"] == "entities", "numeric string radius")
    clamped = client.call("command_output", {"command": "list", "wait": 99})
    check(clamped["waitClamped"] == {"requested": 99, "used": 30}, "command_output wait clamped and said so")

    try:
        client.call("no_such_method")
        check(False, "an unknown method must fail")
    except RuntimeError as err:
        check("unknown method" in str(err), "unknown method text")
    print("ok")


if __name__ == "__main__":
    main(int(sys.argv[1]))
