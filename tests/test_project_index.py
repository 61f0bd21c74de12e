"""The project index (analysis/project.py), the on-disk cache (cache.py) and summaries as plain
data: unit tests on small projects written into a temporary directory."""

from __future__ import annotations

import json
import os
import ast
import textwrap
from pathlib import Path

import libcst as cst
import pytest

from conftest import run_tool
from torchleak.analysis import project
from torchleak.analysis.flow import analyse
from torchleak.analysis.settings import Origin, Settings
from torchleak.analysis.summaries import ClassSummary, Effect, ModuleSummary, Summary
from torchleak.analysis.values import Kind, State, value_from_dict, value_to_dict
from torchleak.cache import Cache, enabled_by_environment
from torchleak.config import load

ZOO = Path(__file__).parent / "zoo"


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


def externals(root: Path, name: str, *, cache: bool = False):  # type: ignore[no-untyped-def]
    """What the imports of ``root/name`` bind, through a fresh index."""
    project._INDEXES.clear()
    path = root / name
    settings = Settings(origin=Origin(str(path), use_cache=cache))
    index = project.index_for(settings.origin, settings)  # type: ignore[arg-type]
    source = path.read_text()
    return index.externals(path, project._iter_imports(cst.parse_module(source)), source)


@pytest.fixture(autouse=True)
def fresh_indexes(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("TORCHLEAK_NO_CACHE", raising=False)
    project._INDEXES.clear()


# --------------------------------------------------------------------------- plain data
@pytest.mark.parametrize("case", sorted(ZOO.glob("*.py"))[::3], ids=lambda path: path.stem)
def test_zoo_summaries_round_trip_through_json(case: Path) -> None:
    facts = analyse(cst.parse_module(case.read_text()))
    for function in facts.functions:
        data = json.loads(json.dumps(function.summary.to_dict()))
        assert Summary.from_dict(data) == function.summary, function.name
    for value in facts.values.values():
        assert value_from_dict(json.loads(json.dumps(value_to_dict(value)))) == value


def test_module_summary_round_trips(tmp_path: Path) -> None:
    summary = ModuleSummary(
        "pkg/utils.py",
        {"f": Summary("f", effects=[Effect("store", "arg0", value_from_dict({"params": [1]}), "f", "append", "pkg/utils.py:3")], parameters=("a", "b"), calls_backward=True, module="pkg/utils.py")},
        {"Meter": ClassSummary("Meter", "pkg/utils.py", True, {"update": Summary("Meter.update")}, {"model": value_from_dict({"state": "detached", "kind": "module"})})},
        ["other.py:g"],
    )
    assert ModuleSummary.from_dict(json.loads(json.dumps(summary.to_dict()))) == summary


# --------------------------------------------------------------------------- roots and imports
def test_root_is_the_nearest_marker_else_the_working_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path, {"proj/setup.cfg": "", "proj/pkg/mod.py": "", "loose/sub/x.py": ""})
    assert project.find_root(str(tmp_path / "proj/pkg")) == (tmp_path / "proj", True)
    monkeypatch.chdir(tmp_path / "loose")
    assert project.find_root(str(tmp_path / "loose/sub")) == (tmp_path / "loose", False)
    monkeypatch.chdir(tmp_path / "proj")
    assert project.find_root(str(tmp_path / "loose/sub")) == (tmp_path / "loose/sub", False)
    # run from elsewhere on ``torchleak loose``: the directory given on the command line
    assert project.find_root(str(tmp_path / "loose/sub"), str(tmp_path / "loose")) == (tmp_path / "loose", False)


def test_a_project_without_markers_linted_from_elsewhere_follows_its_imports(tmp_path: Path) -> None:
    # ``torchleak /path/to/repo`` from another directory: ``from pkg.meter import Meter`` in
    # ``pkg/train.py`` resolves from the directory given, as it does from inside the repository
    write(tmp_path, {
        "repo/pkg/__init__.py": "",
        "repo/pkg/meter.py": textwrap.dedent(METER),
        "repo/pkg/train.py": textwrap.dedent('''
            from pkg.meter import Meter

            def train(model, loader, optimizer):
                meter = Meter()
                for x, y in loader:
                    loss = ((model(x) - y) ** 2).mean()
                    optimizer.zero_grad()
                    loss.backward()
                    optimizer.step()
                    meter.update(loss)
        '''),
        "elsewhere/keep.txt": "",
    })
    result = run_tool("torchleak", "--isolated", "--no-cache", str(tmp_path / "repo"), cwd=tmp_path / "elsewhere")
    assert "train.py:11:" in result.stdout and "TLK101" in result.stdout, result.stdout + result.stderr


METER = """
    class Meter:
        def __init__(self):
            self.sum = 0

        def update(self, val):
            self.sum += val
"""


def test_imports_resolve_to_the_projects_own_files(tmp_path: Path) -> None:
    write(tmp_path, {
        "pyproject.toml": "",
        "src/pkg/__init__.py": "from .meters import Meter as PublicMeter\n",
        "src/pkg/meters.py": METER,
        "src/pkg/ops.py": "def keep(store, x):\n    store.append(x)\n",
        "src/pkg/star.py": "from .ops import *\n",
        "scripts/helpers.py": "def twice(x):\n    return x + x\n",
        "scripts/train.py": """
            import os
            import torch
            from helpers import twice
            from pkg import PublicMeter
            import pkg.ops as ops
            import pkg.meters
            from pkg.star import keep
            from pkg import meters as m
            from helpers import twice as annotates
            from helpers import twice as only_mentioned  # in this comment, and in the string below

            def run(x: annotates):
                twice(x), PublicMeter(), ops.keep, pkg.meters.Meter, keep(x), m.Meter, "only_mentioned"
        """,
    })
    found = externals(tmp_path, "scripts/train.py")
    assert set(found.names) == {"twice", "PublicMeter", "ops", "pkg.meters", "keep", "m", "annotates"}
    assert isinstance(found.names["PublicMeter"], ClassSummary) and found.names["PublicMeter"].module == "src/pkg/meters.py"
    assert isinstance(found.resolve("ops.keep"), Summary)
    assert isinstance(found.resolve("pkg.meters.Meter"), ClassSummary)
    assert isinstance(found.resolve("m.Meter"), ClassSummary)
    effect = found.names["keep"].effects[0]  # type: ignore[union-attr]
    assert (effect.kind, effect.target, effect.origin) == ("store", "arg0", "src/pkg/ops.py:2")
    assert found.resolve("os.path") is None and found.resolve("torch.nn") is None


def test_relative_imports_and_parent_packages(tmp_path: Path) -> None:
    write(tmp_path, {
        "setup.py": "",
        "pkg/__init__.py": "",
        "pkg/common.py": METER,
        "pkg/sub/__init__.py": "",
        "pkg/sub/train.py": "from ..common import Meter\nfrom . import missing\nMeter()\n",
    })
    found = externals(tmp_path, "pkg/sub/train.py")
    assert list(found.names) == ["Meter"]
    assert found.names["Meter"].methods["update"].effects[0].target == "self.sum"  # type: ignore[union-attr]


def test_import_cycles_terminate_at_a_fixpoint(tmp_path: Path) -> None:
    write(tmp_path, {
        "pyproject.toml": "",
        "a.py": "import b\n\ndef keep(store, x):\n    b.put(store, x)\n\ndef put_twice(store, x):\n    keep(store, x)\n",
        "b.py": "import a\n\ndef put(store, x):\n    store.append(x)\n\ndef relay(store, x):\n    a.put_twice(store, x)\n",
        "main.py": "from b import relay\nrelay([], 1)\n",
    })
    relay = externals(tmp_path, "main.py").names["relay"]
    assert isinstance(relay, Summary)
    # relay -> a.put_twice -> a.keep -> b.put, through the cycle.
    assert [(effect.kind, effect.target) for effect in relay.effects] == [("store", "arg0")]


CHAIN = {
    "pyproject.toml": "",
    "d.py": "def f3(store, x):\n    store.append(x)\n",
    "c.py": "from d import f3\n\ndef f2(store, x):\n    f3(store, x)\n",
    "b.py": "from c import f2\n\ndef f1(store, x):\n    f2(store, x)\n",
    "a.py": "from b import f1\n\ndef f0(store, x):\n    f1(store, x)\n",
    "main.py": "from a import f0\nfrom b import f1\nf0([], 1)\nf1([], 1)\n",
}


def _effects(names, local: str) -> list[tuple[str, str]]:  # type: ignore[no-untyped-def]
    summary = names[local]
    assert isinstance(summary, Summary)
    return [(effect.kind, effect.target) for effect in summary.effects]


def test_summaries_follow_imports_at_most_max_import_levels_deep(tmp_path: Path) -> None:
    """main -> a -> b -> c -> d: the store in d is four imports away from main.py, beyond the
    bound, so f0 keeps nothing known; f1 (b -> c -> d, three) keeps its argument."""
    assert project.MAX_IMPORT_LEVELS == 3
    write(tmp_path, CHAIN)
    for _ in range(2):  # computed, then read back from the cache (bounded summaries by level)
        names = externals(tmp_path, "main.py", cache=True).names
        assert _effects(names, "f0") == []
        assert _effects(names, "f1") == [("store", "arg0")]


def test_a_summary_does_not_depend_on_what_the_process_linted_before(tmp_path: Path) -> None:
    """Linting a.py first summarises b, c and d from two imports nearer than main.py's lint
    needs them; main.py's answers must be those of a fresh process (flake8 and the CLI agree)."""
    write(tmp_path, CHAIN)
    fresh = _effects(externals(tmp_path, "main.py").names, "f0")
    project._INDEXES.clear()
    settings = Settings(origin=Origin(str(tmp_path / "a.py"), use_cache=False))
    index = project.index_for(settings.origin, settings)  # type: ignore[arg-type]
    for name, local in (("a.py", "f1"), ("main.py", "f0")):
        source = (tmp_path / name).read_text()
        names = index.externals(tmp_path / name, project._iter_imports(cst.parse_module(source)), source).names
        assert isinstance(names[local], Summary)
    assert _effects(names, "f0") == fresh == []


HELPERS = """\
import heavy

LOG = []


def keep(x):
    LOG.append(x)


def record(x):
    keep(x)


def unrelated(x):
    return heavy.transform(x)


class Meter:
    def update(self, val):
        self.total = self.total + val
"""


