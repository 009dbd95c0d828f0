// The page's DOM controls: room, share link and recording download, scroll-to-row, presence, the
// stats overlay, reduced motion, the disconnected banner and the refused toast, who may drive
// (locked rooms and their co-driver link). No canvas, no socket.

import { coDriverLink, newLockedRoomName } from "./driving.js";

const $ = (id) => document.getElementById(id);

/**
 * Wires the controls; callbacks: onScrollToRow({section,row,position,animated}), onReducedMotion(on).
 * Every listener goes when `signal` (an AbortSignal) aborts, and `stop()` ends the timers: the
 * page's destroy().
 */
export class Controls {
  constructor({ room, onScrollToRow, onReducedMotion, signal }) {
    this.room = room;
    this.scene = null;
    this.toastTimer = null;
    this.copyTimers = new Set();   // "Copied." notes to clear
    const listen = (target, type, listener) => target?.addEventListener?.(type, listener, { signal });
    this.onScrollToRow = onScrollToRow;
    this.onReducedMotion = onReducedMotion;

    this.sceneName = null;
    this.shareURL = shareLinkFor(room);
    $("room-name").textContent = room;
    $("summary-room").textContent = `· ${room}`;
    $("share-link").href = this.shareURL;
    $("share-link").textContent = "share link";
    $("recording-link").href = recordingLinkFor(room);
    $("room-input").value = room;
    document.title = `Scrollcast · ${room}`;

    listen($("copy-link"), "click", () => this.copyShareLink(this.shareURL));
    this.driveMode = "unknown";
    this.driverKey = null;     // only to build the co-driver link; never shown as text
    listen($("copy-codriver"), "click", () => {
      if (this.driverKey) this.copyShareLink(coDriverLink(this.shareURL, this.driverKey), "copy-codriver-status");
    });
    listen($("new-locked-room"), "click", () => {
      const url = new URL(shareLinkFor(newLockedRoomName(), this.sceneName ?? "demo"));
      url.searchParams.set("lock", "1");
      window.location.href = url.toString();
    });
    // A fresh room each time it is followed, so the seed's table starts at its top.
    const seedLink = $("seed-link");
    seedLink.href = seedTableLink();
    listen(seedLink, "click", () => { seedLink.href = seedTableLink(); });
    listScenes(window.location, signal);
    listen($("room-form"), "submit", (e) => {
      e.preventDefault();
      const input = $("room-input");
      if (!input.checkValidity() || !input.value) { input.reportValidity(); return; }
      window.location.search = `?room=${encodeURIComponent(input.value)}`;
    });

    listen($("scroll-form"), "submit", (e) => {
      e.preventDefault();
      this.submitScroll();
    });
    listen($("scroll-section"), "input", () => this.updateRowLimit());

    // Reduced motion starts from the system setting and follows it until the user toggles.
    const query = window.matchMedia?.("(prefers-reduced-motion: reduce)");
    this.reducedMotion = Boolean(query?.matches);
    const box = $("reduced-motion");
    box.checked = this.reducedMotion;
    $("reduced-motion-hint").textContent = query?.matches ? "Your system asks for reduced motion." : "";
    listen(box, "change", () => {
      this.reducedMotion = box.checked;
      this.onReducedMotion(box.checked);
    });
    listen(query, "change", (e) => {
      box.checked = e.matches;
      this.reducedMotion = e.matches;
      $("reduced-motion-hint").textContent = e.matches ? "Your system asks for reduced motion." : "";
      this.onReducedMotion(e.matches);
    });

    // Phones: fold the controls so the table gets the screen.
    if (window.matchMedia?.("(max-width: 720px)").matches) $("controls-details").open = false;
  }

  /**
   * Adopts a scene's sections so scroll-to-row can check its numbers, and shows its name. A new
   * scene whose table the form's numbers do not fit gets numbers that do: its first section's last
   * row (in the seed's table, row 19, the row the post scrolls to).
   */
  setScene(scene, sceneName = "demo") {
    this.scene = scene;
    const sections = scene?.sections ?? [];
    if (sceneName !== this.sceneName) {
      this.sceneName = sceneName;
      $("scene-name").textContent = sceneName;
      this.shareURL = shareLinkFor(this.room, sceneName);
      $("share-link").href = this.shareURL;
      this.showCoDriverLink();
      const s = Number($("scroll-section").value);
      const r = Number($("scroll-row").value);
      if (sections.length && !(s < sections.length && r < (sections[s]?.rows?.length ?? 0))) {
        $("scroll-section").value = "0";
        $("scroll-row").value = String(Math.max(0, (sections[0].rows?.length ?? 1) - 1));
      }
    }
    $("scroll-section").max = String(Math.max(0, sections.length - 1));
    this.updateRowLimit();
  }

