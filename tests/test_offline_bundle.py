"""The offline bundle (scripts/build_offline.py), how the app serves it, and the bridge the worker calls.

The bundle's zip is run in a fresh interpreter that sees only the standard library and the zip: the
phone's Python has nothing else, so whatever the offline app imports must be in it. The bridge
(`web.offline`) is plain Python: here it runs in CPython, and the browser test
(tests/e2e/test_offline_engine.py) runs it in Pyodide.
"""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from flask.testing import FlaskClient
from web_fixtures import make_app

from web import offline

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
import build_offline

BODY = {"hand": "5H 5C 5S JD", "starter": "5D"}


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("bundle") / "offline"
    build_offline.build(out)
    return out


@pytest.fixture()
def server(tmp_path: Path, bundle: Path) -> FlaskClient:
    return make_app(tmp_path, MUGGINS_OFFLINE_BUNDLE=str(bundle)).test_client()


def _manifest(bundle: Path) -> dict[str, object]:
    data: dict[str, object] = json.loads((bundle / "bundle.json").read_text())
    return data


def test_the_zip_holds_the_app_and_only_pure_python(bundle: Path) -> None:
    app_url = str(_manifest(bundle)["files"]["app"])  # type: ignore[index]
    names = zipfile.ZipFile(bundle / app_url.removeprefix("/offline/")).namelist()
    # Python 3.14 bytecode (the phone's), made by Pyodide itself; Alembic's migrations stay source.
    assert {"app.pyc", "store.pyc", "web/offline.pyc", "templates/base.html", "scorer/show.pyc",
            "translations/mr/LC_MESSAGES/messages.mo", "flask/app.pyc", "sqlalchemy/engine/base.pyc",
            "icu_rbnf.pyc", "migrations/env.py"} <= set(names)
    assert not [n for n in names if n.endswith((".so", ".py")) and not n.startswith("migrations/")]
    assert "scorer/tables.pyc" not in names and "web/photo.pyc" not in names
    # Packages the app never imports from stay behind: SQLAlchemy's and Alembic's test suites.
    assert not [n for n in names if n.startswith(("sqlalchemy/testing/", "alembic/testing/"))]
    assert "sqlalchemy/dialects/sqlite/pysqlite.pyc" in names
    locales = {Path(n).stem for n in names if n.startswith("babel/locale-data/")}
    assert {"root", "en", "hi", "mr", "tg"} <= locales and "fr" not in locales


PHONE = """
import { loadPyodide } from "%(pyodide)s";
import fs from "node:fs";
const py = await loadPyodide();
py.unpackArchive(new Uint8Array(fs.readFileSync(process.argv[2])), "zip", { extractDir: "/lib/site" });
console.log(py.runPython(`
import json, sys
sys.path.insert(0, "/lib/site")
from web import offline
offline.boot("/data/phone.db", "/data/instance")
out = []
for lang in ("en", "hi", "mr", "tg"):
    body = json.dumps({"hand": "5H 5C 5S JD", "starter": "5D", "lang": lang}).encode()
    r = offline.handle("POST", "/api/score", json.dumps([["Content-Type", "application/json"]]), body)
    out.append(r["body"].decode())
json.dumps(out) + chr(10) + str(sorted(m for m in sys.modules if m.split(".")[0] in ("numpy", "cv2", "PIL")))
`));
"""


def test_the_zip_runs_the_offline_app_in_pyodide(bundle: Path, tmp_path: Path) -> None:
    """The phone's Python (npm Pyodide, in Node) with the zip alone answers the count in every language."""
    app_url = str(_manifest(bundle)["files"]["app"])  # type: ignore[index]
    script = tmp_path / "phone.mjs"
    script.write_text(PHONE % {"pyodide": build_offline.PYODIDE_DIR / "pyodide.mjs"})
    run = subprocess.run(["node", str(script), str(bundle / app_url.removeprefix("/offline/"))],
                         capture_output=True, text=True, check=True, timeout=300)
    answers, modules = run.stdout.strip().splitlines()[-2:]
    assert modules == "[]"
    client = make_app(tmp_path).test_client()
    expected = [client.post("/api/score", json={**BODY, "lang": lang}).get_data(as_text=True)
                for lang in ("en", "hi", "mr", "tg")]
    assert json.loads(answers) == expected
    assert "उनतीस" in json.loads(expected[1])["spoken"]  # ICU's Hindi 29, from the zip's table


