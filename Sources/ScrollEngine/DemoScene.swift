/// The default demo scene: a few thousand timeline rows grouped by day (sections titled by day,
/// row.group = day e.g. "Mon 3 Nov", row.detail = time "14:20", varied heights), background
/// "images/background.svg" (width 390, height 6000), and 3 header layers, each 390 × 330 at restingY −150:
/// "images/header-sky.svg" (pullFactor 0.2, scrollFactor 0.6), "images/header-hills.svg" (1/3, 1 — exactly the seed's
/// third), "images/header-front.svg" (0.5, 1). Deterministic (no random source: a fixed formula picks texts).
///
/// It reads like Path's timeline: newest first, starting on Monday 3 November 2025 and going back a
/// day per section, with 3 to 7 moments a day in descending time order. Each day's section header says
/// "Monday 3 November 2025"; the info panel shows the shorter group "Mon 3 Nov" and the row's time.
public enum DemoScene {
    /// The demo configuration with `rowCount` rows (negative counts give an empty table); row ids are
    /// 0..<rowCount in their initial order. The same count always gives the same scene.
    public static func configuration(rowCount: Int = 3000) -> SceneConfiguration {
        SceneConfiguration(
            parallaxLayers: [
                ParallaxLayer(image: "images/header-sky.svg", size: Size(width: 390, height: 330),
                              restingY: -150, pullFactor: 0.2, scrollFactor: 0.6),
                ParallaxLayer(image: "images/header-hills.svg", size: Size(width: 390, height: 330),
                              restingY: -150, pullFactor: 1.0 / 3.0, scrollFactor: 1),
                ParallaxLayer(image: "images/header-front.svg", size: Size(width: 390, height: 330),
                              restingY: -150, pullFactor: 0.5, scrollFactor: 1),
            ],
            background: BackgroundImage(image: "images/background.svg", height: 6000),
            sections: sections(rowCount: rowCount))
    }

    /// The demo's sections alone (what `configuration(rowCount:)` puts in the scene).
    public static func sections(rowCount: Int) -> [TableSection] {
        var sections: [TableSection] = []
        var date = DemoDate.start
        var nextID = 0
        var dayIndex = 0
        while nextID < rowCount {
            let perDay = min(3 + (dayIndex * 7 + 3) % 5, rowCount - nextID)
            let group = date.shortTitle
            var rows: [TableRow] = []
            rows.reserveCapacity(perDay)
            for slot in 0..<perDay {
                rows.append(row(id: nextID, slot: slot, perDay: perDay, group: group))
                nextID += 1
            }
            sections.append(TableSection(title: date.longTitle, headerHeight: 28, rows: rows))
            date = date.previousDay
            dayIndex += 1
        }
        return sections
    }

    private static let activities = [
        "Morning run", "Coffee", "Stand-up", "Lunch", "Bike ride", "Reading", "Dinner", "Gallery visit",
        "Market", "Swim", "Concert", "Walk in the park", "Call with family", "Yoga", "Board games", "Movie night",
    ]
    private static let places = [
        "Riverside", "Café Lumen", "the office", "Old Town", "Harbour Hall", "the library", "Mira's place",
        "Central Park", "Station Square", "the lido", "Pier 7", "Hill Road",
    ]
    private static let people = ["Ana", "Ben", "Chloé", "Dev", "Emil", "Farah", "Gus", "Hana", "Ivo", "Jun"]
    private static let heights: [Double] = [56, 64, 72, 88]

    /// A row's texts and height from a fixed formula on its id and its slot in the day.
    private static func row(id: Int, slot: Int, perDay: Int, group: String) -> TableRow {
        // Times descend through the day from about 22:40, spaced evenly enough that a jitter
        // under the spacing keeps them strictly descending.
        let spacing = (15 * 60) / max(perDay, 1)
        let jitter = ((id * 37) % 4) * 5
        let minutes = 22 * 60 + 40 - slot * spacing - jitter
        let detail = joinedText(twoDigits(minutes / 60), ":", twoDigits((minutes % 60) / 5 * 5))
        let activity = activities[(id * 7 + slot) % activities.count]
        let place = places[(id * 5 + 3) % places.count]
        let companion = people[(id * 3 + slot) % people.count]
        let subtitle = id % 3 == 0 ? place : joinedText(place, " · with ", companion)
        return TableRow(id: id, title: activity, subtitle: subtitle, group: group, detail: detail,
                        height: heights[(id * 11 + slot) % heights.count])
    }

    private static func twoDigits(_ value: Int) -> String {
        value < 10 ? joinedText("0", decimalText(value)) : decimalText(value)
    }
}

/// A calendar date with its weekday, stepped back a day at a time by Gregorian rules (no Foundation).
private struct DemoDate {
    var year: Int
    /// 1...12
    var month: Int
    /// 1...31
    var day: Int
    /// 0 = Monday ... 6 = Sunday
    var weekday: Int

    /// Monday 3 November 2025, the newest day of the demo timeline.
    static let start = DemoDate(year: 2025, month: 11, day: 3, weekday: 0)

    static let weekdayShort = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    static let weekdayLong = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
    static let monthShort = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    static let monthLong = ["January", "February", "March", "April", "May", "June", "July", "August",
                            "September", "October", "November", "December"]

    /// "Mon 3 Nov"
    var shortTitle: String { joinedText(Self.weekdayShort[weekday], " ", decimalText(day), " ", Self.monthShort[month - 1]) }
    /// "Monday 3 November 2025"
    var longTitle: String {
        joinedText(Self.weekdayLong[weekday], " ", decimalText(day), " ", Self.monthLong[month - 1], " ", decimalText(year))
    }

    var previousDay: DemoDate {
        var date = self
        date.weekday = (weekday + 6) % 7
        if day > 1 {
            date.day -= 1
        } else if month > 1 {
            date.month -= 1
            date.day = Self.daysIn(month: date.month, year: year)
        } else {
            date.year -= 1
            date.month = 12
            date.day = 31
        }
        return date
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    static func isLeap(_ year: Int) -> Bool { (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 }
}
