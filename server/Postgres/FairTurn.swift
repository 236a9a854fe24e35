import Foundation

/// Who gets a freed connection when several wait: the waiter whose requester used the fewest
/// connections lately (a count that halves every ``halfLife``), the oldest waiter among equals. A
/// device that asks now and then (a watcher's sync of one edit) is served before devices that ask
/// back to back (a first upload, a load generator's two hundred), which wait for each other as
/// before; every statement of its request keeps that place, not only the first. A waiter that
/// has waited `patience` or longer goes first (the oldest such), so none starves. Pure.
enum FairTurn {
    struct Waiting: Equatable {
        /// Whose request it is (``PostgresPool/requester``); nil for requests of no one in
        /// particular, which share one count.
        let requester: Int?
        let waited: Duration
        /// The requester's recent use (``Usage/now(_:)``).
        let usage: Double
    }

    /// How fast a use is forgotten.
    static let halfLife = Duration.seconds(1)

    /// The index in `waiting` (oldest first) of the waiter served next; nil when none waits.
    static func next(_ waiting: [Waiting], patience: Duration) -> Int? {
        guard !waiting.isEmpty else { return nil }
        if let overdue = waiting.firstIndex(where: { $0.waited >= patience }) { return overdue }
        var best = 0
        for index in waiting.indices.dropFirst() where waiting[index].usage < waiting[best].usage { best = index }
        return best
    }

    /// A requester's uses of the pool, each counting 1 when made and half as much every ``halfLife``.
    struct Usage: Equatable {
        var count: Double
        var at: ContinuousClock.Instant

        /// The count at `now`.
        func now(_ now: ContinuousClock.Instant) -> Double {
            count * pow(0.5, max(0, (now - at) / FairTurn.halfLife))
        }

        /// One more use at `now`.
        func adding(at now: ContinuousClock.Instant) -> Usage {
            Usage(count: self.now(now) + 1, at: now)
        }
    }
}
