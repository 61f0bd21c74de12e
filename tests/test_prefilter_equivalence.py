"""The pre-filter may skip only what cannot change a finding: the engine (pre-filter, one libcst
segment per top-level statement) and a whole-file analysis give the same findings, on the zoo,
the realistic examples and the pinned real-library corpus. ``scripts/check_findings.py`` runs
the same checks from the command line and records findings to compare before and after a change.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from conftest import LEAKY, ROOT

sys.path.insert(0, str(ROOT / "scripts"))
import check_findings  # noqa: E402

#: The whole corpus through libcst without a pre-filter takes many minutes: only on request.
CORPUS = Path(os.environ.get("TORCHLEAK_CORPUS", ""))


def test_engine_and_whole_file_analysis_agree_on_the_zoo_and_the_examples() -> None:
    files = check_findings.local_files()
    assert len(files) > 100
    assert [(path.name, why) for path in files if (why := check_findings.whole_difference(path))] == []


def test_a_pre_filter_that_drops_a_finding_is_caught(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from torchleak import engine
    from torchleak.analysis.prefilter import Plan

    path = tmp_path / "train.py"
    path.write_text(LEAKY)
    assert check_findings.whole_difference(path) is None
    monkeypatch.setattr(engine, "plan", lambda *args: Plan(0))  # a pre-filter that drops everything
    why = check_findings.whole_difference(path)
    assert why is not None and "TLK101" in why


def test_recorded_findings_are_compared_file_by_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    saved = tmp_path / "before.json"
    assert check_findings.main(["--no-corpus", "--jobs", "1", "--save", str(saved)]) == 0
    assert check_findings.main(["--no-corpus", "--jobs", "1", "--compare", str(saved)]) == 0
    records = json.loads(saved.read_text())
    flagged = next(name for name, record in sorted(records.items()) if record["findings"])
    records[flagged]["findings"] = []
    saved.write_text(json.dumps(records))
    capsys.readouterr()
    assert check_findings.main(["--no-corpus", "--jobs", "1", "--compare", str(saved)]) == 1
    assert f"{flagged}:" in capsys.readouterr().out


@pytest.mark.slow
@pytest.mark.skipif(
    not os.environ.get("TORCHLEAK_CORPUS") or not CORPUS.is_dir(),
    reason="no corpus: build it with shared/perf/make_corpus.sh DIR and set TORCHLEAK_CORPUS=DIR/src",
)
def test_engine_and_whole_file_analysis_agree_on_the_pinned_corpus() -> None:
    files = check_findings.corpus_files(CORPUS)
    assert len(files) > 1000
    reasons = check_findings.run_all(check_findings.whole_difference, files, len(os.sched_getaffinity(0)))
    assert [(str(path), why) for path, why in zip(files, reasons) if why] == []
