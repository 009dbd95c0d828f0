extension Duration {
    /// Whole milliseconds for poll(2), rounded up so a wait never ends just before its deadline
    /// and then spins with a zero timeout.
    var roundedUpMilliseconds: Int {
        let (seconds, attoseconds) = components
        let perMillisecond: Int64 = 1_000_000_000_000_000
        return Int(seconds) * 1000 + Int((attoseconds + perMillisecond - 1) / perMillisecond)
    }
}
