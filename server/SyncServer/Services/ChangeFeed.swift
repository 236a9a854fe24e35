import Foundation
import ServiceLifecycle
import Synchronization
import SyncProtocol

/// This instance's side of the change feed: the open event connections of each vault, and the
/// fan-out of changes to them. Changes arrive from the database listener (``ChangeFeedListener``),
/// so a change confirmed on any instance reaches the connections of every instance.
final class ChangeFeed: Sendable {
    private struct Registry {
        var byVault: [UUID: [Int: Subscription]] = [:]
        var nextID = 0
        var count = 0
        /// Sessions, devices and vaults that ended lately. A request checks its session, device
        /// and vault before it subscribes; an end announced in between would otherwise be missed
        /// and the subscription would live on until its token expired.
        var ended = RecentlyEnded<Ending>(capacity: 10_000)
        /// Memberships that ended lately, with when this instance heard it. Unlike the others a
        /// membership can begin again (invited anew): only a request that looked it up before the
        /// end was heard is ended by it.
        var membershipEnds: [Membership: ContinuousClock.Instant] = [:]
    }

    /// What ended: a session, a device (revoked) or a vault (deleted).
    private enum Ending: Hashable {
        case session(UUID), device(UUID), vault(UUID)
    }

    private struct Membership: Hashable {
        let vault: UUID
        let user: UUID
    }

    /// How long an ended membership is remembered: far longer than a request takes from its
    /// lookup to its subscription.
    private static let membershipMemory: Duration = .seconds(600)

    private let registry = Mutex(Registry())

    /// Open subscriptions (event connections and long polls) on this instance.
    var connectionCount: Int { registry.withLock { $0.count } }

    /// Subscribes `deviceID` (of `userID`) to the changes of `vaultID` that other devices make,
    /// until `expiresAt` (when its access token expires; see ``expire(before:)``), its session ends
    /// (``endSession(_:)``) or the user's membership does (``endMembership(vaultID:userID:)``;
    /// `checkedAt`: when the request looked the membership up). End it with ``Subscription/cancel()``.
    /// Changes that lie wholly in the folders `skipping` names (``VaultEvent/liesWithin(_:)``) are
    /// not handed to it: the device holds nothing of them.
    func subscribe(
        vaultID: UUID, userID: UUID, deviceID: UUID, sessionID: UUID? = nil, expiresAt: Date? = nil, checkedAt: ContinuousClock.Instant = .now,
        skipping: [String] = []
    ) -> Subscription {
        registry.withLock { registry in
            registry.nextID += 1
            let id = registry.nextID
            let subscription = Subscription(userID: userID, deviceID: deviceID, sessionID: sessionID, expiresAt: expiresAt, skipping: skipping) { [weak self] in
                self?.remove(vaultID: vaultID, id: id)
            }
            registry.byVault[vaultID, default: [:]][id] = subscription
            registry.count += 1
            if registry.ended.contains(.vault(vaultID)) {
                subscription.end(.vaultDeleted)
            } else if let ended = registry.membershipEnds[Membership(vault: vaultID, user: userID)], ended >= checkedAt {
                subscription.end(.membershipEnded)
            } else if registry.ended.contains(.device(deviceID)) || sessionID.map({ registry.ended.contains(.session($0)) }) == true {
                subscription.end(.expired)
            }
            return subscription
        }
    }

    /// The (vault, device) pairs with an open subscription on this instance.
    var openPairs: Set<FeedPair> {
        registry.withLock { registry in
            Set(registry.byVault.flatMap { vault, subscriptions in subscriptions.values.map { FeedPair(vaultID: vault, deviceID: $0.deviceID) } })
        }
    }

    /// Whether `pair` has an open subscription on this instance.
    func isOpen(_ pair: FeedPair) -> Bool {
        registry.withLock { $0.byVault[pair.vaultID]?.values.contains { $0.deviceID == pair.deviceID } ?? false }
    }

    /// Hands `event` to every subscriber of `vaultID` but its author.
    func publish(_ event: VaultEvent, to vaultID: UUID) {
        let subscribers = registry.withLock { Array(($0.byVault[vaultID] ?? [:]).values) }
        for subscriber in subscribers where subscriber.deviceID != event.authorDevice && !event.liesWithin(subscriber.skipping) {
            subscriber.offer(event)
        }
    }

    /// Tells every subscriber to catch up: changes may have been missed.
    func catchUpEverywhere() {
        let subscribers = registry.withLock { $0.byVault.values.flatMap(\.values) }
        for subscriber in subscribers { subscriber.offer(VaultEvent(type: .catchUp)) }
    }

    /// Tells subscriptions whose token expired before `now` so: one sweep for all of them, instead
    /// of a timer per connection.
    func expire(before now: Date) {
        let subscribers = registry.withLock { $0.byVault.values.flatMap(\.values) }
        for subscriber in subscribers {
            if let expiry = subscriber.expiresAt, expiry <= now { subscriber.end(.expired) }
        }
    }

    /// Tells `deviceID`'s subscriptions that their token no longer holds (the device was revoked).
    func endSubscriptions(of deviceID: UUID) {
        let subscribers = ending(.device(deviceID)) { $0.values.flatMap(\.values) }
        for subscriber in subscribers where subscriber.deviceID == deviceID { subscriber.end(.expired) }
    }

    /// Tells the subscriptions of session `sessionID` that their token no longer holds (a logout,
    /// a password change, a reused refresh token).
    func endSession(_ sessionID: UUID) {
        let subscribers = ending(.session(sessionID)) { $0.values.flatMap(\.values) }
        for subscriber in subscribers where subscriber.sessionID == sessionID { subscriber.end(.expired) }
    }