def test_big_files_go_gzipped_to_clients_that_take_gzip(server: FlaskClient, bundle: Path) -> None:
    precache = list(_manifest(bundle)["precache"])  # type: ignore[call-overload]
    wasm = next(u for u in precache if u.endswith("pyodide.asm.wasm"))
    plain = server.get(wasm, headers={"Accept-Encoding": "identity"})
    packed = server.get(wasm, headers={"Accept-Encoding": "gzip, deflate, br"})
    assert plain.headers.get("Content-Encoding") is None and plain.data[:4] == b"\0asm"
    assert packed.headers["Content-Encoding"] == "gzip"
    assert gzip.decompress(packed.data) == plain.data
    assert len(packed.data) < len(plain.data) / 2
    for resp in (plain, packed):
        assert resp.headers["Content-Type"] == "application/wasm"
        assert "immutable" in resp.headers["Cache-Control"] and "Accept-Encoding" in resp.headers["Vary"]
        resp.close()
    # Every URL the service worker precaches is served.
    for url in precache:
        resp = server.get(url)
        resp.close()
        assert resp.status_code == 200, url
    resp = server.get("/offline/bundle.json")
    resp.close()
    assert resp.headers["Cache-Control"] == "no-cache"
    for bad in ("/offline/../app.py", "/offline/nothing.zip", "/offline/bundle.json.gz"):
        assert server.get(bad).status_code == 404


def test_the_bridge_answers_under_phone(tmp_path: Path) -> None:
    offline.boot(str(tmp_path / "phone.db"), str(tmp_path / "instance"))
    form = [["Content-Type", "application/x-www-form-urlencoded"]]
    home = offline.handle("GET", "http://table.local:8000/phone/", "[]", b"")
    assert home["status"] == 200
    page = home["body"].decode()
    assert 'href="/phone/peg"' in page and 'href="/phone/static/css/app.css"' in page
    counted = offline.handle("POST", "/phone/count", json.dumps(form), b"cards=5H+5C+5S+JD+5D&op=count")
    assert counted["status"] == 303
    assert dict(counted["headers"])["Location"] == "/phone/hand/5H-5C-5S-JD/5D"
    # A path the server would answer (the service worker's fallback) runs under /phone too.
    fallback = offline.handle("POST", "/peg", json.dumps(form), b"players=2&tap=5H")
    assert fallback["status"] == 303 and dict(fallback["headers"])["Location"].startswith("/phone/peg?")
    offline.checkpoint()
    assert (tmp_path / "phone.db").stat().st_size > 0


def test_the_service_worker_and_the_shell_are_served(server: FlaskClient, tmp_path: Path) -> None:
    sw = server.get("/sw.js")
    assert sw.status_code == 200 and sw.mimetype == "text/javascript"
    assert sw.headers["Service-Worker-Allowed"] == "/" and sw.headers["Cache-Control"] == "no-cache"
    assert server.get("/sw.js", headers={"If-None-Match": sw.headers["ETag"]}).status_code == 304
    shell = server.get("/offline/shell")
    assert shell.status_code == 200 and b"<body data-shell" in shell.data
    # Pages register the service worker only when there is a bundle to keep.
    assert b'id="offline-words" hidden data-register="1"' in server.get("/").data
    bare = make_app(tmp_path / "bare", MUGGINS_OFFLINE_BUNDLE=str(tmp_path / "none")).test_client()
    assert b"data-register" not in bare.get("/").data
