"""The worked examples in ``docs/`` are tests.

Every fenced block with the info string ``record`` in ``docs/**/*.md`` holds a
complete record (docs/record-format.md: header line, then events).  It must be followed
(blank lines allowed in between) by a block with the info string ``outcomes``
holding exactly the outcome lines the engine prints for it, one per event —
what ``tapptable replay`` prints.  A record whose header the engine refuses is
documented by a single outcome line ``bad header: <message>``.

The tests replay each record through the engine and compare line by line,
check that every rules page of a variant family carries worked examples for
each of its variants, and check that each variant's "Options" table lists
exactly the engine's options with the engine's defaults and allowed values.
"""
import json
import re
from pathlib import Path

import pytest

from tapp import variants
from tapp.catalog import PRESETS, VARIANTS, variant_ids
from tapp.replay import Replayer
from tapp.variants import COMMON_CHOICES, COMMON_OPTIONS, PARSERS, HeaderError

DOCS = Path(__file__).resolve().parent.parent / "docs"
FENCE = re.compile(r"^(`{3,}|~{3,})\s*([^`\s]*)")

# The variant family pages and the variants each one documents (docs/rules/README.md).
FAMILY_PAGES = {
    "rules/tapp.md": ("wuerttemberg", "tapp_classic", "tapp_modern"),
    "rules/bavarian-tarock.md": ("tarock_simple", "tarock_bettel", "haferltarock", "berliner"),
    "rules/scharfer-tarock.md": ("scharfer_tarock",),
    "rules/herzblatt.md": ("herzblatt", "herzblatt_muhr", "braun_solo"),
}


class Block:
    """One fenced code block: its info string, first content line number, lines."""

    def __init__(self, info, line, lines):
        self.info = info
        self.line = line
        self.lines = lines


def fenced_blocks(text):
    """The fenced code blocks of a Markdown text, in order, and the line
    number of the line after each block's closing fence."""
    out = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        fence, info = m.group(1), m.group(2)
        start = i + 1
        j = start
        while j < len(lines) and not (lines[j].startswith(fence[0] * len(fence))
                                      and lines[j].strip(fence[0]).strip() == ""):
            j += 1
        out.append((Block(info, start + 1, lines[start:j]), j + 2))
        i = j + 1
    return out


def _only_blank_between(text_lines, after_line, block_line):
    """Lines strictly between a closing fence and the next block's opening fence."""
    between = text_lines[after_line - 1:block_line - 2]
    return all(not ln.strip() for ln in between)


class Example:
    def __init__(self, path, record, outcomes):
        self.path = path
        self.record = record
        self.outcomes = outcomes

    @property
    def where(self):
        return "docs/%s:%d" % (self.path, self.record.line - 1)

    @property
    def header(self):
        return json.loads(self.record.lines[0])


def collect():
    """(examples, problems): every record/outcomes pair, and layout mistakes."""
    examples = []
    problems = []
    for md in sorted(DOCS.rglob("*.md")):
        rel = md.relative_to(DOCS).as_posix()
        text = md.read_text(encoding="utf-8")
        text_lines = text.split("\n")
        blocks = fenced_blocks(text)
        for k, (block, after) in enumerate(blocks):
            where = "docs/%s:%d" % (rel, block.line - 1)
            if block.info == "outcomes":
                prev = blocks[k - 1] if k else None
                if prev is None or prev[0].info != "record":
                    problems.append(where + ": an outcomes block without a record block before it")
                continue
            if block.info != "record":
                continue
            nxt = blocks[k + 1] if k + 1 < len(blocks) else None
            if (nxt is None or nxt[0].info != "outcomes"
                    or not _only_blank_between(text_lines, after, nxt[0].line)):
                problems.append(where + ": a record block must be followed by an outcomes block")
                continue
            if not block.lines or not block.lines[0].strip():
                problems.append(where + ": a record block must start with its header line")
                continue
            examples.append(Example(rel, block, nxt[0]))
    return examples, problems


EXAMPLES, PROBLEMS = collect()


def replay(lines):
    """Outcome lines for a record: one per non-blank event line, or the bad header."""
    try:
        rep = Replayer(lines[0])
    except HeaderError as exc:
        return ["bad header: %s" % exc], [1]
    outs = []
    at = []
    for n, line in enumerate(lines[1:], start=2):
        out = rep.feed(line)
        if out is not None:
            outs.append(out)
            at.append(n)
    return outs, at


