public import SyncProtocol

/// Where a watcher hears that other devices changed the vault: the server's WebSocket
/// (``EventSocket``) in the product.
public protocol ChangeFeed: Sendable {
    /// Connects and calls `onEvent` with each event until the connection ends; says how it ended.
    /// Changes wholly inside `skipping` (folders ending in `/`, in a plain vault: those this
    /// device holds nothing of) need not be announced.
    /// - Throws: when no connection could be made.
    func run(_ session: VaultSession, skipping: [String], onEvent: @escaping @Sendable (VaultEvent) async -> Void) async throws -> EventSocketEnd
}

extension EventSocket: ChangeFeed {}
