import ScrollEngine

/// The scene each new room starts with.
enum DefaultScene {
    /// The engine's demo scene (3000 calendar rows, parallax header, background indicator).
    static func configuration() -> SceneConfiguration {
        DemoScene.configuration()
    }
}
