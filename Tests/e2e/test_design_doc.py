"""Statements of docs/design.md checked against the code, as test_protocol_doc.py checks
docs/protocol.md's against the server: the count of C functions the WebAssembly module exports,
the module diagram's names and what each test target links (Package.swift), which modules stay
clear of libwebsockets, the files it names, the limits it quotes, and which page module asks for
animation frames. Each check is a function of
the document's text, so a wrong statement (a mutated copy below) is shown to fail it."""

from __future__ import annotations

import re

import pytest

from server_helpers import REPO

DOC = (REPO / "docs" / "design.md").read_text()
PACKAGE = (REPO / "Package.swift").read_text()
NUMBERS = {"ten": 10, "eleven": 11, "twelve": 12, "eighteen": 18, "twenty": 20}


def balanced(text: str, start: int, opening: str, closing: str) -> str:
    """The text from text[start] (an `opening`) to its matching `closing`."""
    depth = 0
    for end in range(start, len(text)):
        depth += {opening: 1, closing: -1}.get(text[end], 0)
        if depth == 0:
            return text[start:end + 1]
    raise AssertionError(f"unbalanced {opening} at {start}")


def package_targets(package: str = PACKAGE) -> dict[str, set[str]]:
    """Every target of Package.swift → its dependencies: targets, and products with their package."""
    targets = {}
    for match in re.finditer(r"\.(?:target|testTarget|executableTarget|systemLibrary)\(", package):
        body = balanced(package, match.end() - 1, "(", ")")
        name = re.search(r'name: "([^"]+)"', body).group(1)
        deps: set[str] = set()
        at = body.find("dependencies: [")
        if at >= 0:
            listed = balanced(body, at + len("dependencies: "), "[", "]")
            for product, from_package in re.findall(r'\.product\(name: "([^"]+)", package: "([^"]+)"\)', listed):
                deps |= {product, from_package}
            deps |= set(re.findall(r'"([^"]+)"', re.sub(r"\.product\([^)]*\)", "", listed)))
        targets[name] = deps
    return targets


TARGETS = package_targets()
TEST_TARGETS = {name for name in TARGETS if name.endswith("Tests")}
# What the diagram may name beside targets: the external products and packages it shows.
EXTERNAL = {"GRDB", "MetricsTestKit", "Prometheus", "Logging", "Metrics", "swift-prometheus", "swift-log", "swift-metrics"}


def reaches(target: str, goal: str) -> bool:
    """Whether `target` depends on `goal`, directly or through other targets."""
    seen, todo = set(), [target]
    while todo:
        name = todo.pop()
        if name == goal:
            return True
        if name not in seen:
            seen.add(name)
            todo += [dep for dep in TARGETS.get(name, ()) if dep in TARGETS]
    return False


def modules_block(doc: str) -> str:
    """The code block after the **Modules.** paragraph: the module graph and the test-target table."""
    start = doc.index("**Modules.**")
    opening = doc.index("```\n", start) + 4
    return doc[opening:doc.index("```", opening)]


def exported_function_problems(doc: str) -> list[str]:
    match = re.search(r"The boundary is (\w+) exported C functions", doc)
    if not match:
        return ["the doc no longer says how many C functions the module exports"]
    said = int(match.group(1)) if match.group(1).isdigit() else NUMBERS.get(match.group(1), -1)
    # The boundary's files: Wasm/Exports.swift and its extensions (Exports+Scene.swift, …).
    exported = sum(len(re.findall(r"@_expose\(wasm,", path.read_text())) for path in (REPO / "Wasm").glob("Exports*.swift"))
    return [] if said == exported else [f"the doc says {match.group(1)} exported C functions; Wasm/Exports*.swift export {exported}"]


def target_table(doc: str) -> dict[str, list[str]]:
    """The table of test targets and what each links, as the doc states it (bracketed second
    columns are further rows)."""
    table = modules_block(doc).split("test targets", 1)[1]
    rows = {}
    for line in table.splitlines()[1:]:
        line = line.replace("Redis(Testing)", "Redis, RedisTesting")
        line = re.sub(r"\(the [^)]*\)", "", line)
        for part in re.findall(r"\(([^)]*)\)", line) + [re.sub(r"\([^)]*\)", "", line)]:
            name, _, links = part.strip().replace(":", " ", 1).partition(" ")
            if name:
                rows[name] = [m.strip() for m in links.split(",") if m.strip()]
    return rows


