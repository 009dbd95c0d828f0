import ScrollEngine

/// A whole `SceneConfiguration` as compact bytes (docs/wasm.md, "Any scene"): what the server
/// serves at `GET /scenes/NAME` for a page's replica to build a scene it does not have built in
/// (a file or uploaded scene). Exact: `decode(encode(c)) == c` for every configuration, every
/// double written as its IEEE-754 bits, so the replica's frames are the room's byte for byte.
///
/// Layout (the version-2 pieces, `BinaryWriter`): `u8` version 1; viewport width, height,
/// insets top, left, bottom, right and the table header's height as `f64`; `u8` deceleration
/// (0 normal, 1 fast); `u8` 1 and the background's `str` image and `f64` height, or `u8` 0;
/// `uvar` layer count, each `str` image and `f64` width, height, restingY, pullFactor,
/// scrollFactor; `uvar` section count, each `str` title, `f64` header height, `uvar` row
/// count, then each row: `u8` flags, `svar` id − (previous id + 1), `str` title, then what the
/// flags say follows. Rows repeat their neighbours' heights and groups, so a long list of like
/// rows costs a few bytes a row.
public enum SceneBytes {
    static let version: UInt8 = 1

    /// Row flags: what a row writes beyond its id and title.
    enum RowFlag {
        /// An `f64` height follows (otherwise: the previous row's, 44 for the first).
        static let height: UInt8 = 1
        /// A `str` group follows (otherwise: the previous row's in the section, the section's
        /// title for its first).
        static let group: UInt8 = 2
        /// A `str` subtitle follows (otherwise empty).
        static let subtitle: UInt8 = 4
        /// A `str` detail follows (otherwise empty).
        static let detail: UInt8 = 8
    }

    /// The bytes of `configuration`.
    public static func encode(_ configuration: SceneConfiguration) -> [UInt8] {
        var w = BinaryWriter(capacity: 64 + configuration.sections.reduce(0) { $0 + 16 + $1.rows.count * 12 })
        w.byte(version)
        for x in [configuration.viewport.width, configuration.viewport.height, configuration.insets.top,
                  configuration.insets.left, configuration.insets.bottom, configuration.insets.right,
                  configuration.headerHeight] { w.float64(x) }
        w.byte(configuration.decelerationRate == .fast ? 1 : 0)
        if let background = configuration.background {
            w.byte(1)
            w.string(background.image)
            w.float64(background.height)
        } else {
            w.byte(0)
        }
        w.uvarint(configuration.parallaxLayers.count)
        for layer in configuration.parallaxLayers {
            w.string(layer.image)
            for x in [layer.size.width, layer.size.height, layer.restingY, layer.pullFactor, layer.scrollFactor] { w.float64(x) }
        }
        w.uvarint(configuration.sections.count)
        var previousID = -1
        var previousHeight = 44.0
        for section in configuration.sections {
            w.string(section.title)
            w.float64(section.headerHeight)
            w.uvarint(section.rows.count)
            var previousGroup = section.title
            for row in section.rows {
                // Bits, not `==`: -0 and 0 are different heights to an exact copy.
                let sameHeight = row.height.bitPattern == previousHeight.bitPattern
                let sameGroup = sameUTF8(row.group, previousGroup)
                var flags: UInt8 = sameHeight ? 0 : RowFlag.height
                if !sameGroup { flags |= RowFlag.group }
                if !row.subtitle.isEmpty { flags |= RowFlag.subtitle }
                if !row.detail.isEmpty { flags |= RowFlag.detail }
                w.byte(flags)
                w.svarint(row.id - (previousID + 1))
                w.string(row.title)
                if !sameHeight { w.float64(row.height) }
                if !sameGroup { w.string(row.group) }
                if !row.subtitle.isEmpty { w.string(row.subtitle) }
                if !row.detail.isEmpty { w.string(row.detail) }
                previousID = row.id
                previousHeight = row.height
                previousGroup = row.group
            }
        }
        return w.bytes
    }

