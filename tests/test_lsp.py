"""The editor path end to end: the real python-lsp-server, its flake8 plugin, and our TLK codes.

The test speaks LSP's JSON-RPC over the server's stdio as an editor does, and checks the
published diagnostics: codes, and ranges (0-based line and character, as LSP counts them).
"""

from __future__ import annotations

import json
import queue
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any, Optional

import pytest

from conftest import ROOT, run_tool

#: Upper bound for any single wait on the server (it starts, runs flake8 in a subprocess, answers).
WAIT_SECONDS = 60.0
EXAMPLE = ROOT / "examples" / "leaky_training.py"


class LanguageServer:
    """A pylsp subprocess and the messages it sends, read on a thread so that no wait can hang."""

    def __init__(self, cwd: Path) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "pylsp"],
            cwd=cwd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.inbox: queue.Queue[Optional[dict[str, Any]]] = queue.Queue()
        self.stderr: list[bytes] = []
        self.next_id = 0
        assert self.process.stdout is not None and self.process.stderr is not None
        threading.Thread(target=self._read, args=(self.process.stdout,), daemon=True).start()
        threading.Thread(target=self._drain, args=(self.process.stderr,), daemon=True).start()

    def _read(self, stream: IO[bytes]) -> None:
        try:
            while True:
                headers: dict[str, str] = {}
                while True:
                    line = stream.readline()
                    if not line:
                        return
                    if line in (b"\r\n", b"\n"):
                        break
                    name, _, value = line.decode("ascii").partition(":")
                    headers[name.strip().lower()] = value.strip()
                body = stream.read(int(headers["content-length"]))
                self.inbox.put(json.loads(body))
        finally:
            self.inbox.put(None)

    def _drain(self, stream: IO[bytes]) -> None:
        for line in stream:
            self.stderr.append(line)

    def send(self, message: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        assert self.process.stdin is not None
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()

    def notify(self, method: str, params: dict[str, Any]) -> None:
        self.send({"method": method, "params": params})

    def request(self, method: str, params: dict[str, Any]) -> Any:
        self.next_id += 1
        request_id = self.next_id
        self.send({"id": request_id, "method": method, "params": params})
        return self.wait_for(lambda message: message.get("id") == request_id and "method" not in message)["result"]

    def wait_for(self, wanted: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        """The next message ``wanted`` accepts; answers the server's own requests meanwhile."""
        deadline = time.monotonic() + WAIT_SECONDS
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(f"no awaited message from pylsp in {WAIT_SECONDS:.0f} s; stderr: {self._errors()}")
            try:
                message = self.inbox.get(timeout=remaining)
            except queue.Empty:
                continue
            if message is None:
                raise AssertionError(f"pylsp closed its output; stderr: {self._errors()}")
            if wanted(message):
                return message
            if "id" in message and "method" in message:  # e.g. window/workDoneProgress/create
                self.send({"id": message["id"], "result": None})

    def _errors(self) -> str:
        return b"".join(self.stderr).decode(errors="replace")[-3000:]

    def close(self) -> None:
        try:
            if self.process.poll() is None:
                self.request("shutdown", {})
                self.notify("exit", {})
                self.process.wait(timeout=10)
        except (AssertionError, OSError, subprocess.TimeoutExpired):
            pass
        finally:
            if self.process.poll() is None:
                self.process.kill()
                self.process.wait(timeout=10)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[LanguageServer]:
    running = LanguageServer(tmp_path)
    try:
        yield running
    finally:
        running.close()


SETTINGS = {
    "pylsp": {
        "plugins": {
            # flake8 is off by default in pylsp; the others are turned off so that only flake8 reports.
            "flake8": {"enabled": True, "executable": shutil.which("flake8") or "flake8", "select": ["TLK"]},
            "pycodestyle": {"enabled": False},
            "pyflakes": {"enabled": False},
            "mccabe": {"enabled": False},
            "pylint": {"enabled": False},
        }
    }
}


def _diagnostics_for(uri: str) -> Callable[[dict[str, Any]], bool]:
    return lambda message: message.get("method") == "textDocument/publishDiagnostics" and message["params"]["uri"] == uri


def test_pylsp_publishes_tlk_diagnostics_with_lsp_ranges(server: LanguageServer, tmp_path: Path) -> None:
    path = tmp_path / "train.py"
    text = EXAMPLE.read_text()
    path.write_text(text)
    uri = path.as_uri()
    capabilities = server.request(
        "initialize",
        {"processId": None, "rootUri": tmp_path.as_uri(), "capabilities": {}, "workspaceFolders": None},
    )["capabilities"]
    assert capabilities["textDocumentSync"]
    server.notify("initialized", {})
    server.notify("workspace/didChangeConfiguration", {"settings": SETTINGS})
    server.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}})

    diagnostics = server.wait_for(_diagnostics_for(uri))["params"]["diagnostics"]
    print(json.dumps(diagnostics, indent=1))  # shown when the test fails
    lines = text.splitlines(keepends=True)

    # The marked lines of the example, and the CLI's 1-based columns for them.
    marked = {
        (number - 1, line.rsplit("# ", 1)[1].strip())
        for number, line in enumerate(text.splitlines(), start=1)
        if "  # TLK" in line
    }
    assert {(d["range"]["start"]["line"], d["code"]) for d in diagnostics} == marked
    cli = json.loads(run_tool("torchleak", "--format", "json", str(path)).stdout)["findings"]
    expected = sorted((
        (
            finding["code"],
            {
                "start": {"line": finding["line"] - 1, "character": finding["column"] - 1},
                # pylsp's flake8 plugin cannot know where a finding ends: it runs to the end of the line.
                "end": {"line": finding["line"] - 1, "character": len(lines[finding["line"] - 1])},
            },
            f"{finding['code']} {finding['message']}",
        )
        for finding in cli
    ), key=_by_place)
    assert sorted(((d["code"], d["range"], d["message"]) for d in diagnostics), key=_by_place) == expected
    assert {(d["source"], d["severity"]) for d in diagnostics} == {("flake8", 2)}  # 2: Warning

    # One concrete case, spelled out: the line of `total_loss += loss`, 0-based, column 8.
    [accumulated] = [d for d in diagnostics if d["code"] == "TLK101"]
    [row] = [number for number, line in enumerate(lines) if line.strip().startswith("total_loss += loss")]
    assert accumulated["range"]["start"] == {"line": row, "character": 8}
    assert lines[row][8:].startswith("total_loss += loss")

    # Editing the buffer (unsaved) re-lints it: the fix clears that diagnostic.
    fixed = text.replace("total_loss += loss  # TLK101", "total_loss += loss.item()")
    server.notify(
        "textDocument/didChange",
        {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": fixed}]},
    )
    after = server.wait_for(_diagnostics_for(uri))["params"]["diagnostics"]
    assert {d["code"] for d in after} == {code for _, code in marked} - {"TLK101"}


def _by_place(diagnostic: tuple[str, dict[str, dict[str, int]], str]) -> tuple[int, int, str]:
    """Order diagnostics by position (two findings can share a code; dicts do not compare)."""
    code, range_, _ = diagnostic
    return range_["start"]["line"], range_["start"]["character"], code


#: Our own pylsp plugin alone: pylsp's linters off, flake8 off (its default).
IN_PROCESS_SETTINGS = {
    "pylsp": {
        "plugins": {
            "pycodestyle": {"enabled": False},
            "pyflakes": {"enabled": False},
            "mccabe": {"enabled": False},
            "pylint": {"enabled": False},
        }
    }
}


def _open(server: LanguageServer, root: Path, path: Path, settings: dict[str, Any]) -> list[dict[str, Any]]:
    server.request("initialize", {"processId": None, "rootUri": root.as_uri(), "capabilities": {}, "workspaceFolders": None})
    server.notify("initialized", {})
    server.notify("workspace/didChangeConfiguration", {"settings": settings})
    uri = path.as_uri()
    server.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": path.read_text()}})
    return server.wait_for(_diagnostics_for(uri))["params"]["diagnostics"]


def test_the_pylsp_plugin_lints_in_the_server_with_the_commands_findings(server: LanguageServer, tmp_path: Path) -> None:
    """The ``pylsp`` entry point: the server itself lints (no flake8 process), the same findings
    as the command at the same places, and an unsaved edit re-lints the buffer."""
    path = tmp_path / "train.py"
    text = EXAMPLE.read_text()
    path.write_text(text)
    diagnostics = _open(server, tmp_path, path, IN_PROCESS_SETTINGS)
    print(json.dumps(diagnostics, indent=1))
    cli = json.loads(run_tool("torchleak", "--format", "json", str(path)).stdout)["findings"]
    assert cli
    lines = text.splitlines()
    expected = sorted((
        (
            finding["code"],
            {
                "start": {"line": finding["line"] - 1, "character": finding["column"] - 1},
                # to the end of the line, as flake8's diagnostics run (a finding has no end)
                "end": {"line": finding["line"] - 1, "character": len(lines[finding["line"] - 1].rstrip())},
            },
            f"{finding['code']} {finding['message']}",
        )
        for finding in cli
    ), key=_by_place)
    assert sorted(((d["code"], d["range"], d["message"]) for d in diagnostics), key=_by_place) == expected
    assert {(d["source"], d["severity"]) for d in diagnostics} == {("torchleak", 2)}

    uri = path.as_uri()
    fixed = text.replace("total_loss += loss  # TLK101", "total_loss += loss.item()")
    server.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": fixed}]})
    after = server.wait_for(_diagnostics_for(uri))["params"]["diagnostics"]
    assert sorted(d["code"] for d in after) == sorted(d["code"] for d in diagnostics if d["code"] != "TLK101")


def test_the_pylsp_plugin_takes_select_from_its_settings(server: LanguageServer, tmp_path: Path) -> None:
    path = tmp_path / "train.py"
    path.write_text(EXAMPLE.read_text())
    settings = json.loads(json.dumps(IN_PROCESS_SETTINGS))
    settings["pylsp"]["plugins"]["torchleak"] = {"select": ["TLK101"]}
    diagnostics = _open(server, tmp_path, path, settings)
    assert [d["code"] for d in diagnostics] == ["TLK101"]


def test_the_pylsp_plugin_can_be_turned_off(server: LanguageServer, tmp_path: Path) -> None:
    path = tmp_path / "train.py"
    path.write_text(EXAMPLE.read_text())
    settings = json.loads(json.dumps(IN_PROCESS_SETTINGS))
    settings["pylsp"]["plugins"]["torchleak"] = {"enabled": False}
    settings["pylsp"]["plugins"]["pyflakes"] = {"enabled": True}  # something must publish
    diagnostics = _open(server, tmp_path, path, settings)
    assert not [d for d in diagnostics if d.get("source") == "torchleak"]
