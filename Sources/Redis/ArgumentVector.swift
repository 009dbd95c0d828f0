/// Lays arguments out for hiredis' `argv`/`argvlen` calls.
///
/// The lengths are explicit, so arguments may hold NUL bytes. The arguments are copied into one
/// buffer first because Swift only lends an array's storage for the span of a closure, and one
/// closure per argument would nest as deep as the argument count.
enum ArgumentVector {
    static func with<Result>(
        _ arguments: [[UInt8]],
        _ body: (Int32, UnsafeMutablePointer<UnsafePointer<CChar>?>, UnsafePointer<Int>) -> Result
    ) -> Result {
        var storage: [UInt8] = []
        storage.reserveCapacity(arguments.reduce(1) { $0 + $1.count })
        var offsets: [Int] = []
        offsets.reserveCapacity(arguments.count)
        var lengths: [Int] = []
        lengths.reserveCapacity(arguments.count)
        for argument in arguments {
            offsets.append(storage.count)
            lengths.append(argument.count)
            storage.append(contentsOf: argument)
        }
        // One spare byte so the buffer has an address even when every argument is empty.
        storage.append(0)

        return storage.withUnsafeBytes { raw in
            let base = raw.baseAddress!.assumingMemoryBound(to: CChar.self)
            var pointers: [UnsafePointer<CChar>?] = offsets.map { UnsafePointer(base + $0) }
            return pointers.withUnsafeMutableBufferPointer { argv in
                lengths.withUnsafeBufferPointer { argvlen in
                    body(Int32(arguments.count), argv.baseAddress!, argvlen.baseAddress!)
                }
            }
        }
    }
}
