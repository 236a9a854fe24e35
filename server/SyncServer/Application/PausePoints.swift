/// Named moments where a test holds a request or the purge, to run a race in the order it
/// chooses rather than hoping a sleep lands it (``ServerConfiguration/pausePoints``). Production
/// has none: each point is then a check of an optional.
public struct PausePoints: Sendable {
    public enum Point: String, Sendable, CaseIterable {
        /// A committing push has stored its inline bytes (or found them stored) and has not yet
        /// opened the transaction that names them.
        case pushInlineStored
        /// The purge has marked a blob deleted, under its lock, and has not yet deleted the bytes.
        case purgeDeletingBytes
    }

    private let hold: (@Sendable (Point) async -> Void)?

    /// No pauses.
    public static let none = PausePoints(hold: nil)

    /// Calls `hold` at every point, which returns when the test lets it go on.
    public init(_ hold: @escaping @Sendable (Point) async -> Void) { self.hold = hold }

    private init(hold: (@Sendable (Point) async -> Void)?) { self.hold = hold }

    func callAsFunction(_ point: Point) async { await hold?(point) }
}
