// Compile a folder's Python to the phone's bytecode (Python 3.14, Pyodide's), in place: each
// module's .pyc (unchecked-hash, beside it, the source removed) imports without compiling, which
// saves the phone seconds at every start (bench/bench_offline.py). Run by scripts/build_offline.py:
//     node scripts/compile_pyc.mjs FOLDER [KEEP_SOURCE_PREFIX...]
// Paths under a KEEP_SOURCE_PREFIX stay source (Alembic loads its migrations as .py files).
import { loadPyodide } from "../node_modules/pyodide/pyodide.mjs";

const [folder, ...keep] = process.argv.slice(2);
const py = await loadPyodide();
py.FS.mkdirTree("/work");
py.FS.mount(py.FS.filesystems.NODEFS, { root: folder }, "/work");
py.globals.set("keep", py.toPy(keep));
py.runPython(`
import os, py_compile
mode = py_compile.PycInvalidationMode.UNCHECKED_HASH
count = 0
for root, dirs, files in os.walk("/work"):
    dirs.sort()
    rel = os.path.relpath(root, "/work")
    if any((rel + "/").startswith(k.rstrip("/") + "/") for k in keep):
        continue
    for name in sorted(files):
        if name.endswith(".py"):
            path = os.path.join(root, name)
            py_compile.compile(path, cfile=path + "c", dfile=os.path.join("/lib/site", rel, name),
                               doraise=True, invalidation_mode=mode)
            os.remove(path)
            count += 1
print(count)
`);
