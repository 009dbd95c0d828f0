// The "reconnecting" state the viewer sees: shown only once the connection has been lost for
// RECONNECTING_AFTER_MS, so a drop that a resume heals at once never flashes a banner; the
// picture stays as it was throughout (the page keeps drawing its last frame).

export const RECONNECTING_AFTER_MS = 500;

export class ReconnectingIndicator {
  /** `show()` runs when a loss has lasted `delayMs`; `hide()` when the page is joined again. */
  constructor({ show, hide, delayMs = RECONNECTING_AFTER_MS }) {
    this.show = show;
    this.hide = hide;
    this.delayMs = delayMs;
    this.timer = null;
    this.since = null;        // performance.now() of the loss, while lost
    this.shown = false;
  }

  /** The connection is lost (or not joined yet after a loss): show after the delay. */
  lost() {
    if (this.since === null) this.since = performance.now();
    if (this.shown || this.timer !== null) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.shown = true;
      this.show();
    }, Math.max(0, this.delayMs - (performance.now() - this.since)));
  }

  /** Joined again: the gap in ms, and whether "reconnecting" was shown. */
  back() {
    clearTimeout(this.timer);
    this.timer = null;
    const gap = this.since === null ? 0 : performance.now() - this.since;
    const wasShown = this.shown;
    this.since = null;
    this.shown = false;
    if (wasShown) this.hide();
    return { gap, wasShown };
  }

  /** Forgets the loss without showing or hiding anything (the page's destroy()). */
  stop() {
    clearTimeout(this.timer);
    this.timer = null;
  }
}
