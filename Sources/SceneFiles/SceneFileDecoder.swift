import ScrollEngine

/// Turns a scene file's JSON into a `SceneConfiguration`, reporting every problem with its path
/// and line. Field names are the snapshot's `scene` ones (docs/protocol.md) wherever the two
/// overlap; docs/scenes.md is the format's reference and docs/scene.schema.json its schema.
struct SceneFileDecoder {
    let report: SceneFileReport
    /// Checks an image field and gives the path the server serves the image under (nil when the
    /// image is unusable; it reported why). Arguments: the file name, the field's path and line,
    /// the role ("background", "layer-0"…) and the size in points the image must match.
    let image: (_ fileName: String, _ path: String, _ line: Int, _ role: String, _ size: Size) -> String?

    /// Top-level fields, in the order docs/scenes.md lists them. `$schema` lets an editor find the schema.
    static let topFields = ["$schema", "viewport", "insets", "headerHeight", "layers", "background", "sections", "decelerationRate"]
    /// What a field left out means: the engine's own defaults, so the two cannot drift.
    private static let scene = SceneConfiguration(sections: [])
    private static let layer = ParallaxLayer(image: "", size: Size(width: 1, height: 1))
    private static let section = TableSection(title: "", rows: [])
    private static let row = TableRow(id: 0, title: "")

    func decode(_ root: SceneJSON) -> SceneConfiguration? {
        guard let top = SceneObject(root, path: "$", known: Self.topFields, report: report) else { return nil }
        if let (value, path) = top.field("$schema") { _ = SceneObject.text(value, path: path, report: report) }
        let viewport = top.field("viewport").map { viewportSize($0.value, path: $0.path) } ?? Self.scene.viewport
        let insets = top.field("insets").map { edgeInsets($0.value, path: $0.path, viewport: viewport) } ?? Self.scene.insets
        let headerHeight = top.number("headerHeight", .nonNegative)
        let layers = top.field("layers").map { parallaxLayers($0.value, path: $0.path) } ?? []
        let background = top.field("background").flatMap { backgroundImage($0.value, path: $0.path, viewport: viewport) }
        let sections = tableSections(top)
        let rate = top.field("decelerationRate").map { decelerationRate($0.value, path: $0.path) } ?? Self.scene.decelerationRate
        guard report.isEmpty, let headerHeight, let viewport, let insets, let layers, let sections, let rate else { return nil }
        return SceneConfiguration(viewport: viewport, insets: insets, headerHeight: headerHeight, parallaxLayers: layers,
                                  background: background, sections: sections, decelerationRate: rate)
    }

    private func viewportSize(_ value: SceneJSON, path: String) -> Size? {
        guard let object = SceneObject(value, path: path, known: ["width", "height"], report: report) else { return nil }
        let width = object.number("width", .within(SceneFileLimits.viewportSide))
        let height = object.number("height", .within(SceneFileLimits.viewportSide))
        guard let width, let height else { return nil }
        return Size(width: width, height: height)
    }

    private func edgeInsets(_ value: SceneJSON, path: String, viewport: Size?) -> EdgeInsets? {
        guard let object = SceneObject(value, path: path, known: ["top", "left", "bottom", "right"], report: report) else { return nil }
        let sides = ["top", "left", "bottom", "right"].map { object.number($0, .nonNegative) }
        guard let top = sides[0], let left = sides[1], let bottom = sides[2], let right = sides[3] else { return nil }
        if let viewport, top + bottom >= viewport.height {
            report.add(path, value.line, "top + bottom (\(NumberRule.text(top + bottom))) leaves nothing of the viewport's height (\(NumberRule.text(viewport.height)))")
            return nil
        }
        return EdgeInsets(top: top, left: left, bottom: bottom, right: right)
    }

    private func parallaxLayers(_ value: SceneJSON, path: String) -> [ParallaxLayer]? {
        guard case .array(let elements) = value.kind else {
            report.add(path, value.line, "must be an array, got \(value.typeName)")
            return nil
        }
        if elements.count > SceneFileLimits.maxLayers {
            report.add(path, value.line, "has \(elements.count) layers; at most \(SceneFileLimits.maxLayers)")
        }
        let known = ["image", "width", "height", "restingY", "pullFactor", "scrollFactor"]
        var layers: [ParallaxLayer] = []
        for (index, element) in elements.enumerated() {
            let layerPath = path + SceneFilePath.element(index)
            guard let object = SceneObject(element, path: layerPath, known: known, report: report) else { continue }
            let width = object.number("width", .positive), height = object.number("height", .positive)
            // The seed's one image: 150 pt above its place, a third of the pull, all of the scroll.
            let restingY = object.number("restingY", .finite, default: Self.layer.restingY)
            let pull = object.number("pullFactor", .nonNegative, default: Self.layer.pullFactor)
            let scroll = object.number("scrollFactor", .nonNegative, default: Self.layer.scrollFactor)
            let served = imageField(object, role: "layer-\(index)", size: width.flatMap { w in height.map { Size(width: w, height: $0) } })
            guard let width, let height, let restingY, let pull, let scroll, let served else { continue }
            layers.append(ParallaxLayer(image: served, size: Size(width: width, height: height), restingY: restingY,
                                        pullFactor: pull, scrollFactor: scroll))
        }
        return layers
    }

