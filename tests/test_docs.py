"""The user's manual: README.md within 200 lines, its commands as CI runs them, every docs page linked, every
relative link resolving, and docs/validation.md and README.md's validation summary what docs/make_validation.py
makes of the data the tests check, docs/validation-timing.md too (every timing row: the timing engine run over
timing.json and the forms run, a slow test).
"""

import functools
import importlib.util
import re

import pytest

from conftest import ROOT

README = ROOT / "README.md"
DOCS = ROOT / "docs"
QUICK_START = "python3 -m venv .venv && . .venv/bin/activate && pip install -e . && simsmem run traces/ldsm_x4.json"
TESTS = "python3 -m venv .venv && . .venv/bin/activate && pip install -e '.[test]' && pytest"
LINK = re.compile(r"\]\(([^)\s]+)\)")


@functools.cache
def _generator():
    spec = importlib.util.spec_from_file_location("make_validation", DOCS / "make_validation.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _links(page):
    """(target path, anchor) of every relative markdown link on ``page``."""
    out = []
    for target in LINK.findall(page.read_text()):
        if target.startswith(("http://", "https://", "mailto:")):
            continue
        path, _, anchor = target.partition("#")
        out.append(((page.parent / path).resolve() if path else page, anchor))
    return out


@pytest.mark.slow  # runs every corpus comparison the page tabulates (about 12 s)
def test_validation_page_is_what_the_data_gives():
    text = _generator().validation_page()
    assert (DOCS / "validation.md").read_text() == text, "docs/validation.md is out of date: run python docs/make_validation.py"


@pytest.mark.slow  # counts every single-instruction row again (about 7 s), as test_calibration_v2 does in the quick suite
def test_readme_validation_summary_is_what_the_data_gives():
    assert README.read_text() == _generator().readme_text(), "README.md's validation summary is out of date: run python docs/make_validation.py"


@pytest.mark.slow  # runs the timing engine over 457 rows (about 25 s)
def test_timing_rows_page_is_what_the_engine_gives():
    text = _generator().engine_page()
    assert (DOCS / "validation-timing.md").read_text() == text, "docs/validation-timing.md is out of date: run python docs/make_validation.py --engine"


def test_isa_coverage_is_what_the_registry_gives():
    """docs/kernels.md's ISA table is made from the opcode registry (a regression guard: the page follows the code)."""
    spec = importlib.util.spec_from_file_location("make_isa", DOCS / "make_isa.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main(["--check"]) == 0, "docs/kernels.md's ISA coverage is out of date: run python docs/make_isa.py"


def test_readme_is_at_most_200_lines():
    assert len(README.read_text().splitlines()) <= 200


def test_readme_gives_the_commands_ci_and_new_users_run():
    text = README.read_text()
    assert QUICK_START in text and TESTS in text


def test_every_docs_page_is_linked_from_the_readme():
    linked = {path for path, _ in _links(README)}
    assert sorted(p.name for p in DOCS.glob("*.md") if p.resolve() not in linked) == []


@pytest.mark.parametrize("page", [README, *sorted(DOCS.glob("*.md"))], ids=lambda p: p.name)
def test_relative_links_resolve(page):
    missing = [str(path.relative_to(ROOT)) for path, _ in _links(page) if not path.exists()]
    assert missing == []


@pytest.mark.parametrize("page", [README, *sorted(DOCS.glob("*.md"))], ids=lambda p: p.name)
def test_anchors_name_headings(page):
    """``page.md#some-heading``: the heading exists (GitHub's anchors: lower case, spaces to hyphens, punctuation dropped)."""
    bad = []
    for path, anchor in _links(page):
        if anchor and path.exists() and path.suffix == ".md":
            headings = [h.strip() for h in re.findall(r"^#+ (.*)$", path.read_text(), flags=re.M)]
            slugs = {re.sub(r"[^\w\- ]", "", h.lower()).replace(" ", "-") for h in headings}
            if anchor not in slugs:
                bad.append(f"{path.name}#{anchor}")
    assert bad == []


@pytest.mark.parametrize("page", sorted(DOCS.glob("*.md")), ids=lambda p: p.name)
def test_each_page_starts_with_a_title_and_a_two_line_summary(page):
    lines = page.read_text().splitlines()
    assert lines[0].startswith("# ") and lines[1] == "" and lines[2] and lines[3] and not lines[4], page.name
