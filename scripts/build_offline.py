"""Build the offline bundle the phone keeps (issue 25; docs/DESIGN.md "Offline"): ``make setup`` runs it.

Writes ``build/offline/`` (gitignored), which the app serves itself under ``/offline/`` (web/bundle.py):

- ``pyodide/<version>/``: npm's Pyodide files (from ``node_modules/pyodide``, pinned in package.json),
  each big one with a gzip copy beside it;
- ``app-<hash>.zip``: the pure-Python packages the offline app imports, taken from this venv's
  installed, pinned packages (``.py`` files only; Babel's locale data cut to the app's languages and
  their parents), plus the project's own code, templates, compiled catalogues and migrations;
- ``bundle.json``: the version (a hash of everything the phone caches), the file names, and every
  URL the service worker precaches.

Which packages go in is not a hand-kept list: a fresh interpreter builds the offline app, answers
its pages in every language, and the top-level packages it loaded from site-packages are taken
whole. A C extension cannot run in the browser: a package whose pure-Python fallback is used there
(SQLAlchemy, MarkupSafe, wrapt) goes without its ``.so``; ``icu_rbnf`` (ICU, Hindi number words)
is replaced by a generated table of its own answers for 0..999, which covers every number the
engine speaks (a show's running total is at most 29).

    .venv/bin/python scripts/build_offline.py [--out build/offline]
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "build" / "offline"
PYODIDE_DIR = ROOT / "node_modules" / "pyodide"
PYODIDE_FILES = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip",
                 "pyodide-lock.json")
GZIP_AT_LEAST = 32 * 1024
"""Files this big get a gzip copy the app sends to clients that accept it."""

PROJECT = ("app.py", "store.py", "scorer", "web", "templates", "migrations")
PROJECT_SKIP = ("web/reader.py", "web/photo.py", "web/icons.py", "scorer/discard.py", "scorer/tables.py")
"""The project's modules that need numpy, OpenCV or Pillow: never imported offline (tests/test_offline.py)."""

BABEL_LOCALES = {"root", "en", "en_001", "en_US", "en_GB", "en_IN", "hi", "hi_IN", "mr", "mr_IN", "tg",
                 "tg_TJ"}
"""Babel's locale data the app can ask for: its four languages, the regions phones name, parents."""

NOT_IN_BROWSER = {"icu_rbnf", "_distutils_hack", "pygments", "greenlet"}
"""Loaded by the probe but not taken: icu_rbnf is replaced (see above); the others are imported only
by tools around the app (setuptools' hook, a debugger's colours, SQLAlchemy's asyncio)."""

HINDI_WORDS_UP_TO = 999

PROBE = """
import json, sys, tempfile
from app import create_app
folder = tempfile.mkdtemp()
app = create_app({"MUGGINS_OFFLINE": True, "DATABASE_URL": f"sqlite:///{folder}/p.db", "SECRET_KEY": "k"},
                 instance_path=folder + "/i")
c = app.test_client()
for lang in ("en", "hi", "mr", "tg"):
    c.set_cookie("lang", lang)
    for url in ("/", "/hand/5H-5C-5S-JD/5D", "/peg?plays=A:5H+B:TS", "/matches", "/groups", "/discard"):
        c.get(url)
    c.post("/api/score", json={"hand": "5H 5C 5S JD", "starter": "5D"})
    c.post("/api/peg", json={"plays": "A:5H B:TS A:5D"})
    c.post("/count", data={"cards": "5H 5C 5S JD 5D", "op": "count"})
    made = c.post("/api/matches", json={"players": ["Ann", "Bob"], "first_dealer": 0}).get_json()
    c.post(f"/api/matches/{made['id']}/events", json={"after": 0, "event": {"type": "starter", "card": "5H"}})
    for url in (f"/m/{made['id']}", f"/m/{made['id']}/history", f"/m/{made['id']}/stats",
                f"/api/matches/{made['id']}/export", f"/m/{made['id']}/qr.svg"):
        c.get(url)
    group = c.post("/api/groups", json={"name": "Club", "players": ["Ann", "Bob"]}).get_json()
    c.get(f"/g/{group['id']}")
    c.get(f"/api/groups/{group['id']}/export")
    c.post("/matches", data={"quick": "me"})
print(json.dumps(sorted({m.__file__ for m in list(sys.modules.values()) if getattr(m, "__file__", None)})))
"""