    /// Tells the subscriptions of `vaultID` that the vault was deleted.
    func endVault(_ vaultID: UUID) {
        let subscribers = ending(.vault(vaultID)) { Array(($0[vaultID] ?? [:]).values) }
        for subscriber in subscribers { subscriber.end(.vaultDeleted) }
    }

    /// Tells `userID`'s subscriptions to `vaultID` that they are no longer a member of it.
    func endMembership(vaultID: UUID, userID: UUID, at now: ContinuousClock.Instant = .now) {
        let subscribers = registry.withLock { registry in
            registry.membershipEnds = registry.membershipEnds.filter { now - $0.value < Self.membershipMemory }
            registry.membershipEnds[Membership(vault: vaultID, user: userID)] = now
            return Array((registry.byVault[vaultID] ?? [:]).values)
        }
        for subscriber in subscribers where subscriber.userID == userID { subscriber.end(.membershipEnded) }
    }

    /// Records `ending` and picks the subscriptions it may end, in one step: a later
    /// ``subscribe(vaultID:deviceID:sessionID:expiresAt:)`` sees the record.
    private func ending(_ ending: Ending, pick: ([UUID: [Int: Subscription]]) -> [Subscription]) -> [Subscription] {
        registry.withLock { registry in
            registry.ended.insert(ending)
            return pick(registry.byVault)
        }
    }

    /// Ends every subscription (server shutdown).
    func finishAll() {
        let subscribers = registry.withLock { $0.byVault.values.flatMap(\.values) }
        for subscriber in subscribers { subscriber.cancel() }
    }

    private func remove(vaultID: UUID, id: Int) {
        registry.withLock { registry in
            guard registry.byVault[vaultID]?.removeValue(forKey: id) != nil else { return }
            registry.count -= 1
            if registry.byVault[vaultID]?.isEmpty == true { registry.byVault[vaultID] = nil }
        }
    }
}

/// The last `capacity` endings, oldest forgotten first: enough to cover the moment between a
/// request's checks and its subscription, without growing for ever.
private struct RecentlyEnded<Element: Hashable> {
    let capacity: Int
    private var members: Set<Element> = []
    private var order: [Element] = []
    private var oldest = 0

    init(capacity: Int) { self.capacity = capacity }

    func contains(_ element: Element) -> Bool { members.contains(element) }

    mutating func insert(_ element: Element) {
        guard members.insert(element).inserted else { return }
        if order.count < capacity {
            order.append(element)
        } else {
            members.remove(order[oldest])
            order[oldest] = element
            oldest = (oldest + 1) % capacity
        }
    }
}

/// One device's view of the feed. Events that arrive faster than the connection sends them fold
/// into one pending message (``VaultEvent/absorb(_:)``): a burst of a thousand confirms queues one
/// message, not a thousand.
final class Subscription: Sendable {
    /// What ``next()`` hands over.
    enum Delivery: Equatable {
        case event(VaultEvent)
        /// The subscriber's access token expired, or its device was revoked.
        case expired
        /// The vault was deleted.
        case vaultDeleted
        /// The subscriber's user is no longer a member of the vault.
        case membershipEnded
    }

    let userID: UUID
    let deviceID: UUID
    /// The session whose access token opened it (nil for a caller that named none).
    let sessionID: UUID?
    let expiresAt: Date?
    /// Folders (`Archive/`) whose changes the subscriber does not hear of.
    let skipping: [String]
    private let pending = Mutex<(event: VaultEvent?, end: Delivery?)>((nil, nil))
    private let signals: AsyncStream<Void>
    private let signal: AsyncStream<Void>.Continuation
    private let onCancel: @Sendable () -> Void

    fileprivate init(userID: UUID, deviceID: UUID, sessionID: UUID?, expiresAt: Date?, skipping: [String], onCancel: @escaping @Sendable () -> Void) {
        self.userID = userID
        self.skipping = skipping
        self.deviceID = deviceID
        self.sessionID = sessionID
        self.expiresAt = expiresAt
        self.onCancel = onCancel
        // One buffered signal at most: the pending event holds what the signals stand for.
        (signals, signal) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    fileprivate func offer(_ event: VaultEvent) {
        pending.withLock { pending in
            if pending.event == nil { pending.event = event } else { pending.event!.absorb(event) }
        }
        signal.yield()
    }

    /// Ends the subscription with `reason` (``Delivery/expired``, ``Delivery/vaultDeleted`` or
    /// ``Delivery/membershipEnded``):
    /// ``next()`` hands it over instead of any further event.
    fileprivate func end(_ reason: Delivery) {
        pending.withLock { $0.end = $0.end ?? reason }
        signal.yield()
    }

    /// The next (coalesced) event, or why the subscription ended; nil once cancelled.
    func next() async -> Delivery? {
        for await _ in signals {
            let delivery: Delivery? = pending.withLock { pending in
                if let end = pending.end { return end }
                defer { pending.event = nil }
                return pending.event.map { .event($0) }
            }
            if let delivery { return delivery }
        }
        return nil
    }

    /// ``next()``, waiting at most `seconds` (nil then), or until the server shuts down (nil too).
    func next(waitingAtMost seconds: Int) async -> Delivery? {
        await withGracefulShutdownHandler {
            await withTaskGroup(of: Delivery?.self) { group in
                group.addTask { await self.next() }
                group.addTask {
                    try? await Task.sleep(for: .seconds(seconds))
                    return nil
                }
                let first = await group.next() ?? nil
                group.cancelAll()
                return first
            }
        } onGracefulShutdown: {
            self.cancel()
        }
    }

    /// Leaves the feed; a waiting ``next()`` returns nil.
    func cancel() {
        signal.finish()
        onCancel()
    }
}
