public import Foundation

/// SplitMix64: a small, fast generator that replays exactly from its seed, so every randomised
/// test can print the seed of a failure and run it again.
public struct SplitMix: RandomNumberGenerator, Sendable {
    public private(set) var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A seed for a derived stream (one per case of a run), independent of how much the parent drew.
    public static func derive(_ seed: UInt64, _ index: Int) -> UInt64 {
        var mix = SplitMix(seed: seed ^ (UInt64(index) &* 0xD1B5_4A32_D192_ED03))
        return mix.next()
    }

    /// The environment variable `name` as a seed, else `fixed` (CI's sample, the same every run),
    /// else one from the clock (printed by failures).
    public static func seed(_ name: String, default fixed: UInt64? = nil) -> UInt64 {
        ProcessInfo.processInfo.environment[name].flatMap(UInt64.init) ?? fixed ?? UInt64(Date().timeIntervalSince1970 * 1000)
    }

    /// The environment variable `name` as a count, else `fallback`.
    public static func count(_ name: String, default fallback: Int) -> Int {
        ProcessInfo.processInfo.environment[name].flatMap(Int.init) ?? fallback
    }
}
