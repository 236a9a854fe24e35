import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOWebSocket
import ServiceLifecycle
import SyncProtocol

/// `GET /vault/events`, the change feed: a WebSocket (upgrade) on which the server sends a
/// ``VaultEvent`` whenever another device changes the vault, or a long poll
/// (`?cursor=…&wait=…`) that answers as soon as another device changed the vault after the cursor.
struct EventRoutes {
    let vault: VaultService
    let feed: ChangeFeed
    /// Records open connections for the push dispatcher (nil when pushes are off).
    let presence: FeedPresence?
    /// Counts open event connections (WebSockets and long polls).
    let metrics: ServerMetrics

    /// The longest long-poll wait, in seconds.
    static let maxWait = 45  // under the clients' 60 s read timeout

    /// The long poll, on the HTTP router.
    func addLongPoll(to group: RouterGroup<ServerRequestContext>) {
        group.get("events") { request, context in
            // The query is checked before anything is looked up.
            let query = request.uri.queryParameters
            guard let cursor = query["cursor"].map(String.init) else {
                throw ServiceError.invalidRequest("the long poll needs ?cursor= (from GET /vault/state); for the live feed open a WebSocket on this URL")
            }
            _ = try Cursor(encoded: cursor)
            let wait = try Self.wait(query["wait"].map(String.init))
            metrics.eventConnectionOpened()
            defer { metrics.eventConnectionClosed() }
            let scope = try await vault.scope(request, context)
            let skipping = try Self.skipping(request, scope)
            return try context.json(try await longPoll(scope, session: scope.sessionID, cursor: cursor, wait: wait, skipping: skipping))
        }
    }

    /// The WebSocket, on the upgrade router.
    func addWebSocket(to group: RouterGroup<ServerRequestContext>) {
        group.ws(
            "events",
            shouldUpgrade: { request, context in
                let scope = try await vault.scope(request, context)
                _ = try Self.skipping(request, scope)  // refused as a plain request, before the upgrade
                return .upgrade([:])
            },
            onUpgrade: { inbound, outbound, context in
                let scope = try await vault.scope(context.request, context.requestContext)
                metrics.eventConnectionOpened()
                defer { metrics.eventConnectionClosed() }
                try await stream(
                    scope, session: scope.sessionID, tokenExpiresAt: context.requestContext.tokenExpiresAt,
                    skipping: try Self.skipping(context.request, scope), inbound: inbound, outbound: outbound)
            })
    }

    /// The folders (`skip=Archive/`, repeated) whose changes the caller does not hear of: those its
    /// device holds nothing of, as for the state call.
    private static func skipping(_ request: Request, _ scope: VaultScope) throws -> [String] {
        try VaultService.skippedFolders(request.uri.queryParameters.getAll("skip").map { String($0) }, encrypted: scope.encrypted)
    }

    private static func wait(_ text: String?) throws -> Int {
        guard let text else { return 0 }
        guard let seconds = Int(text), (0...maxWait).contains(seconds) else {
            throw ServiceError.invalidRequest("wait '\(text.prefix(32))' must be whole seconds from 0 to \(maxWait)")
        }
        return seconds
    }

    /// Other devices' changes after `cursor`; else waits up to `wait` seconds for one (or for the
    /// server to shut down). `410 vault_deleted` when the vault is deleted meanwhile, `401` when
    /// the caller's session ends (a logout, a password change, a revoked device).
    private func longPoll(_ scope: VaultScope, session: UUID?, cursor: String, wait: Int, skipping: [String]) async throws -> VaultEvent {
        // Subscribed before looking: a change committed after the look is announced to us.
        let subscription = feed.subscribe(
            vaultID: scope.vaultID, userID: scope.userID, deviceID: scope.deviceID, sessionID: session, checkedAt: scope.checkedAt, skipping: skipping)
        defer { subscription.cancel() }
        await presence?.opened(FeedPair(vaultID: scope.vaultID, deviceID: scope.deviceID))
        if let event = try await vault.changesByOthers(scope, after: cursor, skipping: skipping) { return event }
        let delivery = await subscription.next(waitingAtMost: wait)
        switch delivery {
        case .event(let event): return event
        case .vaultDeleted: throw ServiceError.vaultDeleted("the vault '\(scope.vaultName)' was deleted")
        case .membershipEnded: throw ServiceError.membershipEnded(Self.membershipEnded(scope))
        case .expired: throw ServiceError.unauthorized("this session was ended (signed out, or the device was revoked): log in again")
        case nil: return VaultEvent(type: .idle)
        }
    }

    /// Sends `ready`, then each (coalesced) event, until the peer leaves (reading also answers its
    /// pings and lets the automatic pings find a dead peer), the access token expires (closed
    /// with ``VaultEventClose/tokenExpired``), the vault is deleted (``VaultEventClose/vaultDeleted``)
    /// or the caller's membership of it ends (``VaultEventClose/membershipEnded``).
    private func stream(
        _ scope: VaultScope, session: UUID?, tokenExpiresAt: Date?, skipping: [String], inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter
    ) async throws {
        let subscription = feed.subscribe(
            vaultID: scope.vaultID, userID: scope.userID, deviceID: scope.deviceID, sessionID: session, expiresAt: tokenExpiresAt, checkedAt: scope.checkedAt,
            skipping: skipping)
        let pair = FeedPair(vaultID: scope.vaultID, deviceID: scope.deviceID)
        defer {
            subscription.cancel()
            // From now on the device is woken by pushes again.
            if let presence { Task { await presence.closed(pair) } }
        }
        await presence?.opened(pair)
        let encoder = WireCoding.encoder()
        func send(_ event: VaultEvent) async throws {
            try await outbound.write(.text(String(decoding: try encoder.encode(event), as: UTF8.self)))
        }
        try await send(VaultEvent(type: .ready))
        enum End { case peerLeft, feedEnded, tokenExpired, vaultDeleted, membershipEnded }
        let end = try await withThrowingTaskGroup(of: End.self) { group in
            group.addTask {
                for try await _ in inbound.messages(maxSize: 4096) {}  // clients send nothing the server needs
                return .peerLeft
            }
            group.addTask {
                while let delivery = await subscription.next() {
                    switch delivery {
                    case .event(let event): try await send(event)
                    case .expired: return .tokenExpired
                    case .vaultDeleted: return .vaultDeleted
                    case .membershipEnded: return .membershipEnded
                    }
                }
                return .feedEnded
            }
            let first = try await group.next() ?? .feedEnded
            group.cancelAll()
            return first
        }
        switch end {
        case .tokenExpired:
            try await outbound.close(.unknown(VaultEventClose.tokenExpired), reason: "the access token expired: refresh it and connect again")
        case .vaultDeleted:
            try await outbound.close(.unknown(VaultEventClose.vaultDeleted), reason: "the vault '\(scope.vaultName)' was deleted")
        case .membershipEnded:
            try await outbound.close(.unknown(VaultEventClose.membershipEnded), reason: Self.membershipEnded(scope))
        case .peerLeft, .feedEnded: break
        }
    }

    /// Why a member's connection ended: the vault's request then answers `410 membership_ended`
    /// with the reason recorded.
    static func membershipEnded(_ scope: VaultScope) -> String {
        "you are no longer a member of the vault '\(scope.vaultName)'; the files on your devices stay yours"
    }
}