@pytest.mark.parametrize("example", EXAMPLES, ids=[e.where for e in EXAMPLES])
def test_worked_example_replays(example):
    expected = example.outcomes.lines
    got, event_lines = replay(example.record.lines)
    diffs = []
    for k in range(max(len(expected), len(got))):
        exp = expected[k] if k < len(expected) else "(no line)"
        out = got[k] if k < len(got) else "(no line)"
        if exp != out:
            ev = event_lines[k] if k < len(event_lines) else None
            diffs.append(
                "outcome %d (docs/%s line %d%s):\n  expected: %s\n  got:      %s" % (
                    k + 1, example.path, example.outcomes.line + k,
                    "" if ev is None else
                    ", for the event on docs/%s line %d" % (
                        example.path, example.record.line + ev - 1),
                    exp, out))
    assert not diffs, "%s: %d outcome line(s) differ from the engine\n%s" % (
        example.where, len(diffs), "\n".join(diffs[:5]))


def test_blocks_are_well_formed():
    assert not PROBLEMS, "\n".join(PROBLEMS)


@pytest.mark.parametrize("page", sorted(FAMILY_PAGES))
def test_every_family_page_has_examples_for_its_variants(page):
    assert (DOCS / page).is_file(), "docs/%s is missing" % page
    on_page = [e for e in EXAMPLES if e.path == page]
    assert on_page, "docs/%s has no worked example (record + outcomes blocks)" % page
    shown = {e.header.get("variant") for e in on_page}
    missing = [v for v in FAMILY_PAGES[page] if v not in shown]
    assert not missing, "docs/%s has no worked example for %s" % (page, ", ".join(missing))


def test_every_variant_has_a_family_page():
    documented = {v for vs in FAMILY_PAGES.values() for v in vs}
    assert documented == set(variant_ids())


def test_examples_settle_deals():
    """The examples are worked settlements: most of them end a deal."""
    with_result = [e for e in EXAMPLES if any('"result":' in ln for ln in e.outcomes.lines)]
    assert len(with_result) >= len(FAMILY_PAGES) * 2


# ----- the option tables of the variant pages match the engine ------------------------

# The engine's bounds of the whole-number options, where it has them.
INT_RANGES = getattr(variants, "INT_OPTION_RANGES", None)
HEADING = re.compile(r"^## (2\.\d+) .*\(`(\w+)`\)")
TICKED = re.compile(r"`([^`]+)`")


def _engine_text(name, v):
    """An option value as the docs write it: JSON words; a rate as a whole number
    or a/b, a simple/schneider pair as a/b."""
    if v is True or v is False:
        return "true" if v else "false"
    if isinstance(v, tuple):
        if v[1] == 1 and not name.startswith("fixed_"):
            return str(v[0])
        return "%d/%d" % v
    return str(v)


def option_tables():
    """{variant id: {option: (allowed-values cell, default cell)}} from the
    "#### Options" table of every "## 2.x ... (`variant`)" section."""
    out = {}
    for page in FAMILY_PAGES:
        vid = None
        in_options = False
        for line in (DOCS / page).read_text(encoding="utf-8").split("\n"):
            if line.startswith("## "):
                m = HEADING.match(line)
                vid = m.group(2) if m else None
                in_options = False
                continue
            if line.startswith("#"):
                in_options = line.strip() == "#### Options"
                continue
            if not (vid and in_options and line.startswith("| `")):
                continue
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            for name in TICKED.findall(cells[0]):
                out.setdefault(vid, {})[name] = (cells[1], cells[2])
    return out


OPTION_TABLES = option_tables()


@pytest.mark.parametrize("vid", sorted(VARIANTS))
def test_option_table_matches_engine(vid):
    table = VARIANTS[vid]
    defaults = dict(COMMON_OPTIONS)
    defaults.update(table["options"])
    choices = dict(COMMON_CHOICES)
    choices.update(table.get("choices", {}))
    documented = OPTION_TABLES.get(vid, {})
    assert set(documented) == set(defaults), (
        "docs option table of %s: missing %s, unknown %s" % (
            vid, sorted(set(defaults) - set(documented)),
            sorted(set(documented) - set(defaults))))
    for name, (allowed, default) in documented.items():
        if "as in" in allowed:
            continue    # a row that refers to another variant's table
        shown = TICKED.findall(default.replace("*", ""))
        assert len(shown) == 1 and shown[0] == _engine_text(name, defaults[name]), (
            "%s option %s: docs default %s, engine %r" % (vid, name, default,
                                                         defaults[name]))
        for value in choices.get(name, ()):
            assert _engine_text(name, value) in TICKED.findall(allowed), (
                "%s option %s: value %r not listed in the docs (%s)" % (
                    vid, name, value, allowed))
        if name not in choices and name not in PARSERS and INT_RANGES is not None:
            lo, hi = INT_RANGES.get(name, (0, variants.MONEY_MAX))
            assert "%d to %d" % (lo, hi) in allowed, (
                "%s option %s: the docs should give the range %d to %d (%s)" % (
                    vid, name, lo, hi, allowed))


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_preset_option_table_names_engine_options(preset):
    base, _fixed = PRESETS[preset]
    documented = OPTION_TABLES.get(preset, {})
    assert documented, "docs have no option table for the preset %s" % preset
    assert set(documented) <= set(VARIANTS[base]["options"])
