// What the server's InputTimeMapper (Sources/ScrollcastServer/InputTimeMapper.swift) will make of
// this page's own input times, predicted: a gesture's first event is anchored at the room's
// present (the clock's estimate), later ones keep their intervals from the anchor, clamped into
// [floor, now] as the server clamps them. When the server's `applied` tells the true time, the
// anchor moves there, so later predictions follow the server's.

const MAX_LAG = 250;

export class TimeMapper {
  constructor() {
    this.anchor = null;   // {client, room}
  }

  /** Room time for an input stamped `clientTime` sent when the room's present is `now`. */
  map(clientTime, now, floor, startsGesture) {
    const low = Math.min(now, Math.max(floor, now - MAX_LAG));
    if (startsGesture || !this.anchor) {
      this.anchor = { client: clientTime, room: now };
      return now;
    }
    const candidate = this.anchor.room + (clientTime - this.anchor.client);
    if (candidate > now || candidate < low) {
      const mapped = Math.min(now, Math.max(low, candidate));
      this.anchor = { client: clientTime, room: mapped };
      return mapped;
    }
    return candidate;
  }

  /** The server applied our input stamped `clientTime` at room time `room`. */
  confirm(clientTime, room) {
    this.anchor = { client: clientTime, room };
  }

  reset() { this.anchor = null; }
}

/** Input kinds that start a gesture (the server re-anchors at them). */
export const GESTURE_STARTS = new Set(["pointerDown", "longPressBegan"]);
