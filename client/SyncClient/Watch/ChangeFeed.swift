public import SyncProtocol

/// Where a watcher hears that other devices changed the vault: the server's WebSocket
/// (``EventSocket``) in the product.
public protocol ChangeFeed: Sendable {
    /// Connects and calls `onEvent` with each event until the connection ends; says how it ended.
    /// - Throws: when no connection could be made.
    func run(_ session: VaultSession, onEvent: @escaping @Sendable (VaultEvent) async -> Void) async throws -> EventSocketEnd
}

extension EventSocket: ChangeFeed {}