def test_an_imported_helper_is_summarised_from_its_own_part_of_the_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``from helpers import record`` analyses record's component (record, keep, the global they
    share, the imports), not ``unrelated`` nor ``Meter``, nor the module ``unrelated`` imports;
    and the part's summary of ``record`` is the one the whole module gives."""
    write(tmp_path, {"pyproject.toml": "", "helpers.py": HELPERS, "heavy.py": "def transform(x):\n    return x\n",
                     "train.py": "from helpers import record\nrecord(1)\n"})
    analysed: list[str] = []
    real = project.ProjectIndex._analysed

    def spy(self: project.ProjectIndex, module: str, outline: object, kept: object = None) -> object:
        analysed.append(module)
        found = real(self, module, outline, kept)  # type: ignore[arg-type]
        if found is not None:
            code = found[0].code
            assert ("def record" in code, "def unrelated" in code, "class Meter" in code) == (True, False, False)
            assert code.count("\n") == HELPERS.count("\n")  # other parts are blank lines: lines keep their numbers
        return found

    monkeypatch.setattr(project.ProjectIndex, "_analysed", spy)
    record = externals(tmp_path, "train.py").names["record"]
    assert analysed == ["helpers.py"]  # heavy.py is never summarised
    monkeypatch.undo()
    monkeypatch.chdir(tmp_path)
    index = project.ProjectIndex(tmp_path, Settings(), None)
    whole = index._summary("helpers.py")
    assert record == whole.functions["record"]
    assert [(effect.kind, effect.origin) for effect in record.effects] == [("store", "helpers.py:7")]  # type: ignore[union-attr]


def test_a_part_summary_is_cached_under_each_of_its_names(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path, {"pyproject.toml": "", "helpers.py": HELPERS, "heavy.py": "def transform(x):\n    return x\n",
                     "train.py": "from helpers import record\nrecord(1)\n", "other.py": "from helpers import keep\nkeep(1)\n"})
    cold = externals(tmp_path, "train.py", cache=True).names["record"]
    monkeypatch.setattr(project.ProjectIndex, "_summarise", lambda *args: pytest.fail("summarised again"))
    assert externals(tmp_path, "train.py", cache=True).names["record"] == cold
    assert isinstance(externals(tmp_path, "other.py", cache=True).names["keep"], Summary)  # same part, another name


# --------------------------------------------------------------------------- the cache
def test_warm_cache_reads_no_source_and_an_edit_invalidates(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path, {"pyproject.toml": "", "utils.py": METER, "train.py": "from utils import Meter\nMeter()\n"})
    cold = dict(externals(tmp_path, "train.py", cache=True).names)  # names are summarised when asked for
    assert (tmp_path / ".torchleak_cache/.gitignore").read_text().endswith("*\n")

    def no_reading(*args: object) -> None:
        raise AssertionError(f"read {args[-2]} although its summary is cached")

    monkeypatch.setattr(project, "_read_outline", no_reading)
    monkeypatch.setattr(project.ProjectIndex, "_summarise", no_reading)
    warm = externals(tmp_path, "train.py", cache=True)
    assert dict(warm.names) == cold
    monkeypatch.undo()
    monkeypatch.chdir(tmp_path)
    (tmp_path / "utils.py").write_text(textwrap.dedent(METER).replace("self.sum += val", "self.sum += float(val)"))
    edited = externals(tmp_path, "train.py", cache=True)
    update = edited.names["Meter"].methods["update"]  # type: ignore[union-attr]
    assert update.effects == [] or all(not effect.value.params for effect in update.effects)


