#!/usr/bin/env python3
"""The page's modules as one script, Public/bundle/page.js (docs/design.md, "The first picture").

Browsers fetch a module graph one request per module, at most six at a time over HTTP/1.1: on
the `4g` link the page's 29 modules took five to six round trips before it could draw. The
bundle is one request. Each module becomes a function run once, in the order an ES module
graph runs (dependencies first), returning its exports; its imports become reads of those.

Only what the page's modules use is accepted, so a bundle never means something the modules do
not: `import {a, b as c} from "./x.js"` (one or several lines), `import * as x from`,
`import x from` (a default), `export function|class|const|async function`, `export default`,
`export {a, b as c}`, `import("./x.js")` of a module in the graph, and `import.meta.url`. Anything
else (`export let`, whose live binding a copy would lose; `export * from`; bare or absolute
specifiers; a cycle) stops the build with the module and line named.

Usage: scripts/bundle-page.py [PUBLIC] (default Public; entry js/main.js).
"""

from __future__ import annotations

import posixpath
import re
import sys
from pathlib import Path

STATIC_IMPORT = re.compile(r'^import\s+(?P<what>[^;]*?)\s+from\s+"(?P<path>[^"]+)";[ \t]*$', re.M | re.S)
SIDE_EFFECT_IMPORT = re.compile(r'^import\s+"[^"]+";', re.M)
DYNAMIC_IMPORT = re.compile(r'\bimport\(\s*"(?P<path>\.{1,2}/[^"]+)"\s*\)')
EXPORT_DECLARATION = re.compile(r'^export\s+(?P<kind>async\s+function\*?|function\*?|class|const)\s+(?P<name>[A-Za-z_$][\w$]*)', re.M)
EXPORT_LIST = re.compile(r'^export\s*\{(?P<names>[^}]*)\}\s*;?[ \t]*$', re.M)
EXPORT_DEFAULT = re.compile(r'^export\s+default\s+', re.M)
ANY_EXPORT = re.compile(r'^export\b.*$', re.M)
ANY_IMPORT = re.compile(r'^import\b.*$', re.M)


class BundleError(Exception):
    pass


def line_of(source: str, index: int) -> int:
    return source.count("\n", 0, index) + 1


def resolve(importer: str, path: str, source: str, index: int) -> str:
    if not path.startswith(("./", "../")):
        raise BundleError(f"{importer}:{line_of(source, index)}: only relative imports are bundled, not '{path}'")
    return posixpath.normpath(posixpath.join(posixpath.dirname(importer), path))


def bindings(importer: str, what: str, dependency: str) -> str:
    """The `const` that reads an import's names from the dependency's exports."""
    what = " ".join(what.split())
    module = f"__modules[{dependency!r}]"
    if what.startswith("* as "):
        return f"const {what[5:].strip()} = {module};"
    parts = []
    default, _, rest = what.partition(",") if not what.startswith("{") else ("", "", what)
    if default.strip():
        parts.append(f"const {default.strip()} = {module}.default;")
    rest = rest.strip()
    if rest:
        if not (rest.startswith("{") and rest.endswith("}")):
            raise BundleError(f"{importer}: cannot bundle the import of '{what}'")
        names = [n.strip() for n in rest[1:-1].split(",") if n.strip()]
        parts.append("const { " + ", ".join(n.replace(" as ", ": ") for n in names) + f" }} = {module};")
    return " ".join(parts)


class Bundle:
    def __init__(self, public: Path):
        self.public = public
        self.order: list[str] = []
        self.bodies: dict[str, str] = {}
        self.visiting: list[str] = []

    def add(self, module: str):
        if module in self.bodies:
            return
        if module in self.visiting:
            raise BundleError("a cycle of imports cannot be bundled: " + " → ".join(self.visiting + [module]))
        file = self.public / module
        if not file.is_file():
            raise BundleError(f"{self.visiting[-1] if self.visiting else 'entry'}: no module {module}")
        self.visiting.append(module)
        source = file.read_text(encoding="utf-8")
        prologue, dependencies = [], []

        def static_import(match):
            dependency = resolve(module, match["path"], source, match.start())
            dependencies.append(dependency)
            prologue.append(bindings(module, match["what"], dependency))
            return "\n" * match.group(0).count("\n")   # keep line numbers for stack traces
        body = STATIC_IMPORT.sub(static_import, source)
        if SIDE_EFFECT_IMPORT.search(body) or ANY_IMPORT.search(body):
            found = (SIDE_EFFECT_IMPORT.search(body) or ANY_IMPORT.search(body))
            raise BundleError(f"{module}:{line_of(body, found.start())}: cannot bundle '{found.group(0).strip()}'")

        def dynamic_import(match):
            dependency = resolve(module, match["path"], body, match.start())
            dependencies.append(dependency)
            return f"Promise.resolve(__modules[{dependency!r}])"
        body = DYNAMIC_IMPORT.sub(dynamic_import, body)
        # The bundle sits one folder down from the site's root, as js/ does.
        body = body.replace("import.meta.url", f'new URL("../{module}", import.meta.url).href')

        exports = []
        for match in EXPORT_DECLARATION.finditer(body):
            exports.append(match["name"])
        body = EXPORT_DECLARATION.sub(lambda m: f"{m['kind']} {m['name']}", body)
        for match in EXPORT_LIST.finditer(body):
            for name in (n.strip() for n in match["names"].split(",") if n.strip()):
                local, _, exported = name.partition(" as ")
                exports.append(f"{exported.strip()}: {local.strip()}" if exported else local.strip())
        body = EXPORT_LIST.sub("", body)
        if EXPORT_DEFAULT.search(body):
            body = EXPORT_DEFAULT.sub("const __default = ", body, count=1)
            exports.append("default: __default")
        if leftover := ANY_EXPORT.search(body):
            raise BundleError(f"{module}:{line_of(body, leftover.start())}: cannot bundle '{leftover.group(0).strip()}'")

        for dependency in dependencies:
            self.add(dependency)
        self.visiting.pop()
        self.order.append(module)
        self.bodies[module] = (f"__modules[{module!r}] = (() => {{ {' '.join(prologue)}\n" + body.rstrip("\n")
                               + f"\nreturn {{ {', '.join(exports)} }};\n}})();\n")

    def text(self) -> str:
        header = ("// Generated by scripts/bundle-page.py from Public/js (do not edit; not committed): "
                  + ", ".join(self.order) + ".\nconst __modules = {};\n")
        return header + "".join(f"// ---- {m}\n{self.bodies[m]}" for m in self.order)


def main() -> int:
    public = Path(sys.argv[1] if len(sys.argv) > 1 else "Public")
    bundle = Bundle(public)
    try:
        bundle.add("js/main.js")
    except BundleError as error:
        print(f"bundle-page: {error}", file=sys.stderr)
        return 1
    out = public / "bundle" / "page.js"
    out.parent.mkdir(exist_ok=True)
    text = bundle.text()
    if not out.exists() or out.read_text(encoding="utf-8") != text:
        partial = out.with_suffix(".js.tmp")
        partial.write_text(text, encoding="utf-8")
        partial.replace(out)
    print(f"bundle-page: {out} ({len(bundle.order)} modules, {len(text.encode())} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
