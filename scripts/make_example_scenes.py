"""Writes the example scenes in scenes/ (docs/scenes.md): each NAME.json and its images, all made
here from fixed formulas (no randomness), so running it again gives the same bytes.

  photo-feed   a photo feed: tall rows by day, a deep 260 pt header with four parallax layers
               (a JPEG sky, a WebP ridge, two PNG hill lines) and a long background
  contacts     a long alphabetical list: a section per letter, the defaults for everything else
  trail-guide  a trail guide on a larger phone: its own viewport and insets, a 300 pt header with
               a 2× layer and a small far-away sun, fast deceleration, no background image

Run: python3 scripts/make_example_scenes.py [OUT_DIR]   (default: scenes/ in the repository)
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from scene_images import jpeg, png, webp_mask  # noqa: E402

OUT = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[1] / "scenes"


def mix(a, b, t):
    return tuple(round(x + (y - x) * t) for x, y in zip(a, b))


def ridge(x, base, waves):
    return base + sum(amp * math.sin(x / period + phase) for amp, period, phase in waves)


def silhouette(width, height, colour, top, shade=0.0):
    """Opaque below the curve `top(x)`, darkening downwards by `shade`; transparent above."""
    def pixel(x, y):
        edge = top(x)
        if y < edge:
            return (0, 0, 0, 0)
        t = min(1.0, (y - edge) / max(1.0, height - edge))
        return (*mix(colour, (20, 24, 30), t * shade), 255)
    return png(width, height, pixel)


def layer(image, width, height, resting_y, pull, scroll):
    return {"image": image, "width": width, "height": height, "restingY": resting_y, "pullFactor": pull, "scrollFactor": scroll}


def scene(viewport, insets, header, layers, background, sections, rate):
    """A scene file's fields, every one given (contacts shows the defaults instead)."""
    return {
        "$schema": "../docs/scene.schema.json",
        "viewport": {"width": viewport[0], "height": viewport[1]},
        "insets": {"top": insets[0], "left": 0, "bottom": insets[1], "right": 0},
        "headerHeight": header,
        "layers": layers,
        "background": background,
        "sections": sections,
        "decelerationRate": rate,
    }


def write(name: str, data: bytes):
    (OUT / name).write_bytes(data)


# --- photo-feed -------------------------------------------------------------------------------

