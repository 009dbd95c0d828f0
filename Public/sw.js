// The page's service worker (docs/design.md, "Static files"): a navigation to the page is
// answered at once with the copy this worker keeps, and the server is asked about it beside
// that, so a reload spends no round trip on the page; the page asks what that revalidation
// found and, when the server had a newer page, reloads once onto it (index.html's inline
// script). Every other request goes to the network untouched: the page names its files by
// content version, and the browser's HTTP cache keeps those. Registered by index.html after the
// load event, in secure contexts only (https, localhost, 127.0.0.1); a page served over plain
// http from another address works as before, asking about the page on every load.

const CACHE = "scrollcast-page-1";
// The one page this worker answers for, at its scope (the folder of sw.js and index.html):
// `…/` and `…/index.html` are the same file, kept under `…/`.
const PAGE_KEY = new URL(self.registration.scope).pathname;
const PAGE_PATHS = new Set([PAGE_KEY, `${PAGE_KEY}index.html`]);
// How long a navigation's revalidation is kept for its page to ask about (it asks at once).
const KEPT_MS = 60_000;

// What the revalidation started by each navigation served from the kept copy found, by the id of
// the page it made (FetchEvent.resultingClientId): a promise of { changed }.
const revalidations = new Map();

self.addEventListener("install", (event) => {
  // Only the page's navigations start this worker; everything else skips it (Chromium's static
  // routing; where it is missing, the fetch handler lets them through to the network).
  let routed = Promise.resolve();
  try {
    routed = Promise.resolve(event.addRoutes?.([{ condition: { not: { requestMode: "navigate" } }, source: "network" }])).catch(() => {});
  } catch { /* a router without `not`: the fetch handler passes them on */ }
  // Keep the page now, so the first reload is already answered here; take over from an older
  // worker at once (its pages keep it until they go; the next navigation comes here).
  const kept = caches.open(CACHE).then((cache) => store(cache, fetchPage())).catch(() => {});
  event.waitUntil(Promise.all([routed, kept]).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(caches.keys().then((names) =>
    Promise.all(names.filter((name) => name.startsWith("scrollcast-page-") && name !== CACHE).map((name) => caches.delete(name)))));
});

self.addEventListener("fetch", (event) => {
  const { request } = event;
  if (request.mode !== "navigate" || request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin || !PAGE_PATHS.has(url.pathname)) return;
  event.respondWith(answer(event));
});

self.addEventListener("message", (event) => {
  const [port] = event.ports;
  if (event.data?.type !== "scrollcast.page?" || !port) return;
  const id = event.source?.id;
  const found = revalidations.get(id) ?? Promise.resolve({ changed: false });
  revalidations.delete(id);
  event.waitUntil(found.then((outcome) => port.postMessage(outcome)));
});

/** The navigation's answer: the kept page at once (revalidated beside it), else the network's. */
async function answer(event) {
  const cache = await caches.open(CACHE);
  const kept = await cache.match(PAGE_KEY);
  if (!kept) {
    const response = await fetch(event.request);
    event.waitUntil(store(cache, Promise.resolve(response.clone())).catch(() => {}));
    return response;
  }
  const found = revalidate(cache, kept);
  const id = event.resultingClientId;
  if (id) {
    revalidations.set(id, found);
    setTimeout(() => { if (revalidations.get(id) === found) revalidations.delete(id); }, KEPT_MS);
  }
  event.waitUntil(found);
  return kept;
}

/** Asks the server about the kept page by its tag: { changed: true } once a newer one is kept. */
async function revalidate(cache, kept) {
  try {
    const tag = kept.headers.get("etag");
    const response = await fetchPage(tag);
    if (response.status === 304 || response.headers.get("etag") === tag) return { changed: false };
    return { changed: await store(cache, Promise.resolve(response)) };
  } catch {
    return { changed: false };   // server out of reach: the kept page stands
  }
}

/** The page from the server, past the HTTP cache; with `tag`, a 304 if it is still that one. */
function fetchPage(tag = null) {
  return fetch(PAGE_KEY, { cache: "no-store", credentials: "same-origin", headers: tag ? { "if-none-match": tag } : {} });
}

/** Keeps the page `response` if it is one (a 200 HTML page with a tag); whether it did. */
async function store(cache, response) {
  const page = await response;
  const html = (page.headers.get("content-type") ?? "").startsWith("text/html");
  if (page.status !== 200 || page.redirected || !html || !page.headers.get("etag")) return false;
  await cache.put(PAGE_KEY, page);
  return true;
}