    /// The configuration `bytes` (from `encode`) describe. Throws for bytes that are not whole,
    /// carry other bytes after the scene, or describe a scene the engine cannot show: a
    /// non-finite or negative size, an empty viewport, row ids that are not 0 … n−1 each once.
    public static func decode(_ bytes: [UInt8]) throws(WireError) -> SceneConfiguration {
        var r = BinaryReader(bytes)
        guard try r.byte("version") == version else { throw WireError("scene bytes: unknown version") }
        let width = try size(&r, "viewport.width"), height = try size(&r, "viewport.height")
        guard width > 0, height > 0 else { throw WireError("scene bytes: empty viewport") }
        let insets = EdgeInsets(top: try size(&r, "insets.top"), left: try size(&r, "insets.left"),
                                bottom: try size(&r, "insets.bottom"), right: try size(&r, "insets.right"))
        let headerHeight = try size(&r, "headerHeight")
        let rate: DecelerationRate
        switch try r.byte("decelerationRate") {
        case 0: rate = .normal
        case 1: rate = .fast
        default: throw WireError("scene bytes: unknown deceleration rate")
        }
        var background: BackgroundImage?
        switch try r.byte("background") {
        case 0: background = nil
        case 1: background = BackgroundImage(image: try r.string("background.image"), height: try size(&r, "background.height"))
        default: throw WireError("scene bytes: background flag must be 0 or 1")
        }
        var layers: [ParallaxLayer] = []
        for _ in 0..<(try r.count("layers", minimumBytes: 41)) {
            let image = try r.string("layer.image")
            let layerSize = Size(width: try size(&r, "layer.width"), height: try size(&r, "layer.height"))
            layers.append(ParallaxLayer(image: image, size: layerSize, restingY: try r.float64("layer.restingY"),
                                        pullFactor: try size(&r, "layer.pullFactor"),
                                        scrollFactor: try size(&r, "layer.scrollFactor")))
        }
        var sections: [TableSection] = []
        var seen: [Bool] = []
        var previousID = -1
        var previousHeight = 44.0
        var rowsRead = 0
        for _ in 0..<(try r.count("sections", minimumBytes: 10)) {
            let title = try r.string("section.title")
            let sectionHeader = try size(&r, "section.headerHeight")
            var rows: [TableRow] = []
            var previousGroup = title
            for _ in 0..<(try r.count("section.rows", minimumBytes: 3)) {
                let flags = try r.byte("row.flags")
                guard flags & 0xF0 == 0 else { throw WireError("scene bytes: unknown row flags") }
                let (id, overflow) = (previousID + 1).addingReportingOverflow(try r.sint("row.id"))
                // An id beyond what the rows left could reach cannot be part of 0 … n−1 (and must not
                // grow `seen` by much).
                guard !overflow, id >= 0, id <= rowsRead + r.remaining / 3 else {
                    throw WireError("scene bytes: row id out of range")
                }
                let rowTitle = try r.string("row.title")
                let rowHeight = flags & RowFlag.height != 0 ? try size(&r, "row.height") : previousHeight
                let group = flags & RowFlag.group != 0 ? try r.string("row.group") : previousGroup
                let subtitle = flags & RowFlag.subtitle != 0 ? try r.string("row.subtitle") : ""
                let detail = flags & RowFlag.detail != 0 ? try r.string("row.detail") : ""
                rows.append(TableRow(id: id, title: rowTitle, subtitle: subtitle, group: group, detail: detail, height: rowHeight))
                if id >= seen.count { seen += [Bool](repeating: false, count: id + 1 - seen.count) }
                guard !seen[id] else { throw WireError("scene bytes: a row id twice") }
                seen[id] = true
                rowsRead += 1
                previousID = id
                previousHeight = rowHeight
                previousGroup = group
            }
            sections.append(TableSection(title: title, headerHeight: sectionHeader, rows: rows))
        }
        try r.end("scene bytes")
        // Ids 0 … n−1: the growth above stops at the largest id, so a gap leaves a false.
        guard !seen.contains(false) else { throw WireError("scene bytes: row ids are not 0 … n−1") }
        return SceneConfiguration(viewport: Size(width: width, height: height), insets: insets, headerHeight: headerHeight,
                                  parallaxLayers: layers, background: background, sections: sections,
                                  decelerationRate: rate)
    }

    /// A finite size that is not negative.
    private static func size(_ r: inout BinaryReader, _ name: String) throws(WireError) -> Double {
        let x = try r.float64(name)
        guard x >= 0 else { throw WireError("scene bytes: a negative size") }
        return x
    }
}