  updateRowLimit() {
    const sections = this.scene?.sections ?? [];
    const s = Number($("scroll-section").value);
    const rows = sections[s]?.rows?.length ?? 0;
    $("scroll-row").max = String(Math.max(0, rows - 1));
  }

  submitScroll() {
    const status = $("scroll-status");
    const section = Number($("scroll-section").value);
    const row = Number($("scroll-row").value);
    const sections = this.scene?.sections ?? [];
    if (!Number.isInteger(section) || section < 0 || section >= sections.length) {
      status.textContent = `Section must be 0–${Math.max(0, sections.length - 1)}.`;
      return;
    }
    const rows = sections[section].rows?.length ?? 0;
    if (!Number.isInteger(row) || row < 0 || row >= rows) {
      status.textContent = `Row must be 0–${Math.max(0, rows - 1)} in section ${section}.`;
      return;
    }
    const sent = this.onScrollToRow({
      section,
      row,
      position: $("scroll-position").value,
      animated: $("scroll-animated").checked,
    });
    status.textContent = sent ? "" : "Not connected.";
  }

  /**
   * Who may drive, as this viewer knows it: "key" (it holds the room's driver key), "watch" (the
   * room is locked and this viewer has no key), "rejected" (the room is locked and the key from a
   * link was not accepted), "open" (the room is not locked: anyone may drive) or "unknown" (no
   * snapshot yet).
   * `driverKey` builds the co-driver link when the mode is "key".
   */
  setDriving(mode, driverKey = null) {
    this.driveMode = mode;
    this.driverKey = mode === "key" ? driverKey : null;
    const status = $("drive-status");
    status.dataset.mode = mode;
    status.textContent = {
      key: "You can drive. This room is locked: only you and those you give its co-driver link can drive it.",
      watch: "Watch only — this room is locked. Ask whoever created it for its co-driver link to drive.",
      rejected: "The co-driver key in your link was not accepted: this room is locked, so you can only watch.",
      granted: "You can drive: a key holder let you, for as long as you stay. This room is locked.",
      open: "Anyone in this room can drive: it is not locked.",
      unknown: "Joining…",
    }[mode] ?? "–";
    const badge = $("drive-badge");
    badge.dataset.mode = mode;
    badge.textContent = { key: "you can drive · locked room", granted: "you can drive · granted",
                          watch: "watch only — room is locked" }[mode] ?? "";
    badge.hidden = badge.textContent === "";
    document.body.classList.toggle("watch-only", mode === "watch");
    // In a locked room the plain link only lets people watch: say so.
    const locked = mode === "key" || mode === "watch" || mode === "rejected" || mode === "granted";
    $("share-link").textContent = locked ? "watch-only link" : "share link";
    // A locked room's recording needs its key (docs/recording.md); a link carries it as `key=`.
    $("recording-link").href = recordingLinkFor(this.room, window.location, this.driverKey);
    $("copy-link").textContent = locked ? "Copy watch-only link" : "Copy share link";
    this.showCoDriverLink();
    this.onDrivingChanged?.(mode);
  }

  showCoDriverLink() {
    const share = $("codriver-share");
    share.hidden = !this.driverKey;
    $("codriver-link").href = this.driverKey ? coDriverLink(this.shareURL, this.driverKey) : "#";
  }

  async copyShareLink(url, statusId = "copy-status") {
    const status = $(statusId);
    try {
      await navigator.clipboard.writeText(url);
      status.textContent = "Copied.";
    } catch {
      // No clipboard permission (e.g. plain http on a LAN address): show it to copy by hand.
      window.prompt("Copy this link:", url);
      status.textContent = "";
    }
    const timer = setTimeout(() => { this.copyTimers.delete(timer); status.textContent = ""; }, 2500);
    this.copyTimers.add(timer);
  }

  /** Viewer count and who drives ("you" when it is this viewer). */
  setPresence({ viewers, driver, me }) {
    const count = Number.isFinite(viewers) ? viewers : 0;
    const who = driver == null ? "nobody is driving" : driver === me ? "you are driving" : `${driver} is driving`;
    $("presence").textContent = `${count} viewer${count === 1 ? "" : "s"} · ${who}`;
  }