def test_no_cache_environment_variable(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    assert enabled_by_environment()
    for value in ("1", "true", "yes"):
        monkeypatch.setenv("TORCHLEAK_NO_CACHE", value)
        assert not enabled_by_environment()
    write(tmp_path, {"pyproject.toml": "", "utils.py": METER, "train.py": "from utils import Meter\nMeter()\n"})
    assert "Meter" in externals(tmp_path, "train.py", cache=True).names
    assert not (tmp_path / ".torchleak_cache").exists()


def test_cache_api_keys_and_atomic_writes(tmp_path: Path) -> None:
    cache = Cache.at(tmp_path / "c")
    assert cache is not None
    assert cache.get("ns", "key") is None
    cache.put("ns", "key", {"a": [1, 2]})
    cache.put("ns", "key", {"a": [3]})
    assert cache.get("ns", "key") == {"a": [3]}
    assert cache.get("ns", "other") is None and cache.get("other", "key") is None
    files = [path for path in (tmp_path / "c").rglob("*") if path.is_file()]
    assert sorted(path.suffix for path in files) == ["", ".json"]  # the .gitignore and one blob
    blob = next(path for path in files if path.suffix == ".json")
    blob.write_text("{not json")
    assert cache.get("ns", "key") is None
    assert Cache.at(blob / "inside") is None  # a path under a file cannot be a directory


def test_cache_dir_setting(tmp_path: Path) -> None:
    write(tmp_path, {"pyproject.toml": '[tool.torchleak]\ncache-dir = "build/tl-cache"\n'})
    config = load(tmp_path / "pyproject.toml")
    assert config.cache_dir == str(tmp_path / "build/tl-cache")
    write(tmp_path, {"bad/pyproject.toml": "[tool.torchleak]\ncache-dir = []\n"})
    with pytest.raises(ValueError, match="cache-dir"):
        load(tmp_path / "bad/pyproject.toml")


def test_cli_and_plugin_use_the_configured_cache_dir(tmp_path: Path) -> None:
    from conftest import run_tool

    write(tmp_path, {
        "pyproject.toml": '[tool.torchleak]\ncache-dir = ".cache/torchleak"\n',
        "utils.py": METER,
        "train.py": "from utils import Meter\n\ndef run(model, loader, opt):\n    m = Meter()\n    for x in loader:\n        loss = model(x).sum()\n        loss.backward()\n        opt.step()\n        m.update(loss)\n",
    })
    result = run_tool("torchleak", "train.py", cwd=tmp_path)
    assert "TLK101" in result.stdout and "utils.py:7" in result.stdout
    assert list((tmp_path / ".cache/torchleak").rglob("*.json"))
    assert not (tmp_path / ".torchleak_cache").exists()
    plugin = run_tool("flake8", "--select", "TLK", "train.py", cwd=tmp_path)
    assert plugin.stdout.split(":", 3)[:3] == result.stdout.split(":", 3)[:3]


def test_values_naming_a_class_of_another_module_are_project_wide(tmp_path: Path) -> None:
    write(tmp_path, {
        "pyproject.toml": "",
        "models.py": "import torch.nn as nn\n\nclass Net(nn.Module):\n    def forward(self, x):\n        return x\n\ndef build():\n    return Net()\n",
        "train.py": "from models import build\nbuild()\n",
    })
    found = externals(tmp_path, "train.py")
    returned = found.names["build"].returns  # type: ignore[union-attr]
    assert (returned.kind, returned.state, returned.cls) == (Kind.MODULE, State.DETACHED, "models.py:Net")
    assert found.classes["models.py:Net"].is_module
    assert os.path.sep not in returned.cls or os.path.sep == "/"


# --------------------------------------------------------------------------- importers' calls
def test_methods_called_with_grad_by_an_importer() -> None:
    """``Class.method`` for calls on instances the importer builds, outside no-grad code."""
    tree = ast.parse(textwrap.dedent("""\
        import torch
        import models
        from models import Decoder as Dec, Other

        def caption(x):
            decoder = Dec(4).to("cpu")
            decoder = decoder.eval()
            return decoder.greedy(x)

        def quiet(x):
            other = Other()
            with torch.no_grad():
                return other.greedy(x)

        @torch.no_grad()
        def decorated(x):
            return Other().greedy(x)

        def helper(x):
            return models.Third().sample(x)

        with torch.no_grad():
            helper(1)

        class Runner:
            def __init__(self):
                self.net = models.Third()

            def run(self, x):
                return self.net.generate(x), unrelated.greedy(x)
        """))
    found = project._methods_called_with_grad(tree, {"Dec": "Decoder", "Other": None}, {"models"})
    # helper() runs only under no_grad; Other.greedy only inside no-grad code; `unrelated` is
    # no instance the module builds; .to()/.eval() return the module itself.
    assert found == {"Decoder.greedy", "Third.generate"}


def _lint(root: Path, name: str) -> list[str]:
    """``code line`` of each finding in ``root/name``, its imports followed (no cache)."""
    from torchleak.engine import check_source

    path = root / name
    settings = Settings(origin=Origin(str(path), use_cache=False))
    result = check_source(path.read_text(), settings=settings)
    return sorted(f"{finding.code} {finding.line}" for finding in result.findings)


def test_a_package_imported_as_a_module_reexports_its_modules_names(tmp_path: Path) -> None:
    # ikostrikov/pytorch-a2c-ppo-acktr-gail: ``from a2c_ppo_acktr import algo`` then
    # ``algo.A2C_ACKTR(...)``, the class defined in algo/a2c_acktr.py.
    write(tmp_path, {
        "setup.py": "",
        "rl/__init__.py": "",
        "rl/algo/__init__.py": "from .a2c import A2C\n",
        "rl/algo/a2c.py": """
            class A2C:
                def __init__(self):
                    self.history = []

                def update(self, loss):
                    self.history.append(loss)
        """,
        "main.py": """
            from rl import algo

            agent = algo.A2C()
        """,
    })
    bound = externals(tmp_path, "main.py")
    found = bound.resolve("algo.A2C")
    assert isinstance(found, ClassSummary) and found.module == "rl/algo/a2c.py"
    assert bound.resolve("algo.Missing") is None


def test_a_helper_that_runs_a_forward_gives_a_new_graph_per_call(tmp_path: Path) -> None:
    # The same arguments every iteration (the model and a buffer updated in place), but the
    # helper runs the model: each call's result is a new graph, kept by the sum.
    write(tmp_path, {
        "setup.py": "",
        "utils.py": """
            def policy_entropy(actor_critic, obs):
                _, dist = actor_critic(obs)
                return dist.entropy().mean()
        """,
        "main.py": """
            import torch
            from utils import policy_entropy

            def main(actor_critic, buffer, steps):
                optimizer = torch.optim.SGD(actor_critic.parameters(), 0.1)
                entropy_sum = 0.0
                for _ in range(steps):
                    optimizer.zero_grad()
                    actor_critic(buffer)[0].mean().backward()
                    optimizer.step()
                    entropy_sum += policy_entropy(actor_critic, buffer)
                return entropy_sum
        """,
    })
    assert _lint(tmp_path, "main.py") == ["TLK101 12"]


def test_modules_over_the_size_bound_are_not_summarised(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A module larger than MAX_SUMMARISED_BYTES stays unknown, like a third-party one."""
    write(tmp_path, {
        "pyproject.toml": "",
        "ops.py": "def keep(store, x):\n    store.append(x)\n" + "# padding\n" * 50,
        "small.py": "def keep_too(store, x):\n    store.append(x)\n",
        "train.py": "from ops import keep\nfrom small import keep_too\n\ndef run(s, x):\n    keep(s, x), keep_too(s, x)\n",
    })
    monkeypatch.setattr(project, "MAX_SUMMARISED_BYTES", 200)
    found = externals(tmp_path, "train.py")
    small = found.names["keep_too"]
    assert isinstance(small, Summary) and small.effects
    assert not isinstance(found.names.get("keep"), Summary) or not found.names["keep"].effects  # type: ignore[union-attr]


def test_importers_are_found_by_the_words_of_their_import_lines(tmp_path: Path) -> None:
    write(tmp_path, {
        "pyproject.toml": "",
        "utils.py": "def f():\n    pass\n",
        "a.py": "from utils import f\n",
        "b.py": "import os, utils as u\n",
        "c.py": "x = 'utils'  # mentions utils, imports nothing of it\nfrom other import utilsx\n",
    })
    project._INDEXES.clear()
    settings = Settings(origin=Origin(str(tmp_path / "a.py"), use_cache=False))
    index = project.index_for(settings.origin, settings)  # type: ignore[arg-type]
    assert index._importers("utils.py") == ["a.py", "b.py"]


def _messages(root: Path, name: str) -> dict[tuple[str, int], str]:
    from torchleak.engine import check_source

    path = root / name
    result = check_source(path.read_text(), settings=Settings(origin=Origin(str(path), use_cache=False)))
    return {(finding.code, finding.line): finding.message for finding in result.findings}


def test_messages_through_another_modules_helper_name_its_file_and_fit_the_value(tmp_path: Path) -> None:
    # A method of another module keeps its own graph-carrying running statistics and returns
    # floats: the advice is about that method, never ``.item()`` of the floats it returns, and
    # the carried state names the helper's file.
    write(tmp_path, {
        "setup.py": "",
        "norm.py": """
            import torch

            class Running:
                def __init__(self):
                    self.mean = torch.zeros(1)
                    self.var = torch.ones(1)

                def update(self, x):
                    self.mean = self.mean + x.mean()
                    self.var.mul_(0.9).add_(x.var())


            class Agent:
                def __init__(self, model):
                    self.model = model
                    self.stats = Running()
                    self.opt = torch.optim.SGD(model.parameters(), 0.1)

                def update(self, batch):
                    values = self.model(batch)
                    self.stats.update(values)
                    loss = (values - self.stats.mean).pow(2).mean()
                    self.opt.zero_grad()
                    loss.backward()
                    self.opt.step()
                    return loss.item(), values.mean().item()
        """,
        "main.py": """
            import torch
            from norm import Agent

            def main(loader):
                agent = Agent(torch.nn.Linear(4, 1))
                total = 0.0
                for batch in loader:
                    loss, mean = agent.update(batch)
                    total += loss
        """,
    })
    messages = _messages(tmp_path, "main.py")
    accumulated = [message for (code, _), message in messages.items() if code == "TLK101"]
    assert accumulated and all(".items()" not in message and "inside Running.update" in message for message in accumulated)
    carried = [message for (code, _), message in messages.items() if code == "TLK103"]
    assert carried and all("norm.py:" in message for message in carried)


def test_a_per_batch_helper_of_another_module_judges_its_retain_graph_by_the_callers_loop(tmp_path: Path) -> None:
    # rosinality/stylegan2-pytorch's shape: the discriminator step lives in losses.py, the loop
    # in train.py; nothing backwards the step's graph again, so retain_graph=True only keeps it
    # alive into the next iteration. Called outside any loop it is judged as before (silent).
    step = """
        def discriminator_step(discriminator, real, fake, optimizer):
            loss = discriminator(fake.detach()).mean() - discriminator(real).mean()
            discriminator.zero_grad()
            loss.backward(retain_graph=True)
            optimizer.step()
            return loss
    """
    write(tmp_path, {
        "setup.py": "",
        "losses.py": step,
        "train.py": """
            import torch
            from losses import discriminator_step

            def train(loader, generator, discriminator):
                d_optim = torch.optim.Adam(discriminator.parameters())
                for real in loader:
                    fake = generator(torch.randn(4, 8))
                    d_loss = discriminator_step(discriminator, real, fake, d_optim)
        """,
        "once/setup.py": "",
        "once/losses.py": step,
        "once/train.py": """
            from losses import discriminator_step

            def warm_up(batch, generator, discriminator, d_optim):
                return discriminator_step(discriminator, batch, generator(batch), d_optim)
        """,
    })
    assert _lint(tmp_path, "losses.py") == ["TLK201 5"]
    assert _lint(tmp_path / "once", "losses.py") == []


def test_a_per_batch_helper_differentiating_its_callers_graph_keeps_retain_graph(tmp_path: Path) -> None:
    # CompVis/stable-diffusion's calculate_adaptive_weight: grads of the losses it is given,
    # whose graph the caller backwards afterwards (retain_graph=True is needed there).
    write(tmp_path, {
        "setup.py": "",
        "weights.py": """
            import torch

            def adaptive_weight(nll_loss, g_loss, last_layer):
                nll_grads = torch.autograd.grad(nll_loss, last_layer, retain_graph=True)[0]
                g_grads = torch.autograd.grad(g_loss, last_layer, retain_graph=True)[0]
                return (torch.norm(nll_grads) / (torch.norm(g_grads) + 1e-4)).detach()
        """,
        "train.py": """
            import torch
            from weights import adaptive_weight

            def train(loader, model, disc, opt):
                for x in loader:
                    rec = model(x)
                    nll_loss = (rec - x).abs().mean()
                    g_loss = -disc(rec).mean()
                    loss = nll_loss + adaptive_weight(nll_loss, g_loss, model.last.weight) * g_loss
                    opt.zero_grad()
                    loss.backward()
                    opt.step()
        """,
    })
    assert _lint(tmp_path, "weights.py") == []


def test_methods_called_in_loops_by_an_importer() -> None:
    """With ``in_loops``, only calls inside a loop count; ``learner.train(batch, t)`` is a method
    call, ``model.train()`` a mode switch."""
    tree = ast.parse(textwrap.dedent("""\
        from learner import QLearner

        def run(batches):
            learner = QLearner()
            learner.prepare()
            for batch in batches:
                learner.train(batch, 0)
                learner.train()
            while True:
                learner.log()

                def later():
                    learner.never()
        """))
    assert project._methods_called_with_grad(tree, {"QLearner": None}, set(), in_loops=True) == {"QLearner.train", "QLearner.log"}
    assert "QLearner.prepare" in project._methods_called_with_grad(tree, {"QLearner": None}, set())


def _learner_project(logger_clear: str = "") -> dict[str, str]:
    # oxwhirl/pymarl's shape (tests/projects/marl_qmix): the entry script builds a Logger and a
    # learner, hands the logger to the learner, and calls learner.train in its loop; the learner
    # logs an attached statistic through a Logger it never imports.
    return {
        "setup.py": "",
        "utils.py": f"""
            from collections import defaultdict

            class Logger:
                def __init__(self):
                    self.stats = defaultdict(list)

                def log_stat(self, key, value, t):
                    self.stats[key].append((t, value))
            {logger_clear}
        """,
        "learner.py": """
            import torch

            class QLearner:
                def __init__(self, net, logger):
                    self.net = net
                    self.logger = logger
                    self.opt = torch.optim.SGD(net.parameters(), lr=0.1)

                def train(self, batch, t):
                    for _ in range(2):
                        td = self.net(batch) - 1.0
                    loss = td.pow(2).mean()
                    self.opt.zero_grad()
                    loss.backward()
                    self.opt.step()
                    self.logger.log_stat("loss", loss.item(), t)
                    self.logger.log_stat("td_abs", td.abs().mean(), t)
        """,
        "main.py": """
            import torch.nn as nn
            from learner import QLearner
            from utils import Logger

            def main(batches):
                logger = Logger()
                learner = QLearner(nn.Linear(4, 1), logger)
                for t, batch in enumerate(batches):
                    learner.train(batch, t)
        """,
    }


def test_a_method_called_per_batch_from_another_module_reports_what_it_keeps_where_it_keeps_it(tmp_path: Path) -> None:
    write(tmp_path, _learner_project())
    assert _lint(tmp_path, "learner.py") == ["TLK102 18"]
    assert _lint(tmp_path, "main.py") == []  # (reported once, in learner.py, where .item() goes)


def test_a_kept_value_some_method_empties_is_left_to_the_callers_loop(tmp_path: Path) -> None:
    # The Logger can be emptied (``del self.stats[key][:]``): whether a caller does so every
    # iteration is the caller's loop's business, as for a class of its own file.
    clear = """
                def flush(self, key):
                    del self.stats[key][:]
    """
    write(tmp_path, _learner_project(clear))
    assert _lint(tmp_path, "learner.py") == []


def test_a_method_its_own_module_calls_only_without_grad_is_summarised_with_grad_for_an_importer_calling_it_so(tmp_path: Path) -> None:
    # rosinality/vq-vae-2-pytorch's shape (tests/projects/vqvae_ema): utils.py's statistics
    # class is used there only by a @torch.no_grad() validate; train.py sums an attached loss
    # into it every iteration.
    write(tmp_path, {
        "setup.py": "",
        "utils.py": """
            import torch

            class EpochStats:
                def __init__(self):
                    self.sums = {}

                def update(self, n, **values):
                    for key, value in values.items():
                        self.sums[key] = self.sums.get(key, 0.0) + value * n

            @torch.no_grad()
            def validate(model, loader):
                stats = EpochStats()
                for x in loader:
                    stats.update(x.shape[0], mse=model(x).pow(2).mean())
                return stats.sums
        """,
        "train.py": """
            from utils import EpochStats

            def train(model, loader, optimizer):
                stats = EpochStats()
                for x in loader:
                    loss = model(x).pow(2).mean()
                    optimizer.zero_grad()
                    loss.backward()
                    optimizer.step()
                    stats.update(x.shape[0], mse=loss)
        """,
    })
    assert _lint(tmp_path, "train.py") == ["TLK101 11"]
    assert _lint(tmp_path, "utils.py") == []


def test_entries_of_a_container_built_without_graph_hold_none(tmp_path: Path) -> None:
    # lightly's distributed DetCon test (tenth repository set): the project's loss module
    # applied to random tensors kept in a list of dicts, summed over ranks
    write(tmp_path, {
        "setup.py": "",
        "losses.py": """
            import torch.nn as nn

            class DetConLoss(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.scale = 2.0

                def forward(self, pred, target):
                    return ((pred - target) * self.scale).pow(2).mean()
        """,
        "test_losses.py": """
            import torch
            from losses import DetConLoss

            def test_distributed(world_size=2):
                tensors = [{"pred": torch.randn(4, 8), "target": torch.randn(4, 8)} for _ in range(world_size)]
                loss_fn = DetConLoss()
                total_loss = torch.tensor(0.0)
                for rank in range(world_size):
                    loss_val = loss_fn(tensors[rank]["pred"], tensors[rank]["target"])
                    total_loss += loss_val
                assert total_loss > 0
        """,
    })
    assert _lint(tmp_path, "test_losses.py") == []


def test_an_instance_called_in_a_loop_runs_its_call_method_per_batch() -> None:
    # ``penalty(d, f_s, f_t)`` in train.py's loop runs ``__call__`` of the class penalty.py
    # defines: what ``__call__`` keeps on its object is reported there, not at the call.
    tree = ast.parse(textwrap.dedent("""
        from penalty import GradPenalty

        def train(loader, penalty):
            for x in loader:
                gp = penalty(x)

        penalty = GradPenalty()
        evaluated = penalty(None)
    """))
    classes: dict[str, str | None] = {"GradPenalty": None}
    assert project._methods_called_with_grad(tree, classes, set(), in_loops=True) == {"GradPenalty.__call__"}
    tree_without_loop = ast.parse("from penalty import GradPenalty\npenalty = GradPenalty()\nout = penalty(1)\n")
    assert project._methods_called_with_grad(tree_without_loop, classes, set(), in_loops=True) == set()


def test_callbacks_handed_in_resolve_to_the_one_that_keeps_its_argument(tmp_path: Path) -> None:
    # ogb-style trainer: ``for cb in callbacks: cb.on_batch_end(step, pred, batch)`` where
    # callbacks.py has a no-op base ``Callback`` and one subclass that appends ``outputs``
    write(tmp_path, {
        "proj/setup.py": "",
        "proj/callbacks.py": textwrap.dedent('''
            class Callback:
                def on_batch_end(self, step, outputs, batch):
                    pass

            class PredictionRecorder(Callback):
                def __init__(self):
                    self.preds = []

                def on_batch_end(self, step, outputs, batch):
                    self.preds.append(outputs)
        '''),
        "proj/train.py": textwrap.dedent('''
            from callbacks import PredictionRecorder

            def train(model, loader, optimizer, callbacks):
                for step, (x, y) in enumerate(loader):
                    pred = model(x)
                    loss = ((pred - y) ** 2).mean()
                    optimizer.zero_grad()
                    loss.backward()
                    optimizer.step()
                    for cb in callbacks:
                        cb.on_batch_end(step, pred, x)
        '''),
    })
    result = run_tool("torchleak", "--isolated", "--no-cache", ".", cwd=tmp_path / "proj")
    assert "train.py:12:" in result.stdout and "TLK102" in result.stdout and "callbacks.py" in result.stdout, result.stdout + result.stderr


_DECODER = '''
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)

    def forward(self, x):
        return self.proj(x).sum()

    def decode(self, x, steps=5):
        return self._search(x, steps)

    def _search(self, x, steps):
        scores = []
        state = x
        for t in range(steps):
            state = self.proj(state).tanh()
            scores.append(state.sum())
        return scores
'''


@pytest.mark.parametrize("no_grad", [
    pytest.param(True, marks=pytest.mark.xfail(strict=True, reason=(
        "not yet: taking a method as no-grad because the importers the index sees call it only under "
        "no_grad also silenced meters handed to a training loop as parameters (deeplab_seg-like), whose "
        "calls the index does not see"))),
    False,
])
def test_a_method_another_module_calls_only_under_no_grad_runs_without_grad(tmp_path: Path, no_grad: bool) -> None:
    # OpenASR-like: decode.py runs model.decode(...) inside torch.no_grad(); the beam search in
    # models.py keeps its scores, which hold no graph then.
    call = "with torch.no_grad():\n            hyps = model.decode(x)" if no_grad else "hyps = model.decode(x)"
    write(tmp_path, {
        "setup.cfg": "",
        "models.py": _DECODER,
        "decode.py": f"import torch\nimport models\n\n\ndef main(batches):\n    model = models.Model()\n"
                     f"    for x in batches:\n        {call}\n        print(len(hyps))\n",
    })
    assert _lint(tmp_path, "models.py") == ([] if no_grad else ["TLK102 22", "TLK103 21"])


def test_what_a_trainer_is_constructed_with_is_known_by_its_class(tmp_path: Path) -> None:
    # joey_nmt-like: train.py builds Model() and hands it to TrainManager; training.py never
    # names the class, and learns it from the construction in its importer.
    write(tmp_path, {
        "setup.cfg": "",
        "model.py": "import torch.nn as nn\n\n\nclass Model(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                    "        self.lin = nn.Linear(2, 2)\n\n    def forward(self, x):\n        return self.lin(x)\n",
        "training.py": "class TrainManager:\n    def __init__(self, model, cfg):\n        self.model = model\n        self.cfg = cfg\n",
        "train.py": "from model import Model\nfrom training import TrainManager\n\n\ndef main(cfg):\n    model = Model()\n"
                    "    trainer = TrainManager(model, cfg)\n    return trainer\n",
    })
    from torchleak.analysis.flow import analyse

    path = tmp_path / "training.py"
    facts = analyse(cst.parse_module(path.read_text()), Settings(origin=Origin(str(path), use_cache=False)))
    assert ("TrainManager.__init__", 1, "model.py:Model") in set(facts.externals.argument_classes_by_importers)
    held = facts.attributes.get(("TrainManager", "model"))
    assert held is not None and held.cls == "model.py:Model"
    assert facts.attributes.get(("TrainManager", "cfg")) is None or facts.attributes[("TrainManager", "cfg")].cls is None


class TestFixInTheHelperOfAnotherModule:
    """A helper of another module that keeps what it is given in one place, called once in the
    whole project from a loop that passes it a graph: the fix is that one line of the helper, so
    the helper's file reports it and the caller's does not ("the storing line in the
    helper when every caller leaks"); modelled on projects round 11 (ppo_agent's EpisodeLogger)."""

    LOGGER = """
        class EpisodeLogger:
            def __init__(self):
                self.history = {}

            def log(self, **scalars):
                for key, value in scalars.items():
                    self.history.setdefault(key, []).append(value)
    """
    TRAIN = """
        import torch
        from utils import EpisodeLogger

        def main(model, opt, loader):
            logger = EpisodeLogger()
            for x in loader:
                entropy = model(x).softmax(-1).log().mean()
                opt.zero_grad()
                entropy.backward()
                opt.step()
                logger.log(entropy=entropy)
    """

    def test_the_only_call_is_reported_at_the_helpers_store(self, tmp_path: Path) -> None:
        write(tmp_path, {"setup.py": "", "utils.py": self.LOGGER, "train.py": self.TRAIN})
        assert _lint(tmp_path, "train.py") == []
        assert _lint(tmp_path, "utils.py") == ["TLK102 8"]

    def test_a_second_call_puts_it_back_at_the_call(self, tmp_path: Path) -> None:
        twice = self.TRAIN + "            logger.log(lr=0.1)\n"
        write(tmp_path, {"setup.py": "", "utils.py": self.LOGGER, "train.py": twice})
        assert _lint(tmp_path, "train.py") == ["TLK102 12"]
        assert _lint(tmp_path, "utils.py") == []

    def test_a_helper_module_the_pre_filter_drops_leaves_it_at_the_call(self, tmp_path: Path) -> None:
        # (linted, a module without a loop is not analysed: it could not report it)
        flat = self.LOGGER.replace(
            "for key, value in scalars.items():\n                    self.history.setdefault(key, []).append(value)",
            "self.history.setdefault('all', []).append(scalars)",
        )
        write(tmp_path, {"setup.py": "", "utils.py": flat, "train.py": self.TRAIN})
        assert _lint(tmp_path, "train.py") == ["TLK102 12"]
        assert _lint(tmp_path, "utils.py") == []


def test_a_state_another_modules_method_carries_in_its_own_batch_loop_is_reported_there_only(tmp_path: Path) -> None:
    # projects round 11, ppo_agent: PPOAgent.update smooths an attached coefficient inside its
    # epochs over the rollout; train.py's ``agent.update()`` is not a second place to fix it.
    write(tmp_path, {
        "setup.py": "",
        "agent.py": """
            import torch
            import torch.nn as nn

            class Agent:
                def __init__(self):
                    self.net = nn.Linear(4, 2)
                    self.log_coef = nn.Parameter(torch.zeros(()))
                    self.opt = torch.optim.Adam([*self.net.parameters(), self.log_coef])
                    self.avg = torch.zeros(())

                def update(self, batches):
                    for x in batches:
                        loss = self.net(x).pow(2).mean() * self.log_coef.exp()
                        self.avg = 0.9 * self.avg + 0.1 * self.log_coef.exp()
                        self.opt.zero_grad()
                        (loss + self.avg).backward(retain_graph=True)
                        self.opt.step()
        """,
        "train.py": """
            from agent import Agent

            def main(rollouts):
                agent = Agent()
                for batches in rollouts:
                    agent.update(batches)
        """,
    })
    assert _lint(tmp_path, "agent.py") == ["TLK202 17"]  # (one finding: the retain that papers over the state, naming it)
    assert _lint(tmp_path, "train.py") == []


def test_a_slot_keyed_by_what_another_modules_helper_is_given_is_kept(tmp_path: Path) -> None:
    """``self.scores[idx] = ...`` for each ``idx`` a caller in another module passes: another
    slot each call (the summary says so, since the caller's analysis cannot see the helper's
    code); a slot keyed by a position of ``range`` is the same few slots every call."""
    write(tmp_path, {
        "setup.cfg": "",
        "sampler.py": """
            class Scorer:
                def __init__(self):
                    self.scores = {}

                def update(self, indices, log_probs):
                    for idx in indices.tolist():
                        self.scores[idx] = log_probs
        """,
        "train.py": """
            import torch
            from torch import nn
            from sampler import Scorer

            def train(loader):
                model = nn.Linear(4, 3)
                opt = torch.optim.SGD(model.parameters(), lr=0.1)
                scorer = Scorer()
                for x, idx in loader:
                    out = model(x)
                    opt.zero_grad()
                    out.sum().backward()
                    opt.step()
                    scorer.update(idx, out)
        """,
    })
    found = run_tool("torchleak", "--isolated", "--no-cache", ".", cwd=tmp_path)
    # (the project's only call: reported at the helper's store, where the fix goes)
    assert "sampler.py:8:13: TLK102" in found.stdout, found.stdout
    (tmp_path / "sampler.py").write_text((tmp_path / "sampler.py").read_text().replace("for idx in indices.tolist():", "for idx in range(3):"))
    assert "TLK102" not in run_tool("torchleak", "--isolated", "--no-cache", ".", cwd=tmp_path).stdout


def test_a_state_another_modules_helper_carries_is_reported_in_the_helper(tmp_path: Path) -> None:
    """``tracker.update(a, b)``, the project's only call of ``Tracker.update``, which folds what
    it is given into a moving average on the tracker: reported at that statement of the helper's
    module (where the fix goes), not at the call; with a second call, at the calls."""
    write(tmp_path, {
        "setup.cfg": "",
        "utils.py": """
            class Tracker:
                def __init__(self):
                    self.gap = 0.0

                def update(self, a, b):
                    self.gap = 0.9 * self.gap + 0.1 * (a - b)


            def mean(values):
                total = 0.0
                for value in values:
                    total += value
                return total / len(values)
        """,
        "train.py": """
            import torch.nn.functional as F
            from utils import Tracker

            def train(student, teacher, loader, opt):
                tracker = Tracker()
                for x, y in loader:
                    out = student(x)
                    loss = F.cross_entropy(out, y)
                    opt.zero_grad()
                    loss.backward()
                    opt.step()
                    tracker.update(loss, F.cross_entropy(teacher(x), y))
        """,
    })
    found = run_tool("torchleak", "--isolated", "--no-cache", ".", cwd=tmp_path).stdout
    assert "utils.py:7:9: TLK103" in found and "train.py" not in found, found
    plugin = run_tool("flake8", "--select", "TLK", "utils.py", "train.py", cwd=tmp_path).stdout
    assert "utils.py:7:9: TLK103" in plugin and "train.py" not in plugin, plugin
    (tmp_path / "train.py").write_text((tmp_path / "train.py").read_text() + "\n\ndef again(tracker, a, b):\n    for _ in range(3):\n        tracker.update(a, b)\n")
    found = run_tool("torchleak", "--isolated", "--no-cache", ".", cwd=tmp_path).stdout
    assert "utils.py:7:9" not in found and "train.py:13:9: TLK103" in found, found


def test_what_a_helper_one_module_down_keeps_of_what_it_is_handed_is_reported_there(tmp_path: Path) -> None:
    """The loop calls ``agent.step`` (agent.py), which computes the loss and hands it to
    ``stats.add_loss`` (utils.py), the project's only call of it: the sum is reported at
    ``add_loss``'s line, where the fix goes; nothing at the call, which passes nothing of it."""
    write(tmp_path, {
        "setup.cfg": "",
        "utils.py": """
            class Stats:
                def __init__(self):
                    self.loss_sum = 0.0

                def add_loss(self, loss):
                    self.loss_sum += loss


            def mean(values):
                total = 0.0
                for value in values:
                    total += value
                return total / len(values)
        """,
        "agent.py": """
            import torch
            import torch.nn.functional as F
            from utils import Stats

            class Agent:
                def __init__(self, net):
                    self.net = net
                    self.opt = torch.optim.SGD(net.parameters(), lr=0.1)
                    self.stats = Stats()

                def step(self, x, y):
                    loss = F.mse_loss(self.net(x), y)
                    self.opt.zero_grad()
                    loss.backward()
                    self.opt.step()
                    self.stats.add_loss(loss)
        """,
        "train.py": """
            from torch import nn
            from agent import Agent

            def main(loader):
                agent = Agent(nn.Linear(4, 1))
                for x, y in loader:
                    agent.step(x, y)
        """,
    })
    found = run_tool("torchleak", "--isolated", "--no-cache", ".", cwd=tmp_path).stdout
    assert "utils.py:7:9: TLK101" in found and "train.py" not in found.replace("train.py's", ""), found
    plugin = run_tool("flake8", "--select", "TLK", "utils.py", "agent.py", "train.py", cwd=tmp_path).stdout
    assert "utils.py:7:9: TLK101" in plugin and "train.py:" not in plugin, plugin


def test_a_meter_another_modules_train_step_sums_into_is_reported_at_that_call(tmp_path: Path) -> None:
    """train.py's loop hands a dict of meters to engine.py's ``train_step``, which computes the
    loss and gives it to ``AverageMeter.update`` of utils.py (called twice, so not the place of
    the fix): reported at ``train_step``'s call of it, where the loss is computed; the meters are
    not "backwarded later" because ``train_step`` backwards (its summary says which parameters
    reach that backward)."""
    write(tmp_path, {
        "setup.cfg": "",
        "utils.py": """
            class AverageMeter:
                def __init__(self):
                    self.sum = 0.0

                def update(self, val, n=1):
                    self.sum += val * n
        """,
        "engine.py": """
            import torch.nn.functional as F

            def train_step(model, optimizer, x, y, meters):
                optimizer.zero_grad()
                out = model(x)
                loss = F.mse_loss(out, y)
                loss.backward()
                optimizer.step()
                meters["loss"].update(loss, n=len(x))
                meters["mae"].update((out - y).abs().mean().item(), n=len(x))
                return loss.item()
        """,
        "train.py": """
            import torch
            from torch import nn
            from utils import AverageMeter
            from engine import train_step

            def main(loader):
                model = nn.Linear(4, 1)
                optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
                meters = {"loss": AverageMeter(), "mae": AverageMeter()}
                for x, y in loader:
                    train_step(model, optimizer, x, y, meters)
                return meters
        """,
    })
    found = run_tool("torchleak", "--isolated", "--no-cache", ".", cwd=tmp_path).stdout
    assert "engine.py:10:5: TLK101" in found and "train.py:" not in found and found.count("TLK") == 1, found
    (tmp_path / "engine.py").write_text((tmp_path / "engine.py").read_text().replace("update(loss,", "update(loss.item(),"))
    assert "TLK" not in run_tool("torchleak", "--isolated", "--no-cache", ".", cwd=tmp_path).stdout


def test_objects_main_builds_and_hands_to_another_modules_loop_are_known_there(tmp_path: Path) -> None:
    """projects14 tinydet and tsforecast: train.py builds a ModelEMA (utils.py) and hands it to
    engine.py's ``train_one_epoch(..., ema=ema)`` by keyword; exp.py keeps
    ``defaultdict(AverageMeter)`` of tools.py. What the EMA carries of the parameters and what
    the meter sums are reported at their own lines (each is called once in the project)."""
    write(tmp_path, {
        "setup.cfg": "",
        "utils.py": """
            from collections import defaultdict

            class ModelEMA:
                def __init__(self, model, decay=0.99):
                    self.decay = decay
                    self.shadow = {n: p.detach().clone() for n, p in model.named_parameters()}

                def update(self, model):
                    for name, p in model.named_parameters():
                        self.shadow[name] = self.decay * self.shadow[name] + (1.0 - self.decay) * p

            class AverageMeter:
                def __init__(self):
                    self.sum = 0.0

                def update(self, val, n=1):
                    self.sum += val * n
        """,
        "engine.py": """
            from collections import defaultdict
            import torch.nn.functional as F
            from utils import AverageMeter

            METERS = defaultdict(AverageMeter)

            def train_one_epoch(model, optimizer, loader, ema=None):
                for x, y in loader:
                    out = model(x)
                    parts = {"mse": F.mse_loss(out, y)}
                    loss = sum(parts.values())
                    optimizer.zero_grad()
                    loss.backward()
                    optimizer.step()
                    for name, value in parts.items():
                        METERS[name].update(value, len(x))
                    if ema is not None:
                        ema.update(model)
        """,
        "train.py": """
            import torch
            from torch import nn
            import utils
            from engine import train_one_epoch

            def main(loader, use_ema=True):
                model = nn.Linear(4, 1)
                optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
                ema = utils.ModelEMA(model)
                for epoch in range(3):
                    train_one_epoch(model, optimizer, loader, ema=ema if use_ema else None)
        """,
    })
    found = run_tool("torchleak", "--isolated", "--no-cache", ".", cwd=tmp_path).stdout
    lines = sorted(line.split(" ")[0] + " " + line.split(" ")[1] for line in found.splitlines() if " TLK" in line)
    assert lines == ["./utils.py:11:13: TLK103", "./utils.py:18:9: TLK101"], found


def test_a_helper_called_by_a_module_that_does_not_import_it_stays_at_that_call(tmp_path: Path) -> None:
    """projects round 8 planet_world_model: main.py builds the replay memory (memory.py) and
    hands it to trainer.py, whose loop appends to it; trainer.py does not import memory.py, and
    another module calls an ``append`` memory.py cannot see: reported at trainer.py's call."""
    write(tmp_path, {
        "setup.cfg": "",
        "memory.py": """
            class Replay:
                def __init__(self):
                    self.rewards = []

                def append(self, reward):
                    self.rewards.append(reward)
        """,
        "trainer.py": """
            class Trainer:
                def __init__(self, model, memory, opt):
                    self.model, self.memory, self.opt = model, memory, opt

                def collect(self, env, steps):
                    for _ in range(steps):
                        reward = self.model(env.observe()).mean()
                        self.memory.append(reward)
        """,
        "other.py": """
            def log(history, value):
                history.append(value)
        """,
        "main.py": """
            import torch
            from torch import nn
            from memory import Replay
            from trainer import Trainer
            import other

            def main(env):
                model = nn.Linear(4, 1)
                trainer = Trainer(model, Replay(), torch.optim.SGD(model.parameters(), lr=0.1))
                trainer.collect(env, 10)
        """,
    })
    found = run_tool("torchleak", "--isolated", "--no-cache", ".", cwd=tmp_path).stdout
    # (the message may name Replay.append in memory.py; the finding stays at the call)
    assert "trainer.py:9:13: TLK102" in found and not any(line.startswith(("memory.py", "./memory.py")) for line in found.splitlines()), found


def test_a_packages_re_exports_hand_nothing_to_its_other_modules(tmp_path: Path) -> None:
    """Library code (timm's ``models/__init__.py``: ``from .hrnet import *`` beside a hundred
    such lines): the modules a package's ``__init__.py`` re-exports are not siblings handed
    hrnet's objects, so deciding where a leak through ``HighResolutionNet.reset_classifier``
    is reported analyses none of them (it analysed all 91 modules calling a method of that
    name, 13 s of one file's lint)."""
    modules = {f"pkg/net{i}.py": f"""
        class Net{i}:
            def reset_classifier(self, n):
                self.head = n

        def build{i}(model, n):
            model.reset_classifier(n)
    """ for i in range(5)}
    write(tmp_path, {
        "setup.cfg": "",
        "pkg/__init__.py": "".join(f"from .net{i} import *\n" for i in range(5)),
        **modules,
        "pkg/train.py": """
            from .net0 import Net0

            def fit(model, batches):
                for batch in batches:
                    model.reset_classifier(batch)
        """,
    })
    project._INDEXES.clear()
    path = tmp_path / "pkg/net0.py"
    settings = Settings(origin=Origin(str(path), use_cache=False))
    index = project.index_for(settings.origin, settings)  # type: ignore[arg-type]
    index.fixed_in_helper("pkg/net0.py:Net0.reset_classifier")
    assert not any(f"pkg/net{i}.py" in index._analysed_importers for i in range(1, 5)), sorted(index._analysed_importers)


def test_a_model_built_and_moved_to_a_device_is_known_by_its_class_where_it_is_handed(tmp_path: Path) -> None:
    """projects round 15, LightGCN: ``Recmodel = LightGCN(config, dataset).to(device)`` in
    train.py, handed to ``Procedure.BPR_train_original``: ``.to()`` returns the model, so the
    function's parameter is a LightGCN."""
    write(tmp_path, {
        "setup.cfg": "",
        "model.py": "import torch.nn as nn\n\n\nclass Model(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                    "        self.lin = nn.Linear(2, 2)\n\n    def forward(self, x):\n        return self.lin(x)\n",
        "procedure.py": "def train_epoch(model, batches):\n    for x in batches:\n        model(x)\n",
        "train.py": "import procedure\nfrom model import Model\n\n\ndef main(batches, device):\n    model = Model().to(device).train()\n"
                    "    procedure.train_epoch(model, batches)\n",
    })
    from torchleak.analysis.flow import analyse

    path = tmp_path / "procedure.py"
    facts = analyse(cst.parse_module(path.read_text()), Settings(origin=Origin(str(path), use_cache=False)))
    assert ("train_epoch", 0, "model.py:Model") in set(facts.externals.argument_classes_by_importers)


def test_a_state_another_modules_retaining_helper_carries_is_reported_at_its_retain_only(tmp_path: Path) -> None:
    """projects round 15, LightGCN: ``BPRLoss.stageOne`` (utils.py) backwards with
    retain_graph=True a loss of the model, whose method carries ``hist_emb`` (model.py); the
    loop calling ``stageOne`` (procedure.py) does not report the state again: one leak, one
    finding, at the retain."""
    write(tmp_path, {
        "setup.cfg": "",
        "model.py": """
            import torch.nn as nn

            class Model(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.net = nn.Linear(4, 4)
                    self.hist = None

                def loss(self, x):
                    out = self.net(x)
                    self.hist = out if self.hist is None else 0.9 * self.hist + 0.1 * out
                    return ((out - self.hist) ** 2).mean()
        """,
        "utils.py": """
            import torch

            class Trainer:
                def __init__(self, model):
                    self.model = model
                    self.opt = torch.optim.SGD(model.parameters(), lr=0.1)

                def step(self, x):
                    loss = self.model.loss(x)
                    self.opt.zero_grad()
                    loss.backward(retain_graph=True)
                    self.opt.step()
                    return loss.item()
        """,
        "procedure.py": """
            import utils

            def train_epoch(trainer: utils.Trainer, batches):
                return [trainer.step(x) for x in batches]
        """,
        "train.py": """
            import procedure
            from model import Model
            from utils import Trainer

            def main(batches):
                return procedure.train_epoch(Trainer(Model()), batches)
        """,
    })
    found = run_tool("torchleak", "--isolated", "--no-cache", ".", cwd=tmp_path).stdout
    assert "utils.py:12:23: TLK202" in found and "TLK103" not in found, found


def test_an_object_built_in_the_argument_is_known_by_its_class(tmp_path: Path) -> None:
    """``procedure.train_epoch(Trainer(Model()), batches)``: the trainer and its model are built
    where they are handed over, with no name of their own."""
    write(tmp_path, {
        "setup.cfg": "",
        "model.py": "import torch.nn as nn\n\n\nclass Model(nn.Module):\n    def forward(self, x):\n        return x\n",
        "utils.py": "class Trainer:\n    def __init__(self, model):\n        self.model = model\n",
        "procedure.py": "def train_epoch(trainer, batches):\n    return [trainer.model(x) for x in batches]\n",
        "train.py": "import procedure\nfrom model import Model\nfrom utils import Trainer\n\n\ndef main(batches, device):\n"
                    "    return procedure.train_epoch(Trainer(Model().to(device)), batches)\n",
    })
    from torchleak.analysis.flow import analyse

    for name, expected in (("procedure.py", ("train_epoch", 0, "utils.py:Trainer")), ("utils.py", ("Trainer.__init__", 1, "model.py:Model"))):
        path = tmp_path / name
        facts = analyse(cst.parse_module(path.read_text()), Settings(origin=Origin(str(path), use_cache=False)))
        assert expected in set(facts.externals.argument_classes_by_importers), name


def test_a_tensor_method_of_a_value_handed_in_is_no_project_class_method(tmp_path: Path) -> None:
    """``images.clone()`` of a tensor parameter is the tensor's ``clone``, not the ``clone`` of a
    configuration class elsewhere in the project (a detectron2-style ``CfgNode.clone`` made a
    PGD attack's carried example lose its graph once the project held such a class)."""
    write(tmp_path, {
        "pyproject.toml": "",
        "config.py": """\
            import copy


            class CfgNode(dict):
                def __getattr__(self, name):
                    return self[name]

                def clone(self):
                    return copy.deepcopy(self)
        """,
        "attack.py": """\
            import torch
            import torch.nn.functional as F


            def pgd_attack(model, images, labels, eps=8 / 255, alpha=2 / 255, steps=40):
                lower = (images - eps).clamp(0, 1)
                upper = (images + eps).clamp(0, 1)
                adv = images.clone().requires_grad_(True)
                for _ in range(steps):
                    loss = F.cross_entropy(model(adv), labels)
                    grad, = torch.autograd.grad(loss, adv)
                    adv = torch.min(torch.max(adv + alpha * grad.sign(), lower), upper)
                return adv


            def adversarial_training(model, loader, optimizer):
                for images, labels in loader:
                    adv_images = pgd_attack(model, images, labels)
                    loss = F.cross_entropy(model(adv_images.detach()), labels)
                    optimizer.zero_grad()
                    loss.backward()
                    optimizer.step()
        """,
    })
    assert _lint(tmp_path, "attack.py") == ["TLK103 12"]


METRICS_MODULE = {
    "setup.py": "",
    "stats.py": """
        import torch.nn.functional as F

        class OnlineMetrics:
            def __init__(self):
                self.loss_sum = 0.0
                self.losses = []

            def update(self, logits, labels):
                self.loss_sum += F.cross_entropy(logits, labels, reduction="sum")

            def record(self, loss):
                self.losses.append(loss)
    """,
    "train.py": """
        import torch
        import torch.nn as nn
        from stats import OnlineMetrics

        def train(loader):
            model = nn.Linear(4, 3)
            opt = torch.optim.SGD(model.parameters(), lr=0.1)
            online = OnlineMetrics()
            for x, y in loader:
                online.update(model(x), y)
                loss = nn.functional.cross_entropy(model(x), y)
                opt.zero_grad()
                loss.backward()
                opt.step()
                online.record(loss)
            return online
    """,
}


def test_a_loop_free_module_reports_what_its_method_computes_from_what_one_call_hands_it(tmp_path: Path) -> None:
    # projects round 21 cl_rehearsal, modelled on mammoth: OnlineMetrics.update in utils/stats.py
    # (a module without a loop, which the pre-filter skipped) sums the cross-entropy it computes
    # from the logits a training loop of another module hands it: the fix is that line (the
    # caller cannot '.item()' logits); record(loss) keeps its argument as given: the call's fix
    write(tmp_path, METRICS_MODULE)
    assert _lint(tmp_path, "stats.py") == ["TLK101 10"]
    assert _lint(tmp_path, "train.py") == ["TLK102 16"]


def test_a_method_called_on_an_instance_an_importer_builds_is_given_its_classes(tmp_path: Path) -> None:
    # projects round 22 drq_pixels: train.py builds the ReplayBuffer and hands it to
    # agent.update(replay_buffer, ...), whose helper hands the buffer the critic's TD errors:
    # the buffer's class was known to constructor calls and module functions, not to methods
    write(tmp_path, {
        "setup.py": "",
        "replay_buffer.py": """
        import torch
        import torch.nn as nn


        class ReplayBuffer:
            def __init__(self, capacity):
                self._priorities = [0.0] * capacity
                self._max_priority = 1.0

            def update_priorities(self, idxs, priorities):
                for i, p in zip(idxs, priorities):
                    self._priorities[i] = p
                    self._max_priority = max(self._max_priority, float(p))
        """,
        "agent.py": """
        import torch
        import torch.nn as nn


        class Agent:
            def __init__(self):
                self.critic = nn.Linear(4, 1)
                self.opt = torch.optim.Adam(self.critic.parameters())

            def update_priorities(self, replay_buffer, idxs, obs, target_q):
                td_error = (self.critic(obs) - target_q).abs().squeeze(1)
                replay_buffer.update_priorities(idxs, td_error + 1e-3)

            def update(self, replay_buffer, obs, target_q, idxs):
                loss = (self.critic(obs) - target_q).pow(2).mean()
                self.opt.zero_grad()
                loss.backward()
                self.opt.step()
                self.update_priorities(replay_buffer, idxs, obs, target_q)
        """,
        "train.py": """
        import torch
        from agent import Agent
        from replay_buffer import ReplayBuffer


        def main(steps):
            agent = Agent()
            buf = ReplayBuffer(100)
            for step in range(steps):
                obs = torch.randn(8, 4)
                agent.update(buf, obs, torch.randn(8, 1), list(range(8)))
            return buf
        """,
    })
    assert _lint(tmp_path, "replay_buffer.py") == ["TLK102 13"]
    write(tmp_path, {"agent.py": (tmp_path / "agent.py").read_text().replace("td_error + 1e-3", "td_error.detach() + 1e-3")})
    project._INDEXES.clear()
    assert _lint(tmp_path, "replay_buffer.py") == []


def test_a_dict_an_imported_modules_forward_fills_holds_its_graph_for_readers(tmp_path: Path) -> None:
    # projects round 22 drq_pixels: the actor's forward keeps ``self.outputs['std'] = std``;
    # the workspace of another module sums ``self.agent.actor.outputs['std'].mean()`` each step
    write(tmp_path, {
        "setup.py": "",
        "nets.py": """
        import torch
        import torch.nn as nn


        class Actor(nn.Module):
            def __init__(self):
                super().__init__()
                self.trunk = nn.Linear(4, 2)
                self.outputs = dict()

            def forward(self, obs):
                mu, log_std = self.trunk(obs).chunk(2, dim=-1)
                std = log_std.exp()
                self.outputs['std'] = std
                return torch.distributions.Normal(mu, std)


        class Agent:
            def __init__(self):
                self.actor = Actor()
                self.opt = torch.optim.Adam(self.actor.parameters())

            def act(self, obs):
                dist = self.actor(obs)
                return dist.sample()

            def update(self, obs):
                loss = -self.actor(obs).rsample().mean()
                self.opt.zero_grad()
                loss.backward()
                self.opt.step()
        """,
        "train.py": """
        import torch
        from nets import Agent


        class Workspace:
            def __init__(self):
                self.agent = Agent()
                self.totals = {'policy_std': 0.0}

            def run(self, steps):
                for step in range(steps):
                    action = self.agent.act(torch.randn(1, 4))
                    self.totals['policy_std'] += self.agent.actor.outputs['std'].mean()
                    self.agent.update(torch.randn(8, 4))
                return self.totals
        """,
    })
    assert _lint(tmp_path, "train.py") == ["TLK101 14"]
    write(tmp_path, {"train.py": (tmp_path / "train.py").read_text().replace("['std'].mean()", "['std'].mean().item()")})
    project._INDEXES.clear()
    assert _lint(tmp_path, "train.py") == []


def test_a_network_a_base_class_leaves_to_its_subclasses_is_a_module_where_it_is_used(tmp_path: Path) -> None:
    # projects round 22 pycil_protoaug, modelled on PyCIL: BaseLearner sets ``self._network =
    # None`` and calls ``self._network.eval()`` and ``self._network(inputs)`` in its validation
    # helper; a subclass in another module sets the network. The loss fed to the meter each
    # call was taken for the call of None, with no graph
    write(tmp_path, {
        "setup.py": "",
        "utils/__init__.py": "",
        "models/__init__.py": "",
        "utils/toolkit.py": """
        import torch
        import torch.nn as nn
        import torch.nn.functional as F


        class AverageMeter(object):
            def __init__(self):
                self.reset()

            def reset(self):
                self.val = 0
                self.avg = 0
                self.sum = 0
                self.count = 0

            def update(self, val, n=1):
                self.val = val
                self.sum += val * n
                self.count += n
                self.avg = self.sum / self.count
        """,
        "models/base.py": """
        import torch
        import torch.nn as nn
        import torch.nn.functional as F
        from utils.toolkit import AverageMeter


        class Learner:
            def __init__(self):
                self._network = None
                self._val_meter = AverageMeter()

            def _eval_loss(self, loader, max_batches=1):
                self._network.eval()
                for i, (inputs, targets) in enumerate(loader):
                    if i >= max_batches:
                        break
                    logits = self._network(inputs)
                    loss = F.cross_entropy(logits, targets)
                    self._val_meter.update(loss, len(targets))
                self._network.train()
                return self._val_meter.avg
        """,
        "models/sub.py": """
        import torch
        import torch.nn.functional as F
        from models.base import Learner


        class Sub(Learner):
            def __init__(self):
                super().__init__()
                self._network = torch.nn.Linear(4, 3)

            def train(self, loader, val_loader):
                optimizer = torch.optim.SGD(self._network.parameters(), lr=0.1)
                for it, (inputs, targets) in enumerate(loader):
                    loss = F.cross_entropy(self._network(inputs), targets)
                    optimizer.zero_grad()
                    loss.backward()
                    optimizer.step()
                    if it % 5 == 0:
                        self._eval_loss(val_loader)
        """,
    })
    assert _lint(tmp_path, "models/base.py") == ["TLK101 20"]
    write(tmp_path, {"models/base.py": (tmp_path / "models/base.py").read_text().replace("update(loss,", "update(loss.item(),")})
    project._INDEXES.clear()
    assert _lint(tmp_path, "models/base.py") == []


def test_objects_handed_in_through_a_configuration_and_factories_of_several_classes(tmp_path: Path) -> None:
    """Session 38's projects: DDIM's ``tb_logger = self.config.tb_logger`` (a writer the entry
    script puts on the configuration, whose ``add_scalar`` keeps what it is given), and TGN's
    ``get_message_function(kind)`` returning one of two classes of another module, the MLP one
    summing what it computes into ``self``; the same through flake8."""
    from conftest import run_tool

    write(tmp_path, {
        "pyproject.toml": "",
        "writer.py": (
            "from collections import defaultdict\n\n"
            "class ScalarWriter:\n"
            "    def __init__(self):\n"
            "        self.scalars = defaultdict(list)\n\n"
            "    def add_scalar(self, tag, value, step=None):\n"
            "        self.scalars[tag].append((step, value))\n"
        ),
        "messages.py": (
            "import torch.nn as nn\n\n"
            "class MLPMessage(nn.Module):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            "        self.mlp = nn.Linear(4, 4)\n"
            "        self.norm_sum = 0.0\n\n"
            "    def compute(self, raw):\n"
            "        out = self.mlp(raw)\n"
            "        self.norm_sum += out.norm()\n"
            "        return out\n\n"
            "class IdentityMessage(nn.Module):\n"
            "    def compute(self, raw):\n"
            "        return raw\n\n"
            "def get_message_function(kind):\n"
            "    if kind == 'mlp':\n"
            "        return MLPMessage()\n"
            "    return IdentityMessage()\n"
        ),
        "runner.py": (
            "import torch\n"
            "from messages import get_message_function\n\n"
            "class Runner:\n"
            "    def __init__(self, config):\n"
            "        self.config = config\n\n"
            "    def train(self, model, loader):\n"
            "        tb_logger = self.config.tb_logger\n"
            "        message_function = get_message_function('mlp')\n"
            "        opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
            "        for x in loader:\n"
            "            loss = model(message_function.compute(x)).mean()\n"
            "            opt.zero_grad()\n"
            "            loss.backward()\n"
            "            opt.step()\n"
            "            tb_logger.add_scalar('loss', loss)\n"
        ),
    })
    result = run_tool("torchleak", "--no-cache", "runner.py", cwd=tmp_path)
    found = sorted(line.split(": ", 1)[0].rsplit(":", 1)[0] + " " + line.split(": ", 1)[1][:6] for line in result.stdout.splitlines() if ": TLK" in line)
    assert found == ["runner.py:13 TLK101", "runner.py:17 TLK102"], result.stdout
    plugin = run_tool("flake8", "--select", "TLK", "runner.py", cwd=tmp_path)
    assert sorted(line.split(":")[1] for line in plugin.stdout.splitlines()) == ["13", "17"], plugin.stdout


def test_a_helper_its_own_module_runs_from_the_one_call_of_another_is_reported_there(tmp_path: Path) -> None:
    """guided-diffusion's resampler: the training loop (train_util.py) tests
    ``isinstance(self.schedule_sampler, LossAwareSampler)`` and calls the base class's
    ``update_with_local_losses``, which hands each loss to the subclass's
    ``update_with_all_losses``, which keeps it. The class named only by ``isinstance`` is
    followed, and the leak is reported at the statement that keeps it, two calls down, in the
    sampler's module (nothing at the call); a second caller of the helper moves it back to the
    calls."""
    sampler = """
        import torch

        class ScheduleSampler:
            def sample(self, n):
                return torch.zeros(n, dtype=torch.long)

        class UniformSampler(ScheduleSampler):
            pass

        class LossAwareSampler(ScheduleSampler):
            def update_with_local_losses(self, local_ts, local_losses):
                self.update_with_all_losses([int(t) for t in local_ts], list(local_losses))

            def update_with_all_losses(self, ts, losses):
                raise NotImplementedError

        class SecondMomentSampler(LossAwareSampler):
            def __init__(self):
                self.history = [[] for _ in range(10)]

            def update_with_all_losses(self, ts, losses):
                for t, loss in zip(ts, losses):
                    self.history[t].append(loss)
    """
    write(tmp_path, {
        "setup.cfg": "",
        "resample.py": sampler,
        "train_util.py": """
            import torch
            from resample import LossAwareSampler, UniformSampler

            class TrainLoop:
                def __init__(self, model, sampler=None):
                    self.model = model
                    self.opt = torch.optim.SGD(model.parameters(), lr=0.1)
                    self.sampler = sampler or UniformSampler()

                def run_loop(self, batches):
                    for x in batches:
                        t = self.sampler.sample(x.shape[0])
                        losses = ((self.model(x) - x) ** 2).mean(dim=1)
                        if isinstance(self.sampler, LossAwareSampler):
                            self.sampler.update_with_local_losses(t, losses)
                        self.opt.zero_grad()
                        losses.mean().backward()
                        self.opt.step()
        """,
    })
    found = run_tool("torchleak", "--isolated", "--no-cache", ".", cwd=tmp_path).stdout
    assert "resample.py:24:13: TLK102" in found and "train_util.py" not in found.replace("train_util.py's", ""), found
    plugin = run_tool("flake8", "--select", "TLK", "resample.py", "train_util.py", cwd=tmp_path).stdout
    assert "resample.py:24:13: TLK102" in plugin and "train_util.py:" not in plugin, plugin
    # guard: the sampler's module runs the keeping helper itself a second time, elsewhere
    write(tmp_path, {"resample.py": sampler + """
        def replay(sampler, ts, losses):
            sampler.update_with_all_losses(ts, losses)
    """})
    project._INDEXES.clear()
    found = run_tool("torchleak", "--isolated", "--no-cache", ".", cwd=tmp_path).stdout
    assert "train_util.py:16:17: TLK102" in found and "resample.py:24:13" not in found, found


def test_a_closure_in_a_method_reads_its_self_and_an_imported_class_is_no_method(tmp_path: Path) -> None:
    # StyleGAN2 (lucidrains): ``EMA(self)`` defines ``update_moving_average`` inside itself, which
    # calls ``self.ema_updater.update_average`` of an ``EMA`` class imported from helpers.py
    # (the bare name ``EMA(0.995)`` in ``__init__`` is that class, not the method ``self.EMA``);
    # the copy_ outside no_grad carries every step's graph into the average's weights
    write(tmp_path, {
        "setup.cfg": "",
        "helpers.py": """
            class EMA:
                def __init__(self, beta):
                    self.beta = beta

                def update_average(self, old, new):
                    return old * self.beta + (1 - self.beta) * new
        """,
        "networks.py": """
            import copy
            import torch.nn as nn
            from helpers import EMA

            class GAN(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.G = nn.Linear(4, 4)
                    self.GE = copy.deepcopy(self.G)
                    for p in self.GE.parameters():
                        p.requires_grad_(False)
                    self.ema_updater = EMA(0.995)

                def EMA(self):
                    def update_moving_average(ma_model, current_model):
                        for current, ma in zip(current_model.parameters(), ma_model.parameters()):
                            ma.copy_(self.ema_updater.update_average(ma, current))

                    update_moving_average(self.GE, self.G)
        """,
        "train.py": """
            import torch
            from networks import GAN

            def main(batches):
                gan = GAN()
                opt = torch.optim.Adam(gan.G.parameters())
                for x in batches:
                    loss = gan.G(x).sum()
                    opt.zero_grad()
                    loss.backward()
                    opt.step()
                    gan.EMA()
        """,
    })
    found = run_tool("torchleak", "--isolated", "--no-cache", ".", cwd=tmp_path).stdout
    assert "train.py:13:9: TLK103" in found, found
    # the fix named is the helper's no_grad (a module has no .detach())
    assert "under torch.no_grad() in update_moving_average" in found and ".detach()" not in found, found
    # guard: the helper's update under no_grad carries nothing
    write(tmp_path, {"networks.py": (tmp_path / "networks.py").read_text().replace(
        "                ma.copy_(", "                with torch.no_grad():\n                    ma.copy_(").replace(
        "import copy\n", "import copy\nimport torch\n")})
    project._INDEXES.clear()
    found = run_tool("torchleak", "--isolated", "--no-cache", ".", cwd=tmp_path).stdout
    assert "TLK103" not in found, found


def test_what_a_renderer_returns_from_closures_calling_the_field_it_is_given_holds_a_graph(tmp_path: Path) -> None:
    # nerfacc's examples/utils.py: render_image_with_occgrid(radiance_field, ...) calls the field
    # inside closures it hands to the sampler, so it runs the field's forward; the rgb it returns,
    # fed to an AverageMeter through a PSNR in train.py, keeps every step's graph
    write(tmp_path, {
        "setup.cfg": "",
        "utils.py": """
            class AverageMeter:
                def __init__(self):
                    self.sum = 0
                    self.count = 0

                def update(self, val, n=1):
                    self.sum += val * n
                    self.count += n

            def march(rays, rgb_sigma_fn):
                return rgb_sigma_fn(rays)

            def render_image(radiance_field, rays, render_bkgd=None):
                def rgb_sigma_fn(positions):
                    return radiance_field(positions)

                rgb = march(rays, rgb_sigma_fn)
                return rgb, rgb.sum(), render_bkgd
        """,
        "train.py": """
            import math
            import torch
            import torch.nn as nn
            import torch.nn.functional as F
            from utils import AverageMeter, render_image

            def main(batches):
                radiance_field = nn.Linear(3, 3)
                optimizer = torch.optim.Adam(radiance_field.parameters())
                train_psnr = AverageMeter()
                for rays, pixels in batches:
                    rgb, acc, depth = render_image(radiance_field, rays)
                    loss = F.smooth_l1_loss(rgb, pixels)
                    optimizer.zero_grad()
                    loss.backward()
                    optimizer.step()
                    psnr = -10.0 * torch.log(F.mse_loss(rgb, pixels)) / math.log(10.0)
                    train_psnr.update(psnr, n=len(pixels))
        """,
    })
    found = run_tool("torchleak", "--isolated", "--no-cache", ".", cwd=tmp_path).stdout
    assert "train.py:19:9: TLK101" in found, found
    # guard: the PSNR as a number
    write(tmp_path, {"train.py": (tmp_path / "train.py").read_text().replace("train_psnr.update(psnr,", "train_psnr.update(psnr.item(),")})
    project._INDEXES.clear()
    found = run_tool("torchleak", "--isolated", "--no-cache", ".", cwd=tmp_path).stdout
    assert "TLK101" not in found, found


def test_an_abstract_method_runs_the_one_subclass_implementing_it_in_another_module(tmp_path: Path) -> None:
    # tianshou: offpolicy_trainer(policy: BasePolicy, ...) calls policy.update(...) per batch;
    # BasePolicy.update (policy/base.py) calls the abstract self.learn(batch), implemented by
    # DQNPolicy (policy/dqn.py), which carries a running scale and returns an attached TD error
    write(tmp_path, {
        "setup.cfg": "",
        "policy/__init__.py": "from policy.base import BasePolicy\nfrom policy.dqn import DQNPolicy\n",
        "policy/base.py": """
            from torch import nn

            class BasePolicy(nn.Module):
                def learn(self, batch):
                    \"\"\"Update the policy with a batch.\"\"\"
                    raise NotImplementedError

                def update(self, batch):
                    result = self.learn(batch)
                    return result
        """,
        "policy/dqn.py": """
            import torch
            import torch.nn.functional as F
            from policy.base import BasePolicy

            class DQNPolicy(BasePolicy):
                def __init__(self, model, optim):
                    super().__init__()
                    self.model = model
                    self.optim = optim
                    self._q_scale = torch.tensor(1.0)

                def learn(self, batch):
                    self.optim.zero_grad()
                    logits = self.model(batch["obs"])
                    self._q_scale = 0.99 * self._q_scale + 0.01 * logits.abs().mean()
                    q = logits.gather(1, batch["act"]).squeeze(1)
                    loss = F.mse_loss(q, batch["ret"])
                    loss.backward()
                    self.optim.step()
                    return {"loss": loss.item(), "td": (batch["ret"] - q).abs().mean()}
        """,
        "trainer.py": """
            from policy import BasePolicy

            def offpolicy_trainer(policy: BasePolicy, batches):
                td_abs_sum = 0.0
                for batch in batches:
                    losses = policy.update(batch)
                    td_abs_sum += losses["td"]
                return td_abs_sum
        """,
        "train.py": """
            import torch
            from policy import DQNPolicy
            from trainer import offpolicy_trainer

            def main(batches):
                net = torch.nn.Linear(4, 2)
                policy = DQNPolicy(net, torch.optim.Adam(net.parameters()))
                return offpolicy_trainer(policy, batches)
        """,
    })
    found = run_tool("torchleak", "--isolated", "--no-cache", ".", cwd=tmp_path).stdout
    assert "policy/dqn.py:16:9: TLK103" in found, found
    assert "trainer.py:8:9: TLK101" in found, found
    assert found.count("TLK10") == 2, found  # the carry is reported once, in the helper
    # guard: the scale averaged from a detached value, the error returned as a number
    write(tmp_path, {"policy/dqn.py": (tmp_path / "policy/dqn.py").read_text().replace(
        "logits.abs().mean()\n", "logits.abs().mean().detach()\n").replace('"td": (batch["ret"] - q).abs().mean()', '"td": (batch["ret"] - q).abs().mean().item()')})
    project._INDEXES.clear()
    found = run_tool("torchleak", "--isolated", "--no-cache", ".", cwd=tmp_path).stdout
    assert "TLK1" not in found, found


def test_a_record_class_of_another_module_holds_what_it_is_given(tmp_path: Path) -> None:
    # a dataclass (and tianshou's Batch, an attribute dict built from keywords) imported from
    # another module: an instance built from attached values holds them, field by field
    write(tmp_path, {
        "setup.cfg": "",
        "records.py": """
            from dataclasses import dataclass
            import torch

            @dataclass
            class Step:
                value: torch.Tensor
                reward: float

            class Batch:
                def __init__(self, **kwargs):
                    for k, v in kwargs.items():
                        self.__dict__[k] = v
        """,
        "train.py": """
            import torch
            from records import Batch, Step

            def main(batches):
                net = torch.nn.Linear(4, 1)
                opt = torch.optim.SGD(net.parameters(), lr=0.1)
                values, rewards = [], []
                for x, y in batches:
                    out = net(x)
                    loss = ((out - y) ** 2).mean()
                    opt.zero_grad()
                    loss.backward()
                    opt.step()
                    step = Step(value=out.mean(), reward=loss.item())
                    values.append(step.value)
                    rewards.append(step.reward)
                    batch = Batch(out=out, target=y)
                    rewards.append(batch.target)
        """,
    })
    found = run_tool("torchleak", "--isolated", "--no-cache", ".", cwd=tmp_path).stdout
    assert "train.py:16:9: TLK102" in found, found
    assert found.count("TLK102") == 1, found  # the reward field and the target hold no graph
    write(tmp_path, {"train.py": (tmp_path / "train.py").read_text().replace("rewards.append(batch.target)", "rewards.append(batch.out)")})
    project._INDEXES.clear()
    found = run_tool("torchleak", "--isolated", "--no-cache", ".", cwd=tmp_path).stdout
    assert "train.py:19:9: TLK102" in found, found


@pytest.mark.parametrize("annotated", [False, True])
def test_an_object_declared_as_an_abstract_base_of_another_module_runs_its_one_subclass(tmp_path: Path, annotated: bool) -> None:
    # PyTorch-VAE: VAEXperiment(vae_model: BaseVAE, ...) calls self.model.loss_function(*results);
    # BaseVAE (models/base.py, re-exported by ``from .base import *``) leaves loss_function
    # abstract, BetaVAE (models/beta_vae.py) implements it and keeps a moving average of the
    # attached KL term; the logger keeps the attached loss dict
    write(tmp_path, {
        "setup.cfg": "",
        "models/__init__.py": "from .base import *\nfrom .beta_vae import *\n",
        "models/base.py": """
            from torch import nn

            __all__ = ["BaseVAE"]

            class BaseVAE(nn.Module):
                def forward(self, *inputs):
                    pass

                def loss_function(self, *inputs, **kwargs):
                    pass
        """,
        "models/beta_vae.py": """
            from torch import nn
            from .base import BaseVAE

            __all__ = ["BetaVAE"]

            class BetaVAE(BaseVAE):
                def __init__(self):
                    super().__init__()
                    self.enc = nn.Linear(4, 4)
                    self.kld_ema = 0.0

                def forward(self, x):
                    h = self.enc(x)
                    return [h, x, h]

                def loss_function(self, *args, **kwargs):
                    kld = (args[2] ** 2).mean()
                    self.kld_ema = 0.98 * self.kld_ema + 0.02 * kld
                    return {"loss": ((args[0] - args[1]) ** 2).mean() + kld, "KLD": kld}
        """,
        "utils.py": """
            from collections import defaultdict

            class MetricLogger:
                def __init__(self):
                    self.history = defaultdict(list)

                def log_metrics(self, metrics):
                    for key, val in metrics.items():
                        self.history[key].append(val)
        """,
        "experiment.py": f"""
            from models import BaseVAE

            class VAEXperiment:
                def __init__(self, vae_model{': BaseVAE' if annotated else ''}, logger):
                    self.model = vae_model
                    self.logger = logger

                def training_step(self, batch):
                    results = self.model(batch)
                    train_loss = self.model.loss_function(*results, M_N=0.1)
                    self.logger.log_metrics(train_loss)
                    return train_loss["loss"]
        """,
        "train.py": """
            import torch
            from models import BetaVAE
            from experiment import VAEXperiment
            from utils import MetricLogger

            def main(batches):
                model = BetaVAE()
                opt = torch.optim.SGD(model.parameters(), lr=0.1)
                experiment = VAEXperiment(model, MetricLogger())
                for x in batches:
                    loss = experiment.training_step(x)
                    loss.backward()
                    opt.step()
                    opt.zero_grad()
        """,
    })
    found = run_tool("torchleak", "--isolated", "--no-cache", ".", cwd=tmp_path).stdout
    assert "models/beta_vae.py:19:9: TLK103" in found, found  # in the helper: its one call is experiment.py's
    assert "utils.py:10:13: TLK102" in found, found
    assert found.count("TLK1") == 2, found
    # guard: the average of a detached value, the logger given numbers
    write(tmp_path, {
        "models/beta_vae.py": (tmp_path / "models/beta_vae.py").read_text().replace("0.02 * kld\n", "0.02 * kld.item()\n"),
        "utils.py": (tmp_path / "utils.py").read_text().replace("append(val)", "append(val.item())"),
    })
    project._INDEXES.clear()
    found = run_tool("torchleak", "--isolated", "--no-cache", ".", cwd=tmp_path).stdout
    assert "TLK1" not in found, found


def test_an_attribute_another_modules_epoch_sets_from_a_fresh_sum_is_no_carry(tmp_path: Path) -> None:
    # icefall: train_one_epoch(params, ...) in engine.py ends with params.train_loss =
    # tot_loss["loss"] / frames and keeps the best; train.py calls it once per epoch. Each
    # epoch's value replaces the last: nothing chains (the sum, when attached, is the leak)
    write(tmp_path, {
        "setup.cfg": "",
        "engine.py": """
            import torch

            def train_one_epoch(params, model, optimizer, batches):
                tot_loss = 0.0
                for x in batches:
                    loss = model(x).sum()
                    optimizer.zero_grad()
                    loss.backward()
                    optimizer.step()
                    tot_loss = tot_loss + loss
                params.train_loss = tot_loss / len(batches)
                if params.train_loss < params.best_train_loss:
                    params.best_train_loss = params.train_loss
        """,
        "train.py": """
            import torch
            from engine import train_one_epoch

            class AttributeDict(dict):
                def __getattr__(self, key):
                    return self[key]

                def __setattr__(self, key, value):
                    self[key] = value

            def main(batches):
                params = AttributeDict({"best_train_loss": float("inf")})
                model = torch.nn.Linear(4, 1)
                optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
                for epoch in range(3):
                    train_one_epoch(params, model, optimizer, batches)
        """,
    })
    found = run_tool("torchleak", "--isolated", "--no-cache", ".", cwd=tmp_path).stdout
    assert "engine.py:11:9: TLK101" in found, found
    assert "TLK103" not in found, found