def target_link_problems(doc: str) -> list[str]:
    rows = target_table(doc)
    problems = [f"{name} is not a test target of Package.swift" for name in rows if name not in TEST_TARGETS]
    problems += [f"the table leaves out the test target {name}" for name in sorted(TEST_TARGETS - set(rows))]
    for name, links in rows.items():
        problems += [f"{name} does not link {module}" for module in links if module not in TARGETS.get(name, set())]
    return problems


def module_name_problems(doc: str) -> list[str]:
    graph = modules_block(doc).split("test targets", 1)[0]
    names = set(re.findall(r"\b[A-Z][A-Za-z]+\b", graph))
    return [f"the module graph names {name}, which is no target of Package.swift"
            for name in sorted(names) if name not in TARGETS and name not in EXTERNAL]


def test_the_number_of_exported_c_functions_is_what_the_wasm_module_exports():
    assert exported_function_problems(DOC) == []


def test_every_test_target_is_in_the_table_and_links_what_the_table_says():
    assert target_link_problems(DOC) == []


def test_the_module_graph_names_only_targets_and_the_products_it_uses():
    assert module_name_problems(DOC) == []


def test_nothing_below_the_server_target_links_libwebsockets():
    assert "none of them links libwebsockets" in DOC
    for target in ("ScrollcastRooms", "ScrollcastStore", "ScrollcastCluster", "ScrollcastServerTesting", "scrollcast-bench-store"):
        assert reaches(target, "ScrollcastRooms") and not reaches(target, "WebSockets") and not reaches(target, "CLibWebSockets"), target
    assert reaches("ScrollcastServer", "CLibWebSockets"), "the check must see through the server's own dependency"
    assert "none on `ScrollcastServer` or swift-prometheus" in DOC
    for target in ("ScrollcastStoreTests", "ScrollcastClusterTests", "ScrollReplicaTests"):
        assert not reaches(target, "ScrollcastServer") and "Prometheus" not in TARGETS[target], target
    importing = sorted(path.name for path in (REPO / "Sources" / "ScrollcastServer").rglob("*.swift")
                       if re.search(r"^(?:\w+ )?import WebSockets$", path.read_text(), re.M))
    assert "`WebSocketTransport` (the only file importing `WebSockets`)" in DOC and importing == ["WebSocketTransport.swift"]


# Files the doc names: repository paths, and backticked file names found by their path's ending.
PATH = re.compile(r"\b(?:bench|docs|Sources|Public|Tests|scripts|Wasm|Fuzz)/[\w./-]*\w")
FILE = re.compile(r"`([\w/-]+\.(?:swift|c|h|js|md|py))`")
SEARCHED = ("Sources", "Tests", "Public", "Wasm", "bench", "scripts", "docs")


def file_problems(doc: str) -> list[str]:
    files = [str(p.relative_to(REPO)) for top in SEARCHED for p in (REPO / top).rglob("*") if p.is_file()]
    makefile = (REPO / "Makefile").read_text()   # a build output (the page's .wasm) is named there
    problems = [f"{path} does not exist" for path in sorted(set(PATH.findall(doc)))
                if not (REPO / path).exists() and not re.search(rf"^\S+ := {re.escape(path)}$", makefile, re.M)]
    for name in sorted(set(FILE.findall(doc))):
        if not any(f == name or f.endswith("/" + name) for f in files):
            problems.append(f"no file {name}")
    return problems


def test_every_file_the_doc_names_exists():
    assert file_problems(DOC) == []


