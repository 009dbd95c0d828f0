import ScrollEngine

/// A whole `SceneConfiguration` as compact bytes (docs/wasm.md, "Any scene"): what the server
/// serves at `GET /scenes/NAME` for a page's replica to build a scene it does not have built in
/// (a file or uploaded scene). Exact: `decode(encode(c)) == c` for every configuration, every
/// double written as its IEEE-754 bits, so the replica's frames are the room's byte for byte.
///
/// Layout (the version-2 pieces, `BinaryWriter`): `u8` version 1; viewport width, height,
/// insets top, left, bottom, right and the table header's height as `f64`; `u8` deceleration
/// (0 normal, 1 fast); `u8` 1 and the background's `str` image and `f64` height, or `u8` 0;
/// `uvar` layer count, each `str` image and `f64` restingY, width, height, pullFactor,
/// scrollFactor; `uvar` section count, each `str` title, `f64` header height, `uvar` row
/// count, then each row: `u8` flags, `svar` id − (previous id + 1) (always 0 in what `decode`
/// accepts), `str` title, then what the
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
            for x in [layer.restingY, layer.size.width, layer.size.height, layer.pullFactor, layer.scrollFactor] { w.float64(x) }
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
    /// non-finite or negative size, an empty viewport; and for row ids other than 0 … n−1 in
    /// order, which every scene a server offers has (built-in, file and uploaded scenes number
    /// their rows so; a room's later order is its state, not its scene), so no id is ever
    /// written but as 0 and the page's module carries no check of a permutation.
    /// (One message for all: only tests read it, and each distinct one costs the page's module.)
    public static func decode(_ bytes: [UInt8]) throws(WireError) -> SceneConfiguration {
        var r = BinaryReader(bytes)
        guard try r.byte("") == version else { throw notAScene() }
        let v = try sizes(&r, 7)
        guard v[0] > 0, v[1] > 0 else { throw notAScene() }
        let rate = try r.byte("")
        guard rate < 2 else { throw notAScene() }
        var background: BackgroundImage?
        switch try r.byte("") {
        case 0: background = nil
        case 1: background = BackgroundImage(image: try r.string(""), height: try sizes(&r, 1)[0])
        default: throw notAScene()
        }
        var layers: [ParallaxLayer] = []
        for _ in 0..<(try r.count("", minimumBytes: 41)) {
            let image = try r.string("")
            let restingY = try r.float64("")   // the one value that may be negative, so first
            let l = try sizes(&r, 4)
            layers.append(ParallaxLayer(image: image, size: Size(width: l[0], height: l[1]), restingY: restingY,
                                        pullFactor: l[2], scrollFactor: l[3]))
        }
        var sections: [TableSection] = []
        var id = 0
        var previousHeight = 44.0
        for _ in 0..<(try r.count("", minimumBytes: 10)) {
            let title = try r.string("")
            let sectionHeader = try sizes(&r, 1)[0]
            var rows: [TableRow] = []
            var previousGroup = title
            for _ in 0..<(try r.count("", minimumBytes: 3)) {
                let flags = try r.byte("")
                guard flags & 0xF0 == 0, try r.uvarint("") == 0 else { throw notAScene() }
                let rowTitle = try r.string("")
                let rowHeight = flags & RowFlag.height != 0 ? try sizes(&r, 1)[0] : previousHeight
                let group = flags & RowFlag.group != 0 ? try r.string("") : previousGroup
                let subtitle = flags & RowFlag.subtitle != 0 ? try r.string("") : ""
                let detail = flags & RowFlag.detail != 0 ? try r.string("") : ""
                rows.append(TableRow(id: id, title: rowTitle, subtitle: subtitle, group: group, detail: detail, height: rowHeight))
                id += 1
                previousHeight = rowHeight
                previousGroup = group
            }
            sections.append(TableSection(title: title, headerHeight: sectionHeader, rows: rows))
        }
        guard r.isAtEnd else { throw notAScene() }
        return SceneConfiguration(viewport: Size(width: v[0], height: v[1]),
                                  insets: EdgeInsets(top: v[2], left: v[3], bottom: v[4], right: v[5]), headerHeight: v[6],
                                  parallaxLayers: layers, background: background, sections: sections,
                                  decelerationRate: rate == 1 ? .fast : .normal)
    }

    /// `count` finite sizes that are not negative.
    @inline(never)
    private static func sizes(_ r: inout BinaryReader, _ count: Int) throws(WireError) -> [Double] {
        var values: [Double] = []
        for _ in 0..<count {
            let x = try r.float64("")
            guard x >= 0 else { throw notAScene() }
            values.append(x)
        }
        return values
    }

    @inline(never)
    private static func notAScene() -> WireError { WireError("scene bytes: not a whole scene the engine can show") }
}