    private func backgroundImage(_ value: SceneJSON, path: String, viewport: Size?) -> BackgroundImage? {
        if case .null = value.kind { return nil }
        guard let object = SceneObject(value, path: path, known: ["image", "height"], report: report) else { return nil }
        let height = object.number("height", .positive)
        // The page stretches the background across the viewport's width.
        let size = viewport.flatMap { v in height.map { Size(width: v.width, height: $0) } }
        guard let served = imageField(object, role: "background", size: size), let height else { return nil }
        return BackgroundImage(image: served, height: height)
    }

    /// The object's `image`, checked against `size` when that is known.
    private func imageField(_ object: SceneObject, role: String, size: Size?) -> String? {
        guard let (value, path) = object.field("image", required: true) else { return nil }
        guard let name = SceneObject.text(value, path: path, report: report) else { return nil }
        guard let size else { return nil }
        return image(name, path, value.line, role, size)
    }

    private func tableSections(_ top: SceneObject) -> [TableSection]? {
        guard let (elements, path, line) = top.array("sections") else { return nil }
        var sections: [TableSection] = []
        var titles: [String: Int] = [:]
        var rowCount = 0
        for (index, element) in elements.enumerated() {
            let sectionPath = path + SceneFilePath.element(index)
            guard let object = SceneObject(element, path: sectionPath, known: ["title", "headerHeight", "rows"], report: report) else { continue }
            let title = object.text("title")
            if let title, !title.isEmpty, let (value, titlePath) = object.field("title") {
                if let first = titles[title] {
                    report.add(titlePath, value.line, "duplicate section title '\(title)' (also section \(first))")
                } else {
                    titles[title] = index
                }
            }
            let headerHeight = object.number("headerHeight", .nonNegative, default: Self.section.headerHeight)
            let rows = tableRows(object, group: title ?? "", firstID: rowCount)
            rowCount += rows?.count ?? 0
            guard let title, let headerHeight, let rows else { continue }
            sections.append(TableSection(title: title, headerHeight: headerHeight, rows: rows))
        }
        if rowCount == 0, report.isEmpty { report.add(path, line, "the scene has no rows; it needs at least one") }
        return sections
    }

    private func tableRows(_ section: SceneObject, group: String, firstID: Int) -> [TableRow]? {
        guard let (elements, path, _) = section.array("rows") else { return nil }
        let known = ["title", "subtitle", "group", "detail", "height"]
        var rows: [TableRow] = []
        for (index, element) in elements.enumerated() {
            let rowPath = path + SceneFilePath.element(index)
            if firstID + index == SceneFileLimits.maxRows {
                report.add(rowPath, element.line, "row \(SceneFileLimits.maxRows + 1) of the scene: a scene has at most \(SceneFileLimits.maxRows) rows")
            }
            guard let object = SceneObject(element, path: rowPath, known: known, report: report) else { continue }
            let title = object.text("title")
            let subtitle = object.text("subtitle", default: "")
            // The info panel names a row's group; a section's title is the natural one.
            let rowGroup = object.text("group", default: group)
            let detail = object.text("detail", default: "")
            let height = object.number("height", .positive, default: Self.row.height)
            guard let title, let subtitle, let rowGroup, let detail, let height else { continue }
            rows.append(TableRow(id: firstID + index, title: title, subtitle: subtitle, group: rowGroup, detail: detail, height: height))
        }
        return rows
    }

    private func decelerationRate(_ value: SceneJSON, path: String) -> DecelerationRate? {
        let names = DecelerationRate.allCases.map(\.rawValue)
        guard case .string(let name) = value.kind else {
            report.add(path, value.line, "must be a string (\(names.joined(separator: " or "))), got \(value.typeName)")
            return nil
        }
        guard let rate = DecelerationRate(rawValue: name) else {
            report.add(path, value.line, "must be \(names.map { "'\($0)'" }.joined(separator: " or ")), got '\(name)'")
            return nil
        }
        return rate
    }
}
