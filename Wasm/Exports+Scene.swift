// The replica of any scene (docs/wasm.md, "Any scene"): a file or uploaded scene, which the
// module has not built in, made from the bytes the server serves for it (`SceneBytes`, GET
// /scenes/NAME). In its own file beside Exports.swift, which keeps the built-in scenes' create.
import ScrollEngine
import ScrollReplica
import ScrollWire

/// Creates the scene whose `SceneBytes` follow its name in the input buffer (`nameLength`
/// UTF-8 bytes of the name, then `sceneLength` bytes of the scene), at rest at the top, with an
/// empty texts table. 0, or -11 when the name is not UTF-8 or the bytes are not a whole scene
/// (the replica is then left as it was).
@_expose(wasm, "scrollcast_create_scene") @_cdecl("scrollcast_create_scene")
public func scrollcastCreateScene(_ nameLength: Int32, _ sceneLength: Int32) -> Int32 {
    let nameCount = Int(max(nameLength, 0)), sceneCount = Int(max(sceneLength, 0))
    guard nameCount + sceneCount <= inputBuffer.capacity, let name = inputBuffer.text(nameCount) else {
        return ReplicaResult.noScene
    }
    let bytes = Array(UnsafeBufferPointer(start: inputBuffer.base + nameCount, count: sceneCount))
    guard let configuration = try? SceneBytes.decode(bytes) else { return ReplicaResult.noScene }
    replica = EngineReplica(sceneNamed: name, configuration: configuration)
    return ReplicaResult.applied
}
