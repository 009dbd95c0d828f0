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
    // `init()`, not `[:]`, whose initialiser is specialised per dictionary type (docs/wasm.md, "Size").
    private var rowPositions = [Int: Int]()
    private var sectionEntries: [SectionTitle] = []
    private var sectionPositions = [Int: Int]()
    private var labelEntries: [PanelLabel] = []
    private var labelPositions = [Int: Int]()
    private var labelNumbers = [LabelKey: Int]()
    private var nextLabel = 0
    /// The label last registered or looked up by `register`: a scrolling room shows the same panel
    /// texts frame after frame, and this answers them without hashing both texts each time.
    /// Not part of the table's value (`==` leaves it out).
    private var lastLabelTitle = "", lastLabelDetail = "", lastLabelNumber = -1
    /// The ids of the rows the last registered frame showed, and where each is in `rowEntries`:
    /// looked at before `rowPositions`, as a frame shows mostly the rows of the one before it, and
    /// this short list is read in order where the dictionary is probed at random (the tables of
    /// 500 rooms do not stay in the cache). Positions never move (entries are replaced in place),
    /// so the list stays right whatever is applied. Not part of the table's value either.
    /// Natively only: the page's replica keeps one table, and this would grow its module (docs/wasm.md).
    #if !hasFeature(Embedded)
    private var recentIDs: [Int] = [], recentPositions: [Int] = []
    #endif

    /// A label's two texts, equal and hashed by their UTF-8 bytes (see `sameUTF8`).
    private struct LabelKey: Hashable, Sendable {
        var title: String
        var detail: String

        static func == (a: LabelKey, b: LabelKey) -> Bool {
            sameUTF8(a.title, b.title) && sameUTF8(a.detail, b.detail)
        }

        func hash(into hasher: inout Hasher) {
            withUTF8Bytes(title) { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
            hasher.combine(UInt8(0xFF))  // never in UTF-8: separates the two texts
            withUTF8Bytes(detail) { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        }
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
    public func labelNumber(title: String, detail: String) -> Int? {
        if lastLabelNumber >= 0, sameUTF8(lastLabelTitle, title), sameUTF8(lastLabelDetail, detail) { return lastLabelNumber }
        return labelNumbers[LabelKey(title: title, detail: detail)]
    }
    /// Row `id`'s height as registered, if known: what a frame compares its row's height with,
    /// read without copying the row's texts.
    func rowHeight(_ id: Int) -> Double? { rowPositions[id].map { rowEntries[$0].height } }
    /// The height of the row at `position` (from `register(_:ahead:positions:)`).
    func rowHeight(atPosition position: Int) -> Double { rowEntries[position].height }

    /// Tables are equal when they hold the same entries (in the same order); the lookup cache is
    /// not part of the value.
    public static func == (a: WireTextTable, b: WireTextTable) -> Bool {
        a.nextLabel == b.nextLabel && a.rowEntries == b.rowEntries && a.sectionEntries == b.sectionEntries
            && a.labelEntries == b.labelEntries
    }

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
        if !texts.labels.isEmpty { lastLabelNumber = -1 }
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
    ///
    /// When the frame needs anything new, what `ahead` gives (the rows just off screen and the
    /// panel labels of those and the visible ones, see `upcoming(around:in:count:)`) goes in the
    /// same message where it is new too, so that scrolling on sends texts once every few screens
    /// instead of with nearly every frame: fewer messages to write, and fewer for a stalled
    /// viewer's reliable queue to hold. `ahead` is called only then.
    public mutating func register(_ frame: EffectFrame, ahead: () -> UpcomingTexts = { UpcomingTexts() }) -> WireTexts {
        var positions: [Int] = []
        return register(frame, ahead: ahead, positions: &positions)
    }

    /// `register(_:ahead:)`, also telling where each of the frame's visible rows is in the table,
    /// in `positions` (`rowHeight(atPosition:)`): the encoder reads their heights from there
    /// rather than looking every row up again. Positions stay valid (entries are only replaced).
    mutating func register(_ frame: EffectFrame, ahead: () -> UpcomingTexts, positions: inout [Int]) -> WireTexts {
        var new = WireTexts()
        #if !hasFeature(Embedded)
        // Where the search of `recentIDs` goes on from: the rows come in the order they had.
        var hint = 0
        #endif
        func position(of id: Int) -> Int? {
            #if !hasFeature(Embedded)
            var j = hint
            while j < recentIDs.count {
                if recentIDs[j] == id {
                    hint = j + 1
                    return recentPositions[j]
                }
                j += 1
            }
            #endif
            return rowPositions[id]
        }
        @discardableResult
        func see(id: Int, height: Double, title: String, subtitle: String, detail: String) -> Int {
            // Read in place: copying the entry out would retain and release its three texts.
            if let i = position(of: id), sameUTF8(rowEntries[i].title, title), sameUTF8(rowEntries[i].subtitle, subtitle),
               sameUTF8(rowEntries[i].detail, detail) { return i }
            let entry = RowTexts(id: id, height: WirePrecision.points.wireRounded(height),
                                 title: title, subtitle: subtitle, detail: detail)
            apply(WireTexts(rows: [entry]))
            new.rows.append(entry)
            return rowPositions[id] ?? 0
        }
        positions.removeAll(keepingCapacity: true)
        positions.reserveCapacity(frame.rows.count)
        // Through the buffer, each row's fields read in place: iterating the array would copy
        // every row out, retaining and releasing its three texts.
        frame.rows.withUnsafeBufferPointer { rows in
            for k in rows.indices {
                positions.append(see(id: rows[k].id, height: rows[k].height, title: rows[k].title,
                                     subtitle: rows[k].subtitle, detail: rows[k].detail))
            }
            #if !hasFeature(Embedded)
            recentIDs.removeAll(keepingCapacity: true)
            recentPositions.removeAll(keepingCapacity: true)
            for k in rows.indices { recentIDs.append(rows[k].id) }
            recentPositions.append(contentsOf: positions)
            #endif
        }
        if let lifted = frame.liftedRow {
            see(id: lifted.row.id, height: lifted.row.height, title: lifted.row.title, subtitle: lifted.row.subtitle,
                detail: lifted.row.detail)
        }
        func see(title: String, detail: String) {
            // Not through `labelNumber(title:detail:)`, which would copy the whole table from here.
            if lastLabelNumber >= 0, sameUTF8(lastLabelTitle, title), sameUTF8(lastLabelDetail, detail) { return }
            if let label = labelNumbers[LabelKey(title: title, detail: detail)] {
                (lastLabelTitle, lastLabelDetail, lastLabelNumber) = (title, detail, label)
                return
            }
            let entry = PanelLabel(label: nextLabel, title: title, detail: detail)
            apply(WireTexts(labels: [entry]))
            new.labels.append(entry)
        }
        for header in frame.sectionHeaders where !sameUTF8(sectionTitle(header.section), header.title) {
            let entry = SectionTitle(section: header.section, title: header.title)
            apply(WireTexts(sections: [entry]))
            new.sections.append(entry)
        }
        if let panel = frame.infoPanel { see(title: panel.title, detail: panel.detail) }
        if !new.isEmpty {
            let upcoming = ahead()
            for row in upcoming.rows { see(id: row.id, height: row.height, title: row.title, subtitle: row.subtitle, detail: row.detail) }
            for section in upcoming.sections where !sameUTF8(sectionTitle(section.section), section.title) {
                apply(WireTexts(sections: [section]))
                new.sections.append(section)
            }
            for label in upcoming.panelLabels { see(title: label.title, detail: label.detail) }
        }
        return new
    }
}

/// Texts a room is about to show: rows just off screen (heights unrounded), their sections'
/// titles and panel labels.
public struct UpcomingTexts: Sendable {
    /// Rows' texts.
    public var rows: [RowTexts]
    /// Section header titles.
    public var sections: [SectionTitle]
    /// Panel labels (`title`, `detail`), numbered when registered.
    public var panelLabels: [(title: String, detail: String)]

    /// Upcoming texts.
    public init(rows: [RowTexts] = [], sections: [SectionTitle] = [], panelLabels: [(title: String, detail: String)] = []) {
        self.rows = rows
        self.sections = sections
        self.panelLabels = panelLabels
    }
}

extension WireTextTable {
    /// What a scrolling room is about to show: up to `count` rows on each side of `frame`'s
    /// visible rows, in `sections`' order (the room's current order), the titles of the sections
    /// they are in (headers are titled by their section, whether shown or not), and the panel
    /// labels (the info panel names a row's `group` and `detail`) of those rows and the visible ones.
    public static func upcoming(around frame: EffectFrame, in sections: [TableSection], count: Int = 32) -> UpcomingTexts {
        guard let first = frame.rows.first?.indexPath, let last = frame.rows.last?.indexPath,
              sections.indices.contains(first.section), sections.indices.contains(last.section) else { return UpcomingTexts() }
        var upcoming = UpcomingTexts()
        var rows = 0
        // The few sections titled so far (those of 2 × `count` rows): a list, not a `Set`, which
        // would bring its hashing code into the WebAssembly engine for nothing (docs/wasm.md).
        var titled: [Int] = []
        func title(_ section: Int) {
            guard sections[section].headerHeight > 0, !titled.contains(section) else { return }
            titled.append(section)
            upcoming.sections.append(SectionTitle(section: section, title: sections[section].title))
        }
        func take(_ row: TableRow, visible: Bool = false) {
            if !visible {
                upcoming.rows.append(RowTexts(id: row.id, height: row.height, title: row.title, subtitle: row.subtitle,
                                              detail: row.detail))
                rows += 1
            }
            upcoming.panelLabels.append((row.group, row.detail))
        }
        for path in frame.rows.map({ $0.indexPath }) where sections.indices.contains(path.section)
            && sections[path.section].rows.indices.contains(path.row) {
            take(sections[path.section].rows[path.row], visible: true)
        }
        // Forward from the row after the last visible one.
        var section = last.section, index = last.row + 1
        while rows < count, section < sections.count {
            title(section)
            if index < sections[section].rows.count {
                take(sections[section].rows[index])
                index += 1
            } else {
                section += 1
                index = 0
            }
        }
        // Backward from the row before the first visible one.
        let forward = rows
        section = first.section
        index = first.row - 1
        while rows < forward + count, section >= 0 {
            title(section)
            if index >= 0, index < sections[section].rows.count {
                take(sections[section].rows[index])
                index -= 1
            } else {
                section -= 1
                index = section >= 0 ? sections[section].rows.count - 1 : -1
            }
        }
        return upcoming
    }
}

extension WirePrecision {
    /// `x` as a version-2 client decodes it (`wireUnits`, then back to a double).
    func wireRounded(_ x: Double) -> Double {
        value(units: wireUnits(x))
    }
}

/// Whether two texts have the same UTF-8 bytes: the wire's notion of "the same text" (a text
/// spelled differently goes out again, as its bytes differ). Unlike `==` it does no Unicode
/// normalization, which also keeps the standard library's normalization tables out of the
/// WebAssembly engine (docs/wasm.md); through `withUTF8Bytes`, as the encoder reads texts anyway.
package func sameUTF8(_ a: String?, _ b: String) -> Bool {
    guard let a else { return false }
    return sameUTF8(a, b)
}

/// `sameUTF8` of two texts.
package func sameUTF8(_ a: String, _ b: String) -> Bool {
    // The usual case first: a frame's texts are the very strings the table registered (the same
    // storage, or the same small string), so their representations match and no byte is read.
    if sameRepresentation(a, b) { return true }
    return withUTF8Bytes(a) { x in withUTF8Bytes(b) { y in x.count == y.count && x.elementsEqual(y) } }
}

/// Whether two strings are bit for bit the same value: one shared storage (with the same length),
/// or the same small string held inline. Then their bytes are the same; the converse does not
/// hold (equal texts in two storages), so a false answer says nothing.
private func sameRepresentation(_ a: String, _ b: String) -> Bool {
    #if hasFeature(Embedded)
    // The page's replica encodes one room's frames: not worth its module's bytes (docs/wasm.md).
    return false
    #else
    guard MemoryLayout<String>.size == 2 * MemoryLayout<UInt64>.size else { return false }
    return withUnsafeBytes(of: a) { x in
        withUnsafeBytes(of: b) { y in
            x.load(as: UInt64.self) == y.load(as: UInt64.self)
                && x.load(fromByteOffset: 8, as: UInt64.self) == y.load(fromByteOffset: 8, as: UInt64.self)
        }
    }
    #endif
}