# (the doc's statement with its number as a group, the source file, the constant with its value as a group)
LIMITS = [
    (r"rate (\S+) \(`\.normal`\)", "Sources/ScrollEngine/SceneConfiguration.swift", r"case \.normal: return (\S+)"),
    (r"or (\S+) \(`\.fast`\)", "Sources/ScrollEngine/SceneConfiguration.swift", r"case \.fast: return (\S+)"),
    (r"spring \(mass (\d+), stiffness", "Sources/ScrollEngine/Physics/Spring.swift", r"static let mass: Double = (\S+)"),
    (r"stiffness (\d+), ζ", "Sources/ScrollEngine/Physics/Spring.swift", r"static let stiffness: Double = (\S+)"),
    (r"x·(\S+)/d", "Sources/ScrollEngine/Physics/RubberBand.swift", r"static let coefficient: Double = (\S+)"),
    (r"samples of the last (\d+) ms", "Sources/ScrollEngine/Physics/VelocityEstimator.swift", r"static let window: Double = (\S+)"),
    (r"pixel deltas ≥ (\d+)", "Sources/ScrollEngine/ScrollScene+State.swift", r"static let notchMinimumPixels: Double = (\S+)"),
    (r"spring back (\d+) ms after", "Sources/ScrollEngine/ScrollScene+State.swift", r"static let wheelStreamGap: Double = (\S+)"),
    (r"indicator length, (\d+) pt minimum", "Sources/ScrollEngine/Effects/ScrollIndicator.swift",
     r"static let minimumLength: Double = (\S+)"),
    (r"up to (\d+) KiB a write", "Sources/WebSockets/Server/CorkedWrite.swift", r"static let maxCorkedBytes = (\d+) \* 1024"),
    (r"rows just off\s+screen \((\d+) each side\)", "Sources/ScrollWire/V2/WireTexts.swift", r"upcoming\(.*count: Int = (\d+)\)"),
    (r"joins and leaves at most every (\d+) ms", "Sources/ScrollcastRooms/Room.swift", r"static let presenceInterval = (\S+)"),
    (r"once a loss lasts (\d+) ms", "Public/js/reconnecting.js", r"RECONNECTING_AFTER_MS = (\d+);"),
]


def limit_problems(doc: str) -> list[str]:
    problems = []
    for statement, source, constant in LIMITS:
        said = re.search(statement, doc)
        code = re.search(constant, (REPO / source).read_text())
        if not said or not code:
            problems.append(f"{statement!r} is not in the doc" if not said else f"{constant!r} is not in {source}")
        elif float(said.group(1)) != float(code.group(1)):
            problems.append(f"the doc says {said.group(0)!r}; {source} has {code.group(0)!r}")
    return problems


def test_the_limits_the_doc_quotes_are_the_constants_in_the_code():
    assert limit_problems(DOC) == []


def animation_frame_problems(doc: str) -> list[str]:
    """The page's one animation-frame loop: the module the doc names is the only one asking for frames."""
    said = re.search(r"`([\w-]+\.js)`, which owns the only `requestAnimationFrame`", doc)
    if not said:
        return ["the doc no longer says which module owns the page's requestAnimationFrame"]
    scripts = REPO / "Public" / "js"
    callers = sorted(str(p.relative_to(scripts)) for p in scripts.rglob("*.js") if "requestAnimationFrame(" in p.read_text())
    return [] if callers == [said.group(1)] else [f"the doc says {said.group(1)} owns the only requestAnimationFrame; {callers} call it"]


def test_one_module_asks_for_the_pages_animation_frames():
    assert animation_frame_problems(DOC) == []


@pytest.mark.parametrize("check, wrong, right", [
    (exported_function_problems, "The boundary is ten exported", "The boundary is 25 exported"),
    (target_link_problems, " ScrollEngineTests         ScrollEngine                 (ScrollWireTests: ScrollWire, ScrollEngine)\n", None),
    (target_link_problems, "ScrollcastStoreTests      ScrollcastStore, ScrollcastRooms, ScrollcastServerTesting, GRDB, ScrollcastServer",
     "ScrollcastStoreTests      ScrollcastStore, ScrollcastRooms, ScrollcastServerTesting, GRDB"),
    (module_name_problems, "ScrollcastStore (SQLite) ───┘", "ScrollcastStore (GRDB) ───┘"),
    (file_problems, "`CorkedWrites.swift`", "`CorkedWrite.swift`"),
    (file_problems, "Sources/CWebSocketsShim/event_loops.c", "Sources/CWebSocketsShim/event_loop.c"),
    (limit_problems, "indicator length, 35 pt minimum", "indicator length, 36 pt minimum"),
    (limit_problems, "joins and leaves at most every 200 ms", "joins and leaves at most every 250 ms"),
    (limit_problems, "rate 0.997 (`.normal`)", "rate 0.998 (`.normal`)"),
    (animation_frame_problems, "`draw.js`, which owns the only", "`page-picture.js`, which owns the only"),
], ids=["ten exported functions", "a test target left out", "a link the target lacks", "a name that is no target",
        "a file that is not there", "a path that is not there", "a minimum that is not the constant",
        "an interval that is not the constant", "a decay rate that is not the constant", "a module that asks no frame"])
def test_a_wrong_statement_fails_its_check(check, wrong, right):
    mutated = DOC.replace(wrong, "") if right is None else DOC.replace(right, wrong)
    assert mutated != DOC, "the statement to mutate is not in the doc"
    assert check(DOC) == [] and check(mutated) != []
