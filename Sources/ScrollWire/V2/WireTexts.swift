import ScrollEngine

/// A row's texts as version 2 sends them, once per room: what frames leave out when they name
/// the row by id. `height` is the row's height when its texts were sent (0.01 pt); a frame
/// writes a row's height only when it differs from this.
public struct RowTexts: Sendable, Hashable {
    /// The row's stable id.
    public var id: Int
    /// Its height, rounded to 0.01 pt as frames round it.
    public var height: Double
    /// The row's title.
    public var title: String
    /// The row's subtitle.
    public var subtitle: String
    /// The row's detail (e.g. a time).
    public var detail: String

    /// Texts of one row.
    public init(id: Int, height: Double, title: String, subtitle: String, detail: String) {
        self.id = id; self.height = height; self.title = title; self.subtitle = subtitle; self.detail = detail
    }
}

/// A section header's title, by section index.
public struct SectionTitle: Sendable, Hashable {
    /// The section's index.
    public var section: Int
    /// The title its header shows.
    public var title: String

    /// A section's header title.
    public init(section: Int, title: String) {
        self.section = section; self.title = title
    }
}

/// The two texts of the info panel (`panel.title`, `panel.detail`), numbered by the room so a
/// frame names them with one small integer.
public struct PanelLabel: Sendable, Hashable {
    /// The number frames use for this pair.
    public var label: Int
    /// The panel's title (the day, in the demo).
    public var title: String
    /// The panel's detail (the time, in the demo).
    public var detail: String

    /// A numbered panel label.
    public init(label: Int, title: String, detail: String) {
        self.label = label; self.title = title; self.detail = detail
    }
}

/// Texts version 2 sends apart from frames: in a `texts` message, before the first frame that
/// needs them, and all of them in a `snapshot`. An entry for a row, section or label already
/// known replaces it.
public struct WireTexts: Sendable, Hashable {
    /// Rows' texts.
    public var rows: [RowTexts]
    /// Section headers' titles.
    public var sections: [SectionTitle]
    /// Info panel labels.
    public var labels: [PanelLabel]

    /// Texts for rows, sections and labels.
    public init(rows: [RowTexts] = [], sections: [SectionTitle] = [], labels: [PanelLabel] = []) {
        self.rows = rows; self.sections = sections; self.labels = labels
    }

    /// Whether there is nothing to send.
    public var isEmpty: Bool { rows.isEmpty && sections.isEmpty && labels.isEmpty }
}

/// What a room's version-2 viewers know of its texts, the same on both ends of the wire.
///
/// The server registers each frame before encoding it (`register(_:)`): texts not yet sent go
/// out in a reliable `texts` message ahead of the frame, and the whole table goes in every
/// snapshot, so every viewer can draw every frame from then on. A client applies what it
/// receives (`apply(_:)`) and resolves frames against it. Entries keep the order they were
/// first registered in, so a snapshot's bytes depend only on the room's history.
public struct WireTextTable: Sendable, Equatable {
    private var rowEntries: [RowTexts] = []
    private var rowPositions: [Int: Int] = [:]
    private var sectionEntries: [SectionTitle] = []
    private var sectionPositions: [Int: Int] = [:]
    private var labelEntries: [PanelLabel] = []
    private var labelPositions: [Int: Int] = [:]
    private var labelNumbers: [LabelKey: Int] = [:]
    private var nextLabel = 0

    private struct LabelKey: Hashable, Sendable {
        var title: String
        var detail: String
    }

    /// An empty table.
    public init() {}

    /// A table holding `texts`.
    public init(_ texts: WireTexts) {
        apply(texts)
    }

    /// Every entry, in the order first registered: what a snapshot carries.
    public var all: WireTexts { WireTexts(rows: rowEntries, sections: sectionEntries, labels: labelEntries) }

    /// Row `id`'s texts, if known.
    public func row(_ id: Int) -> RowTexts? { rowPositions[id].map { rowEntries[$0] } }
    /// Section `section`'s header title, if known.
    public func sectionTitle(_ section: Int) -> String? { sectionPositions[section].map { sectionEntries[$0].title } }
    /// Panel label `label`, if known.
    public func label(_ label: Int) -> PanelLabel? { labelPositions[label].map { labelEntries[$0] } }
    /// The number of the panel label with these texts, if there is one.
    public func labelNumber(title: String, detail: String) -> Int? { labelNumbers[LabelKey(title: title, detail: detail)] }

    /// Adds or replaces entries (a client applying a `texts` message).
    public mutating func apply(_ texts: WireTexts) {
        for row in texts.rows {
            if let i = rowPositions[row.id] { rowEntries[i] = row } else {
                rowPositions[row.id] = rowEntries.count
                rowEntries.append(row)
            }
        }
        for section in texts.sections {
            if let i = sectionPositions[section.section] { sectionEntries[i] = section } else {
                sectionPositions[section.section] = sectionEntries.count
                sectionEntries.append(section)
            }
        }
        for label in texts.labels {
            if let i = labelPositions[label.label] {
                labelNumbers[LabelKey(title: labelEntries[i].title, detail: labelEntries[i].detail)] = nil
                labelEntries[i] = label
            } else {
                labelPositions[label.label] = labelEntries.count
                labelEntries.append(label)
            }
            labelNumbers[LabelKey(title: label.title, detail: label.detail)] = label.label
            if label.label >= nextLabel { nextLabel = label.label &+ 1 }
        }
    }

    /// Registers what `frame` shows (the server, before encoding it) and returns what was not
    /// known yet: rows (visible or lifted) never seen or whose texts changed, section titles, and
    /// panel labels, which are numbered 0, 1, 2 … in the order first shown. Empty when the
    /// viewers already have everything the frame needs.
    public mutating func register(_ frame: EffectFrame) -> WireTexts {
        var new = WireTexts()
        func see(_ row: VisibleRow) {
            if let known = self.row(row.id), known.title == row.title, known.subtitle == row.subtitle,
               known.detail == row.detail { return }
            let entry = RowTexts(id: row.id, height: WirePrecision.points.wireRounded(row.height),
                                 title: row.title, subtitle: row.subtitle, detail: row.detail)
            apply(WireTexts(rows: [entry]))
            new.rows.append(entry)
        }
        for row in frame.rows { see(row) }
        if let lifted = frame.liftedRow { see(lifted.row) }
        for header in frame.sectionHeaders where sectionTitle(header.section) != header.title {
            let entry = SectionTitle(section: header.section, title: header.title)
            apply(WireTexts(sections: [entry]))
            new.sections.append(entry)
        }
        if let panel = frame.infoPanel, labelNumber(title: panel.title, detail: panel.detail) == nil {
            let entry = PanelLabel(label: nextLabel, title: panel.title, detail: panel.detail)
            apply(WireTexts(labels: [entry]))
            new.labels.append(entry)
        }
        return new
    }
}

extension WirePrecision {
    /// `x` as a version-2 client decodes it (`wireUnits`, then back to a double).
    func wireRounded(_ x: Double) -> Double {
        value(units: wireUnits(x))
    }
}