def photo_feed():
    # Layers are 390 × 410 pt at restingY −150: their bottom edge meets the 260 pt header's
    # bottom at rest (44 − 150 + 410 = 44 + 260).
    dawn, day = (38, 52, 110), (250, 196, 150)
    write("feed-sky.jpg", jpeg(780, 820, lambda bx, by: mix(dawn, day, min(1.0, by / 90))))
    write("feed-ridge.webp", webp_mask(390, 410, (104, 112, 150),
                                       lambda x, y: y >= ridge(x, 250, [(22, 47, 0.3), (9, 13, 1.1)])))
    write("feed-hills.png", silhouette(390, 410, (86, 128, 88),
                                       lambda x: ridge(x, 310, [(16, 70, 2.0), (6, 19, 0.4)]), shade=0.6))
    write("feed-front.png", silhouette(390, 410, (38, 58, 44),
                                       lambda x: ridge(x, 372, [(10, 31, 1.3), (14, 9, 0.2)]), shade=0.5))
    bands = [(247, 226, 206), (236, 214, 224), (214, 226, 240), (220, 238, 222), (244, 236, 204)]
    write("feed-background.png", png(390, 3000, lambda x, y: (*mix(bands[(y // 600) % 5], bands[(y // 600 + 1) % 5],
                                                                      (y % 600) / 600), 255)))
    places = ["Harbour", "Old Town", "Ridge Trail", "Market Hall", "Lighthouse", "Botanic Garden", "North Beach"]
    subjects = ["at dawn", "in the fog", "from above", "after rain", "at golden hour", "in winter light"]
    days = ["Sat 8 Nov", "Fri 7 Nov", "Thu 6 Nov", "Wed 5 Nov", "Tue 4 Nov", "Mon 3 Nov", "Sun 2 Nov", "Sat 1 Nov"]
    long_days = ["Saturday 8 November", "Friday 7 November", "Thursday 6 November", "Wednesday 5 November",
                 "Tuesday 4 November", "Monday 3 November", "Sunday 2 November", "Saturday 1 November"]
    sections, n = [], 0
    for d, (short, title) in enumerate(zip(days, long_days)):
        rows = []
        for k in range(3 + (d * 3) % 3):
            rows.append({
                "title": f"{places[n % len(places)]} {subjects[(n * 5) % len(subjects)]}",
                "subtitle": f"f/{[1.8, 2.8, 4, 8][n % 4]} · 1/{[60, 125, 250, 500][(n * 3) % 4]} s · ISO {[100, 200, 400][n % 3]}",
                "group": short,
                "detail": f"{19 - k * 3:02d}:{(n * 17) % 60:02d}",
                "height": [280, 360, 240, 320][n % 4],
            })
            n += 1
        sections.append({"title": title, "headerHeight": 32, "rows": rows})
    layers = [layer(image, 390, 410, -150, pull, scroll) for image, pull, scroll in [
        ("feed-sky.jpg", 0.15, 0.5), ("feed-ridge.webp", 0.25, 0.75), ("feed-hills.png", 1 / 3, 1), ("feed-front.png", 0.6, 1)]]
    return scene((390, 844), (44, 0), 260, layers, {"image": "feed-background.png", "height": 3000}, sections, "normal")


# --- contacts ---------------------------------------------------------------------------------

def contacts():
    first = ["Ada", "Bruno", "Chiara", "Dmitri", "Elif", "Femi", "Greta", "Hiro", "Ines", "Jonas", "Kalani", "Lena",
             "Mateo", "Nadia", "Oskar", "Priya", "Quentin", "Rosa", "Sven", "Tariq", "Uma", "Viktor", "Wen", "Yara", "Zoe"]
    surnames = {}
    stems = ["bury", "castle", "dale", "ford", "grove", "holm", "ley", "mont", "ridge", "stone", "well", "wick", "ton"]
    cities = ["Lisbon", "Oslo", "Kyoto", "Accra", "Lima", "Porto", "Tartu", "Cork", "Perth", "Quito", "Graz", "Turku"]
    letters = [c for c in "ABCDEFGHIJKLMNOPRSTUVWYZ"]
    for i, letter in enumerate(letters):
        count = 8 + (i * 7) % 17
        joint = "r" if letter in "AEIOUY" else "a"
        names = sorted({f"{letter}{joint}{stems[(i + k) % len(stems)]}{'' if k < len(stems) else 's'}"
                        for k in range(count)})
        surnames[letter] = names
    hues = [(250, 214, 214), (250, 232, 200), (244, 246, 200), (214, 244, 214), (204, 236, 246), (222, 214, 250)]
    background_height = 5200
    write("contacts-background.png", png(390, background_height,
                                         lambda x, y: (*mix(hues[(y // 900) % 6], hues[(y // 900 + 1) % 6], (y % 900) / 900), 255)))
    sections = []
    for i, letter in enumerate(letters):
        rows = [{"title": f"{first[(i * 3 + k) % len(first)]} {surname}",
                 "subtitle": cities[(i + k * 5) % len(cities)]}
                for k, surname in enumerate(surnames[letter])]
        sections.append({"title": letter, "rows": rows})
    return {
        "$schema": "../docs/scene.schema.json",
        "headerHeight": 0,
        "background": {"image": "contacts-background.png", "height": background_height},
        "sections": sections,
    }


# --- trail-guide ------------------------------------------------------------------------------

def trail_guide():
    # A 430 × 932 phone: the mountains are 430 × 400 pt at 2× (860 × 800 px), bottom on the
    # header's bottom at rest (59 − 100 + 400 = 59 + 300).
    write("trail-mountains.png", silhouette(860, 800, (72, 84, 120),
                                            lambda x: ridge(x, 430, [(90, 120, 0.5), (30, 37, 2.0), (8, 9, 0.7)])))
    # The sun sits in the top 120 pt of a 160 pt layer: the page extends a layer that ends above
    # the header's bottom with its pixel row 16 pt above its own bottom, which must stay clear.
    write("trail-sun.webp", webp_mask(120, 160, (255, 214, 120), lambda x, y: (x - 59.5) ** 2 + (y - 59.5) ** 2 <= 56 ** 2))
    stages = ["Col du Lac", "Refuge Vallon", "Pas de l'Ours", "Lac Noir", "Crête Blanche", "Bergerie Haute",
              "Gorges du Riou", "Plateau d'Arce", "Cabane des Pins", "Source Claire", "Belvédère", "Le Hameau"]
    sections, km = [], 0.0
    for s, stage in enumerate(stages):
        rows = []
        for w in range(4 + s % 3):
            km += 1.3 + (s * 7 + w * 3) % 5 * 0.4
            rows.append({"title": f"Waypoint {s + 1}.{w + 1}", "subtitle": ["forest track", "scree", "meadow", "ridge path"][(s + w) % 4],
                         "group": f"Stage {s + 1}", "detail": f"km {km:.1f}", "height": [56, 72][(s + w) % 2]})
        sections.append({"title": f"Stage {s + 1} · {stage}", "headerHeight": 30, "rows": rows})
    layers = [layer("trail-sun.webp", 120, 160, -20, 0.1, 0.3), layer("trail-mountains.png", 430, 400, -100, 0.4, 1)]
    return scene((430, 932), (59, 34), 300, layers, None, sections, "fast")


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    for name, build in [("photo-feed", photo_feed), ("contacts", contacts), ("trail-guide", trail_guide)]:
        (OUT / f"{name}.json").write_text(json.dumps(build(), indent=2, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