def site_packages() -> Path:
    import sysconfig

    return Path(sysconfig.get_paths()["purelib"])


def probe() -> tuple[list[Path], set[Path]]:
    """The top-level packages (or single modules) in site-packages the offline app loads, and the
    package folders it loaded anything from."""
    out = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, capture_output=True, text=True, check=True)
    site = site_packages()
    tops: set[Path] = set()
    used: set[Path] = set()
    for name in json.loads(out.stdout.strip().splitlines()[-1]):
        path = Path(name)
        if site not in path.parents:
            continue
        top = site / path.relative_to(site).parts[0]
        if top.name.split(".")[0] not in NOT_IN_BROWSER:
            tops.add(top)
            used.update(p for p in path.parents if site in p.parents)
    return sorted(tops), used


def _unused_subpackage(path: Path, used: set[Path]) -> bool:
    """True when ``path`` lies in a package folder the app never imported from (SQLAlchemy's other
    dialects and test suite, Alembic's tests, werkzeug's debugger...); data folders go with their
    package."""
    for folder in path.parents:
        if folder in used:
            return False
        if (folder / "__init__.py").is_file():
            return True
    return False


NOT_FOR_THE_PHONE = {".so", ".pyd", ".pyc", ".c", ".h", ".cpp", ".pyx", ".pxd", ".pyi", ".typed", ".md",
                     ".rst"}
"""Compiled code (the browser cannot load it), its sources and type stubs, and documentation."""


def _keep_package_file(rel: Path) -> bool:
    parts = rel.parts
    if "__pycache__" in parts or "tests" in parts[1:2] or rel.suffix in NOT_FOR_THE_PHONE:
        return False
    if parts[0] == "babel" and len(parts) > 2 and parts[1] == "locale-data":
        return rel.suffix == ".dat" and rel.stem in BABEL_LOCALES
    if parts[0] == "pytz" and "zoneinfo" in parts:
        return rel.name in ("UTC", "zone.tab", "zone1970.tab", "tzdata.zi", "iso3166.tab")
    return True


def hindi_words_module() -> str:
    """``icu_rbnf.spellout`` for Hindi as a table of ICU's own answers (the phone has no ICU)."""
    import icu_rbnf

    words = {n: str(icu_rbnf.spellout(n, "hi")) for n in range(HINDI_WORDS_UP_TO + 1)}
    return (
        '"""Hindi number words from ICU\'s rules, written by scripts/build_offline.py from\n'
        'icu-rbnf\'s answers: '
        'the phone\'s Python has no ICU. The engine speaks numbers up to 29; this covers 0 to '
        f'{HINDI_WORDS_UP_TO}."""\n\n'
        f"_WORDS = {json.dumps([words[n] for n in range(HINDI_WORDS_UP_TO + 1)], ensure_ascii=False)}\n\n\n"
        "def spellout(n: int, lang: str) -> str:\n"
        f"    if lang != 'hi' or not 0 <= n <= {HINDI_WORDS_UP_TO}:\n"
        f"        raise ValueError(f'the phone spells Hindi numbers 0 to {HINDI_WORDS_UP_TO}, '\n"
        "                         f'not {n} in {lang}')\n"
        "    return _WORDS[n]\n"
    )


def project_files() -> list[tuple[Path, str]]:
    files: list[tuple[Path, str]] = []
    for name in PROJECT:
        path = ROOT / name
        for f in sorted([path] if path.is_file() else path.rglob("*")):
            rel = f.relative_to(ROOT).as_posix()
            if f.is_file() and "__pycache__" not in rel and rel not in PROJECT_SKIP and f.suffix in (
                    ".py", ".html", ".mako", ".txt", ".svg"):
                files.append((f, rel))
    for mo in sorted((ROOT / "translations").glob("*/LC_MESSAGES/messages.mo")):
        files.append((mo, mo.relative_to(ROOT).as_posix()))
    return files


