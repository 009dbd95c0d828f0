// Who may drive (docs/protocol.md, "Driving"): the driver key of a locked room, where the page
// gets it (a #key= fragment, this tab's session storage, the snapshot) and the links that hand it
// on. The key is a secret: it never goes into a query string, the console or the page's state.

/** Keys the server accepts in `join`: 1–128 printable ASCII characters without spaces. */
export function isValidDriverKey(key) {
  return typeof key === "string" && /^[\x21-\x7e]{1,128}$/.test(key);
}

/** The key in a `#key=KEY` fragment (other fragment parameters allowed), or null. */
export function keyFromFragment(hash) {
  const fragment = typeof hash === "string" ? hash.replace(/^#/, "") : "";
  const key = new URLSearchParams(fragment).get("key");
  return isValidDriverKey(key) ? key : null;
}

/** Whether ?lock=1 asks this page's join to create the room locked (set by "New locked room"). */
export function lockFromLocation(loc = window.location) {
  const lock = new URLSearchParams(loc.search).get("lock");
  return lock === "1" || lock === "true";
}

/**
 * Takes the key out of the address bar (and ?lock=, which has done its job once read) so it is
 * not in the visible URL, a screenshot, or a link copied from the address bar. The page keeps it.
 */
export function scrubLocation(loc = window.location, history = window.history) {
  const url = new URL(loc.href);
  const params = new URLSearchParams(url.hash.replace(/^#/, ""));
  const hadKey = params.has("key");
  params.delete("key");
  const hadLock = url.searchParams.has("lock");
  url.searchParams.delete("lock");
  if (!hadKey && !hadLock) return;
  const rest = params.toString();
  url.hash = rest ? `#${rest}` : "";
  history.replaceState(history.state, "", url.toString());
}

const STORAGE_PREFIX = "scrollcast.driverKey.";

/** The key this tab holds for `room` (it survives a reload, not the tab), or null. */
export function storedKey(room) {
  try {
    const key = window.sessionStorage.getItem(STORAGE_PREFIX + room);
    return isValidDriverKey(key) ? key : null;
  } catch {
    return null;   // storage disabled: the key lives only as long as the page
  }
}

/** Remembers (or with null forgets) this tab's key for `room`. */
export function storeKey(room, key) {
  try {
    if (key) window.sessionStorage.setItem(STORAGE_PREFIX + room, key);
    else window.sessionStorage.removeItem(STORAGE_PREFIX + room);
  } catch {
    // storage disabled: nothing to remember it in
  }
}

/** The co-driver link: the watch-only link with the key in its fragment, which browsers never send. */
export function coDriverLink(watchLink, key) {
  const url = new URL(watchLink);
  url.hash = `key=${encodeURIComponent(key)}`;
  return url.toString();
}

/** A fresh room name for "New locked room". */
export function newLockedRoomName() {
  const suffix = Array.from(crypto.getRandomValues(new Uint8Array(4)), (b) => b.toString(16).padStart(2, "0")).join("");
  return `locked-${suffix}`;
}
