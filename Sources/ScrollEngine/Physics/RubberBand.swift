/// UIScrollView's rubber band: how far content appears to move when dragged past an edge.
///
/// Grant Paul's formula (the one widely quoted for UIScrollView): for a finger that has
/// travelled `x` points past the edge of a scroll view `d` points tall, the content moves
///
///     (1 − 1 / (x · 0.55 / d + 1)) · d
///
/// which starts 1:1-ish (slope 0.55) and flattens towards `d` as the pull grows.
enum RubberBand {
    /// The 0.55 constant of Grant Paul's formula.
    static let coefficient: Double = 0.55

    /// Visible distance past the edge for a pull of `distance` points (sign preserved).
    static func offset(distance: Double, dimension: Double) -> Double {
        let x = abs(distance)
        let banded = (1 - 1 / (x * coefficient / dimension + 1)) * dimension
        return distance < 0 ? -banded : banded
    }

    /// The pull that produces a visible distance `offset` (inverse of `offset(distance:dimension:)`).
    /// Visible distances at or beyond `dimension` cannot be produced; they are capped just below it.
    static func distance(forOffset offset: Double, dimension: Double) -> Double {
        let y = min(abs(offset), dimension * 0.999)
        let x = y / (coefficient * (1 - y / dimension))
        return offset < 0 ? -x : x
    }

    /// d(visible)/d(pull) at a pull of `distance`: how much of the finger's speed shows.
    static func slope(distance: Double, dimension: Double) -> Double {
        let s = abs(distance) * coefficient / dimension + 1
        return coefficient / (s * s)
    }

    /// The offset shown for an unconstrained offset `raw` (where the finger alone would put the
    /// content): unchanged inside `range`, rubber-banded past either end.
    static func displayed(raw: Double, range: ClosedRange<Double>, dimension: Double) -> Double {
        if raw < range.lowerBound {
            return range.lowerBound + offset(distance: raw - range.lowerBound, dimension: dimension)
        }
        if raw > range.upperBound {
            return range.upperBound + offset(distance: raw - range.upperBound, dimension: dimension)
        }
        return raw
    }

    /// The unconstrained offset that shows as `displayed` (inverse of `displayed(raw:range:dimension:)`),
    /// used when a finger catches content that is already past an edge.
    static func raw(displayed: Double, range: ClosedRange<Double>, dimension: Double) -> Double {
        if displayed < range.lowerBound {
            return range.lowerBound + distance(forOffset: displayed - range.lowerBound, dimension: dimension)
        }
        if displayed > range.upperBound {
            return range.upperBound + distance(forOffset: displayed - range.upperBound, dimension: dimension)
        }
        return displayed
    }
}
