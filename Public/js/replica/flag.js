// `?replica=on` loads the WebAssembly engine into the page for trying it from the console
// (`window.scrollcastReplicaEngine`, a ReplicaEngine from engine.js). Nothing else changes: the
// page still draws server frames. Without the flag the module is never fetched (docs/wasm.md).
if (new URLSearchParams(location.search).get("replica") === "on") {
  import("./engine.js")
    .then(({loadEngine}) => loadEngine())
    .then((engine) => { window.scrollcastReplicaEngine = engine; })
    .catch((error) => console.warn(`replica engine unavailable: ${error}`));
}
