import Testing
@testable import ScrollEngine

@Suite("DemoScene")
struct DemoSceneTests {
    let configuration = DemoScene.configuration()

    @Test("demo scene: 3000 rows with ids 0..<3000, deterministic")
    func rowsAndDeterminism() {
        let ids = configuration.sections.flatMap { $0.rows.map(\.id) }
        #expect(ids == Array(0..<3000))
        #expect(DemoScene.configuration() == configuration)
        #expect(DemoScene.configuration(rowCount: 7).sections.flatMap(\.rows).count == 7)
        #expect(DemoScene.configuration(rowCount: -3).sections.isEmpty)
    }

    @Test("demo scene: sections are days going back from Monday 3 November 2025, with correct weekdays")
    func days() {
        let sections = configuration.sections
        #expect(sections[0].title == "Monday 3 November 2025")
        #expect(sections[0].rows.allSatisfy { $0.group == "Mon 3 Nov" })
        #expect(sections[1].rows[0].group == "Sun 2 Nov")
        #expect(sections[3].title == "Friday 31 October 2025")
        // Known dates further back: 1 Jan 2025 and 25 Dec 2024 were Wednesdays, 29 Feb 2024 a Thursday.
        let titles = Set(sections.map(\.title))
        #expect(titles.contains("Wednesday 1 January 2025"))
        #expect(titles.contains("Wednesday 25 December 2024"))
        #expect(titles.contains("Tuesday 31 December 2024"))
        #expect(DemoScene.configuration(rowCount: 5000).sections.contains { $0.title == "Thursday 29 February 2024" })
        #expect(sections.allSatisfy { (3...7).contains($0.rows.count) || $0.title == sections.last!.title })
    }

    @Test("demo scene: times are HH:MM and descend within each day; texts and heights vary")
    func rowTexts() {
        for section in configuration.sections {
            let minutes = section.rows.map { row -> Int in
                let parts = row.detail.split(separator: ":")
                #expect(parts.count == 2 && parts.allSatisfy { $0.count == 2 }, "\(row.detail)")
                return (Int(parts[0]) ?? -1) * 60 + (Int(parts.last!) ?? -1)
            }
            #expect(minutes.allSatisfy { (0..<24 * 60).contains($0) })
            #expect(zip(minutes, minutes.dropFirst()).allSatisfy { $0 > $1 }, "\(section.title)")
        }
        let rows = configuration.sections.flatMap(\.rows)
        #expect(Set(rows.map(\.height)).count > 1)
        #expect(Set(rows.map(\.title)).count > 5)
        #expect(rows.allSatisfy { !$0.title.isEmpty && !$0.subtitle.isEmpty })
    }

    @Test("demo scene: background and the three parallax layers as specified")
    func assets() {
        #expect(configuration.background == BackgroundImage(image: "images/background.svg", height: 6000))
        let layers = configuration.parallaxLayers
        #expect(layers.map(\.image) == ["images/header-sky.svg", "images/header-hills.svg", "images/header-front.svg"])
        #expect(layers.allSatisfy { $0.size == Size(width: 390, height: 330) && $0.restingY == -150 })
        #expect(layers.map(\.pullFactor) == [0.2, 1.0 / 3.0, 0.5])
        #expect(layers.map(\.scrollFactor) == [0.6, 1, 1])
        #expect(configuration.headerHeight == 180 && configuration.insets.top == 44)
    }
}
