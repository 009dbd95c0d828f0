import ScrollEngine
import Testing
@testable import ScrollWire

@Suite("Texts compared by their UTF-8 bytes")
struct WireTextsUTF8Tests {
    /// A frame of the seed table with row 0's title and the panel's texts set to `text`.
    func frame(_ text: String) -> EffectFrame {
        var frame = ScrollScene(configuration: SeedTableScene.configuration()).frame(at: 0)
        frame.rows[0].title = text
        frame.infoPanel = InfoPanelState(rect: Rect(x: 0, y: 0, width: 10, height: 10), alpha: 1, title: text, detail: "")
        return frame
    }

    @Test("a text spelled another way (é as one scalar, then as e and a combining accent) goes out again")
    func otherSpellingIsNew() {
        let composed = "Caf\u{E9}", decomposed = "Cafe\u{301}"
        #expect(composed == decomposed)  // equal as Swift Strings, not as bytes on the wire
        var table = WireTextTable()
        _ = table.register(frame(composed))
        #expect(table.register(frame(composed)).isEmpty)
        let again = table.register(frame(decomposed))
        #expect(again.rows.map { $0.title } == [decomposed])
        #expect(again.labels.map { $0.title } == [decomposed])
        #expect(table.labelNumber(title: composed, detail: "") != table.labelNumber(title: decomposed, detail: ""))
    }
}
