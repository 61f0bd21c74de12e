"""`torchleak --format json|sarif|github`: the real command, checked against the published schemas."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import urlparse
from urllib.request import url2pathname

import jsonschema
import pytest

from conftest import DEEP, LEAKY, LEAKY_MESSAGE, ROOT, run_tool

SARIF_SCHEMA = json.loads((ROOT / "tests" / "data" / "sarif-schema-2.1.0.json").read_text())
JSON_SCHEMA = json.loads((ROOT / "docs" / "output-v1.schema.json").read_text())
#: The one line on stderr for the file too deep to analyse (TLK900 is not selected).
NOTE = "pkg/deep.py: note: not analysed: nested more than 100 levels deep (select TLK900 to report it as a finding)\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A leaky file, a syntax error, a file too deep to analyse, and an undecodable one."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "leaky.py").write_text(LEAKY)
    (tmp_path / "pkg" / "broken.py").write_text("def f(:\n    pass\n")
    (tmp_path / "pkg" / "deep.py").write_text(DEEP)
    (tmp_path / "pkg" / "latin.py").write_bytes(b"x = '\xff'\n")
    return tmp_path


def _documented_page(url: str) -> Path:
    """The rule page a ``url`` names: a file shipped with the package (no web address that
    nobody has confirmed), the same text as the page in this repository's docs/rules."""
    assert url.startswith("file://"), url
    page = Path(url2pathname(urlparse(url).path))
    assert page.read_text() == (ROOT / "docs" / "rules" / page.name).read_text()
    return page


def test_json_follows_its_published_schema(project: Path) -> None:
    result = run_tool("torchleak", "--format", "json", "pkg", cwd=project)
    assert result.returncode == 1 and result.stderr == NOTE
    document = json.loads(result.stdout)
    jsonschema.Draft202012Validator(JSON_SCHEMA).validate(document)
    assert document["findings"] == [
        {
            "path": "pkg/leaky.py",
            "cell": None,
            "line": 5,
            "column": 5,
            "code": "TLK101",
            "name": "accumulated-loss",
            "message": LEAKY_MESSAGE,
            "url": document["findings"][0]["url"],
            "fix": {
                "safety": "safe",
                "description": "accumulate 'loss.item()' instead of 'loss'",
                "reason": "'loss' is a one-element tensor and 'total' is only ever read as a number",
                "edits": [{"start": {"line": 5, "column": 18}, "end": {"line": 5, "column": 18}, "content": ".item()"}],
            },
        }
    ]
    assert document["findings"][0]["url"].endswith("/docs/rules/TLK101.md")
    assert _documented_page(document["findings"][0]["url"]).is_file()
    assert document["errors"] == [
        {"path": "pkg/broken.py", "cell": None, "line": 1, "column": 7, "code": "TLK999", "message": "syntax error: invalid syntax"},
        {
            "path": "pkg/latin.py",
            "cell": None,
            "line": None,
            "column": None,
            "code": None,
            "message": document["errors"][1]["message"],
        },
    ]
    assert document["errors"][1]["message"].startswith("cannot decode")
    assert document["not_analysed"] == [{"path": "pkg/deep.py", "reason": "nested more than 100 levels deep"}]


def test_the_json_schema_rejects_what_it_should() -> None:
    """The published schema is a real contract: a document missing a field or with a bad code fails it."""
    validator = jsonschema.Draft202012Validator(JSON_SCHEMA)
    good = json.loads(run_tool("torchleak", "--format", "json", "-", stdin=LEAKY).stdout)
    validator.validate(good)
    without_url = json.loads(json.dumps(good))
    del without_url["findings"][0]["url"]
    assert not validator.is_valid(without_url)
    bad_code = json.loads(json.dumps(good))
    bad_code["findings"][0]["code"] = "E501"
    assert not validator.is_valid(bad_code)