  /** The stats line under the phone: fps and latency (ms), null when unknown. */
  setStats({ fps, median, p99 }) {
    $("fps").textContent = `${Math.round(fps)} fps`;
    $("latency").textContent = median == null
      ? "latency –"
      : `latency ${Math.round(median)} ms (p99 ${Math.round(p99)} ms)`;
  }

  /** Tells screen readers where the table rests (the canvas itself says nothing to them). */
  announcePosition(frame) {
    const header = frame.headers?.[0]?.title ?? "";
    const rows = (frame.rows ?? []).slice(0, 3).map((r) => [r.title, r.detail].filter(Boolean).join(" ")).join("; ");
    const text = [header, rows].filter(Boolean).join(": ");
    const where = $("where");
    if (where.textContent !== text) where.textContent = text;
  }

  /** Shows (text) or hides (null) the disconnected banner. */
  setBanner(text) {
    const banner = $("banner");
    if (text == null) { banner.hidden = true; return; }
    banner.textContent = text;
    banner.hidden = false;
  }

  /** A short message that hides itself. */
  toast(text) {
    const toast = $("toast");
    toast.textContent = text;
    toast.hidden = false;
    clearTimeout(this.toastTimer);
    this.toastTimer = setTimeout(() => { toast.hidden = true; }, 3000);
  }

  /** Ends the timers (the page's destroy(); its signal took the listeners). */
  stop() {
    clearTimeout(this.toastTimer);
    for (const timer of this.copyTimers) clearTimeout(timer);
    this.copyTimers.clear();
  }
}

/**
 * This page's URL for `room`, to share. A scene other than the demo goes with it, so the link
 * recreates the same kind of room if the room has expired by the time it is opened.
 */
export function shareLinkFor(room, sceneName = "demo", loc = window.location) {
  const url = new URL(loc.href);
  url.search = `?room=${encodeURIComponent(room)}`;
  if (sceneName && sceneName !== "demo") url.search += `&scene=${encodeURIComponent(sceneName)}`;
  url.hash = "";
  return url.toString();
}

/** The server's recording of `room` (GET /recording?room=NAME, docs/recording.md), with the
 * driver key a locked room's recording needs, when this viewer holds it. */
export function recordingLinkFor(room, loc = window.location, driverKey = null) {
  const key = driverKey ? `&key=${encodeURIComponent(driverKey)}` : "";
  return new URL(`/recording?room=${encodeURIComponent(room)}${key}`, loc.href).toString();
}

/**
 * Lists the server's scenes (GET /scenes: the built-in ones and those of `--scenes DIR`) as links
 * to a fresh room of each, named after the scene. Nothing is shown if the list cannot be had, or
 * once `signal` aborted (the request too is cancelled then).
 */
export async function listScenes(loc = window.location, signal = undefined) {
  let names;
  try {
    const reply = await fetch(new URL("/scenes", loc.href), { signal });
    names = reply.ok ? (await reply.json()).scenes : null;
  } catch {
    names = null;
  }
  if (!Array.isArray(names) || signal?.aborted) return;
  const list = $("scene-list");
  list.replaceChildren();
  for (const name of names.filter((n) => typeof n === "string")) {
    const link = document.createElement("a");
    link.textContent = name;
    link.dataset.scene = name;
    // A fresh room each time it is followed, as the seed's link does.
    const fresh = () => { link.href = sceneRoomLink(name, loc); };
    fresh();
    link.addEventListener("click", fresh, { signal });
    if (list.childElementCount) list.append(" · ");
    list.append(link);
  }
  $("scene-list-line").hidden = names.length === 0;
}

/** A link to a new room showing scene `name`. */
export function sceneRoomLink(name, loc = window.location) {
  return shareLinkFor(freshRoomName(name), name, loc);
}

/** `prefix` and 8 random hex digits, within the 64 characters of a room name. */
function freshRoomName(prefix) {
  const suffix = Array.from(crypto.getRandomValues(new Uint8Array(4)), (b) => b.toString(16).padStart(2, "0")).join("");
  return `${prefix.slice(0, 55)}-${suffix}`;
}

/** A link to a new room showing the seed's 20-row DemoTable (scroll-to-row-near-edges.txt). */
export function seedTableLink(loc = window.location) {
  return shareLinkFor(freshRoomName("seed"), "seed-table", loc);
}