def build_zip(target: Path) -> None:
    """The app zip, its entries in a fixed order with fixed times: the same inputs, the same bytes."""
    site = site_packages()
    entries: list[tuple[str, bytes]] = []
    tops, used = probe()
    for top in tops:
        if top.is_file():
            if top.suffix == ".py":
                entries.append((top.name, top.read_bytes()))
            continue
        for f in sorted(top.rglob("*")):
            rel = f.relative_to(site)
            if f.is_file() and _keep_package_file(rel) and not _unused_subpackage(f, used):
                entries.append((rel.as_posix(), f.read_bytes()))
    entries.append(("icu_rbnf.py", hindi_words_module().encode()))
    entries += [(rel, f.read_bytes()) for f, rel in project_files()]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for name, data in entries:
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            (folder / name).write_bytes(data)
        # The phone's bytecode, made by the phone's own Python (Pyodide in Node): imports at each
        # start skip compiling (measured: the app's imports 6-7 s -> 2.3 s on this machine).
        subprocess.run(["node", str(ROOT / "scripts" / "compile_pyc.mjs"), str(folder), "migrations"],
                       check=True, capture_output=True)
        with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
            for f in sorted(p for p in folder.rglob("*") if p.is_file()):
                info = zipfile.ZipInfo(f.relative_to(folder).as_posix(), date_time=(2020, 1, 1, 0, 0, 0))
                info.compress_type = zipfile.ZIP_DEFLATED
                z.writestr(info, f.read_bytes(), compresslevel=9)


def gzip_copy(path: Path) -> None:
    with (open(path, "rb") as src, open(f"{path}.gz", "wb") as raw,
          gzip.GzipFile(filename="", mode="wb", fileobj=raw, compresslevel=9, mtime=0) as dst):
        shutil.copyfileobj(src, dst)


def static_urls() -> list[str]:
    """The app shell the service worker precaches: every file under static/ and the vendored scripts."""
    static = ROOT / "static"
    urls = [f"/static/{f.relative_to(static).as_posix()}" for f in sorted(static.rglob("*"))
            if f.is_file() and f.name != "sw.js"]
    return [*urls, "/vendor/htmx.min.js", "/vendor/nosleep.min.js"]


def build(out: Path) -> dict[str, object]:
    pyodide_version = json.loads((PYODIDE_DIR / "package.json").read_text())["version"]
    staging = Path(tempfile.mkdtemp(prefix=".offline-", dir=out.parent))
    try:
        pyo = staging / "pyodide" / pyodide_version
        pyo.mkdir(parents=True)
        for name in PYODIDE_FILES:
            shutil.copyfile(PYODIDE_DIR / name, pyo / name)
            if (pyo / name).stat().st_size >= GZIP_AT_LEAST and name != "python_stdlib.zip":
                gzip_copy(pyo / name)
        app_zip = staging / "app.zip"
        build_zip(app_zip)
        digest = hashlib.sha256(app_zip.read_bytes())
        for url in static_urls():
            path = ROOT / url.removeprefix("/") if url.startswith("/static/") else None
            digest.update(url.encode())
            if path is not None:
                digest.update(path.read_bytes())
        for name in ("package-lock.json",):  # htmx, nosleep.js and Pyodide come from its pins
            digest.update((ROOT / name).read_bytes())
        version = digest.hexdigest()[:16]
        zip_name = f"app-{version}.zip"
        app_zip.rename(staging / zip_name)
        files = {"pyodide": f"/offline/pyodide/{pyodide_version}/", "app": f"/offline/{zip_name}"}
        precache = [*(f"/offline/pyodide/{pyodide_version}/{n}" for n in PYODIDE_FILES), files["app"],
                    *static_urls()]
        manifest: dict[str, object] = {"version": version, "pyodide_version": pyodide_version, "files": files,
                                       "precache": precache}
        (staging / "bundle.json").write_text(json.dumps(manifest, indent=1) + "\n")
        if out.exists():
            shutil.rmtree(out)
        os.replace(staging, out)
    finally:
        if staging.exists():
            shutil.rmtree(staging)
    return manifest


def compressed_sizes(out: Path) -> dict[str, int]:
    """What a first visit transfers for each precached bundle file (the gzip copy where there is one)."""
    sizes: dict[str, int] = {}
    for f in sorted(out.rglob("*")):
        if f.is_file() and f.suffix != ".gz" and f.name != "bundle.json":
            gz = Path(f"{f}.gz")
            sizes[f.relative_to(out).as_posix()] = (gz if gz.exists() else f).stat().st_size
    return sizes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    out: Path = args.out.resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    if not (PYODIDE_DIR / "package.json").is_file():
        sys.exit(f"{PYODIDE_DIR} is missing: run `npm ci` (make setup does)")
    manifest = build(out)
    total = sum(compressed_sizes(out).values())
    print(f"offline bundle {manifest['version']} in {out}: {total / 1e6:.1f} MB to transfer (compressed)")


if __name__ == "__main__":
    main()