def test_sarif_validates_against_the_official_schema(project: Path) -> None:
    result = run_tool("torchleak", "--format", "sarif", "pkg", cwd=project)
    assert result.returncode == 1 and result.stderr == NOTE
    log = json.loads(result.stdout)
    validator = jsonschema.Draft4Validator(SARIF_SCHEMA)
    errors = sorted(validator.iter_errors(log), key=str)
    assert errors == [], errors[0].message if errors else ""

    run = log["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    assert [rule["id"] for rule in rules] == [
        line.split()[0] for line in run_tool("torchleak", "--list-rules").stdout.splitlines()
    ]
    for rule in rules[:-2]:  # every rule but TLK900 and TLK999, which have no page
        page = _documented_page(rule["helpUri"])
        # The full page, less the generator's note to the docs' editors (an HTML comment).
        shown = "\n".join(line for line in page.read_text().splitlines(keepends=False) if not line.startswith("<!--"))
        assert "<!--" not in rule["help"]["text"], rule["id"]
        assert rule["help"]["text"].split() == shown.split(), rule["id"]
        assert rule["fullDescription"]["text"]
    assert [rule["id"] for rule in rules[-2:]] == ["TLK900", "TLK999"]
    assert "helpUri" not in rules[-1] and rules[-1]["help"]["text"]
    assert "## Why is this bad?" in rules[0]["fullDescription"]["text"]
    [finding] = run["results"]
    assert finding["ruleId"] == "TLK101"
    assert rules[finding["ruleIndex"]]["id"] == "TLK101"
    assert finding["message"]["text"] == LEAKY_MESSAGE
    assert finding["locations"][0]["physicalLocation"] == {
        "artifactLocation": {"uri": "pkg/leaky.py", "uriBaseId": "%SRCROOT%"},
        "region": {"startLine": 5, "startColumn": 5},
    }
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == project.resolve().as_uri() + "/"
    notifications = run["invocations"][0]["toolExecutionNotifications"]
    assert [(n["level"], n["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]) for n in notifications] == [
        ("error", "pkg/broken.py"),
        ("note", "pkg/deep.py"),
        ("error", "pkg/latin.py"),
    ]


def test_the_sarif_schema_check_can_fail() -> None:
    """Guard against a vacuous validation: the shipped schema rejects a broken log."""
    log = json.loads(run_tool("torchleak", "--format", "sarif", "-", stdin=LEAKY).stdout)
    validator = jsonschema.Draft4Validator(SARIF_SCHEMA)
    assert validator.is_valid(log)
    log["runs"][0]["results"][0]["level"] = "severe"
    assert not validator.is_valid(log)
    del log["version"]
    assert not validator.is_valid(log)


def test_sarif_with_absolute_paths_uses_file_uris(tmp_path: Path) -> None:
    path = tmp_path / "train loop.py"
    path.write_text(LEAKY)
    log = json.loads(run_tool("torchleak", "--format", "sarif", str(path)).stdout)
    jsonschema.Draft4Validator(SARIF_SCHEMA).validate(log)
    location = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert location == {"uri": path.as_uri()} and "%20" in location["uri"]


def test_github_annotations(project: Path) -> None:
    (project / "pkg" / "odd,name:1.py").write_text(LEAKY)
    result = run_tool("torchleak", "--format", "github", "pkg", cwd=project)
    assert result.returncode == 1 and result.stderr == NOTE
    lines = result.stdout.splitlines()
    assert lines[0] == "::error file=pkg/broken.py,line=1,col=7,title=torchleak::syntax error: invalid syntax"
    assert lines[1].startswith("::error file=pkg/latin.py,title=torchleak::cannot decode")
    assert lines[2:] == [
        f"::warning file=pkg/leaky.py,line=5,col=5,title=TLK101::{LEAKY_MESSAGE}",
        f"::warning file=pkg/odd%2Cname%3A1.py,line=5,col=5,title=TLK101::{LEAKY_MESSAGE}",
    ]


@pytest.mark.parametrize("output", ["text", "json", "sarif", "github"])
def test_exit_status_is_the_same_in_every_format(tmp_path: Path, output: str) -> None:
    leaky = tmp_path / "leaky.py"
    leaky.write_text(LEAKY)
    clean = tmp_path / "clean.py"
    clean.write_text(LEAKY.replace("total += loss", "total += loss.item()"))
    assert run_tool("torchleak", "--format", output, str(clean)).returncode == 0
    assert run_tool("torchleak", "--format", output, str(leaky)).returncode == 1
    assert run_tool("torchleak", "--format", output, "--exit-zero", str(leaky)).returncode == 0
    assert run_tool("torchleak", "--format", output, "--select", "E501", str(leaky)).returncode == 2
