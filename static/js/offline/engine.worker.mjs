// The phone's engine: the same Flask app as the server's, run by Pyodide in this module worker
// (docs/DESIGN.md "Offline"). The page (engine.mjs) sends {type: "request", id, method, url,
// headers, body}; the answer is {id, status, headers, body}. Its SQLite file lives in IndexedDB:
// loaded before the app opens its store, and stored again after every request that may write.
// A Web Lock ("muggins-db") is held around each request, so two tabs never write at once, and a
// tab that finds a newer copy stored by another tab loads it first. Messages carry no words a
// player reads: the page shows its own, in its language.

const DB_FILE = "/data/muggins.db";
const SITE = "/lib/site";
const LOCK = "muggins-db";
const READS = new Set(["GET", "HEAD", "OPTIONS"]);

let py = null;        // the Pyodide instance, once booted
let bridge = null;    // web.offline (Python)
let storedVersion = 0;  // the copy of the database this worker last loaded or stored
let booting = null;

function idb() {
  return new Promise((resolve, reject) => {
    const open = indexedDB.open("muggins-phone", 1);
    open.onupgradeneeded = () => open.result.createObjectStore("files");
    open.onsuccess = () => resolve(open.result);
    open.onerror = () => reject(open.error);
  });
}

async function idbGet(key) {
  const db = await idb();
  try {
    return await new Promise((resolve, reject) => {
      const get = db.transaction("files").objectStore("files").get(key);
      get.onsuccess = () => resolve(get.result);
      get.onerror = () => reject(get.error);
    });
  } finally { db.close(); }
}

async function idbPut(key, value) {
  const db = await idb();
  try {
    await new Promise((resolve, reject) => {
      const tx = db.transaction("files", "readwrite");
      tx.objectStore("files").put(value, key);
      tx.oncomplete = () => resolve();
      tx.onerror = () => reject(tx.error);
    });
  } finally { db.close(); }
}

function progress(step) { postMessage({ type: "progress", step }); }

function removeSidecars() {
  for (const name of [DB_FILE + "-wal", DB_FILE + "-shm", DB_FILE + "-journal"]) {
    try { py.FS.unlink(name); } catch (e) { /* not there */ }
  }
}

// Load the stored copy when it is newer than ours (another tab wrote, or this is the boot).
async function loadStored() {
  const stored = await idbGet("db");
  if (!stored || stored.version <= storedVersion) { return; }
  if (bridge) { bridge.close_store(); }  // its pooled connections must not see the file change under them
  removeSidecars();
  py.FS.writeFile(DB_FILE, new Uint8Array(stored.bytes));
  storedVersion = stored.version;
}

async function store() {
  bridge.checkpoint();  // the write-ahead log folded into the file: the file alone holds every commit
  const bytes = py.FS.readFile(DB_FILE);
  storedVersion += 1;
  await idbPut("db", { version: storedVersion, bytes: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) });
}

async function boot() {
  const started = performance.now();
  const phases = {};
  const mark = (name) => { phases[name] = Math.round(performance.now() - started); };
  const manifest = await (await fetch("/offline/bundle.json")).json();
  mark("manifest");
  progress("pyodide");
  const [{ loadPyodide }, zip] = await Promise.all([
    import(manifest.files.pyodide + "pyodide.mjs"),
    fetch(manifest.files.app).then((r) => {
      if (!r.ok) { throw new Error("bundle " + r.status); }
      return r.arrayBuffer();
    }),
  ]);
  mark("fetched");
  py = await loadPyodide({ indexURL: manifest.files.pyodide, env: { HOME: "/home/pyodide", TZ: "UTC" } });
  mark("pyodide");
  progress("app");
  py.unpackArchive(zip, "zip", { extractDir: SITE });
  mark("unpacked");
  py.FS.mkdirTree("/data");
  py.runPython(`import sys\nif ${JSON.stringify(SITE)} not in sys.path: sys.path.insert(0, ${JSON.stringify(SITE)})`);
  await navigator.locks.request(LOCK, async () => {
    await loadStored();
    mark("database");
    bridge = py.pyimport("web.offline");
    py.runPython("import app");
    mark("imported");
    bridge.boot(DB_FILE, "/data/instance");
    mark("app");
    if (storedVersion === 0) { await store(); }  // a new phone: its empty store, schema made, kept
  });
  return { version: manifest.version, bootMs: Math.round(performance.now() - started), phases };
}

async function handle(message) {
  return navigator.locks.request(LOCK, async () => {
    await loadStored();
    const body = message.body ? new Uint8Array(message.body) : new Uint8Array(0);
    const answer = bridge.handle(message.method, message.url, JSON.stringify(message.headers || []), body);
    let result;
    try {
      const bytes = answer.get("body").toJs();
      result = {
        status: answer.get("status"),
        headers: answer.get("headers").toJs(),
        body: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength),
      };
    } finally { answer.destroy(); }
    if (!READS.has(message.method.toUpperCase())) { await store(); }
    return result;
  });
}

self.onmessage = async (event) => {
  const message = event.data;
  try {
    if (message.type === "boot") {
      booting = booting || boot();
      postMessage({ type: "ready", id: message.id, ...(await booting) });
    } else if (message.type === "request") {
      await (booting || Promise.reject(new Error("not booted")));
      const result = await handle(message);
      postMessage({ type: "response", id: message.id, ...result }, [result.body]);
    }
  } catch (error) {
    postMessage({ type: "error", id: message.id, error: String(error && error.message || error) });
  }
};
